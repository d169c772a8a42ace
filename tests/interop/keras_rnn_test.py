"""Frozen Keras recurrent models: TensorFlow's Session and `tributary run` on
the same frozen GraphDef must give the same outputs.

Each model (LSTM with and without return_sequences, stacked LSTMs, GRU,
SimpleRNN, Bidirectional(SimpleRNN) and Bidirectional(LSTM) returning
sequences) is built by Keras 3 with its own initialisers (seeded), then
frozen the way a deployment would:

    f = tf.function(lambda x: model(x, training=False))
    cf = f.get_concrete_function(tf.TensorSpec(shape, tf.float32))
    frozen = convert_variables_to_constants_v2(cf)

which lowers Keras' functional While into Enter/Exit/Switch/Merge/
NextIteration and keeps the per-step tensors in TensorLists
(TensorListFromTensor/Reserve/GetItem/SetItem/Stack, DT_VARIANT handles);
Bidirectional adds ReverseV2. A tf.while_loop writing a tf.TensorArray
inside a tf.function freezes to the same ops. The input is fixed numpy data
fed from a .npy file; outputs come back in an .npz (--output).
Tolerance: rtol 1e-5, atol 1e-6 (summation orders differ, nothing else).
"""
import os
import subprocess
import sys
import tempfile
import unittest

# TensorFlow's reference CPU kernels, not its oneDNN rewrites.
os.environ["TF_ENABLE_ONEDNN_OPTS"] = "0"
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

sys.path.insert(0, "tests/interop")  # cwd is the runfiles root

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
import keras  # noqa: E402
from tensorflow.python.framework.convert_to_constants import (  # noqa: E402
    convert_variables_to_constants_v2)

from session_oracle_test import BINARY, run_tf  # noqa: E402

RTOL, ATOL = 1e-5, 1e-6
BATCH, STEPS, FEATURES = 3, 6, 4
LIST_OPS = {"TensorListFromTensor", "TensorListGetItem", "TensorListReserve",
            "TensorListSetItem", "TensorListStack"}


def freeze(fn, shape):
    """(GraphDef, input name, output name) of `fn` frozen for `shape`."""
    cf = tf.function(fn).get_concrete_function(tf.TensorSpec(shape, tf.float32))
    frozen = convert_variables_to_constants_v2(cf)
    inputs = [t.name for t in frozen.inputs if t.dtype == tf.float32]
    return frozen.graph.as_graph_def(), inputs[0], frozen.outputs[0].name


def keras_model(*layers):
    keras.utils.set_random_seed(13)
    model = keras.Sequential([keras.Input((STEPS, FEATURES))] + list(layers))
    return lambda x: model(x, training=False)


def run_ours(graph_path, x_path, feed, fetch, out_path):
    args = [BINARY, "run", "--graph", graph_path,
            "--feed", f"{feed.split(':')[0]}=@{x_path}",
            "--fetch", fetch, "--output", out_path]
    proc = subprocess.run(args, capture_output=True, text=True, timeout=120)
    if proc.returncode != 0:
        raise AssertionError(f"tributary run failed (exit {proc.returncode}): "
                             f"{proc.stdout} {proc.stderr}")
    with np.load(out_path) as npz:
        return npz[npz.files[0]]


class KerasRnnTest(unittest.TestCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory()
        rng = np.random.default_rng(2026)
        self.x = rng.standard_normal((BATCH, STEPS, FEATURES)).astype(np.float32)

    def tearDown(self):
        self._tmp.cleanup()

    def check(self, fn, expected_ops=LIST_OPS):
        graph_def, feed, fetch = freeze(fn, self.x.shape)
        ops = {n.op for n in graph_def.node}
        self.assertTrue(expected_ops <= ops, sorted(expected_ops - ops))
        self.assertIn("NextIteration", ops)  # lowered control flow
        graph_path = os.path.join(self._tmp.name, "frozen.pb")
        with open(graph_path, "wb") as f:
            f.write(graph_def.SerializeToString())
        x_path = os.path.join(self._tmp.name, "x.npy")
        np.save(x_path, self.x)
        kind, want = run_tf(graph_def, {feed.split(":")[0]: self.x}, [fetch])
        self.assertEqual(kind, "ok", want)
        want = np.asarray(want[0])
        got = run_ours(graph_path, x_path, feed, fetch,
                       os.path.join(self._tmp.name, "out.npz"))
        self.assertEqual(got.dtype, np.float32)
        self.assertEqual(got.shape, want.shape)
        np.testing.assert_allclose(got, want, rtol=RTOL, atol=ATOL)
        # The model computes something: not all zeros.
        self.assertGreater(np.abs(want).max(), 1e-3)

    def test_lstm_last_output(self):
        self.check(keras_model(keras.layers.LSTM(5)))

    def test_lstm_return_sequences(self):
        self.check(keras_model(keras.layers.LSTM(5, return_sequences=True)))

    def test_stacked_lstm(self):
        self.check(keras_model(keras.layers.LSTM(5, return_sequences=True),
                               keras.layers.LSTM(3)))

    def test_gru(self):
        self.check(keras_model(keras.layers.GRU(5)))

    def test_gru_return_sequences(self):
        self.check(keras_model(keras.layers.GRU(4, return_sequences=True)))

    def test_simple_rnn(self):
        self.check(keras_model(keras.layers.SimpleRNN(5)))

    def test_bidirectional_simple_rnn(self):
        self.check(keras_model(keras.layers.Bidirectional(keras.layers.SimpleRNN(4))),
                   LIST_OPS | {"ReverseV2"})

    def test_bidirectional_lstm_sequences(self):
        self.check(keras_model(keras.layers.Bidirectional(
            keras.layers.LSTM(3, return_sequences=True))), LIST_OPS | {"ReverseV2"})

    def test_while_loop_tensor_array(self):
        # TF2's TensorArray is a TensorList: a running mean written per step.
        def fn(x):
            steps = tf.shape(x)[1]
            ta = tf.TensorArray(tf.float32, size=steps)

            def body(i, acc, ta):
                acc = acc * 0.5 + x[:, i, :]
                return i + 1, acc, ta.write(i, acc)

            _, _, ta = tf.while_loop(lambda i, a, t: i < steps, body,
                                     [tf.constant(0), tf.zeros_like(x[:, 0, :]), ta])
            return ta.stack()

        self.check(fn, {"TensorListReserve", "TensorListSetItem", "TensorListStack"})


if __name__ == "__main__":
    unittest.main()
