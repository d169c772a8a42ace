"""The graph tf.compat.v1.layers.batch_normalization (fused) builds, trained
end to end: TensorFlow's Session and `tributary run` on the same graph must
give the same losses and the same moving mean/variance, step after step.

The TF venv has Keras 3, which drops tf.compat.v1.layers, so the graph is
built from the ops the fused layer emits in a TF1 graph (tf_keras's
BatchNormalization._fused_batch_norm): FusedBatchNormV3 with is_training=True
fed the moving mean/variance and exponential_avg_factor 1, and the
AssignMovingAvg updates `moving -= (moving - batch_stat) * (1 - momentum)`
(batch_variance being the Bessel-corrected one) in the UPDATE_OPS collection.
A second variant uses the fused averaging instead (exponential_avg_factor =
1 - momentum, the op's outputs assigned to the moving variables), as Keras
does inside tf.functions. Then a dense layer and softmax cross-entropy,
trained with GradientDescentOptimizer under the UPDATE_OPS control
dependency, so the gradient uses FusedBatchNormGradV3 and every step moves
the moving statistics. Those are fetched through identities that depend on
the train op, i.e. their values after the step, as is eval_output, the
inference-mode FusedBatchNormV3 (is_training=False) on those statistics.
Initial weights are constants from a fixed numpy seed; the batch is fed.

After k steps the fetched loss is the loss of step k (computed before that
step's update). Tolerance: rtol 1e-5, atol 1e-6 on the float32 loss, the
moving statistics and eval_output (summation orders differ between
TensorFlow's kernels and ours, nothing else; ours accumulate in double).
"""
import os
import sys
import tempfile
import unittest

os.environ["TF_ENABLE_ONEDNN_OPTS"] = "0"  # TF's reference CPU kernels

sys.path.insert(0, "tests/interop")  # cwd is the runfiles root

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

from session_oracle_test import from_json, run_ours, run_tf  # noqa: E402

tf1 = tf.compat.v1

BATCH, SIZE, CHANNELS, CLASSES = 8, 4, 3, 3
RTOL, ATOL = 1e-5, 1e-6
FETCHES = ["loss", "moving_mean_after", "moving_variance_after", "eval_output"]


def build_model(fused_avg, device=None):
    """The graph (a GraphDef) and its feeds. `device` (a device function, e.g.
    replica_device_setter's, or None) places the nodes, for
    models_through_master_test.py."""
    rng = np.random.default_rng(2027)
    momentum = 0.9

    def const(shape, scale):
        return (rng.standard_normal(shape) * scale).astype(np.float32)

    g = tf.Graph()
    with g.as_default(), g.device(device):
        x = tf1.placeholder(tf.float32, [None, SIZE, SIZE, CHANNELS], name="x")
        labels = tf1.placeholder(tf.float32, [None, CLASSES], name="labels")
        gamma = tf1.Variable(const([CHANNELS], 0.3) + 1, name="bn/gamma")
        beta = tf1.Variable(const([CHANNELS], 0.1), name="bn/beta")
        moving_mean = tf1.Variable(np.zeros(CHANNELS, np.float32), trainable=False,
                                   name="bn/moving_mean")
        moving_var = tf1.Variable(np.ones(CHANNELS, np.float32), trainable=False,
                                  name="bn/moving_variance")
        h, batch_mean, batch_var = tf1.nn.fused_batch_norm(
            x, gamma, beta, mean=moving_mean, variance=moving_var, epsilon=1e-3,
            is_training=True,
            exponential_avg_factor=1 - momentum if fused_avg else 1.0)
        if fused_avg:
            updates = [moving_mean.assign(batch_mean), moving_var.assign(batch_var)]
        else:
            updates = [v.assign_sub((v - stat) * (1 - momentum))
                       for v, stat in [(moving_mean, batch_mean),
                                       (moving_var, batch_var)]]
        for update in updates:
            tf1.add_to_collection(tf1.GraphKeys.UPDATE_OPS, update)
        h = tf.reshape(h, [-1, SIZE * SIZE * CHANNELS])
        wd = tf1.Variable(const([SIZE * SIZE * CHANNELS, CLASSES], 0.3), name="dense/w")
        bd = tf1.Variable(const([CLASSES], 0.1), name="dense/b")
        logits = tf.add(tf.matmul(h, wd), bd, name="logits")
        loss = tf.reduce_mean(
            tf.nn.softmax_cross_entropy_with_logits(labels=labels, logits=logits),
            name="loss")
        with tf1.control_dependencies(tf1.get_collection(tf1.GraphKeys.UPDATE_OPS)):
            train = tf1.train.GradientDescentOptimizer(0.1).minimize(loss, name="train")
        with tf1.control_dependencies([train]):
            tf.identity(moving_mean.read_value(), name="moving_mean_after")
            tf.identity(moving_var.read_value(), name="moving_variance_after")
            # The inference graph (training=False) on the updated statistics.
            y_eval, _, _ = tf1.nn.fused_batch_norm(
                x, gamma.read_value(), beta.read_value(),
                mean=moving_mean.read_value(), variance=moving_var.read_value(),
                epsilon=1e-3, is_training=False)
            tf.reduce_sum(tf.square(y_eval), name="eval_output")
        tf1.variables_initializer(tf1.global_variables(), name="init")

    feeds = {
        # Off-centre and scaled, so the normalization and the moving
        # statistics both have something to do.
        "x": (rng.standard_normal((BATCH, SIZE, SIZE, CHANNELS)) * 2 + 0.5
              ).astype(np.float32),
        "labels": np.eye(CLASSES, dtype=np.float32)[rng.integers(0, CLASSES, BATCH)],
    }
    return g.as_graph_def(), feeds


class BatchNormSessionTest(unittest.TestCase):
    def check_training(self, fused_avg):
        graph_def, feeds = build_model(fused_avg)
        op_types = {node.op for node in graph_def.node}
        for op in ["FusedBatchNormV3", "FusedBatchNormGradV3"]:
            self.assertIn(op, op_types, "the graph should use " + op)
        losses = []
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "bn.pbtxt")
            with open(path, "w") as f:
                f.write(str(graph_def))
            for steps in (1, 2, 5, 10):
                with self.subTest(steps=steps):
                    tf_kind, tf_result = run_tf(graph_def, feeds, FETCHES,
                                                targets=["train"], inits=["init"],
                                                steps=steps)
                    our_kind, our_result = run_ours(path, feeds, FETCHES,
                                                    targets=["train"], inits=["init"],
                                                    steps=steps)
                    self.assertEqual(tf_kind, "ok", tf_result)
                    self.assertEqual(our_kind, "ok", our_result)
                    for name, want in zip(FETCHES, tf_result):
                        dtype, got = from_json(our_result[name])
                        self.assertEqual(dtype, "DT_FLOAT", name)
                        np.testing.assert_allclose(got.astype(np.float32),
                                                   np.asarray(want), rtol=RTOL,
                                                   atol=ATOL, err_msg=name)
                    losses.append(float(tf_result[0]))
        self.assertLess(losses[-1], losses[0])

    def test_assign_moving_average(self):
        self.check_training(fused_avg=False)

    def test_fused_exponential_average(self):
        self.check_training(fused_avg=True)


if __name__ == "__main__":
    unittest.main()
