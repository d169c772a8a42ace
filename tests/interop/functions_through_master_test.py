"""TensorFlow 2 function graphs through the master: a real 1-ps + 2-worker
cluster from `tributary cluster up`, driven by TensorFlow's own client
(tf.compat.v1.Session("grpc://...")). The master expands the function calls
and functional control flow before placing the graph, so a function body's
nodes are placed, partitioned and run across tasks like any other node:

* a training step in a tf.function (GradientTape through a while loop and a
  cond, the while gradient's TensorLists, SGD) called on worker 0, its
  variable on the ps task by replica_device_setter;
* nested while/cond/switch_case with variable updates on the ps task;
* a function whose body asks for the other worker task (tf.device inside the
  function), so one call spans two tasks.

The reference is the same GraphDef with devices cleared, run by TensorFlow
alone in an in-process session: losses, outputs and variables must agree
(rtol 1e-5, atol 1e-6).
"""
import os
import sys
import unittest

sys.path.insert(0, "tests/interop")  # cwd is the runfiles root

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

import functions_session_test  # noqa: E402
import tf_client_cluster  # noqa: E402

tf1 = tf.compat.v1
WORKER0 = "/job:worker/task:0"
WORKER1 = "/job:worker/task:1"
OPERATION_TIMEOUT_MS = 60000
RTOL, ATOL = 1e-5, 1e-6


def setter(worker):
    return tf1.train.replica_device_setter(ps_tasks=1, worker_device=worker)


def without_devices(graph_def):
    local = tf1.GraphDef()
    local.CopyFrom(graph_def)
    for node in local.node:
        node.device = ""
    for f in local.library.function:
        for node in f.node_def:
            node.device = ""
    return local


def imported(graph_def):
    g = tf.Graph()
    with g.as_default():
        tf1.import_graph_def(graph_def, name="")
    return g


def training_step():
    g = tf.Graph()
    with g.as_default(), g.device(setter(WORKER0)):
        x = tf1.placeholder(tf.float32, [4], name="x")
        w = tf.Variable(np.full(4, 0.5, np.float32), name="w")

        loss = functions_session_test.training_step(w)(x)
        tf.identity(loss, name="out")
        with tf1.control_dependencies([loss]):
            tf.identity(w.read_value(), name="state")
        tf1.variables_initializer([w], name="init")
    return g.as_graph_def(), {"x:0": np.array([1, -2, 3, 0.5], np.float32)}


def nested_control_flow():
    g = tf.Graph()
    with g.as_default(), g.device(setter(WORKER1)):
        x = tf1.placeholder(tf.float32, [3], name="x")
        v = tf.Variable(np.zeros(3, np.float32), name="v")

        @tf.function
        def f(x):
            s = tf.zeros_like(x)
            for i in tf.range(5):
                if tf.reduce_sum(s) < 10.0:
                    s = s + x
                else:
                    s = s * 0.5
                s = tf.switch_case(i % 3, [lambda: s + 1.0, lambda: s * 2.0,
                                           lambda: s - 0.5])
                v.assign_add(s)
            return s

        y = f(x)
        tf.identity(y, name="out")
        with tf1.control_dependencies([y]):
            tf.identity(v.read_value(), name="state")
        tf1.variables_initializer([v], name="init")
    return g.as_graph_def(), {"x:0": np.array([1, 2, 3], np.float32)}


def two_task_function():
    g = tf.Graph()
    with g.as_default(), g.device(setter(WORKER0)):
        x = tf1.placeholder(tf.float32, [2, 2], name="x")
        v = tf.Variable(np.eye(2, dtype=np.float32), name="v")

        @tf.function
        def f(x):
            a = tf.matmul(x, v)
            with tf.device(WORKER1):
                b = tf.tanh(a) + 1.0
            return tf.reduce_sum(b * x)

        y = f(x)
        tf.identity(y, name="out")
        with tf1.control_dependencies([y]):
            tf.identity(v.read_value(), name="state")
        tf1.variables_initializer([v], name="init")
    gd = g.as_graph_def()
    return gd, {"x:0": np.array([[1, 2], [3, 4]], np.float32)}


def run_steps(session, g, feeds, steps):
    session.run(g.get_operation_by_name("init"))
    fetches = [g.get_tensor_by_name("out:0"), g.get_tensor_by_name("state:0")]
    feed_dict = {g.get_tensor_by_name(k): v for k, v in feeds.items()}
    return [session.run(fetches, feed_dict) for _ in range(steps)]


@unittest.skipUnless(tf_client_cluster.cli_present(), "tools/tributary is not built")
class FunctionsThroughMasterTest(tf_client_cluster.ClusterLifecycle,
                                 unittest.TestCase):
    @classmethod
    def make_cluster(cls):
        return tf_client_cluster.CliCluster()

    def check(self, graph_def, feeds, steps=3):
        g = imported(graph_def)
        with tf1.Session(self.cluster.target, graph=g, config=tf1.ConfigProto(
                operation_timeout_in_ms=OPERATION_TIMEOUT_MS)) as sess:
            got = run_steps(sess, g, feeds, steps)
        ref = imported(without_devices(graph_def))
        with tf1.Session(graph=ref) as sess:
            want = run_steps(sess, ref, feeds, steps)
        for step, (g_step, w_step) in enumerate(zip(got, want)):
            for name, a, b in zip(("out", "state"), g_step, w_step):
                with self.subTest(step=step, fetch=name):
                    np.testing.assert_allclose(a, b, rtol=RTOL, atol=ATOL)

    def test_training_step_function(self):
        graph_def, feeds = training_step()
        call = next(n for n in graph_def.node
                    if n.op == "StatefulPartitionedCall")
        self.assertEqual(call.device, WORKER0)
        self.check(graph_def, feeds, steps=4)

    def test_nested_control_flow_with_ps_state(self):
        graph_def, feeds = nested_control_flow()
        self.check(graph_def, feeds)

    def test_function_body_spans_two_tasks(self):
        graph_def, feeds = two_task_function()
        devices = {n.device for f in graph_def.library.function
                   for n in f.node_def}
        self.assertIn(WORKER1, devices)
        self.check(graph_def, feeds)


if __name__ == "__main__":
    unittest.main()
