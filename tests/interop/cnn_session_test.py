"""A small CNN trained end to end: TensorFlow's Session and `tributary run`
on the same tf.compat.v1 graph must give the same losses, step after step.

The model is what a first CNN tutorial builds: conv2d + bias + relu,
max_pool, a second conv2d (VALID) + relu, avg_pool, a dense layer and
softmax cross-entropy, trained with GradientDescentOptimizer and with
AdamOptimizer. Its gradient graph is what needs ShapeN,
Conv2DBackpropInput/Filter, MaxPoolGrad and AvgPoolGrad. Initial weights are
constants generated here from a fixed numpy seed, so both runtimes start
from the same values; the batch is fed.

After k steps the fetched loss is the loss of step k (computed before that
step's update), so runs of 1, 2, 5 and 10 steps check the trajectory.
Tolerance: rtol 1e-5, atol 1e-6 on the float32 loss (summation orders differ
between TensorFlow's kernels and ours, nothing else).
"""
import os
import sys
import tempfile
import unittest

# Compare against TensorFlow's reference CPU kernels, as the kernel oracles
# do (kernels/nn/nn_oracle_test.py), not its oneDNN rewrites.
os.environ["TF_ENABLE_ONEDNN_OPTS"] = "0"

sys.path.insert(0, "tests/interop")  # cwd is the runfiles root

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

from session_oracle_test import from_json, run_ours, run_tf  # noqa: E402

tf1 = tf.compat.v1

BATCH, SIZE, CLASSES = 8, 10, 3
RTOL, ATOL = 1e-5, 1e-6


def build_cnn(optimizer, device=None):
    """The graph (a GraphDef) and its feeds. `device` (a device function, e.g.
    replica_device_setter's, or None) places the nodes, for
    models_through_master_test.py."""
    rng = np.random.default_rng(2026)

    def const(shape, scale):
        return (rng.standard_normal(shape) * scale).astype(np.float32)

    g = tf.Graph()
    with g.as_default(), g.device(device):
        x = tf1.placeholder(tf.float32, [None, SIZE, SIZE, 2], name="x")
        labels = tf1.placeholder(tf.float32, [None, CLASSES], name="labels")
        w1 = tf1.Variable(const([3, 3, 2, 4], 0.3), name="conv1/w")
        b1 = tf1.Variable(const([4], 0.1), name="conv1/b")
        w2 = tf1.Variable(const([3, 3, 4, 6], 0.3), name="conv2/w")
        b2 = tf1.Variable(const([6], 0.1), name="conv2/b")
        wd = tf1.Variable(const([6, CLASSES], 0.3), name="dense/w")
        bd = tf1.Variable(const([CLASSES], 0.1), name="dense/b")

        h = tf.nn.relu(tf.nn.bias_add(
            tf1.nn.conv2d(x, w1, strides=[1, 1, 1, 1], padding="SAME"), b1))
        h = tf1.nn.max_pool(h, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1],
                            padding="SAME")                      # 5x5
        h = tf.nn.relu(tf.nn.bias_add(
            tf1.nn.conv2d(h, w2, strides=[1, 1, 1, 1], padding="VALID"), b2))  # 3x3
        h = tf1.nn.avg_pool(h, ksize=[1, 3, 3, 1], strides=[1, 1, 1, 1],
                            padding="VALID")                     # 1x1
        h = tf.reshape(h, [-1, 6])
        logits = tf.add(tf.matmul(h, wd), bd, name="logits")
        loss = tf.reduce_mean(
            tf.nn.softmax_cross_entropy_with_logits(labels=labels, logits=logits),
            name="loss")
        optimizer.minimize(loss, name="train")
        tf1.variables_initializer(tf1.global_variables(), name="init")

    feeds = {
        "x": rng.standard_normal((BATCH, SIZE, SIZE, 2)).astype(np.float32),
        "labels": np.eye(CLASSES, dtype=np.float32)[rng.integers(0, CLASSES, BATCH)],
    }
    return g.as_graph_def(), feeds


class CnnSessionTest(unittest.TestCase):
    def check_training(self, optimizer):
        graph_def, feeds = build_cnn(optimizer)
        op_types = {node.op for node in graph_def.node}
        for op in ["ShapeN", "Conv2DBackpropInput", "Conv2DBackpropFilter",
                   "MaxPoolGrad", "AvgPoolGrad"]:
            self.assertIn(op, op_types, "the gradient graph should use " + op)
        losses = []
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "cnn.pbtxt")
            with open(path, "w") as f:
                f.write(str(graph_def))
            for steps in (1, 2, 5, 10):
                with self.subTest(steps=steps):
                    tf_kind, tf_result = run_tf(graph_def, feeds, ["loss"],
                                                targets=["train"], inits=["init"],
                                                steps=steps)
                    our_kind, our_result = run_ours(path, feeds, ["loss"],
                                                    targets=["train"], inits=["init"],
                                                    steps=steps)
                    self.assertEqual(tf_kind, "ok", tf_result)
                    self.assertEqual(our_kind, "ok", our_result)
                    want = np.asarray(tf_result[0])
                    dtype, got = from_json(our_result["loss"])
                    self.assertEqual(dtype, "DT_FLOAT")
                    np.testing.assert_allclose(got.astype(np.float32), want,
                                               rtol=RTOL, atol=ATOL)
                    losses.append(float(want))
        # The model actually learns, so the comparison is not of a flat line.
        self.assertLess(losses[-1], losses[0])

    def test_sgd(self):
        self.check_training(tf1.train.GradientDescentOptimizer(0.1))

    def test_adam(self):
        self.check_training(tf1.train.AdamOptimizer(0.01))


if __name__ == "__main__":
    unittest.main()
