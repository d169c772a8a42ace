"""Training graphs whose gradients need SqrtGrad, RsqrtGrad and ReciprocalGrad,
and a forward graph of the newer elementwise and scan ops: TensorFlow's
Session vs `tributary run` on the same GraphDef.

  * an MLP with a non-fused batch normalisation (tf.nn.moments +
    tf.nn.batch_normalization, which is what the non-fused Keras/compat.v1
    layer builds: rsqrt(variance + eps), so its gradient is RsqrtGrad) and
    moving averages updated beside the train op;
  * the same MLP with a layer normalisation built from tf.nn.moments and
    tf.math.rsqrt;
  both with an L2 penalty through tf.norm (Sqrt, so SqrtGrad) and a
  1 / (1 + b^2) term (Reciprocal, so ReciprocalGrad), trained with
  tf.compat.v1's GradientDescent and Momentum optimizers for 1 and 5 steps;
  * one graph of Atan2, Xlogy, Xdivy, Xlog1py, MulNoNan, Round, Rint,
    TruncateDiv, TruncateMod, FloorMod, ClipByValue, the bitwise ops,
    Cumprod, CumulativeLogsumexp, LinSpace, Bucketize, InTopKV2, the
    trigonometric and special functions, and CheckNumerics (passing, and
    failing with InvalidArgument on both sides).

Tolerance: rtol 1e-5, atol 1e-6 on float32 (reductions may sum in another
order and a few special functions differ by some ulp); integers and bools
exactly.
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

BATCH, FEATURES, HIDDEN, CLASSES = 16, 6, 12, 3
RTOL, ATOL = 1e-5, 1e-6
STEPS = (1, 5)


def batch():
    rng = np.random.default_rng(31)
    x = rng.standard_normal((BATCH, FEATURES)).astype(np.float32) * 3 + 1
    labels = np.eye(CLASSES, dtype=np.float32)[rng.integers(0, CLASSES, BATCH)]
    return {"x": x, "labels": labels}


def constant_var(name, shape, seed):
    """A variable with fixed initial values (no random ops needed)."""
    value = np.random.default_rng(seed).uniform(-0.6, 0.6, shape).astype(np.float32)
    return tf1.get_variable(name, initializer=tf.constant(value))


def model(norm):
    x = tf1.placeholder(tf.float32, [None, FEATURES], name="x")
    labels = tf1.placeholder(tf.float32, [None, CLASSES], name="labels")
    w1 = constant_var("w1", [FEATURES, HIDDEN], 1)
    b1 = constant_var("b1", [HIDDEN], 2)
    w2 = constant_var("w2", [HIDDEN, CLASSES], 3)
    b2 = constant_var("b2", [CLASSES], 4)
    gamma = tf1.get_variable("gamma", initializer=tf.ones([HIDDEN]))
    beta = tf1.get_variable("beta", initializer=tf.zeros([HIDDEN]))
    h = tf.matmul(x, w1) + b1
    updates, values = [], []
    if norm == "batch_norm":
        mean, variance = tf.nn.moments(h, axes=[0])
        moving_mean = tf1.get_variable("moving_mean", initializer=tf.zeros([HIDDEN]),
                                       trainable=False)
        moving_var = tf1.get_variable("moving_variance", initializer=tf.ones([HIDDEN]),
                                      trainable=False)
        # Built later, after the reads of the fetched values (see build).
        updates = [lambda: moving_mean.assign(moving_mean * 0.9 + mean * 0.1),
                   lambda: moving_var.assign(moving_var * 0.9 + variance * 0.1)]
        values = [tf.identity(moving_mean, name="moving_mean_value"),
                  tf.identity(moving_var, name="moving_variance_value")]
        h = tf.nn.batch_normalization(h, mean, variance, beta, gamma, 1e-3)
    else:
        mean, variance = tf.nn.moments(h, axes=[1], keepdims=True)
        h = (h - mean) * tf.math.rsqrt(variance + 1e-5) * gamma + beta
    h = tf.nn.relu(h)
    logits = tf.matmul(h, w2) + b2
    loss = tf.add_n([
        tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(labels=labels,
                                                               logits=logits)),
        0.05 * tf.norm(w1),
        0.1 * tf.reduce_sum(tf.math.reciprocal(1.0 + tf.square(b2))),
    ], name="loss")
    for v in (w1, gamma, b2):
        values.append(tf.identity(v, name=v.op.name + "_value"))
    return loss, updates, values


def build(norm, optimizer):
    """The fetched values are read before the step's updates (control
    dependencies), so they are the values the step's loss was computed with,
    on both sides, whatever order the executors pick."""
    g = tf.Graph()
    with g.as_default():
        loss, updates, values = model(norm)
        with tf.control_dependencies(values):
            minimize = optimizer().minimize(loss)
            update_ops = [make() for make in updates]
        tf.group(minimize, *update_ops, name="train")
        tf1.variables_initializer(tf1.global_variables(), name="init")
    return g.as_graph_def()


OPTIMIZERS = {
    "sgd": lambda: tf1.train.GradientDescentOptimizer(0.1),
    "momentum": lambda: tf1.train.MomentumOptimizer(0.05, 0.9),
}


def elementwise_graph():
    """Forward graph over fed x, y (float32, [4, 5]) and n (int32, [4, 5])."""
    g = tf.Graph()
    with g.as_default():
        x = tf1.placeholder(tf.float32, None, name="x")
        y = tf1.placeholder(tf.float32, None, name="y")
        n = tf1.placeholder(tf.int32, None, name="n")
        m = tf1.placeholder(tf.int32, None, name="m")
        p = tf1.placeholder(tf.float32, None, name="p")
        x = tf.debugging.check_numerics(x, "x is bad")
        outs = {
            "atan2": tf.math.atan2(y, x),
            "xlogy": tf.math.xlogy(x, tf.abs(y)),
            "xdivy": tf.math.xdivy(x, y),
            "xlog1py": tf.math.xlog1py(x, tf.abs(y)),
            "mul_no_nan": tf.math.multiply_no_nan(x, y * tf.cast(y > 0, tf.float32)),
            "round": tf.round(x * 2.5),
            "rint": tf.math.rint(x * 2.5),
            "truncatediv": tf.truncatediv(n, m),
            "truncatemod": tf.truncatemod(n, m),
            "floormod": tf.math.floormod(x, y),
            "clip": tf.raw_ops.ClipByValue(t=x, clip_value_min=tf.constant(-0.5),
                                          clip_value_max=y),
            "bits": tf.bitwise.bitwise_xor(tf.bitwise.left_shift(n, 3),
                                           tf.bitwise.invert(m)),
            "rshift": tf.bitwise.right_shift(n, tf.abs(m) % 40),
            "popcount": tf.raw_ops.PopulationCount(x=n),
            "cumprod": tf.math.cumprod(x, axis=1, exclusive=True),
            "logcumsumexp": tf.math.cumulative_logsumexp(x, axis=0, reverse=True),
            "linspace": tf.raw_ops.LinSpace(start=tf.reduce_min(x), stop=tf.reduce_max(x),
                                            num=9),
            "bucketize": tf.raw_ops.Bucketize(input=x, boundaries=[-1.0, 0.0, 0.5, 2.0]),
            "in_top_k": tf.math.in_top_k(targets=tf.argmax(p, axis=1), predictions=p, k=2),
            "trig": tf.add_n([tf.math.tan(x * 0.3), tf.math.asin(tf.tanh(x)),
                              tf.math.acos(tf.tanh(y)), tf.math.atan(x),
                              tf.math.sinh(y * 0.5), tf.math.cosh(x * 0.5),
                              tf.math.asinh(y), tf.math.acosh(1.0 + tf.abs(x)),
                              tf.math.atanh(tf.tanh(y) * 0.9)]),
            "special": tf.add_n([tf.math.lgamma(tf.abs(x) + 0.5),
                                 tf.math.digamma(tf.abs(y) + 0.5),
                                 tf.math.erfinv(tf.tanh(x) * 0.9),
                                 tf.math.ndtri(tf.sigmoid(y))]),
        }
        for name, t in outs.items():
            tf.identity(t, name="out_" + name)
    return g.as_graph_def(), ["out_" + name for name in outs]


class MathTrainingSessionTest(unittest.TestCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory(dir=os.environ.get("TEST_TMPDIR"))

    def tearDown(self):
        self._tmp.cleanup()

    def write(self, graph_def):
        path = os.path.join(self._tmp.name, "graph.pbtxt")
        with open(path, "w") as f:
            f.write(str(graph_def))
        return path

    def compare(self, graph_def, feeds, fetches, targets=(), inits=(), steps=1):
        path = self.write(graph_def)
        tf_kind, tf_result = run_tf(graph_def, feeds, fetches, targets=targets,
                                    inits=inits, steps=steps)
        our_kind, our_result = run_ours(path, feeds, fetches, targets=targets,
                                        inits=inits, steps=steps)
        self.assertEqual(tf_kind, "ok", tf_result)
        self.assertEqual(our_kind, "ok", our_result)
        for name, want in zip(fetches, tf_result):
            want = np.asarray(want)
            dtype, got = from_json(our_result[name])
            self.assertEqual(list(got.shape), list(want.shape), name)
            if np.issubdtype(want.dtype, np.floating):
                np.testing.assert_allclose(got.astype(want.dtype), want, rtol=RTOL,
                                           atol=ATOL, err_msg=name)
            else:
                np.testing.assert_array_equal(got.astype(want.dtype), want, err_msg=name)
        return tf_result

    def test_training_with_normalisation(self):
        for norm in ("batch_norm", "layer_norm"):
            for opt_name, optimizer in OPTIMIZERS.items():
                graph_def = build(norm, optimizer)
                ops = {node.op for node in graph_def.node}
                for grad in ("RsqrtGrad", "SqrtGrad", "ReciprocalGrad"):
                    self.assertIn(grad, ops)
                fetches = ["loss", "w1_value", "gamma_value", "b2_value"]
                if norm == "batch_norm":
                    fetches += ["moving_mean_value", "moving_variance_value"]
                losses = []
                for steps in STEPS:
                    with self.subTest(norm=norm, optimizer=opt_name, steps=steps):
                        result = self.compare(graph_def, batch(), fetches,
                                              targets=["train"], inits=["init"],
                                              steps=steps)
                        losses.append(float(result[0]))
                self.assertLess(losses[-1], losses[0], f"{norm}/{opt_name} should learn")

    def test_elementwise_and_scan_ops(self):
        graph_def, fetches = elementwise_graph()
        rng = np.random.default_rng(5)
        feeds = {
            "x": rng.uniform(-3, 3, (4, 5)).astype(np.float32),
            "y": rng.uniform(-3, 3, (4, 5)).astype(np.float32) + 0.1,
            "n": rng.integers(-1000, 1000, (4, 5)).astype(np.int32),
            "m": rng.integers(1, 50, (4, 5)).astype(np.int32) * rng.choice([-1, 1], (4, 5)).astype(np.int32),
            "p": rng.integers(0, 4, (6, 5)).astype(np.float32),
        }
        feeds["x"][0, :3] = [0.5, -1.5, 2.5]  # ties for Round/Rint
        feeds["x"][1, 0] = 0.0                # Xlogy/Xdivy at x == 0
        for name in fetches:
            with self.subTest(fetch=name):
                self.compare(graph_def, feeds, [name])

    def test_check_numerics_fails_the_step(self):
        graph_def, _ = elementwise_graph()
        feeds = {"x": np.array([[1.0, np.nan]], np.float32),
                 "y": np.ones((1, 2), np.float32)}
        path = self.write(graph_def)
        tf_kind, tf_code = run_tf(graph_def, feeds, ["out_atan2"])
        our_kind, our_code = run_ours(path, feeds, ["out_atan2"])
        self.assertEqual(tf_kind, "error")
        self.assertEqual((our_kind, our_code), (tf_kind, tf_code))
        self.assertEqual(our_code, "INVALID_ARGUMENT")


if __name__ == "__main__":
    unittest.main()
