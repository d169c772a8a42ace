"""SavedModels written by TensorFlow, loaded and run by `tributary run
--saved-model` and listed by `tributary inspect DIR`, against TensorFlow's own
loader as the oracle.

Keras models saved with tf.saved_model.save (Sequential, functional,
subclassed with a Python loop inside a tf.function, an LSTM, an Embedding
model): the serving_default outputs equal tf.saved_model.load's (rtol 1e-5).
Their variables come back through the object graph (Keras 3's signatures
read other handles than the saver_def restores; TensorFlow's TF1 loader
fails on them, see common/runtime/saved_model/object_graph_restore.h).

A TF1 SavedModel (tf.compat.v1.saved_model.Builder, a Saver, ref and
resource variables, an asset file, a legacy init op) runs both signatures it
has, the asset path arriving as DIR/assets/vocab.txt.

`tributary inspect DIR` prints what `saved_model_cli show --all` prints for
the tag sets and SignatureDefs, and --json lists the same keys, tensor
names, dtypes and shapes TensorFlow reads from saved_model.pb.

Errors: a missing directory or saved_model.pb, an unknown tag set or
signature (NOT_FOUND, exit 2), a missing or unknown input key and a wrong
dtype (INVALID_ARGUMENT, exit 2), corrupt variables (DATA_LOSS, exit 1).
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
import keras  # noqa: E402
from tensorflow.core.framework import types_pb2  # noqa: E402
from tensorflow.core.protobuf import saved_model_pb2  # noqa: E402

tf1 = tf.compat.v1
BINARY = os.path.join("tools", "tributary")
RTOL, ATOL = 1e-5, 1e-6


def tributary(*args):
    """Runs the CLI: (exit status, parsed JSON stdout or None, stdout, stderr)."""
    proc = subprocess.run([BINARY, *args], capture_output=True, text=True, timeout=300)
    try:
        out = json.loads(proc.stdout)
    except json.JSONDecodeError:
        out = None
    return proc.returncode, out, proc.stdout, proc.stderr


def sequential():
    return keras.Sequential([keras.Input((6,)), keras.layers.Dense(8, activation="relu"),
                             keras.layers.Dense(3, activation="softmax")])


def functional():
    a = keras.Input((5,), name="a")
    b = keras.Input((3,), name="b")
    h = keras.layers.Concatenate()([keras.layers.Dense(4, activation="tanh")(a), b])
    out = keras.layers.Dense(2)(h)
    aux = keras.layers.Dense(1, activation="sigmoid")(h)
    return keras.Model([a, b], [out, aux])


class LoopModel(keras.Model):
    """Subclassed: a Python loop unrolled inside the tf.function."""

    def __init__(self):
        super().__init__()
        self.dense = keras.layers.Dense(4)
        self.out = keras.layers.Dense(2)

    @tf.function
    def call(self, x):
        h = self.dense(x)
        for _ in range(3):
            h = tf.tanh(h) * 1.5 + 0.1
        return self.out(h)


def lstm():
    return keras.Sequential([keras.Input((5, 3)), keras.layers.LSTM(6),
                             keras.layers.Dense(2)])


def embedding():
    return keras.Sequential([keras.Input((4,), dtype="int32"),
                             keras.layers.Embedding(20, 5),
                             keras.layers.GlobalAveragePooling1D(),
                             keras.layers.Dense(3)])


def inputs_for(signature, rng):
    """Random values for every input of a serving signature."""
    values = {}
    for key, spec in signature.structured_input_signature[1].items():
        shape = [2 if d is None else d for d in spec.shape]
        if spec.dtype.is_integer:
            values[key] = rng.integers(0, 20, size=shape).astype(spec.dtype.as_numpy_dtype)
        else:
            values[key] = rng.standard_normal(shape).astype(spec.dtype.as_numpy_dtype)
    return values


def read_saved_model(path):
    sm = saved_model_pb2.SavedModel()
    with open(os.path.join(path, "saved_model.pb"), "rb") as f:
        sm.ParseFromString(f.read())
    return sm


def build_tf1_model(path):
    """tf.compat.v1 Builder: ref + resource variables, a Saver, an asset
    file whose path a legacy init op stores in a variable, two signatures."""
    vocab = os.path.join(os.path.dirname(path), "vocab.txt")
    with open(vocab, "w") as f:
        f.write("alpha\nbeta\n")
    g = tf.Graph()
    with g.as_default():
        x = tf1.placeholder(tf.float32, [None, 3], name="x")
        w = tf1.get_variable("w", initializer=tf.constant(
            np.arange(6, dtype=np.float32).reshape(3, 2) / 10), use_resource=False)
        b = tf1.get_variable("b", initializer=tf.constant([0.5, -0.5]),
                             use_resource=True)
        y = tf.nn.relu(tf.matmul(x, w) + b, name="y")
        scale = tf1.placeholder_with_default(tf.constant(2.0), [], name="scale")
        z = tf.identity(tf.reduce_sum(y, axis=1) * scale, name="z")
        asset = tf.constant(vocab, name="asset_path")
        tf1.add_to_collection(tf1.GraphKeys.ASSET_FILEPATHS, asset)
        path_var = tf1.get_variable("asset_seen", initializer="", use_resource=True,
                                    dtype=tf.string)
        init_op = tf.group(path_var.assign(asset), name="legacy_init")
        with tf1.Session() as sess:
            sess.run(tf1.global_variables_initializer())
            sess.run(w.assign(w * 3.0))  # saved values differ from initial
            builder = tf1.saved_model.Builder(path)
            info = tf1.saved_model.utils.build_tensor_info
            predict = tf1.saved_model.signature_def_utils.build_signature_def(
                inputs={"x": info(x), "scale": info(scale)},
                outputs={"y": info(y), "z": info(z)},
                method_name="tensorflow/serving/predict")
            asset_sig = tf1.saved_model.signature_def_utils.build_signature_def(
                inputs={}, outputs={"path": info(path_var.read_value())},
                method_name="tensorflow/serving/predict")
            builder.add_meta_graph_and_variables(
                sess, ["serve"],
                signature_def_map={"serving_default": predict, "asset": asset_sig},
                assets_collection=tf1.get_collection(tf1.GraphKeys.ASSET_FILEPATHS),
                main_op=init_op, saver=tf1.train.Saver([w, b]))
            builder.save()


class SavedModelTest(unittest.TestCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory()
        self.tmp = self._tmp.name
        keras.utils.set_random_seed(7)

    def tearDown(self):
        self._tmp.cleanup()

    def save_keras(self, model, name, sample):
        model(sample)  # builds subclassed models
        path = os.path.join(self.tmp, name)
        tf.saved_model.save(model, path)
        return path

    def run_signature(self, path, inputs, signature="serving_default", extra=()):
        args = ["run", "--saved-model", path, "--signature", signature, *extra]
        for key, value in inputs.items():
            npy = os.path.join(self.tmp, f"in_{key}.npy")
            np.save(npy, value)
            args += ["--input", f"{key}=@{npy}"]
        out_path = os.path.join(self.tmp, "out.npz")
        if os.path.exists(out_path):
            os.remove(out_path)
        code, out, stdout, stderr = tributary(*args, "--output", out_path)
        self.assertEqual(code, 0, f"{stdout} {stderr}")
        with np.load(out_path) as npz:
            return {k: npz[k] for k in out["fetches"]}

    def check_keras(self, path):
        loaded = tf.saved_model.load(path)
        sig = loaded.signatures["serving_default"]
        inputs = inputs_for(sig, np.random.default_rng(3))
        want = {k: v.numpy() for k, v in sig(**{k: tf.constant(v) for k, v in
                                                 inputs.items()}).items()}
        got = self.run_signature(path, inputs)
        self.assertEqual(sorted(got), sorted(want))
        for key in want:
            with self.subTest(output=key):
                np.testing.assert_allclose(got[key], want[key], rtol=RTOL, atol=ATOL)
        self.check_inspect(path)

    def check_inspect(self, path):
        sm = read_saved_model(path)
        code, out, stdout, stderr = tributary("inspect", path, "--json")
        self.assertEqual(code, 0, stderr)
        self.assertEqual(len(out["meta_graphs"]), len(sm.meta_graphs))
        for ours, theirs in zip(out["meta_graphs"], sm.meta_graphs):
            self.assertEqual(ours["tags"], list(theirs.meta_info_def.tags))
            self.assertEqual(sorted(ours["signatures"]), sorted(theirs.signature_def))
            for key, sig in theirs.signature_def.items():
                mine = ours["signatures"][key]
                self.assertEqual(mine["method_name"], sig.method_name)
                for kind, infos in (("inputs", sig.inputs), ("outputs", sig.outputs)):
                    self.assertEqual(sorted(mine[kind]), sorted(infos))
                    for k, info in infos.items():
                        shape = (None if info.tensor_shape.unknown_rank else
                                 [d.size for d in info.tensor_shape.dim])
                        self.assertEqual(mine[kind][k], {
                            "name": info.name,
                            "dtype": types_pb2.DataType.Name(info.dtype),
                            "shape": shape})
        # The text form is saved_model_cli's, less its op list and the
        # Concrete Functions part (Python's object graph).
        cli = os.path.join(os.path.dirname(sys.executable), "saved_model_cli")
        theirs = subprocess.run([cli, "show", "--dir", path, "--all"],
                                capture_output=True, text=True, timeout=300).stdout
        theirs = theirs.split("\nConcrete Functions:")[0]
        theirs = "\n".join(line for line in theirs.split("\n")
                           if not line.startswith("The MetaGraph with tag set"))
        code, _, ours, stderr = tributary("inspect", path)
        self.assertEqual(code, 0, stderr)
        self.assertEqual(ours.strip(), theirs.strip())

    def test_keras_sequential(self):
        self.check_keras(self.save_keras(sequential(), "seq", np.zeros((1, 6), np.float32)))

    def test_keras_functional_two_inputs_two_outputs(self):
        self.check_keras(self.save_keras(
            functional(), "func", [np.zeros((1, 5), np.float32), np.zeros((1, 3), np.float32)]))

    def test_keras_subclassed_with_python_loop(self):
        self.check_keras(self.save_keras(LoopModel(), "sub", np.zeros((1, 3), np.float32)))

    def test_keras_lstm(self):
        self.check_keras(self.save_keras(lstm(), "lstm", np.zeros((1, 5, 3), np.float32)))

    def test_keras_embedding(self):
        self.check_keras(self.save_keras(embedding(), "emb", np.zeros((1, 4), np.int32)))

    def test_tf1_builder_with_saver_asset_and_init_op(self):
        path = os.path.join(self.tmp, "tf1", "model")
        os.makedirs(os.path.dirname(path))
        build_tf1_model(path)
        x = np.array([[1, 2, 3], [-1, 0, 4]], np.float32)
        g = tf.Graph()
        with tf1.Session(graph=g) as sess:
            meta = tf1.saved_model.loader.load(sess, ["serve"], path)
            sig = meta.signature_def["serving_default"]
            want = sess.run({k: v.name for k, v in sig.outputs.items()},
                            {sig.inputs["x"].name: x, sig.inputs["scale"].name: 0.5})
            asset_sig = meta.signature_def["asset"]
            want_path = sess.run(asset_sig.outputs["path"].name).decode()
        got = self.run_signature(path, {"x": x, "scale": np.float32(0.5)})
        for key in ("y", "z"):
            np.testing.assert_allclose(got[key], want[key], rtol=RTOL, atol=ATOL)
        code, out, stdout, stderr = tributary("run", "--saved-model", path,
                                              "--signature", "asset")
        self.assertEqual(code, 0, stdout + stderr)
        got_path = out["fetches"]["path"]["values"][0]
        self.assertTrue(os.path.isabs(got_path), got_path)
        self.assertEqual(os.path.realpath(got_path), os.path.realpath(want_path))
        self.assertEqual(os.path.realpath(got_path),
                         os.path.realpath(os.path.join(path, "assets", "vocab.txt")))
        self.check_inspect(path)

    def test_errors(self):
        path = self.save_keras(sequential(), "seq", np.zeros((1, 6), np.float32))
        x = "inputs=[[1,2,3,4,5,6]]"
        key = next(iter(tf.saved_model.load(path).signatures["serving_default"]
                        .structured_input_signature[1]))
        x = f"{key}=[[1,2,3,4,5,6]]"

        def expect(args, code, name, needle):
            status, out, stdout, stderr = tributary("run", *args)
            self.assertEqual(status, code, stdout + stderr)
            self.assertEqual(out["error"]["code"], name, out)
            self.assertIn(needle, out["error"]["message"])

        expect(["--saved-model", os.path.join(self.tmp, "nope"), "--input", x], 2,
               "NOT_FOUND", "nope")
        os.makedirs(os.path.join(self.tmp, "empty"))
        expect(["--saved-model", os.path.join(self.tmp, "empty"), "--input", x], 2,
               "NOT_FOUND", "saved_model.pb")
        expect(["--saved-model", path, "--tag", "train", "--input", x], 2,
               "NOT_FOUND", "its tag sets: {serve}")
        expect(["--saved-model", path, "--signature", "predict", "--input", x], 2,
               "NOT_FOUND", "serving_default")
        expect(["--saved-model", path], 2, "INVALID_ARGUMENT", f"needs input {key}")
        expect(["--saved-model", path, "--input", x, "--input", "other=[1]"], 2,
               "INVALID_ARGUMENT", "no input 'other'")
        expect(["--saved-model", path, "--input", f"{key}=int32:[[1,2,3,4,5,6]]"], 2,
               "INVALID_ARGUMENT", "expects DT_FLOAT")
        expect(["--saved-model", path, "--input", f"{key}=[[1,2,3]]"], 2,
               "INVALID_ARGUMENT", "expects shape")
        expect(["--saved-model", path, "--graph", "g.pb", "--input", x], 2,
               "INVALID_ARGUMENT", "exactly one of --graph and --saved-model")
        # A flipped byte in the variables' data: DATA_LOSS on both sides.
        data = os.path.join(path, "variables", "variables.data-00000-of-00001")
        with open(data, "r+b") as f:
            f.seek(4)
            byte = f.read(1)
            f.seek(4)
            f.write(bytes([byte[0] ^ 0xFF]))
        expect(["--saved-model", path, "--input", x], 1, "DATA_LOSS",
               "restoring variables")
        with self.assertRaises(tf.errors.DataLossError):
            with tf1.Session(graph=tf.Graph()) as sess:
                tf1.saved_model.loader.load(sess, ["serve"], path)

    def test_inspect_missing_directory(self):
        code, _, stdout, stderr = tributary("inspect", os.path.join(self.tmp, "nope.d"))
        self.assertEqual(code, 2)
        os.makedirs(os.path.join(self.tmp, "empty"))
        code, _, stdout, stderr = tributary("inspect", os.path.join(self.tmp, "empty"))
        self.assertEqual(code, 2)
        self.assertIn("NOT_FOUND", stderr)


if __name__ == "__main__":
    unittest.main()
