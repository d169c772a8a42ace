"""The graph optimizer on graphs TensorFlow's Python API builds: every graph
runs in TensorFlow's Session (Grappler on, its default), and through
`tributary run` twice, with our passes on (the default) and off
(rewrite_options.disable_meta_optimizer). The three must agree: ours on and
off bit for bit for the exact passes (folding, dead branches, common
subexpressions, arithmetic simplification), within float rounding where a
fusion reorders sums; both against TensorFlow to rtol 1e-5. The step's trace
(StepStats) shows what the passes did: which nodes still ran, which ops.

What is covered, pass by pass (docs/operations.md, "Graph optimization"):
* dead branches: tf.cond on a constant, on a placeholder_with_default left
  at its default (Keras' learning phase) and fed (not removed), and a TF2
  tf.function whose lowered If has a constant predicate;
* common subexpressions and arithmetic: the same op twice on the same
  input, Identity chains, x * 1, Neg(Neg(x)), AddN of one input, integer
  x + 0, a constant subexpression over three tasks' worth of ops;
* fusions: a frozen Keras residual block (Conv2D + batch norm + Add of the
  block's input + ReLU), a TF1 fused batch norm + Relu and a TF1 Conv2D +
  inference fused batch norm + Relu, checked to run as _FusedConv2D /
  _FusedBatchNormEx / _FusedConv2D (the batch norm folded into it);
* errors: a shape error inside a constant subexpression reaches the step
  with TensorFlow's code.
"""
import json
import os
import subprocess
import sys
import tempfile
import unittest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

sys.path.insert(0, "tests/interop")  # cwd is the runfiles root

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

import session_oracle_test as oracle  # noqa: E402

tf1 = tf.compat.v1
OFF = "graph_options { rewrite_options { disable_meta_optimizer: true } }"


def run_ours(graph_path, feeds, fetches, config="", trace_path=None):
    """One step through `tributary run`: ({fetch: ndarray}, {node: op}) of
    the nodes its trace says ran."""
    args = [oracle.BINARY, "run", "--graph", graph_path]
    for i, (name, value) in enumerate(feeds.items()):
        # As .npy: every bit of -0, inf, NaN payloads and denormals arrives.
        path = os.path.join(os.path.dirname(graph_path), f"feed{i}.npy")
        np.save(path, np.asarray(value))
        args += ["--feed", f"{name}=@{path}"]
    for f in fetches:
        args += ["--fetch", f]
    if config:
        args += ["--config", config]
    if trace_path:
        args += ["--trace", trace_path]
    proc = subprocess.run(args, capture_output=True, text=True, timeout=120)
    out = oracle.parse_run_output(proc)
    if "error" in out:
        return "error", out["error"]["code"], {}
    values = {f: oracle.from_json(out["fetches"][f])[1] for f in fetches}
    ran = {}
    if trace_path:
        with open(trace_path) as f:
            for event in json.load(f)["traceEvents"]:
                if event.get("ph") == "X":
                    ran[event["args"]["name"]] = event["args"].get("op", event["name"])
    return "ok", values, ran


class GraphOptimizerInteropTest(unittest.TestCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory()

    def tearDown(self):
        self._tmp.cleanup()

    def check(self, graph_def, feeds, fetches, exact=True, rtol=1e-5, atol=1e-6):
        """Runs TensorFlow, ours on, ours off; returns (nodes that ran with
        the passes on, nodes that ran with them off)."""
        path = os.path.join(self._tmp.name, "graph.pbtxt")
        with open(path, "w") as f:
            f.write(str(graph_def))
        tf_kind, tf_values = oracle.run_tf(graph_def, feeds, fetches)
        on_kind, on_values, on_ran = run_ours(
            path, feeds, fetches, trace_path=os.path.join(self._tmp.name, "on.json"))
        off_kind, off_values, off_ran = run_ours(
            path, feeds, fetches, config=OFF,
            trace_path=os.path.join(self._tmp.name, "off.json"))
        self.assertEqual((on_kind, off_kind), (tf_kind, tf_kind),
                         f"TF {tf_values}; on {on_values}; off {off_values}")
        if tf_kind == "error":
            self.assertEqual(on_values, tf_values)
            self.assertEqual(off_values, tf_values)
            return on_ran, off_ran
        for name, want in zip(fetches, tf_values):
            with self.subTest(fetch=name):
                want = np.asarray(want)
                on = on_values[name].astype(want.dtype).reshape(want.shape)
                off = off_values[name].astype(want.dtype).reshape(want.shape)
                if exact:
                    np.testing.assert_array_equal(on, off)
                else:
                    np.testing.assert_allclose(on, off, rtol=rtol, atol=atol)
                if want.dtype.kind == "f":
                    np.testing.assert_allclose(on, want, rtol=rtol, atol=atol)
                else:
                    np.testing.assert_array_equal(on, want)
        return on_ran, off_ran

    # ---- dead branches (loop_optimization) --------------------------------

    def cond_graph(self, pred_fn, v1):
        """tf.cond as TensorFlow 2 builds it in a graph (a StatelessIf, which
        we lower to Switch/Merge) or as control flow v1 (Switch/Merge)."""
        g = tf.Graph()
        if v1:
            tf1.disable_control_flow_v2()
        try:
            with g.as_default():
                x = tf1.placeholder(tf.float32, [4], name="x")
                out = tf1.cond(pred_fn(),
                               lambda: tf.nn.relu(x) * 3.0,
                               lambda: tf.exp(x) + 1.0)
                tf.identity(out, name="out")
        finally:
            if v1:
                tf1.enable_control_flow_v2()
        return g.as_graph_def()

    def test_cond_on_a_constant_runs_one_branch(self):
        for v1 in (False, True):
            with self.subTest(control_flow_v1=v1):
                graph_def = self.cond_graph(lambda: tf.constant(True), v1)
                feeds = {"x": np.array([-1, 0.5, 2, -3], np.float32)}
                on, off = self.check(graph_def, feeds, ["out"])
                self.assertTrue(ran(off, "Exp"), off)  # the executor ran it, dead
                self.assertFalse(ran(on, "Exp"), on)
                self.assertTrue(ran(on, "Relu"), on)

    def test_learning_phase_at_its_default_removes_the_training_branch(self):
        def learning_phase():
            return tf1.placeholder_with_default(False, [], name="training")
        for v1 in (False, True):
            with self.subTest(control_flow_v1=v1):
                graph_def = self.cond_graph(learning_phase, v1)
                feeds = {"x": np.array([1, -2, 3, 4], np.float32)}
                on, _ = self.check(graph_def, feeds, ["out"])
                self.assertFalse(ran(on, "Relu"), on)
                self.assertTrue(ran(on, "Exp"), on)
                # Fed, the predicate is the step's input: both branches stay.
                feeds["training"] = np.array(True)
                on, _ = self.check(graph_def, feeds, ["out"])
                self.assertTrue(ran(on, "Relu"), on)
                self.assertTrue(ran(on, "Exp"), on)

    def test_tf2_function_if_on_a_constant_runs_one_branch(self):
        @tf.function
        def f(x):
            return tf.cond(tf.constant(False), lambda: tf.sin(x), lambda: tf.cos(x) * 2.0)
        g = tf.Graph()
        with g.as_default():
            x = tf1.placeholder(tf.float32, [3], name="x")
            tf.identity(f(x), name="out")
        feeds = {"x": np.array([0.1, 1.0, -2.0], np.float32)}
        on, off = self.check(g.as_graph_def(), feeds, ["out"])
        self.assertTrue(ran(on, "Cos"), on)
        self.assertFalse(ran(on, "Sin"), on)
        self.assertTrue(ran(off, "Sin"), off)

    # ---- common subexpressions, arithmetic, folding --------------------------

    def test_common_subexpressions_and_arithmetic(self):
        g = tf.Graph()
        with g.as_default():
            x = tf1.placeholder(tf.float32, [2, 3], name="x")
            n = tf1.placeholder(tf.int32, [3], name="n")
            a = tf.exp(x, name="exp_a")
            b = tf.exp(x, name="exp_b")  # the same as exp_a
            summed = tf.identity(tf.identity(a + b), name="chain")
            tf.multiply(summed, tf.constant(1.0), name="times_one")
            tf.negative(tf.negative(x), name="neg_neg")
            tf.raw_ops.AddN(inputs=[x], name="add_n")
            tf.add(n, tf.constant(0), name="plus_zero")
            # Folded whole: a constant subexpression.
            k = tf.reduce_sum(tf.square(tf.range(5.0)) * 2.0 + 1.0)
            tf.add(x, k, name="shifted")
        feeds = {"x": np.array([[-0.0, 1.5, -2.0], [np.inf, 3.25, 1e-40]], np.float32),
                 "n": np.array([-7, 0, 9], np.int32)}
        fetches = ["chain", "times_one", "neg_neg", "add_n", "plus_zero", "shifted"]
        on, off = self.check(g.as_graph_def(), feeds, fetches)
        exps_on = [k for k, op in on.items() if op == "Exp"]
        exps_off = [k for k, op in off.items() if op == "Exp"]
        self.assertEqual(len(exps_on), 1, on)
        self.assertEqual(len(exps_off), 2, off)
        self.assertFalse(ran(on, "Neg"), on)
        self.assertTrue(ran(off, "Neg"), off)
        self.assertFalse(ran(on, "Square"), on)  # folded
        self.assertFalse(ran(on, "AddN"), on)

    def test_kernel_error_in_a_constant_subexpression_reaches_the_step(self):
        g = tf.Graph()
        with g.as_default():
            x = tf1.placeholder(tf.float32, [2], name="x")
            bad = tf.math.floordiv(tf.constant([7, 8]), tf.constant([0, 1]))
            tf.add(tf.cast(bad, tf.float32), x, name="out")
        on, off = self.check(g.as_graph_def(), {"x": np.ones(2, np.float32)}, ["out"])

    # ---- fusions (remapping) --------------------------------------------------

    def test_frozen_keras_residual_block_runs_fused(self):
        import keras
        from tensorflow.python.framework.convert_to_constants import (
            convert_variables_to_constants_v2)
        keras.utils.set_random_seed(3)
        inp = keras.Input((8, 8, 4), batch_size=2)
        y = keras.layers.Conv2D(4, 3, padding="same")(inp)
        y = keras.layers.BatchNormalization()(y)
        y = keras.layers.ReLU()(keras.layers.Add()([y, inp]))
        y = keras.layers.Conv2D(6, 1, activation="relu")(y)
        model = keras.Model(inp, keras.layers.Dense(3)(keras.layers.Flatten()(y)))
        # Non-trivial batch statistics, as a trained model has.
        for layer in model.layers:
            if isinstance(layer, keras.layers.BatchNormalization):
                layer.moving_mean.assign(np.linspace(-0.5, 0.5, 4).astype(np.float32))
                layer.moving_variance.assign(np.linspace(0.5, 2.0, 4).astype(np.float32))
        fn = tf.function(lambda x: model(x, training=False))
        frozen = convert_variables_to_constants_v2(
            fn.get_concrete_function(tf.TensorSpec([2, 8, 8, 4], tf.float32, name="x")))
        feed = frozen.inputs[0].name.split(":")[0]
        fetch = frozen.outputs[0].name
        image = np.random.default_rng(1).standard_normal((2, 8, 8, 4)).astype(np.float32)
        on, off = self.check(frozen.graph.as_graph_def(), {feed: image}, [fetch],
                             exact=False, rtol=1e-4, atol=1e-5)
        on_ops = set(on.values())
        self.assertIn("_FusedConv2D", on_ops)
        self.assertIn("_FusedMatMul", on_ops)
        for unfused in ("Conv2D", "BiasAdd", "AddV2", "Relu", "Mul"):
            self.assertNotIn(unfused, on_ops)
        self.assertIn("Conv2D", set(off.values()))

    def test_tf1_fused_batch_norm_and_relu_run_as_one_kernel(self):
        g = tf.Graph()
        with g.as_default():
            x = tf1.placeholder(tf.float32, [2, 4, 4, 3], name="x")
            side = tf1.placeholder(tf.float32, [2, 4, 4, 3], name="side")
            scale = tf.constant([1.0, 2.0, 0.5])
            offset = tf.constant([0.1, -0.2, 0.3])
            mean = tf.constant([0.0, 0.5, -0.5])
            var = tf.constant([1.0, 0.25, 4.0])
            y, _, _ = tf1.nn.fused_batch_norm(x, scale, offset, mean=mean, variance=var,
                                              is_training=False, epsilon=1e-3)
            tf.nn.relu(y, name="out")
            y2, _, _ = tf1.nn.fused_batch_norm(x, scale, offset, mean=mean, variance=var,
                                               is_training=False, epsilon=1e-4)
            tf.nn.relu(y2 + side, name="out_side")
        rng = np.random.default_rng(2)
        feeds = {"x": rng.standard_normal((2, 4, 4, 3)).astype(np.float32),
                 "side": rng.standard_normal((2, 4, 4, 3)).astype(np.float32)}
        on, off = self.check(g.as_graph_def(), feeds, ["out", "out_side"], exact=False)
        self.assertIn("_FusedBatchNormEx", set(on.values()))
        self.assertNotIn("Relu", set(on.values()))
        self.assertIn("Relu", set(off.values()))

    def test_tf1_conv_fused_batch_norm_relu_folds_into_the_convolution(self):
        g = tf.Graph()
        with g.as_default():
            rng = np.random.default_rng(4)
            x = tf1.placeholder(tf.float32, [2, 6, 6, 3], name="x")
            w = tf.constant(rng.standard_normal((3, 3, 3, 5)).astype(np.float32))
            conv = tf.nn.conv2d(x, w, strides=1, padding="SAME")
            c = lambda lo, hi: tf.constant(rng.uniform(lo, hi, 5).astype(np.float32))
            y, _, _ = tf1.nn.fused_batch_norm(conv, c(0.5, 2), c(-1, 1), mean=c(-1, 1),
                                              variance=c(0.1, 2), is_training=False,
                                              epsilon=1e-3)
            tf.nn.relu(y, name="out")
        feeds = {"x": np.random.default_rng(5).standard_normal((2, 6, 6, 3)).astype(np.float32)}
        on, off = self.check(g.as_graph_def(), feeds, ["out"], exact=False, atol=1e-5)
        self.assertIn("_FusedConv2D", set(on.values()))
        self.assertNotIn("FusedBatchNormV3", set(on.values()))
        self.assertIn("FusedBatchNormV3", set(off.values()))


def ran(nodes, op_name):
    """Whether a node of op `op_name` ran: by its op where the trace knows it
    (the client's nodes), by its name's last part for nodes our expansion
    of functions and control flow made."""
    return any(op == op_name or name.rsplit("/", 1)[-1] == op_name
               for name, op in nodes.items())


if __name__ == "__main__":
    unittest.main()
