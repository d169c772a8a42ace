"""tf.compat.v1.train optimizers end to end: TensorFlow's Session and
`tributary run` train the same tiny model for STEPS steps and must end with the
same variables.

Each graph is built with TensorFlow's Python API: a linear model
(w: [3, 2], b: [2]) with a mean squared error loss on constant data, and
`XOptimizer(...).minimize(loss)`, with TF1 ref variables and with resource
variables. The fetched tensors read the variables (and the optimizer's slots)
under a control dependency on the train op, so every step fetches the values
after its update. Tolerance: float32, rtol 1e-5 and atol 1e-6 after
STEPS steps (the kernels agree with TensorFlow to a few ulps per step; see
kernels/training/adaptive_oracle_test.py).
"""
import os
import sys
import tempfile
import unittest

sys.path.insert(0, "tests/interop")  # cwd is the runfiles root

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

from session_oracle_test import from_json, run_ours, run_tf  # noqa: E402

tf1 = tf.compat.v1
train = tf1.train

STEPS = 5

# name -> (optimizer factory given the global step, the apply op TensorFlow emits for it).
OPTIMIZERS = {
    "adagrad": (lambda gs: train.AdagradOptimizer(0.1), "ApplyAdagrad"),
    "rmsprop": (lambda gs: train.RMSPropOptimizer(0.01, decay=0.9, momentum=0.5),
                "ApplyRMSProp"),
    "rmsprop_centered": (lambda gs: train.RMSPropOptimizer(
        0.01, decay=0.9, momentum=0.5, centered=True), "ApplyCenteredRMSProp"),
    "ftrl": (lambda gs: train.FtrlOptimizer(
        0.2, l1_regularization_strength=0.01, l2_regularization_strength=0.02),
             "ApplyFtrl"),
    "ftrl_shrinkage": (lambda gs: train.FtrlOptimizer(
        0.2, learning_rate_power=-0.3, l1_regularization_strength=0.01,
        l2_regularization_strength=0.02,
        l2_shrinkage_regularization_strength=0.05), "ApplyFtrlV2"),
    "adadelta": (lambda gs: train.AdadeltaOptimizer(1.0, rho=0.95, epsilon=1e-6),
                 "ApplyAdadelta"),
    "proximal_gradient_descent": (lambda gs: train.ProximalGradientDescentOptimizer(
        0.1, l1_regularization_strength=0.01, l2_regularization_strength=0.02),
                                  "ApplyProximalGradientDescent"),
    "proximal_adagrad": (lambda gs: train.ProximalAdagradOptimizer(
        0.1, l1_regularization_strength=0.01, l2_regularization_strength=0.02),
                         "ApplyProximalAdagrad"),
    # Dual averaging reads the global step, which minimize() advances.
    "adagrad_da": (lambda gs: train.AdagradDAOptimizer(
        0.1, gs, l1_regularization_strength=0.01,
        l2_regularization_strength=0.02), "ApplyAdagradDA"),
    "gradient_descent": (lambda gs: train.GradientDescentOptimizer(0.1),
                         "ApplyGradientDescent"),
    "momentum_nesterov": (lambda gs: train.MomentumOptimizer(
        0.05, 0.9, use_nesterov=True), "ApplyMomentum"),
    "adam": (lambda gs: train.AdamOptimizer(0.01), "ApplyAdam"),
}


def build(make_optimizer, use_resource):
    rng = np.random.RandomState(3)
    g = tf.Graph()
    with g.as_default():
        x = tf.constant(rng.randn(8, 3).astype(np.float32))
        y = tf.constant(rng.randn(8, 2).astype(np.float32))
        w = tf1.get_variable("w", initializer=rng.randn(3, 2).astype(np.float32),
                             use_resource=use_resource)
        b = tf1.get_variable("b", initializer=np.zeros(2, np.float32),
                             use_resource=use_resource)
        loss = tf.reduce_mean(tf.square(tf.matmul(x, w) + b - y))
        global_step = tf1.train.get_or_create_global_step()
        opt = make_optimizer(global_step)
        train_op = opt.minimize(loss, global_step=global_step)
        variables = [w, b] + [opt.get_slot(v, s) for v in (w, b)
                              for s in opt.get_slot_names()]
        fetches = []
        with tf.control_dependencies([train_op]):
            for i, v in enumerate(variables):
                value = v.read_value() if use_resource else tf.identity(v)
                fetches.append(tf.identity(value, name=f"after_{i}").op.name)
        tf1.global_variables_initializer()
    return g.as_graph_def(), fetches


class OptimizerSessionTest(unittest.TestCase):
    def check(self, name, use_resource):
        make_optimizer, apply_op = OPTIMIZERS[name]
        graph_def, fetches = build(make_optimizer, use_resource)
        ops = {n.op for n in graph_def.node}
        self.assertIn(("Resource" if use_resource else "") + apply_op, ops)
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "graph.pbtxt")
            with open(path, "w") as f:
                f.write(str(graph_def))
            tf_kind, tf_result = run_tf(graph_def, {}, fetches, inits=["init"],
                                        steps=STEPS)
            our_kind, our_result = run_ours(path, {}, fetches, inits=["init"],
                                            steps=STEPS)
        self.assertEqual(tf_kind, "ok", tf_result)
        self.assertEqual(our_kind, "ok", our_result)
        for fetch, want in zip(fetches, tf_result):
            with self.subTest(fetch=fetch):
                want = np.asarray(want)
                dtype, got = from_json(our_result[fetch])
                self.assertEqual(dtype, "DT_FLOAT")
                self.assertEqual(list(got.shape), list(want.shape))
                np.testing.assert_allclose(got.astype(np.float32), want,
                                           rtol=1e-5, atol=1e-6)


def _add_tests():
    for name in OPTIMIZERS:
        for use_resource in (False, True):
            suffix = "_resource" if use_resource else "_ref"
            setattr(OptimizerSessionTest, f"test_{name}{suffix}",
                    lambda self, n=name, r=use_resource: self.check(n, r))


_add_tests()

if __name__ == "__main__":
    unittest.main()
