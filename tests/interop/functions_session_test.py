"""TensorFlow 2 graphs with functions and functional control flow, run by
TensorFlow's Session and by `tributary run` on the same GraphDef: same
fetches, same variable state, same error codes.

What TensorFlow 2 writes when a tf.function is called in a graph:
StatefulPartitionedCall/PartitionedCall nodes over a function library, with
While/StatelessWhile, If/StatelessIf and Case/StatelessCase inside, nested to
any depth, and stateful ops whose ordering the function's control outputs
carry. Tributary inlines the calls and lowers the control flow before
placement (common/function); these cases check the result against
TensorFlow itself:

* nested while/cond/switch_case with variable updates in loop bodies and
  branches, over several steps (state carried between steps);
* a training step: GradientTape through a while loop and a cond (the
  while gradient's TensorList accumulators), SGD on a variable;
* TensorArray in a loop (TensorList ops in a while body);
* switch_case with in-range and out-of-range indices (the last branch runs);
* an If that TensorFlow does not lower (no _lower_using_switch_merge) with
  non-boolean and non-scalar predicates (ToBool's rule);
* a function called by its name as an op type (function.Defun);
* a function nested in a function, with a control output only;
* errors raised inside a body (INVALID_ARGUMENT from an assertion);
* a loop that never ends is stopped by the step's deadline
  (DEADLINE_EXCEEDED), and the step trace names the function bodies' nodes.
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
from tensorflow.python.framework import function as tf_function  # noqa: E402

import session_oracle_test as oracle  # noqa: E402

tf1 = tf.compat.v1


def training_step(w):
    """A tf.function: one SGD step on `w` whose loss runs through a while
    loop with a cond inside (GradientTape: the while gradient's TensorList
    accumulators). Returns the loss before the update."""
    @tf.function
    def step(x):
        with tf.GradientTape() as tape:
            h = x * w
            i = tf.constant(0)
            while i < 3:
                h = tf.tanh(h) * 1.1
                if tf.reduce_sum(h) > 0:
                    h = h * 2.0
                else:
                    h = h - 1.0
                i += 1
            loss = tf.reduce_sum(h * h)
        w.assign_sub(0.01 * tape.gradient(loss, w))
        return loss
    return step


def graph_ops(graph_def):
    ops = {n.op for n in graph_def.node}
    for f in graph_def.library.function:
        ops |= {n.op for n in f.node_def}
    return ops


class FunctionsSessionTest(unittest.TestCase):
    setUp = oracle.SessionOracleTest.setUp
    tearDown = oracle.SessionOracleTest.tearDown
    write_graph = oracle.SessionOracleTest.write_graph
    check = oracle.SessionOracleTest.check

    def test_nested_control_flow_with_state(self):
        g = tf.Graph()
        with g.as_default():
            x = tf1.placeholder(tf.float32, [3], name="x")
            k = tf1.placeholder(tf.int32, [], name="k")
            v = tf.Variable(np.zeros(3, np.float32), name="v")
            count = tf.Variable(0, name="count")

            @tf.function
            def f(x, k):
                s = tf.zeros_like(x)
                i = tf.constant(0)
                while i < k:
                    if tf.reduce_sum(s) < 10.0:
                        s = s + x
                        count.assign_add(1)
                    else:
                        s = s * 0.5
                    s = tf.switch_case(i % 3, [lambda: s + 1.0,
                                               lambda: s * 2.0,
                                               lambda: s - 0.5])
                    v.assign_add(s)
                    i += 1
                return s

            y = f(x, k)
            tf.identity(y, name="y")
            with tf1.control_dependencies([y]):
                tf.identity(v.read_value(), name="v_after")
                tf.identity(count.read_value(), name="count_after")
            tf1.variables_initializer([v, count], name="init")
        gd = g.as_graph_def()
        self.assertTrue({"StatefulPartitionedCall", "While", "If", "Case"} &
                        graph_ops(gd))
        for steps in (1, 3):
            with self.subTest(steps=steps):
                self.check(gd, {"x": np.array([1, 2, 3], np.float32),
                                "k": np.int32(5)},
                           ["y", "v_after", "count_after"], inits=["init"],
                           steps=steps)

    def test_training_step_through_while_and_cond(self):
        g = tf.Graph()
        with g.as_default():
            x = tf1.placeholder(tf.float32, [4], name="x")
            w = tf.Variable(np.full(4, 0.5, np.float32), name="w")

            loss = training_step(w)(x)
            tf.identity(loss, name="loss")
            with tf1.control_dependencies([loss]):
                tf.identity(w.read_value(), name="w_after")
            tf1.variables_initializer([w], name="init")
        gd = g.as_graph_def()
        self.assertIn("TensorListPushBack", graph_ops(gd))
        self.check(gd, {"x": np.array([1, -2, 3, 0.5], np.float32)},
                   ["loss", "w_after"], inits=["init"], steps=4)

    def test_tensor_array_in_loop(self):
        g = tf.Graph()
        with g.as_default():
            x = tf1.placeholder(tf.float32, [None, 3], name="x")

            @tf.function
            def f(x):
                ta = tf.TensorArray(tf.float32, size=0, dynamic_size=True)
                for i in tf.range(tf.shape(x)[0]):
                    ta = ta.write(i, x[i] * tf.cast(i, tf.float32))
                return ta.stack()

            tf.identity(f(x), name="y")
        self.check(g.as_graph_def(),
                   {"x": np.arange(15, dtype=np.float32).reshape(5, 3)}, ["y"])

    def test_tensor_array_gather_scatter_concat_split(self):
        """tf.TensorArray's bulk methods around a loop: scatter, gather,
        split and concat lower to TensorListScatterIntoExistingList,
        TensorListGather, TensorListSplit and TensorListConcatV2; the dynamic
        array in the loop grows through TensorListSetItem."""
        g = tf.Graph()
        with g.as_default():
            x = tf1.placeholder(tf.float32, [None, 3], name="x")

            @tf.function
            def f(x):
                n = tf.shape(x)[0]
                rows = tf.TensorArray(tf.float32, size=n, element_shape=[3])
                rows = rows.scatter(tf.range(n - 1, -1, -1), x)
                acc = tf.TensorArray(tf.float32, size=0, dynamic_size=True)
                for i in tf.range(n):
                    acc = acc.write(i, rows.read(i) * 2.0 + tf.cast(i, tf.float32))
                picked = acc.gather(tf.range(0, n, 2))
                pieces = tf.TensorArray(tf.float32, size=2, infer_shape=False)
                pieces = pieces.split(tf.reshape(x, [-1]), [3, n * 3 - 3])
                return picked, pieces.concat(), pieces.read(1)

            a, b, c = f(x)
            tf.identity(a, name="picked")
            tf.identity(b, name="joined")
            tf.identity(c, name="second")
        gd = g.as_graph_def()
        ops = graph_ops(gd)
        for op in ("TensorListScatterIntoExistingList", "TensorListGather",
                   "TensorListSplit", "TensorListConcatV2"):
            self.assertIn(op, ops)
        self.check(gd, {"x": np.arange(15, dtype=np.float32).reshape(5, 3)},
                   ["picked", "joined", "second"])

    def test_switch_case_indices(self):
        g = tf.Graph()
        with g.as_default():
            x = tf1.placeholder(tf.float32, [2], name="x")
            b = tf1.placeholder(tf.int32, [], name="b")

            @tf.function
            def f(x, b):
                return tf.switch_case(b, [lambda: x + 1.0, lambda: x * 3.0,
                                          lambda: -x])

            tf.identity(f(x, b), name="y")
        gd = g.as_graph_def()
        for b in (0, 1, 2, 7, -1):
            with self.subTest(branch_index=b):
                self.check(gd, {"x": np.array([1, 2], np.float32),
                                "b": np.int32(b)}, ["y"])

    def test_if_not_lowered_by_tensorflow(self):
        """ToBool's rule: TensorFlow runs an If without
        _lower_using_switch_merge as a functional op and converts any
        predicate; Tributary lowers it with the same conversion."""
        for dtype, shape, values in (
                (tf.float32, [], [0.0, -0.0, 2.5]),
                (tf.int32, [2], [[0, 0]]),
                (tf.int32, [0], [np.zeros(0, np.int32)]),
                (tf.string, [], [b"", b"yes"])):
            g = tf.Graph()
            with g.as_default():
                x = tf1.placeholder(tf.float32, [2], name="x")
                # `tributary run` feeds numbers; a string predicate is a
                # constant of the graph instead.
                if dtype != tf.string:
                    tf1.placeholder(dtype, shape, name="p")

                @tf.function
                def f(x):
                    return tf.cond(tf.reduce_sum(x) > 0, lambda: x * 2.0,
                                   lambda: x - 1.0)

                tf.identity(f(x), name="y")
            gd = g.as_graph_def()
            for fn in gd.library.function:
                for node in fn.node_def:
                    if node.op in ("If", "StatelessIf"):
                        node.attr.pop("_lower_using_switch_merge", None)
                        node.attr["Tcond"].type = dtype.as_datatype_enum
                        # The predicate comes from a new argument of the
                        # function, fed by the placeholder.
                        arg = fn.signature.input_arg.add()
                        arg.name = "pred_arg"
                        arg.type = dtype.as_datatype_enum
                        node.input[0] = "pred_arg"
            call = next(n for n in gd.node if n.op.endswith("PartitionedCall"))
            call.input.insert(1, "p")
            call.attr["Tin"].list.type.append(dtype.as_datatype_enum)
            for value in values:
                feeds = {"x": np.array([1, 2], np.float32)}
                graph = gd
                if dtype == tf.string:
                    graph = tf1.GraphDef()
                    graph.CopyFrom(gd)
                    with tf.Graph().as_default() as cg:
                        tf.constant(value, name="p")
                    graph.node.extend(cg.as_graph_def().node)
                else:
                    feeds["p"] = np.array(value, dtype.as_numpy_dtype)
                with self.subTest(dtype=dtype.name, pred=repr(value)):
                    self.check(graph, feeds, ["y"])

    def test_function_called_by_name(self):
        g = tf.Graph()
        with g.as_default():
            x = tf1.placeholder(tf.float32, [3], name="x")

            @tf_function.Defun(tf.float32, tf.float32)
            def poly(a, b):
                return a * a + b, a - b

            y, z = poly(x, x * 2.0)
            tf.identity(y, name="y")
            tf.identity(z, name="z")
        gd = g.as_graph_def()
        self.assertTrue(any(n.op.startswith("poly") for n in gd.node))
        self.check(gd, {"x": np.array([1, 2, 3], np.float32)}, ["y", "z"])

    def test_nested_function_with_only_side_effects(self):
        g = tf.Graph()
        with g.as_default():
            v = tf.Variable(1.0, name="v")

            @tf.function
            def bump(n):
                v.assign_add(n)

            @tf.function
            def outer():
                bump(2.0)
                bump(3.0)
                return tf.constant(0)

            done = outer()
            with tf1.control_dependencies([done]):
                tf.identity(v.read_value(), name="v_after")
            tf1.variables_initializer([v], name="init")
        self.check(g.as_graph_def(), {}, ["v_after"], inits=["init"], steps=2)

    def test_error_inside_a_body(self):
        g = tf.Graph()
        with g.as_default():
            x = tf1.placeholder(tf.float32, [2], name="x")

            @tf.function
            def f(x):
                i = tf.constant(0)
                while i < 3:
                    tf.debugging.assert_less(x, 5.0)
                    x = x + 2.0
                    i += 1
                return x

            tf.identity(f(x), name="y")
        gd = g.as_graph_def()
        self.check(gd, {"x": np.array([0, 0], np.float32)}, ["y"])
        self.check(gd, {"x": np.array([0, 1], np.float32)}, ["y"])

    def test_endless_loop_meets_the_deadline_and_trace_shows_bodies(self):
        g = tf.Graph()
        with g.as_default():
            x = tf1.placeholder(tf.int32, [], name="x")

            @tf.function
            def f(x):
                i = tf.constant(0)
                while i < x:
                    i += 1
                return i

            tf.identity(f(x), name="y")
        path = self.write_graph(g.as_graph_def())
        trace = os.path.join(self._tmp.name, "trace.json")
        proc = subprocess.run(
            [oracle.BINARY, "run", "--graph", path, "--feed", "x=int32:50",
             "--fetch", "y", "--trace", trace], capture_output=True,
            text=True, timeout=120)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertEqual(json.loads(proc.stdout)["fetches"]["y"]["values"],
                         [50])
        with open(trace) as f:
            names = {e.get("args", {}).get("name", "") for e in
                     json.load(f)["traceEvents"]}
        self.assertTrue(any(n.startswith("StatefulPartitionedCall/") or
                            n.startswith("PartitionedCall/") for n in names),
                        sorted(names)[:20])

        proc = subprocess.run(
            [oracle.BINARY, "run", "--graph", path, "--feed",
             "x=int32:2147483647", "--fetch", "y", "--config",
             "operation_timeout_in_ms: 1500"],
            capture_output=True, text=True, timeout=120)
        self.assertNotEqual(proc.returncode, 0)
        self.assertEqual(json.loads(proc.stdout)["error"]["code"],
                         "DEADLINE_EXCEEDED")


if __name__ == "__main__":
    unittest.main()
