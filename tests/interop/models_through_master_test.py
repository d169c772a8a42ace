"""Family-1 models through the master: a real 1-ps + 2-worker cluster started
with `tributary cluster up` (and stopped with `tributary cluster down`, also
when a test fails), driven by TensorFlow's own Python client,
tf.compat.v1.Session("grpc://..."). Variables are placed on the ps task by
tf.compat.v1.train.replica_device_setter, the compute on the worker tasks.

Each model is built once, placed; the reference is the same GraphDef with its
devices cleared, run by TensorFlow alone in an in-process session. Same seeds,
same graph: the random initial values are TensorFlow's bits on both sides, so
the losses of every step must agree (rtol 1e-5, atol 1e-6: reductions may sum
in another order) and the random ops' outputs must be equal.

Models: the MLP with get_variable's default (glorot uniform) initializer and
MomentumOptimizer, its layers on two worker tasks; the CNN of
cnn_session_test.py with AdamOptimizer; the fused batch-norm training graph of
batch_norm_session_test.py; the MLP with dropout; the random ops.
"""
import os
import sys
import unittest

os.environ["TF_ENABLE_ONEDNN_OPTS"] = "0"  # TF's reference CPU kernels

sys.path.insert(0, "tests/interop")  # cwd is the runfiles root

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

import batch_norm_session_test  # noqa: E402
import cnn_session_test  # noqa: E402
import tf_client_cluster  # noqa: E402
import training_graphs_test  # noqa: E402

tf1 = tf.compat.v1

WORKER0 = "/job:worker/task:0"
WORKER1 = "/job:worker/task:1"
OPERATION_TIMEOUT_MS = 60000  # a hung step fails the test instead of stalling it
STEPS = 6
RTOL, ATOL = 1e-5, 1e-6
GRAPH_SEED = 4321


def setter(worker):
    """Variables on /job:ps/task:0, every other op on `worker`."""
    return tf1.train.replica_device_setter(ps_tasks=1, worker_device=worker)


def mlp_two_workers():
    """The MLP with default initializers, layer 1 on worker 0, layer 2, the
    loss and Momentum's update on worker 1 (the gradients colocated with their
    forward ops, so the backward pass crosses tasks too)."""
    g = tf.Graph()
    with g.as_default():
        tf1.set_random_seed(GRAPH_SEED)
        F, H, C = (training_graphs_test.FEATURES, training_graphs_test.HIDDEN,
                   training_graphs_test.CLASSES)
        with g.device(setter(WORKER0)):
            x = tf1.placeholder(tf.float32, [None, F], name="x")
            w1 = tf1.get_variable("dense1/kernel", [F, H])
            b1 = tf1.get_variable("dense1/bias", [H], initializer=tf1.zeros_initializer())
            h = tf.nn.relu(tf.matmul(x, w1) + b1)
        with g.device(setter(WORKER1)):
            labels = tf1.placeholder(tf.float32, [None, C], name="labels")
            w2 = tf1.get_variable("dense2/kernel", [H, C])
            b2 = tf1.get_variable("dense2/bias", [C])
            logits = tf.matmul(h, w2) + b2
            loss = tf.reduce_mean(
                tf.nn.softmax_cross_entropy_with_logits(labels=labels, logits=logits),
                name="loss")
            tf1.train.MomentumOptimizer(0.1, 0.9).minimize(
                loss, colocate_gradients_with_ops=True, name="train")
        tf1.variables_initializer(tf1.global_variables(), name="init")
    return g.as_graph_def(), training_graphs_test.batch()


def mlp_dropout():
    """The MLP of training_graphs_test with seeded dropout, on worker 1."""
    g = tf.Graph()
    with g.as_default(), g.device(setter(WORKER1)):
        tf1.set_random_seed(GRAPH_SEED)
        loss = training_graphs_test.mlp_loss(
            lambda h: tf1.nn.dropout(h, rate=0.3, seed=11))
        tf1.train.MomentumOptimizer(0.1, 0.9).minimize(loss, name="train")
        tf1.variables_initializer(tf1.global_variables(), name="init")
    return g.as_graph_def(), training_graphs_test.batch()


def random_ops():
    """Seeded stateful random ops on both worker tasks and a glorot-initialised
    variable on the ps task."""
    g = tf.Graph()
    with g.as_default():
        tf1.set_random_seed(GRAPH_SEED)
        with g.device(setter(WORKER0)):
            tf.identity(tf1.get_variable("glorot", [7, 5]), name="glorot_value")
            tf.identity(tf.random.uniform([3, 4], seed=1), name="uniform")
            tf.identity(tf.random.normal([5], 1.0, 2.0, seed=2), name="normal")
        with g.device(setter(WORKER1)):
            tf.identity(tf.random.truncated_normal([2, 3], seed=3), name="truncated")
            tf.identity(tf.random.uniform([6], 0, 100, dtype=tf.int64, seed=4),
                        name="uniform_int")
            tf.identity(tf.random.uniform([4]), name="op_seed_from_graph_seed")
        tf1.variables_initializer(tf1.global_variables(), name="init")
    return g.as_graph_def()


RANDOM_FETCHES = ["uniform", "normal", "truncated", "uniform_int",
                  "op_seed_from_graph_seed"]


def without_devices(graph_def):
    local = tf1.GraphDef()
    local.CopyFrom(graph_def)
    for node in local.node:
        node.device = ""
    return local


def tensor(g, name):
    return g.get_tensor_by_name(name if ":" in name else name + ":0")


def train_losses(session, g, feeds, steps):
    """Initialises, then runs `steps` steps fetching the loss and targeting
    "train": the losses, one per step."""
    session.run(g.get_operation_by_name("init"))
    feed_dict = {tensor(g, k): v for k, v in feeds.items()}
    loss, train = tensor(g, "loss"), g.get_operation_by_name("train")
    return np.array([session.run([loss, train], feed_dict)[0] for _ in range(steps)])


def imported(graph_def):
    g = tf.Graph()
    with g.as_default():
        tf1.import_graph_def(graph_def, name="")
    return g


@unittest.skipUnless(tf_client_cluster.cli_present(), "tools/tributary is not built")
class ModelsThroughMasterTest(tf_client_cluster.ClusterLifecycle, unittest.TestCase):
    @classmethod
    def make_cluster(cls):
        return tf_client_cluster.CliCluster()

    def remote(self, g):
        return tf1.Session(self.cluster.target, graph=g, config=tf1.ConfigProto(
            operation_timeout_in_ms=OPERATION_TIMEOUT_MS))

    @staticmethod
    def local(g):
        return tf1.Session(graph=g, config=tf1.ConfigProto(device_count={"CPU": 1}))

    def assert_placed(self, graph_def):
        """The setter did its job: variables on ps, compute on workers."""
        for n in graph_def.node:
            if n.op in ("VarHandleOp", "VariableV2"):
                self.assertEqual(n.device, "/job:ps/task:0", n.name)
        self.assertTrue(any(n.device.startswith("/job:worker") for n in graph_def.node
                            if n.op in ("MatMul", "Conv2D")))

    def check_training(self, graph_def, feeds, steps=STEPS):
        self.assert_placed(graph_def)
        g = imported(graph_def)
        with self.remote(g) as sess:
            got = train_losses(sess, g, feeds, steps)
        ref = imported(without_devices(graph_def))
        with self.local(ref) as sess:
            want = train_losses(sess, ref, feeds, steps)
        np.testing.assert_allclose(got, want, rtol=RTOL, atol=ATOL)
        self.assertLess(want[-1], want[0], "the model should learn")

    # ---- models ----------------------------------------------------------------

    def test_mlp_glorot_momentum_on_two_workers(self):
        graph_def, feeds = mlp_two_workers()
        ops = {n.op for n in graph_def.node}
        self.assertIn("RandomUniform", ops)
        self.check_training(graph_def, feeds)

    def test_cnn_adam(self):
        graph_def, feeds = cnn_session_test.build_cnn(
            tf1.train.AdamOptimizer(0.01), device=setter(WORKER0))
        self.check_training(graph_def, feeds)

    def test_fused_batch_norm_training(self):
        for fused_avg in (False, True):
            with self.subTest(fused_avg=fused_avg):
                graph_def, feeds = batch_norm_session_test.build_model(
                    fused_avg, device=setter(WORKER1))
                self.check_training(graph_def, feeds)

    def test_mlp_dropout(self):
        graph_def, feeds = mlp_dropout()
        self.check_training(graph_def, feeds)

    def test_random_ops_give_tensorflows_bits(self):
        graph_def = random_ops()
        g = imported(graph_def)
        ref = imported(without_devices(graph_def))
        fetches = RANDOM_FETCHES + ["glorot_value"]
        runs = []
        for graph, session in ((g, self.remote(g)), (ref, self.local(ref))):
            with session as sess:
                sess.run(graph.get_operation_by_name("init"))
                # Three runs: each advances the stateful generators.
                runs.append([sess.run([tensor(graph, f) for f in fetches])
                             for _ in range(3)])
        for step, (got, want) in enumerate(zip(*runs)):
            for name, a, b in zip(fetches, got, want):
                with self.subTest(step=step, fetch=name):
                    self.assertEqual(a.dtype, b.dtype)
                    np.testing.assert_array_equal(a, b)


if __name__ == "__main__":
    unittest.main()
