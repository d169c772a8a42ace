"""TensorFlow's own Python client against a cluster: tf.compat.v1.Session("grpc://...")
with graphs built in TensorFlow's Python (placeholders, variables with their
initialisers on /job:ps, a model and its optimizer step on /job:worker tasks).

The same checks run against two clusters of the same shape (1 ps + 2 workers):
  * TensorFlowServersTest: TensorFlow's tf.distribute.Server processes. This checks
    the test itself: what it expects is what TensorFlow does.
  * TributaryMasterTest: Tributary's tributary-worker and tributary-master daemons.
Results are compared with the same graph run by TensorFlow alone in a local session
with the devices stripped (values within float tolerance, errors by code).
TributaryMasterTest also checks that what we do not support fails with Unimplemented
saying so.
"""
import contextlib
import unittest

import numpy as np
import tensorflow as tf

import tf_client_cluster

tf1 = tf.compat.v1

PS = "/job:ps/task:0"
WORKER0 = "/job:worker/task:0"
WORKER1 = "/job:worker/task:1"
# Every session gets a deadline, so a step that hangs fails the test instead of
# stalling it (TensorFlow's GrpcSession makes it the RPC deadline too).
OPERATION_TIMEOUT_MS = 60000
TRAIN_STEPS = 8


def session_config(**kwargs):
    return tf1.ConfigProto(operation_timeout_in_ms=OPERATION_TIMEOUT_MS, **kwargs)


def placer(place):
    """tf.device when the graph is placed on the cluster, nothing for the local run."""
    return (lambda d: tf.device(d)) if place else (lambda d: contextlib.nullcontext())


def data(seed, rows=6):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(rows, 3)).astype(np.float32)
    y = (x @ np.array([[0.5], [-1.0], [2.0]], np.float32) + 0.3).astype(np.float32)
    return x, y


def build_two_layer_model(optimizer, resource, place, prefix="model"):
    """Parameters on the ps task, layer 1 on worker 0, layer 2, loss and the optimizer
    on worker 1; gradients colocated with their forward ops, so the backward pass
    crosses tasks too."""
    dev = placer(place)
    g = tf.Graph()
    with g.as_default(), tf1.variable_scope(prefix):
        with dev(PS):
            w1 = tf1.get_variable(
                "w1", initializer=tf.constant(np.linspace(-0.5, 0.5, 12, dtype=np.float32)
                                              .reshape(3, 4)), use_resource=resource)
            b1 = tf1.get_variable("b1", initializer=tf.constant([0.1, -0.1, 0.2, 0.0]),
                                  use_resource=resource)
            w2 = tf1.get_variable(
                "w2", initializer=tf.constant([[0.3], [-0.2], [0.5], [0.1]]),
                use_resource=resource)
            b2 = tf1.get_variable("b2", initializer=tf.constant([0.05]),
                                  use_resource=resource)
        with dev(WORKER0):
            x = tf1.placeholder(tf.float32, [None, 3], name="x")
            hidden = tf.nn.relu(tf.nn.bias_add(tf.matmul(x, w1), b1), name="hidden")
        with dev(WORKER1):
            y = tf1.placeholder(tf.float32, [None, 1], name="y")
            prediction = tf.add(tf.matmul(hidden, w2), b2, name="prediction")
            loss = tf.reduce_mean(tf.square(prediction - y), name="loss")
            train = optimizer().minimize(loss, colocate_gradients_with_ops=True,
                                         name="train")
        init = tf1.global_variables_initializer()
    return g, {"x": x, "y": y, "hidden": hidden, "loss": loss, "train": train,
               "init": init, "params": [w1, b1, w2, b2]}


def train(session, model, steps=TRAIN_STEPS):
    """Initialises, runs `steps` training steps (fetch the loss, target the update),
    then fetches the parameters. Returns (losses, params)."""
    session.run(model["init"])
    losses = []
    for step in range(steps):
        x, y = data(step)
        loss, _ = session.run([model["loss"], model["train"]],
                              feed_dict={model["x"]: x, model["y"]: y})
        losses.append(loss)
    return np.array(losses), session.run(model["params"])


def local_session(graph):
    return tf1.Session(graph=graph, config=tf1.ConfigProto(device_count={"CPU": 1}))


class _ClientChecks(tf_client_cluster.ClusterLifecycle):
    """The checks; subclasses say which cluster serves them (make_cluster)."""

    def session(self, graph, **config):
        return tf1.Session(self.cluster.target, graph=graph, config=session_config(**config))

    def assert_error(self, context, code, *needles):
        err = context.exception
        self.assertIsInstance(err, tf.errors.OpError)
        self.assertEqual(err.error_code, code, f"{type(err).__name__}: {err.message}")
        for needle in needles:
            self.assertIn(needle, err.message)

    # ---- training -------------------------------------------------------------

    def check_training(self, optimizer, resource):
        graph, model = build_two_layer_model(optimizer, resource, place=True)
        with self.session(graph) as sess:
            losses, params = train(sess, model)
        ref_graph, ref_model = build_two_layer_model(optimizer, resource, place=False)
        with local_session(ref_graph) as sess:
            want_losses, want_params = train(sess, ref_model)
        np.testing.assert_allclose(losses, want_losses, rtol=1e-4, atol=1e-6)
        for got, want in zip(params, want_params):
            np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-6)
        self.assertLess(losses[-1], losses[0])  # it did learn

    def test_gradient_descent_reference_variables(self):
        self.check_training(lambda: tf1.train.GradientDescentOptimizer(0.05), False)

    def test_adam_resource_variables(self):
        self.check_training(lambda: tf1.train.AdamOptimizer(0.05), True)

    def test_momentum_reference_variables(self):
        self.check_training(lambda: tf1.train.MomentumOptimizer(0.05, 0.9), False)

    # ---- feeds, fetches, targets ----------------------------------------------

    def build_mixed(self, place):
        dev = placer(place)
        g = tf.Graph()
        with g.as_default():
            with dev(PS):
                counter = tf1.Variable(0, name="counter", use_resource=False)
            with dev(WORKER0):
                a = tf1.placeholder(tf.int32, [None], name="a")
                words = tf1.placeholder(tf.string, [None], name="words")
                doubled = tf.multiply(a, 2, name="doubled")
            with dev(WORKER1):
                b = tf1.placeholder(tf.int64, [None], name="b")
                total = tf.add(tf.cast(doubled, tf.int64), b, name="total")
                positive = tf.greater(total, 0, name="positive")
                # Strings cross tasks (no string kernels beyond Identity needed).
                joined = tf.identity(words, name="joined")
                bump = tf1.assign_add(counter, tf.reduce_sum(a), name="bump")
            init = tf1.variables_initializer([counter], name="init")
        return g, locals()

    def run_mixed(self, sess, m):
        sess.run(m["init"])
        out = []
        for i in range(3):
            feeds = {m["a"]: np.array([1, -2, 3 + i], np.int32),
                     m["b"]: np.array([10, 0, -100], np.int64),
                     m["words"]: np.array([b"x", "\u00e9t\u00e9".encode(), b""], object)}
            # Fetch a fed tensor back, values from both workers, and run a target.
            out.append(sess.run([m["a"], m["total"], m["positive"], m["joined"]],
                                feed_dict=feeds))
            sess.run(m["bump"].op, feed_dict=feeds)
        out.append([sess.run(m["counter"])])
        return out

    def test_feeds_fetches_and_targets_of_several_dtypes(self):
        graph, m = self.build_mixed(place=True)
        with self.session(graph) as sess:
            got = self.run_mixed(sess, m)
        ref_graph, ref_m = self.build_mixed(place=False)
        with local_session(ref_graph) as sess:
            want = self.run_mixed(sess, ref_m)
        for got_step, want_step in zip(got, want):
            for g_value, w_value in zip(got_step, want_step):
                g_value, w_value = np.asarray(g_value), np.asarray(w_value)
                self.assertEqual(g_value.dtype, w_value.dtype)
                np.testing.assert_array_equal(g_value, w_value)
        self.assertEqual(int(got[-1][0]), (1 - 2 + 3) + (1 - 2 + 4) + (1 - 2 + 5))

    def test_graph_extended_between_steps(self):
        # The Python client sends new nodes with ExtendSession.
        g = tf.Graph()
        with g.as_default():
            with tf.device(WORKER0):
                x = tf1.placeholder(tf.float32, [2], name="x")
                y = tf.multiply(x, 3.0, name="y")
            with self.session(g) as sess:
                np.testing.assert_allclose(sess.run(y, {x: [1.0, 2.0]}), [3.0, 6.0])
                with tf.device(WORKER1):
                    z = tf.add(y, 1.0, name="z")
                with tf.device(PS):
                    s = tf.reduce_sum(z, name="s")
                np.testing.assert_allclose(sess.run([z, s], {x: [1.0, 2.0]})[0], [4.0, 7.0])
                self.assertAlmostEqual(float(sess.run(s, {x: [0.5, 0.5]})), 5.0, places=5)

    def test_make_callable(self):
        graph, model = build_two_layer_model(lambda: tf1.train.GradientDescentOptimizer(0.05),
                                             False, place=True, prefix="callable")
        x, y = data(11)
        with self.session(graph) as sess:
            sess.run(model["init"])
            step = sess.make_callable([model["loss"], model["train"]],
                                      feed_list=[model["x"], model["y"]])
            losses = [step(x, y)[0] for _ in range(3)]
        ref_graph, ref_model = build_two_layer_model(
            lambda: tf1.train.GradientDescentOptimizer(0.05), False, place=False,
            prefix="callable")
        with local_session(ref_graph) as sess:
            sess.run(ref_model["init"])
            want = [sess.run([ref_model["loss"], ref_model["train"]],
                             {ref_model["x"]: x, ref_model["y"]: y})[0] for _ in range(3)]
        np.testing.assert_allclose(losses, want, rtol=1e-5)

    def test_partial_run(self):
        g = tf.Graph()
        with g.as_default():
            with tf.device(WORKER0):
                a = tf1.placeholder(tf.float32, [], name="a")
                b = tf1.placeholder(tf.float32, [], name="b")
                ab = tf.add(a, b, name="ab")
            with tf.device(WORKER1):
                c = tf1.placeholder(tf.float32, [], name="c")
                abc = tf.multiply(ab, c, name="abc")
            with self.session(g) as sess:
                handle = sess.partial_run_setup([ab, abc], [a, b, c])
                self.assertAlmostEqual(float(sess.partial_run(handle, ab, {a: 1.0, b: 2.0})),
                                       3.0)
                self.assertAlmostEqual(float(sess.partial_run(handle, abc, {c: 4.0})), 12.0)

    def test_trace_returns_step_stats(self):
        g = tf.Graph()
        with g.as_default():
            with tf.device(WORKER0):
                x = tf.constant([1.0, 2.0], name="x")
            with tf.device(WORKER1):
                y = tf.reduce_sum(x * 2.0, name="y")
        with self.session(g) as sess:
            metadata = tf1.RunMetadata()
            value = sess.run(y, options=tf1.RunOptions(trace_level=tf1.RunOptions.FULL_TRACE),
                             run_metadata=metadata)
        self.assertAlmostEqual(float(value), 6.0)
        devices = [d.device for d in metadata.step_stats.dev_stats]
        self.assertTrue(any("/job:worker/replica:0/task:1" in d for d in devices), devices)

    def test_list_devices(self):
        with self.session(tf.Graph()) as sess:
            names = {d.name for d in sess.list_devices()}
        for task in ("/job:ps/replica:0/task:0", "/job:worker/replica:0/task:0",
                     "/job:worker/replica:0/task:1"):
            self.assertIn(task + "/device:CPU:0", names)

    # ---- state across sessions ------------------------------------------------

    def shared_variable_graph(self, name):
        g = tf.Graph()
        with g.as_default():
            with tf.device(PS):
                v = tf1.Variable(1.0, name=name, use_resource=False)
            with tf.device(WORKER1):
                inc = tf1.assign_add(v, 2.0, name="inc")
        return g, v, inc

    def test_variables_shared_between_sessions_unless_isolated(self):
        # TensorFlow's default (isolate_session_state=False): variables live in the
        # workers' shared resource manager, so a second session sees the first one's.
        g, v, inc = self.shared_variable_graph("shared_v")
        with self.session(g) as first:
            first.run(v.initializer)
            first.run(inc)
        with self.session(g) as second:
            self.assertAlmostEqual(float(second.run(v)), 3.0)
            second.run(inc)
        with self.session(g, isolate_session_state=True) as isolated:
            with self.assertRaises(tf.errors.OpError) as cm:
                isolated.run(v)
            self.assert_error(cm, tf.errors.FAILED_PRECONDITION)
            isolated.run(v.initializer)
            isolated.run(inc)
            self.assertAlmostEqual(float(isolated.run(v)), 3.0)
        with self.session(g) as third:
            self.assertAlmostEqual(float(third.run(v)), 5.0)

    def test_reset_clears_shared_variables(self):
        g, v, inc = self.shared_variable_graph("reset_v")
        with self.session(g) as sess:
            sess.run(v.initializer)
            sess.run(inc)
        tf1.Session.reset(self.cluster.target)
        with self.session(g) as sess:
            with self.assertRaises(tf.errors.OpError) as cm:
                sess.run(v)
            self.assert_error(cm, tf.errors.FAILED_PRECONDITION)

    # ---- errors keep their codes ----------------------------------------------

    def test_bad_feed_is_invalid_argument_naming_the_node(self):
        g = tf.Graph()
        with g.as_default():
            with tf.device(WORKER0):
                a = tf1.placeholder(tf.float32, None, name="a")
            with tf.device(WORKER1):
                b = tf1.placeholder(tf.float32, None, name="b")
                mm = tf.matmul(a, b, name="mm")
                reshaped = tf.reshape(a, [5], name="reshaped")
        with self.session(g) as sess:
            with self.assertRaises(tf.errors.OpError) as cm:
                sess.run(mm, {a: np.ones((2, 3), np.float32), b: np.ones((2, 3), np.float32)})
            self.assert_error(cm, tf.errors.INVALID_ARGUMENT, "mm")
            with self.assertRaises(tf.errors.OpError) as cm:
                sess.run(reshaped, {a: np.ones((2, 3), np.float32)})
            self.assert_error(cm, tf.errors.INVALID_ARGUMENT, "reshaped")
            # The session still works after the failed steps.
            out = sess.run(mm, {a: np.ones((2, 3), np.float32), b: np.ones((3, 1), np.float32)})
            np.testing.assert_allclose(out, [[3.0], [3.0]])

    def test_unfed_placeholder_is_invalid_argument(self):
        g = tf.Graph()
        with g.as_default():
            with tf.device(WORKER1):
                p = tf1.placeholder(tf.float32, [2], name="never_fed")
                out = tf.identity(p, name="out")
        with self.session(g) as sess:
            with self.assertRaises(tf.errors.OpError) as cm:
                sess.run(out)
            self.assert_error(cm, tf.errors.INVALID_ARGUMENT, "never_fed")

    def test_uninitialised_variable_is_failed_precondition(self):
        g, v, inc = self.shared_variable_graph("never_initialised_v")
        with self.session(g) as sess:
            with self.assertRaises(tf.errors.OpError) as cm:
                sess.run(inc)
            self.assert_error(cm, tf.errors.FAILED_PRECONDITION, "never_initialised_v")


    def test_blocked_step_times_out_with_deadline_exceeded(self):
        # A _Recv on worker 1 for a tensor nobody sends blocks until the step's
        # RunOptions.timeout_in_ms.
        device = "/job:worker/replica:0/task:1/device:CPU:0"
        recv = tf1.NodeDef(name="never", op="_Recv", device=device)
        recv.attr["tensor_type"].type = tf.float32.as_datatype_enum
        recv.attr["tensor_name"].s = b"never_sent"
        recv.attr["send_device"].s = device.encode()
        recv.attr["recv_device"].s = device.encode()
        recv.attr["send_device_incarnation"].i = 1
        recv.attr["client_terminated"].b = False
        # tf.raw_ops.Recv would make a "Recv" node, TensorFlow's public alias of
        # _Recv; the internal op is what partitioned graphs really contain.
        g = tf.Graph()
        with g.as_default():
            graph_def = tf1.GraphDef()
            graph_def.node.append(recv)
            never, = tf1.import_graph_def(graph_def, return_elements=["never:0"], name="")
            with tf.device(WORKER0):
                blocked = tf.identity(never, name="blocked")
                fine = tf.constant(3.0, name="fine") * 2.0
        with self.session(g) as sess:
            for _ in range(2):
                with self.assertRaises(tf.errors.OpError) as cm:
                    sess.run(blocked, options=tf1.RunOptions(timeout_in_ms=500))
                self.assert_error(cm, tf.errors.DEADLINE_EXCEEDED)
                self.assertAlmostEqual(float(sess.run(fine)), 6.0)

    def test_large_tensors(self):
        # 32 MiB fed, moved between tasks, kept in a ps variable, and fetched.
        values = np.linspace(-1.0, 1.0, 8 << 20, dtype=np.float32)
        g = tf.Graph()
        with g.as_default():
            with tf.device(PS):
                store = tf1.Variable(tf.zeros([8 << 20]), name="store", use_resource=False)
            with tf.device(WORKER0):
                x = tf1.placeholder(tf.float32, [8 << 20], name="x")
            with tf.device(WORKER1):
                doubled = x * 2.0
            save = tf1.assign(store, doubled, name="save")
            with tf.device(WORKER1):
                total = tf.reduce_sum(store, name="total")
        with self.session(g) as sess:
            sess.run(store.initializer)
            sess.run(save.op, {x: values})
            fetched, got_total = sess.run([store, total])
        np.testing.assert_array_equal(fetched, values * 2.0)
        self.assertAlmostEqual(float(got_total), float(np.sum(values * 2.0, dtype=np.float64)),
                               delta=1.0)


class TensorFlowServersTest(_ClientChecks, unittest.TestCase):
    """Validates the checks: TensorFlow's client against TensorFlow's servers."""

    @classmethod
    def make_cluster(cls):
        return tf_client_cluster.TensorFlowCluster()


class TributaryMasterTest(_ClientChecks, unittest.TestCase):
    """TensorFlow's client against Tributary's master and workers."""

    @classmethod
    def make_cluster(cls):
        if not tf_client_cluster.binaries_present():
            raise unittest.SkipTest("tributary-worker/tributary-master not in runfiles")
        return tf_client_cluster.TributaryCluster()

    # What Tributary does not support (TensorFlow's servers do) fails plainly.
    def test_unsupported_requests_get_a_plain_error(self):
        g = tf.Graph()
        with g.as_default():
            with tf.device(WORKER1):
                x = tf.constant([1.0, 2.0], name="x")
                y = tf.multiply(x, 2.0, name="y")
        # ClusterSpec propagation: the client names a cluster of its own.
        other = tf.train.ClusterSpec({"worker": ["127.0.0.1:1"]}).as_cluster_def()
        with self.assertRaises(tf.errors.OpError) as cm:
            with self.session(g, cluster_def=other) as sess:
                sess.run(y)
        self.assert_error(cm, tf.errors.UNIMPLEMENTED, "not supported", "cluster_def")
        # tfdbg tensor watches in RunOptions.
        options = tf1.RunOptions()
        watch = options.debug_options.debug_tensor_watch_opts.add()
        watch.node_name, watch.output_slot = "x", 0
        watch.debug_ops.append("DebugIdentity")
        watch.debug_urls.append("file:///dev/null")
        with self.session(g) as sess:
            with self.assertRaises(tf.errors.OpError) as cm:
                sess.run(y, options=options)
            self.assert_error(cm, tf.errors.UNIMPLEMENTED, "not supported")
            # The session is still usable without them.
            np.testing.assert_allclose(sess.run(y), [2.0, 4.0])


if __name__ == "__main__":
    unittest.main()
