"""Training checkpointed mid-way by one runtime and resumed by the other, with
the same loss curve as an uninterrupted run.

The model is Keras-free (a tf.compat.v1 graph: a two-layer MLP on fixed data,
resource variables, Momentum, a global step) with a Saver over the model's
variables, their Momentum slots and the global step (its filename constant is
the checkpoint path, so `tributary run --init save/restore_all` restores
without a feed). Every training step also writes its loss into a `history`
variable at the global step's index, outside the checkpoint, so one
`tributary run` reports the whole curve.

* TensorFlow trains K steps and saves (Saver.save); `tributary run` restores
  that checkpoint and trains J more: its J losses (and final weights) equal
  TensorFlow's own continuation and the uninterrupted K+J-step run.
* The reverse: `tributary run` trains K steps and saves with SaveV2
  (`--init train` K times, then `--init save/control_dependency`);
  TensorFlow restores it and trains J more: Tributary's K losses and
  TensorFlow's J losses make the uninterrupted curve.
rtol 1e-5, atol 1e-6.
"""
import json
import os
import subprocess
import tempfile
import unittest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

tf1 = tf.compat.v1
BINARY = os.path.join("tools", "tributary")
K, J = 4, 5
RTOL, ATOL = 1e-5, 1e-6


def build(checkpoint):
    """The training graph; its Saver reads and writes `checkpoint`."""
    rng = np.random.default_rng(0)
    data = rng.standard_normal((16, 5)).astype(np.float32)
    labels = (data @ rng.standard_normal((5, 1)) > 0).astype(np.float32)
    g = tf.Graph()
    with g.as_default():
        tf1.set_random_seed(1)
        x = tf.constant(data)
        y = tf.constant(labels)
        def dense(inputs, units, name):
            with tf1.variable_scope(name):
                w = tf1.get_variable("kernel", [inputs.shape[1], units],
                                     use_resource=True)  # glorot_uniform, seeded
                b = tf1.get_variable("bias", [units], use_resource=True,
                                     initializer=tf1.zeros_initializer())
            return tf.matmul(inputs, w) + b

        h = tf.tanh(dense(x, 8, "hidden"))
        logits = dense(h, 1, "out")
        loss = tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(
            labels=y, logits=logits), name="loss")
        step = tf1.train.get_or_create_global_step()
        history = tf1.get_variable("history", initializer=tf.zeros([K + J]),
                                   use_resource=True, trainable=False)
        record = tf1.scatter_update(history, step, loss)
        with tf1.control_dependencies([record]):
            tf1.train.MomentumOptimizer(0.5, 0.9).minimize(
                loss, global_step=step, name="train")
        tf1.variables_initializer(tf1.global_variables(), name="init")
        tf1.train.Saver([v for v in tf1.global_variables() if v is not history],
                        filename=checkpoint)
        tf.identity(history.read_value(), name="losses")
        tf.identity(tf1.trainable_variables()[0].read_value(), name="kernel")
    return g


def tf_run(graph, restore_first, steps, save=False, init=True):
    """TensorFlow: (losses recorded this session, hidden kernel)."""
    with tf1.Session(graph=graph) as sess:
        sess.run(graph.get_operation_by_name("init"))
        if restore_first:
            sess.run(graph.get_operation_by_name("save/restore_all"))
        train = graph.get_operation_by_name("train")
        for _ in range(steps):
            sess.run(train)
        if save:
            sess.run(graph.get_tensor_by_name("save/control_dependency:0"))
        return sess.run(["losses:0", "kernel:0"])


class TrainingResumeTest(unittest.TestCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory()
        self.ckpt = os.path.join(self._tmp.name, "ckpt", "model")
        self.graph = build(self.ckpt)
        self.graph_path = os.path.join(self._tmp.name, "train.pb")
        with open(self.graph_path, "wb") as f:
            f.write(self.graph.as_graph_def().SerializeToString())
        # The uninterrupted K+J-step curve, TensorFlow alone.
        self.full_losses, self.full_kernel = tf_run(self.graph, False, K + J)

    def tearDown(self):
        self._tmp.cleanup()

    def tributary(self, *args):
        proc = subprocess.run([BINARY, "run", "--graph", self.graph_path, *args],
                              capture_output=True, text=True, timeout=300)
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        out = json.loads(proc.stdout)["fetches"]
        return {k: np.array(v["values"], np.float32).reshape(v["shape"])
                for k, v in out.items()}

    def test_tensorflow_checkpoint_resumed_on_tributary(self):
        os.makedirs(os.path.dirname(self.ckpt))
        tf_losses, _ = tf_run(self.graph, False, K, save=True)
        np.testing.assert_allclose(tf_losses[:K], self.full_losses[:K], rtol=RTOL)
        got = self.tributary("--init", "init", "--init", "save/restore_all",
                             *["--init", "train"] * J,
                             "--fetch", "losses", "--fetch", "kernel")
        # The restored global step puts the J losses at K..K+J-1.
        self.assertTrue(np.all(got["losses"][:K] == 0), got["losses"])
        np.testing.assert_allclose(got["losses"][K:], self.full_losses[K:],
                                   rtol=RTOL, atol=ATOL)
        np.testing.assert_allclose(got["kernel"], self.full_kernel, rtol=RTOL, atol=ATOL)
        # And TensorFlow's own continuation agrees.
        tf_cont, tf_kernel = tf_run(self.graph, True, J)
        np.testing.assert_allclose(got["losses"], tf_cont, rtol=RTOL, atol=ATOL)

    def test_tributary_checkpoint_resumed_on_tensorflow(self):
        args = ["--init", "init"] + ["--init", "train"] * K + [
            "--init", "save/control_dependency", "--fetch", "losses"]
        ours = self.tributary(*args)["losses"]
        np.testing.assert_allclose(ours[:K], self.full_losses[:K], rtol=RTOL, atol=ATOL)
        self.assertTrue(os.path.exists(self.ckpt + ".index"))
        # Tributary's checkpoint holds what TensorFlow's reader expects.
        reader = tf.train.load_checkpoint(self.ckpt)
        self.assertEqual(reader.get_tensor("global_step"), K)
        tf_losses, tf_kernel = tf_run(self.graph, True, J)
        np.testing.assert_allclose(tf_losses[K:], self.full_losses[K:],
                                   rtol=RTOL, atol=ATOL)
        np.testing.assert_allclose(tf_kernel, self.full_kernel, rtol=RTOL, atol=ATOL)


if __name__ == "__main__":
    unittest.main()
