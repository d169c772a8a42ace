"""tf.compat.v1 training graphs as their tutorials build them, end to end:
TensorFlow's Session and `tributary run` on the same graph must give the same
losses step after step (and the same initial variables).

What is covered (issue 13, family 1):
  * an MLP whose weights come from tf.compat.v1.get_variable's DEFAULT
    initializer (glorot uniform), trained with MomentumOptimizer: the graph
    seed and op seeds are set, so our RandomUniform must give TensorFlow's
    bits for the losses to match;
  * every built-in initializer (glorot/he/lecun uniform and normal, truncated
    and random normal, random uniform, variance_scaling variants,
    constant/zeros/ones; orthogonal when the registry has Qr), compared after
    global_variables_initializer();
  * dropout in training (tf.compat.v1.nn.dropout and tf.nn.dropout, seeded);
  * gradients clipped with tf.clip_by_global_norm before apply_gradients;
  * the learning-rate schedules of tf.compat.v1.train (exponential,
    piecewise constant, polynomial, cosine, inverse time, natural exp),
    driven by get_or_create_global_step, which minimize(global_step=...)
    increments (piecewise_constant built with control flow v1: v2's
    If/StatelessIf are not supported yet).

After k steps the fetched loss is the loss of step k (computed before that
step's update), so runs of 1 and 5 steps check the trajectory. Tolerance:
rtol 1e-5, atol 1e-6 on float32 losses (reductions may sum in another order);
random initial values must match to 1 ulp-level (rtol 1e-6): the bits are
TensorFlow's, only the scaling arithmetic could round differently (the
orthogonal initializer's QR: rtol 1e-5, atol 1e-6).
"""
import os
import subprocess
import sys
import tempfile
import unittest

os.environ["TF_ENABLE_ONEDNN_OPTS"] = "0"  # TF's reference CPU kernels

sys.path.insert(0, "tests/interop")  # cwd is the runfiles root

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

from session_oracle_test import BINARY, from_json, run_ours, run_tf  # noqa: E402

tf1 = tf.compat.v1

BATCH, FEATURES, HIDDEN, CLASSES = 8, 6, 10, 3
RTOL, ATOL = 1e-5, 1e-6
STEPS = (1, 5)
GRAPH_SEED = 1234


def batch():
    rng = np.random.default_rng(2028)
    x = rng.standard_normal((BATCH, FEATURES)).astype(np.float32)
    labels = np.eye(CLASSES, dtype=np.float32)[rng.integers(0, CLASSES, BATCH)]
    return {"x": x, "labels": labels}


def mlp_loss(dropout=None):
    """The model: two dense layers with get_variable's default initializer
    (glorot uniform; biases too, as get_variable does), optional dropout on
    the hidden layer, softmax cross-entropy."""
    x = tf1.placeholder(tf.float32, [None, FEATURES], name="x")
    labels = tf1.placeholder(tf.float32, [None, CLASSES], name="labels")
    w1 = tf1.get_variable("dense1/kernel", [FEATURES, HIDDEN])
    b1 = tf1.get_variable("dense1/bias", [HIDDEN], initializer=tf1.zeros_initializer())
    w2 = tf1.get_variable("dense2/kernel", [HIDDEN, CLASSES])
    b2 = tf1.get_variable("dense2/bias", [CLASSES])
    h = tf.nn.relu(tf.matmul(x, w1) + b1)
    if dropout is not None:
        h = dropout(h)
    logits = tf.add(tf.matmul(h, w2), b2, name="logits")
    return tf.reduce_mean(
        tf.nn.softmax_cross_entropy_with_logits(labels=labels, logits=logits),
        name="loss")


def read_values(variables):
    """An identity NAME_value of each variable's value (resource variables
    cannot be fetched themselves)."""
    for v in variables:
        tf.identity(v, name=v.op.name + "_value")


def build(make_train):
    """A graph under GRAPH_SEED: make_train() builds the model and its train op
    named "train"; "init" initialises every global variable."""
    g = tf.Graph()
    with g.as_default():
        tf1.set_random_seed(GRAPH_SEED)
        make_train()
        tf1.variables_initializer(tf1.global_variables(), name="init")
    return g.as_graph_def()


# ---- initializers ---------------------------------------------------------------

INITIALIZERS = {
    "glorot_uniform": lambda s: tf1.glorot_uniform_initializer(seed=s),
    "glorot_normal": lambda s: tf1.glorot_normal_initializer(seed=s),
    "he_uniform": lambda s: tf1.initializers.he_uniform(seed=s),
    "he_normal": lambda s: tf1.initializers.he_normal(seed=s),
    "lecun_uniform": lambda s: tf1.initializers.lecun_uniform(seed=s),
    "lecun_normal": lambda s: tf1.initializers.lecun_normal(seed=s),
    "truncated_normal": lambda s: tf1.truncated_normal_initializer(0.1, 0.5, seed=s),
    "random_normal": lambda s: tf1.random_normal_initializer(0.1, 0.5, seed=s),
    "random_uniform": lambda s: tf1.random_uniform_initializer(-0.3, 0.4, seed=s),
    "variance_scaling_fan_avg_uniform": lambda s: tf1.variance_scaling_initializer(
        2.0, "fan_avg", "uniform", seed=s),
    "variance_scaling_fan_out_truncated": lambda s: tf1.variance_scaling_initializer(
        1.5, "fan_out", "truncated_normal", seed=s),
    "variance_scaling_fan_in_untruncated": lambda s: tf1.variance_scaling_initializer(
        1.0, "fan_in", "untruncated_normal", seed=s),
    "variance_scaling_default": lambda s: tf1.variance_scaling_initializer(seed=s),
    "constant": lambda s: tf1.constant_initializer(0.25),
    "constant_list": lambda s: tf1.constant_initializer(list(range(20))),
    "zeros": lambda s: tf1.zeros_initializer(),
    "ones": lambda s: tf1.ones_initializer(),
    "orthogonal": lambda s: tf1.orthogonal_initializer(gain=1.3, seed=s),
}
# Initializers whose op the registry does not have yet (orthogonal needs Qr).
NEEDS = {"orthogonal": "Qr"}


def registered_ops():
    dump = os.path.join("kernels", "ops", "dump_op_defs")
    return set(subprocess.check_output([dump, "--names_only"], text=True).split())


class TrainingGraphsTest(unittest.TestCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory(dir=os.environ.get("TEST_TMPDIR"))

    def tearDown(self):
        self._tmp.cleanup()

    def write(self, graph_def):
        path = os.path.join(self._tmp.name, "graph.pbtxt")
        with open(path, "w") as f:
            f.write(str(graph_def))
        return path

    def compare(self, graph_def, fetches, steps, feeds=None, targets=("train",),
                rtol=RTOL, atol=ATOL, tolerances=None):
        """Runs `steps` steps both ways; returns TensorFlow's last fetches.
        tolerances: {fetch: (rtol, atol)} where a fetch needs its own."""
        feeds = batch() if feeds is None else feeds
        path = self.write(graph_def)
        tf_kind, tf_result = run_tf(graph_def, feeds, fetches, targets=targets,
                                    inits=["init"], steps=steps)
        our_kind, our_result = run_ours(path, feeds, fetches, targets=targets,
                                        inits=["init"], steps=steps)
        self.assertEqual(tf_kind, "ok", tf_result)
        self.assertEqual(our_kind, "ok", our_result)
        for name, want in zip(fetches, tf_result):
            want = np.asarray(want)
            dtype, got = from_json(our_result[name])
            self.assertEqual(list(got.shape), list(want.shape), name)
            r, a = (tolerances or {}).get(name, (rtol, atol))
            np.testing.assert_allclose(got.astype(want.dtype), want, rtol=r, atol=a,
                                       err_msg=name)
        return tf_result

    def check_losses(self, graph_def, fetches=("loss",)):
        losses = []
        for steps in STEPS:
            with self.subTest(steps=steps):
                losses.append(float(self.compare(graph_def, list(fetches), steps)[0]))
        self.assertLess(losses[-1], losses[0], "the model should learn")

    # ---- the MLP with default initializers, Momentum -----------------------------

    def test_mlp_default_glorot_momentum(self):
        # get_variable's default in TensorFlow 2: resource variables.
        def make():
            loss = mlp_loss()
            tf1.train.MomentumOptimizer(0.1, 0.9).minimize(loss, name="train")
        graph_def = build(make)
        ops = {n.op for n in graph_def.node}
        self.assertIn("RandomUniform", ops)
        self.assertIn("ResourceApplyMomentum", ops)
        self.check_losses(graph_def)

    def test_mlp_default_glorot_momentum_ref_variables(self):
        def make():
            with tf1.variable_scope("", use_resource=False):
                loss = mlp_loss()
            tf1.train.MomentumOptimizer(0.1, 0.9).minimize(loss, name="train")
        graph_def = build(make)
        self.assertIn("ApplyMomentum", {n.op for n in graph_def.node})
        self.check_losses(graph_def)

    def test_mlp_momentum_nesterov_resource_variables(self):
        def make():
            with tf1.variable_scope("", use_resource=True):
                loss = mlp_loss()
            tf1.train.MomentumOptimizer(0.1, 0.9, use_nesterov=True).minimize(
                loss, name="train")
        graph_def = build(make)
        self.assertIn("ResourceApplyMomentum", {n.op for n in graph_def.node})
        self.check_losses(graph_def)

    def test_initial_weights_are_tensorflows(self):
        # The default initializer draws TensorFlow's bits: the initial values
        # themselves, not only the losses, are equal.
        def make():
            mlp_loss()
            read_values(tf1.global_variables())
        graph_def = build(make)
        self.compare(graph_def, ["dense1/kernel_value", "dense2/kernel_value",
                                 "dense2/bias_value"], 1, targets=(), rtol=1e-6, atol=0)

    # ---- every built-in initializer ---------------------------------------------

    def test_builtin_initializers(self):
        # All in one graph (one run each side); every initializer seeded and
        # unseeded (its op seed then comes from the graph seed).
        known = registered_ops()
        names = [name for name in INITIALIZERS
                 if NEEDS.get(name) is None or NEEDS[name] in known]

        def fn():
            for i, name in enumerate(names):
                make = INITIALIZERS[name]
                read_values([
                    tf1.get_variable(name, [5, 4], initializer=make(100 + i)),
                    tf1.get_variable(name + "_graph_seed", [4, 5],
                                     initializer=make(None))])
        fetches = [n + suffix for n in names for suffix in ("_value", "_graph_seed_value")]
        # Orthogonal goes through a QR decomposition: Eigen's, as TensorFlow's,
        # but another Eigen build rounds differently (~1e-7 absolute).
        loose = {f: (1e-5, 1e-6) for f in fetches if f.startswith("orthogonal")}
        self.compare(build(fn), fetches, 1, feeds={}, targets=(), rtol=1e-6, atol=1e-7,
                     tolerances=loose)
        self.assertEqual(names, list(INITIALIZERS), "initializers left out")

    # ---- dropout -------------------------------------------------------------------

    def test_dropout_v1(self):
        def make():
            loss = mlp_loss(lambda h: tf1.nn.dropout(h, rate=0.3, seed=11))
            tf1.train.MomentumOptimizer(0.1, 0.9).minimize(loss, name="train")
        self.check_losses(build(make))

    def test_dropout_v2(self):
        def make():
            loss = mlp_loss(lambda h: tf.nn.dropout(h, rate=0.4, seed=12))
            tf1.train.GradientDescentOptimizer(0.2).minimize(loss, name="train")
        self.check_losses(build(make))

    # ---- gradient clipping ---------------------------------------------------------

    def test_clip_by_global_norm(self):
        def make():
            loss = mlp_loss()
            opt = tf1.train.MomentumOptimizer(0.1, 0.9)
            grads_and_vars = opt.compute_gradients(loss)
            grads, variables = zip(*grads_and_vars)
            # A small clip norm, so the clipping is active on every step.
            clipped, norm = tf.clip_by_global_norm(grads, 0.5)
            tf.identity(norm, name="norm_before_clipping")
            opt.apply_gradients(zip(clipped, variables), name="train")
        graph_def = build(make)
        for steps in STEPS:
            with self.subTest(steps=steps):
                _, norm = self.compare(graph_def, ["loss", "norm_before_clipping"], steps)
                self.assertGreater(float(norm), 0.5)

    # ---- learning-rate schedules and the global step -------------------------------

    def check_schedule(self, make_lr):
        def make():
            loss = mlp_loss()
            global_step = tf1.train.get_or_create_global_step()
            lr = tf.identity(make_lr(global_step), name="lr")
            tf1.train.GradientDescentOptimizer(lr).minimize(
                loss, global_step=global_step, name="train")
        graph_def = build(make)
        lrs = []
        for steps in STEPS:
            with self.subTest(steps=steps):
                loss, lr = self.compare(graph_def, ["loss", "lr"], steps)
                lrs.append(float(lr))
        self.assertNotEqual(lrs[0], lrs[-1], "the schedule should move")

    def test_exponential_decay(self):
        self.check_schedule(lambda gs: tf1.train.exponential_decay(0.5, gs, 2, 0.7))

    def test_exponential_decay_staircase(self):
        self.check_schedule(lambda gs: tf1.train.exponential_decay(
            0.5, gs, 2, 0.7, staircase=True))

    def test_piecewise_constant(self):
        # tf.case under control flow v1 (Switch/Merge, and an Assert that the
        # predicates are exclusive). Control flow v2 (TensorFlow 2's default)
        # emits If/StatelessIf with function branches, which the runtime
        # does not run yet.
        tf1.disable_control_flow_v2()
        try:
            self.check_schedule(lambda gs: tf1.train.piecewise_constant(
                gs, [np.int64(1), np.int64(4)], [0.5, 0.3, 0.1]))
        finally:
            tf1.enable_control_flow_v2()

    def test_polynomial_decay(self):
        self.check_schedule(lambda gs: tf1.train.polynomial_decay(
            0.5, gs, 6, end_learning_rate=0.05, power=2.0))

    def test_polynomial_decay_cycle(self):
        self.check_schedule(lambda gs: tf1.train.polynomial_decay(
            0.5, gs, 3, end_learning_rate=0.05, power=1.0, cycle=True))

    def test_cosine_decay(self):
        self.check_schedule(lambda gs: tf1.train.cosine_decay(0.5, gs, 10, alpha=0.1))

    def test_inverse_time_decay(self):
        self.check_schedule(lambda gs: tf1.train.inverse_time_decay(0.5, gs, 2, 0.5))

    def test_natural_exp_decay(self):
        self.check_schedule(lambda gs: tf1.train.natural_exp_decay(
            0.5, gs, 2, 0.3, staircase=True))

    def test_global_step_counts_the_steps(self):
        def make():
            loss = mlp_loss()
            global_step = tf1.train.get_or_create_global_step()
            train = tf1.train.MomentumOptimizer(0.1, 0.9).minimize(
                loss, global_step=global_step, name="train")
            with tf1.control_dependencies([train]):
                tf.identity(global_step.read_value(), name="step_after")
        graph_def = build(make)
        (step,) = self.compare(graph_def, ["step_after"], 4, targets=())
        self.assertEqual(int(step), 4)


if __name__ == "__main__":
    unittest.main()
