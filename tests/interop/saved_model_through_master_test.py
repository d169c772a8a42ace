"""SavedModels through the master: a real 1-ps + 2-worker cluster from
`tributary cluster up`.

* TensorFlow's own client loads a SavedModel on the cluster
  (tf.compat.v1.Session("grpc://...") + tf.compat.v1.saved_model.loader.load:
  the meta graph with its function library goes to the master by Extend, the
  saver_def's restore op and the init op run on the cluster) and runs a
  signature: a TF1 Builder model (ref and resource variables, a Saver, an
  asset, an init op) and a TF2 tf.Module saved by tf.saved_model.save (its
  restore a StatefulPartitionedCall, its signature a function with a loop).
  The values equal TensorFlow's in-process session's (rtol 1e-5).
* `tributary run --saved-model DIR --target grpc://...` loads a Keras model
  (object-graph restore) and the TF1 model on the cluster: outputs equal
  tf.saved_model.load's / TensorFlow's loader's.
"""
import os
import subprocess
import json
import sys
import tempfile
import unittest

sys.path.insert(0, "tests/interop")  # cwd is the runfiles root

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
import keras  # noqa: E402

import saved_model_test as smt  # noqa: E402
import tf_client_cluster  # noqa: E402

tf1 = tf.compat.v1
RTOL, ATOL = 1e-5, 1e-6
OPERATION_TIMEOUT_MS = 60000


class Counter(tf.Module):
    def __init__(self):
        super().__init__()
        self.w = tf.Variable(np.array([[0.5, -1.0], [2.0, 0.25]], np.float32), name="w")
        self.b = tf.Variable(np.array([0.1, -0.2], np.float32), name="b")

    @tf.function(input_signature=[tf.TensorSpec([None, 2], tf.float32)])
    def __call__(self, x):
        h = x
        for i in tf.range(3):
            h = tf.tanh(tf.matmul(h, self.w) + self.b) + tf.cast(i, tf.float32)
        return {"h": h}


def run_loaded(target, path, feeds):
    """Loads `path` with TensorFlow's TF1 loader in a session on `target` and
    runs serving_default: {output key: value}."""
    config = tf1.ConfigProto(operation_timeout_in_ms=OPERATION_TIMEOUT_MS)
    with tf1.Session(target, graph=tf.Graph(), config=config) as sess:
        meta = tf1.saved_model.loader.load(sess, ["serve"], path)
        sig = meta.signature_def["serving_default"]
        return sess.run({k: v.name for k, v in sig.outputs.items()},
                        {sig.inputs[k].name: v for k, v in feeds.items()})


@unittest.skipUnless(tf_client_cluster.cli_present(), "tools/tributary is not built")
class SavedModelThroughMasterTest(tf_client_cluster.ClusterLifecycle, unittest.TestCase):
    @classmethod
    def make_cluster(cls):
        return tf_client_cluster.CliCluster()

    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory()
        self.tmp = self._tmp.name
        keras.utils.set_random_seed(11)

    def tearDown(self):
        self._tmp.cleanup()

    def tf1_model(self):
        path = os.path.join(self.tmp, "tf1", "model")
        os.makedirs(os.path.dirname(path))
        smt.build_tf1_model(path)
        return path

    def check(self, got, want):
        self.assertEqual(sorted(got), sorted(want))
        for key in want:
            with self.subTest(output=key):
                np.testing.assert_allclose(got[key], want[key], rtol=RTOL, atol=ATOL)

    def test_tf_client_loads_tf1_saved_model(self):
        path = self.tf1_model()
        feeds = {"x": np.array([[1, 2, 3], [-1, 0, 4]], np.float32), "scale": 3.0}
        self.check(run_loaded(self.cluster.target, path, feeds), run_loaded("", path, feeds))

    def test_tf_client_loads_tf2_module(self):
        path = os.path.join(self.tmp, "module")
        tf.saved_model.save(Counter(), path)
        feeds = {"x": np.array([[1, 2], [0.5, -3]], np.float32)}
        want = run_loaded("", path, feeds)
        self.check(run_loaded(self.cluster.target, path, feeds), want)
        self.check(want, {k: v.numpy() for k, v in tf.saved_model.load(path).signatures[
            "serving_default"](tf.constant(feeds["x"])).items()})

    def cli(self, path, inputs):
        args = [smt.BINARY, "run", "--saved-model", path, "--target", self.cluster.target,
                "--config", f"operation_timeout_in_ms: {OPERATION_TIMEOUT_MS}"]
        for key, value in inputs.items():
            npy = os.path.join(self.tmp, f"{key}.npy")
            np.save(npy, value)
            args += ["--input", f"{key}=@{npy}"]
        proc = subprocess.run(args, capture_output=True, text=True, timeout=300)
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        out = json.loads(proc.stdout)["fetches"]
        return {k: np.array(v["values"], np.float32).reshape(v["shape"])
                for k, v in out.items()}

    def test_cli_runs_keras_saved_model_on_cluster(self):
        path = os.path.join(self.tmp, "keras")
        tf.saved_model.save(smt.lstm(), path)
        sig = tf.saved_model.load(path).signatures["serving_default"]
        inputs = smt.inputs_for(sig, np.random.default_rng(5))
        want = {k: v.numpy() for k, v in sig(**{k: tf.constant(v)
                                                 for k, v in inputs.items()}).items()}
        self.check(self.cli(path, inputs), want)

    def test_cli_runs_tf1_saved_model_on_cluster(self):
        path = self.tf1_model()
        feeds = {"x": np.array([[1, 2, 3], [-1, 0, 4]], np.float32),
                 "scale": np.float32(0.5)}
        self.check(self.cli(path, feeds), run_loaded("", path, feeds))


if __name__ == "__main__":
    unittest.main()
