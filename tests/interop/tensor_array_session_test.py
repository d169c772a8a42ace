"""tf.compat.v1 graphs built on TensorArrays (control flow v1: Enter/Exit/
Switch/Merge/NextIteration, TensorArray*V3 handles and flows): TensorFlow's
Session and `tributary run` on the same GraphDef must give the same values.

* tf.compat.v1.nn.dynamic_rnn with an LSTMCell (TF 2.21 keeps the v1 cells
  in tensorflow.python.ops.rnn_cell_impl; tf.compat.v1.nn.rnn_cell needs
  tf_keras, which the venv lacks), forward: outputs and final state;
* the same LSTM trained with GradientDescent for a few steps: the gradient
  of the v1 while loop uses TensorArrayGradV3 and keeps the forward values
  on StackV2/StackPushV2/StackPopV2; the time-major transposes add
  InvertPermutation, the LSTM's concat ConcatOffset;
* tf.map_fn and tf.scan over a tensor, and their gradients;
* a tf.compat.v1.while_loop over a hand-made TensorArray (unstack, read,
  write into a dynamically sized array, stack, concat and split);
* errors: reading an index never written (element shape unknown), writing
  an index twice and an uneven split into an array of identical element
  shapes are INVALID_ARGUMENT on both sides.

Weights are constants from a fixed numpy seed; inputs are fed from .npy
files (--feed name=@file.npy). After k steps the fetched loss is the loss of
step k (computed before that step's update). Tolerance: rtol 1e-5,
atol 1e-6 (summation orders differ, nothing else).
"""
import os
import subprocess
import sys
import tempfile
import unittest
import json

os.environ["TF_ENABLE_ONEDNN_OPTS"] = "0"  # TF's reference CPU kernels
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

sys.path.insert(0, "tests/interop")  # cwd is the runfiles root

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
from tensorflow.python.ops import rnn_cell_impl  # noqa: E402

from session_oracle_test import BINARY, from_json, run_tf  # noqa: E402

tf1 = tf.compat.v1
tf1.disable_control_flow_v2()  # Enter/Exit/... and TensorArray*V3, as TF1

RTOL, ATOL = 1e-5, 1e-6
BATCH, STEPS, FEATURES, UNITS = 3, 5, 4, 6
TA_OPS = {"TensorArrayV3", "TensorArrayScatterV3", "TensorArrayReadV3",
          "TensorArrayWriteV3", "TensorArrayGatherV3", "Enter", "Exit",
          "NextIteration"}


def lstm_graph(train):
    """dynamic_rnn over an LSTMCell with constant weights; with `train`, a
    squared loss minimised by GradientDescent."""
    rng = np.random.default_rng(1313)
    kernel = (rng.standard_normal((FEATURES + UNITS, 4 * UNITS)) * 0.3
              ).astype(np.float32)
    g = tf.Graph()
    with g.as_default():
        x = tf1.placeholder(tf.float32, [BATCH, STEPS, FEATURES], name="x")
        cell = rnn_cell_impl.LSTMCell(
            UNITS, initializer=tf1.constant_initializer(kernel))
        outputs, state = tf1.nn.dynamic_rnn(cell, x, dtype=tf.float32)
        tf.identity(outputs, name="outputs")
        tf.identity(state.c, name="final_c")
        tf.identity(state.h, name="final_h")
        if train:
            target = tf1.placeholder(tf.float32, [BATCH, STEPS, UNITS],
                                     name="target")
            loss = tf.reduce_mean(tf.square(outputs - target), name="loss")
            train_op = tf1.train.GradientDescentOptimizer(0.5).minimize(
                loss, name="train")
            with tf1.control_dependencies([train_op]):
                for v in tf1.trainable_variables():
                    tf.identity(v.read_value(),
                                name=v.op.name.replace("/", "_") + "_after")
        tf1.variables_initializer(tf1.global_variables(), name="init")
    feeds = {"x": rng.standard_normal((BATCH, STEPS, FEATURES)).astype(np.float32)}
    if train:
        feeds["target"] = (rng.standard_normal((BATCH, STEPS, UNITS)) * 0.5
                           ).astype(np.float32)
    return g, feeds


class TensorArraySessionTest(unittest.TestCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory()

    def tearDown(self):
        self._tmp.cleanup()

    def run_cli(self, graph_def, feeds, fetches, targets=(), inits=(), steps=1):
        """`tributary run` with .npy feeds: ("ok", {name: json}) or
        ("error", code name)."""
        graph_path = os.path.join(self._tmp.name, "graph.pb")
        with open(graph_path, "wb") as f:
            f.write(graph_def.SerializeToString())
        args = [BINARY, "run", "--graph", graph_path]
        for name, value in feeds.items():
            path = os.path.join(self._tmp.name, name + ".npy")
            np.save(path, value)
            args += ["--feed", f"{name}=@{path}"]
        for f in fetches:
            args += ["--fetch", f]
        for t in targets:
            args += ["--run-target", t]
        for i in inits:
            args += ["--init", i]
        args += ["--steps", str(steps)]
        proc = subprocess.run(args, capture_output=True, text=True, timeout=120)
        try:
            out = json.loads(proc.stdout)
        except json.JSONDecodeError as e:
            raise AssertionError(f"tributary printed no JSON (exit "
                                 f"{proc.returncode}): {proc.stdout!r} "
                                 f"{proc.stderr!r}") from e
        if "error" in out:
            return "error", out["error"]["code"]
        self.assertEqual(proc.returncode, 0, proc.stderr)
        return "ok", out["fetches"]

    def check(self, graph, feeds, fetches, expected_ops, targets=(),
              inits=(), steps=1):
        graph_def = graph.as_graph_def()
        ops = {n.op for n in graph_def.node}
        self.assertTrue(set(expected_ops) <= ops, sorted(set(expected_ops) - ops))
        tf_kind, want = run_tf(graph_def, feeds, fetches, targets, inits, steps)
        self.assertEqual(tf_kind, "ok", want)
        kind, got = self.run_cli(graph_def, feeds, fetches, targets, inits, steps)
        self.assertEqual(kind, "ok", got)
        for name, expected in zip(fetches, want):
            expected = np.asarray(expected)
            dtype, value = from_json(got[name])
            self.assertEqual(dtype, "DT_" + expected.dtype.name.upper()
                             .replace("FLOAT32", "FLOAT").replace("FLOAT64", "DOUBLE"),
                             name)
            self.assertEqual(value.shape, expected.shape, name)
            np.testing.assert_allclose(value, expected, rtol=RTOL, atol=ATOL,
                                       err_msg=name)
        return want

    def check_error(self, graph, feeds, fetches, code):
        graph_def = graph.as_graph_def()
        self.assertEqual(run_tf(graph_def, feeds, fetches), ("error", code))
        self.assertEqual(self.run_cli(graph_def, feeds, fetches), ("error", code))

    def test_dynamic_rnn_lstm_forward(self):
        g, feeds = lstm_graph(train=False)
        want = self.check(g, feeds, ["outputs", "final_c", "final_h"], TA_OPS,
                          inits=["init"])
        self.assertGreater(np.abs(want[0]).max(), 1e-2)

    def test_dynamic_rnn_lstm_training(self):
        g, feeds = lstm_graph(train=True)
        after = [n.name for n in g.as_graph_def().node if n.name.endswith("_after")]
        self.assertEqual(len(after), 2)  # kernel and bias
        fetches = ["loss"] + after
        expected = TA_OPS | {"TensorArrayGradV3", "StackV2", "StackPushV2",
                             "StackPopV2", "InvertPermutation", "ConcatOffset"}
        losses = []
        for steps in (1, 3):
            with self.subTest(steps=steps):
                want = self.check(g, feeds, fetches, expected, targets=["train"],
                                  inits=["init"], steps=steps)
                losses.append(float(want[0]))
        self.assertLess(losses[-1], losses[0])

    def test_map_fn_and_scan(self):
        rng = np.random.default_rng(7)
        g = tf.Graph()
        with g.as_default():
            x = tf1.placeholder(tf.float32, [STEPS, BATCH, FEATURES], name="x")
            tf.identity(tf.map_fn(lambda r: tf.reduce_sum(r * r, axis=1) + 1.0, x),
                        name="mapped")
            tf.identity(tf.scan(lambda acc, r: acc * 0.5 + tf.tanh(r), x),
                        name="scanned")
            tf.identity(tf.scan(lambda acc, r: acc + tf.reduce_sum(r), x,
                                initializer=tf.constant(0.0)), name="running_sum")
        feeds = {"x": rng.standard_normal((STEPS, BATCH, FEATURES)).astype(np.float32)}
        self.check(g, feeds, ["mapped", "scanned", "running_sum"],
                   {"TensorArrayV3", "TensorArrayScatterV3", "TensorArrayReadV3",
                    "TensorArrayWriteV3", "TensorArrayGatherV3"})

    def test_map_fn_and_scan_gradients(self):
        rng = np.random.default_rng(9)
        g = tf.Graph()
        with g.as_default():
            x = tf1.placeholder(tf.float32, [STEPS, BATCH, FEATURES], name="x")
            mapped = tf.map_fn(lambda r: tf.sin(r) * r, x)
            scanned = tf.scan(lambda acc, r: acc * tf.tanh(r) + r, x)
            loss = tf.reduce_sum(mapped * mapped) + tf.reduce_sum(scanned)
            tf.identity(tf.gradients(loss, x)[0], name="dx")
        feeds = {"x": rng.standard_normal((STEPS, BATCH, FEATURES)).astype(np.float32)}
        self.check(g, feeds, ["dx"], {"TensorArrayGradV3", "StackPushV2",
                                      "StackPopV2"})

    def test_while_loop_tensor_array(self):
        rng = np.random.default_rng(8)
        g = tf.Graph()
        with g.as_default():
            x = tf1.placeholder(tf.float32, [STEPS, 2, 3], name="x")
            source = tf.TensorArray(tf.float32, size=STEPS).unstack(x)
            # Dynamically sized, written past its initial size; read twice
            # (stack and concat), so not cleared after a read.
            out = tf.TensorArray(tf.float32, size=0, dynamic_size=True,
                                 clear_after_read=False)

            def body(i, acc, out):
                acc = acc * 0.5 + source.read(i)
                return i + 1, acc, out.write(i, acc)

            _, _, out = tf1.while_loop(lambda i, a, o: i < STEPS, body,
                                       [tf.constant(0), tf.zeros([2, 3]), out])
            tf.identity(out.stack(), name="stacked")
            tf.identity(out.size(), name="size")
            # Concat along dimension 0, then split it again unevenly.
            concat = out.concat()
            tf.identity(concat, name="concat")
            # Elements of different shapes: infer_shape=False.
            split = tf.TensorArray(tf.float32, size=3, infer_shape=False).split(
                concat, tf.constant([2, 5, 3], tf.int64))
            tf.identity(split.read(1), name="split_1")
        feeds = {"x": rng.standard_normal((STEPS, 2, 3)).astype(np.float32)}
        self.check(g, feeds, ["stacked", "size", "concat", "split_1"],
                   TA_OPS | {"TensorArraySizeV3", "TensorArrayConcatV3",
                             "TensorArraySplitV3"})

    def test_read_unwritten_index_is_invalid_argument(self):
        g = tf.Graph()
        with g.as_default():
            ta = tf.TensorArray(tf.float32, size=2, infer_shape=False)
            ta = ta.write(0, tf.constant([1.0, 2.0]))
            tf.identity(ta.read(1), name="value")
        self.check_error(g, {}, ["value"], "INVALID_ARGUMENT")

    def test_uneven_split_of_identical_shapes_is_invalid_argument(self):
        g = tf.Graph()
        with g.as_default():
            ta = tf.TensorArray(tf.float32, size=2).split(  # infer_shape=True
                tf.constant([1.0, 2.0, 3.0]), tf.constant([1, 2], tf.int64))
            tf.identity(ta.read(1), name="value")
        self.check_error(g, {}, ["value"], "INVALID_ARGUMENT")

    def test_write_twice_is_invalid_argument(self):
        g = tf.Graph()
        with g.as_default():
            ta = tf.TensorArray(tf.float32, size=2)
            ta = ta.write(0, tf.constant(1.0)).write(0, tf.constant(2.0))
            tf.identity(ta.read(0), name="value")
        self.check_error(g, {}, ["value"], "INVALID_ARGUMENT")


if __name__ == "__main__":
    unittest.main()
