"""A Keras model checkpointed mid-training by TensorFlow and resumed on
Tributary, and the reverse, with the loss curve of an uninterrupted run.

The model is a tf.keras Sequential (Dense tanh + Dense) inside a tf.Module
whose tf.functions train it: `train` one step of Momentum written with
variable updates (GradientTape, assign/assign_sub on the Keras variables and
the velocity slots), `train_then_save` a tf.range loop of such steps
followed by tf.train.Checkpoint.write of the model and its slots. TensorFlow
runs them eagerly; Tributary runs the same functions from the SavedModel
(`tributary run --saved-model`: the graph's StatefulPartitionedCalls
inlined, a While over the training step, SaveV2 in TensorFlow's format).

* TensorFlow trains K steps and exports the module (its variables are the
  mid-training checkpoint); `tributary run --signature train --steps j`
  restores it and runs j steps: the loss of its last step equals step K+j of
  the uninterrupted run, for j = 1..J.
* The reverse: Tributary restores the same export, trains M steps in one
  call of `train_then_save` and writes a checkpoint; TensorFlow reads it
  into a fresh module (tf.train.Checkpoint.read) and trains on: its losses
  are steps K+M+1.. of the uninterrupted run.
Both directions run twice: in `tributary run`'s local session, and through
the master of a `tributary cluster up` cluster (`--target grpc://...`: the
SavedModel's variables restored by the worker's RestoreV2, the checkpoint
written by its SaveV2, on this machine's filesystem). TensorFlow's own
client cannot load a Keras 3 SavedModel with its TF1 loader (it fails in
TensorFlow itself), so the cluster is driven by our CLI.
rtol 1e-5, atol 1e-6.
"""
import json
import os
import subprocess
import tempfile
import unittest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import sys  # noqa: E402

sys.path.insert(0, "tests/interop")  # cwd is the runfiles root

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

import tf_client_cluster  # noqa: E402

BINARY = os.path.join("tools", "tributary")
K, J, M = 3, 4, 2
RTOL, ATOL = 1e-5, 1e-6


class Trainer(tf.Module):
    def __init__(self):
        super().__init__()
        tf.keras.utils.set_random_seed(3)
        self.model = tf.keras.Sequential([
            tf.keras.Input((5,)),
            tf.keras.layers.Dense(8, activation="tanh"),
            tf.keras.layers.Dense(1)])
        self.velocity = [tf.Variable(tf.zeros_like(v))
                         for v in self.model.trainable_variables]
        self.ckpt = tf.train.Checkpoint(model=self.model,
                                        velocity=self.velocity)

    def _step(self, x, y):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(
                labels=y, logits=self.model(x)))
        grads = tape.gradient(loss, self.model.trainable_variables)
        for v, m, g in zip(self.model.trainable_variables, self.velocity,
                           grads):
            m.assign(0.9 * m + g)
            v.assign_sub(0.1 * m)
        return loss

    @tf.function(input_signature=[tf.TensorSpec([16, 5]),
                                  tf.TensorSpec([16, 1])])
    def train(self, x, y):
        return {"loss": self._step(x, y)}

    @tf.function(input_signature=[tf.TensorSpec([16, 5]),
                                  tf.TensorSpec([16, 1]),
                                  tf.TensorSpec([], tf.int32),
                                  tf.TensorSpec([], tf.string)])
    def train_then_save(self, x, y, steps, prefix):
        losses = tf.TensorArray(tf.float32, size=steps)
        for i in tf.range(steps):
            losses = losses.write(i, self._step(x, y))
        stacked = losses.stack()
        with tf.control_dependencies([stacked]):
            path = self.ckpt.write(prefix)
        return {"losses": stacked, "path": path}


def data():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((16, 5)).astype(np.float32)
    y = (x @ rng.standard_normal((5, 1)) > 0).astype(np.float32)
    return x, y


class KerasTrainingResumeTest(unittest.TestCase):
    # Extra `tributary run` flags (the cluster variant adds --target).
    target_args = ()

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.tmp = tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR"))
        cls.x, cls.y = data()
        cls.x_npy = os.path.join(cls.tmp, "x.npy")
        cls.y_npy = os.path.join(cls.tmp, "y.npy")
        np.save(cls.x_npy, cls.x)
        np.save(cls.y_npy, cls.y)
        trainer = Trainer()
        cls.full = [float(trainer.train(cls.x, cls.y)["loss"])
                    for _ in range(K + J + M)]
        trainer = Trainer()
        for _ in range(K):
            trainer.train(cls.x, cls.y)
        cls.export = os.path.join(cls.tmp, "trainer")
        tf.saved_model.save(trainer, cls.export, signatures={
            "train": trainer.train,
            "train_then_save": trainer.train_then_save})

    def tributary(self, signature, *extra):
        proc = subprocess.run(
            [BINARY, "run", "--saved-model", self.export, "--signature",
             signature, "--input", f"x=@{self.x_npy}", "--input",
             f"y=@{self.y_npy}", *self.target_args, *extra],
            capture_output=True, text=True,
            timeout=300)
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        return json.loads(proc.stdout)["fetches"]

    def test_tensorflow_checkpoint_resumed_by_tributary(self):
        for j in range(1, J + 1):
            with self.subTest(steps=j):
                got = self.tributary("train", "--steps", str(j))
                np.testing.assert_allclose(got["loss"]["values"][0],
                                           self.full[K + j - 1], rtol=RTOL,
                                           atol=ATOL)

    def test_tributary_checkpoint_resumed_by_tensorflow(self):
        prefix = os.path.join(self.tmp, "tributary_ckpt" + self.__class__.__name__)
        got = self.tributary("train_then_save", "--input", f"steps=int32:{M}",
                             "--input", f'prefix=string:"{prefix}"')
        np.testing.assert_allclose(got["losses"]["values"],
                                   self.full[K:K + M], rtol=RTOL, atol=ATOL)
        self.assertEqual(got["path"]["values"], [prefix])
        self.assertTrue(os.path.exists(prefix + ".index"))
        trainer = Trainer()
        trainer.ckpt.read(prefix).assert_consumed()
        resumed = [float(trainer.train(self.x, self.y)["loss"])
                   for _ in range(J)]
        np.testing.assert_allclose(resumed, self.full[K + M:K + M + J],
                                   rtol=RTOL, atol=ATOL)


@unittest.skipUnless(tf_client_cluster.cli_present(), "tools/tributary is not built")
class KerasTrainingResumeThroughMasterTest(tf_client_cluster.ClusterLifecycle,
                                          KerasTrainingResumeTest):
    @classmethod
    def make_cluster(cls):
        return tf_client_cluster.CliCluster(jobs={"worker": 1})

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.target_args = ("--target", cls.cluster.target)


if __name__ == "__main__":
    unittest.main()
