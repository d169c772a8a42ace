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
    for name, value in feeds.items():
        value = np.asarray(value)
        args += ["--feed", f"{name}={value.dtype.name}:{json.dumps(value.tolist())}"]
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


def ran(nodes, op_name):
    """Whether a node of op `op_name` ran: by its op where the trace knows it
    (the client's nodes), by its name's last part for nodes our expansion
    of functions and control flow made."""
    return any(op == op_name or name.rsplit("/", 1)[-1] == op_name
               for name, op in nodes.items())


if __name__ == "__main__":
    unittest.main()
