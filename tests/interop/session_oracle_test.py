"""TensorFlow as the oracle for whole steps: small graphs built with TensorFlow's
Python API (and tests/testdata/linear_model.pbtxt) run in TensorFlow's own
Session and through `tributary run`, and must give the same fetches (dtype, shape,
values: exact for integers and booleans, allclose for floats) or the same error code.

Every step goes through the real CLI binary (tools/tributary), so this also checks
the CLI's contract: feeds in its VALUE syntax, JSON out, --init/--run-target/--steps.
"""
import json
import os
import subprocess
import tempfile
import unittest

import numpy as np
import tensorflow as tf
from google.protobuf import text_format
from tensorflow.core.framework import types_pb2

tf1 = tf.compat.v1
BINARY = os.path.join("tools", "tributary")
LINEAR_MODEL = os.path.join("tests", "testdata", "linear_model.pbtxt")

# tensorflow/core/protobuf/error_codes.proto
CODE_NAMES = {1: "CANCELLED", 2: "UNKNOWN", 3: "INVALID_ARGUMENT", 4: "DEADLINE_EXCEEDED",
              5: "NOT_FOUND", 6: "ALREADY_EXISTS", 7: "PERMISSION_DENIED",
              8: "RESOURCE_EXHAUSTED", 9: "FAILED_PRECONDITION", 10: "ABORTED",
              11: "OUT_OF_RANGE", 12: "UNIMPLEMENTED", 13: "INTERNAL", 14: "UNAVAILABLE",
              15: "DATA_LOSS", 16: "UNAUTHENTICATED"}


def tensor_name(name):
    return name if ":" in name else name + ":0"


def run_tf(graph_def, feeds, fetches, targets=(), inits=(), steps=1):
    """The step in TensorFlow: ("ok", [np.ndarray]) or ("error", code name)."""
    g = tf.Graph()
    with g.as_default():
        tf1.import_graph_def(graph_def, name="")
    config = tf1.ConfigProto(device_count={"CPU": 1})
    with tf1.Session(graph=g, config=config) as sess:
        try:
            for init in inits:
                sess.run(g.get_operation_by_name(init))
            feed_dict = {g.get_tensor_by_name(tensor_name(k)): v for k, v in feeds.items()}
            run_fetches = [g.get_tensor_by_name(tensor_name(f)) for f in fetches]
            run_fetches += [g.get_operation_by_name(t) for t in targets]
            result = None
            for _ in range(steps):
                result = sess.run(run_fetches, feed_dict=feed_dict)
            return "ok", list(result[:len(fetches)])
        except tf.errors.OpError as e:
            return "error", CODE_NAMES.get(e.error_code, str(e.error_code))


def parse_run_output(proc):
    """The JSON object a finished `tributary run` printed; AssertionError with
    its output when there is none."""
    try:
        return json.loads(proc.stdout)
    except json.JSONDecodeError as e:
        raise AssertionError(f"tributary printed no JSON (exit {proc.returncode}): "
                             f"{proc.stdout!r} {proc.stderr!r}") from e


def run_ours(graph_path, feeds, fetches, targets=(), inits=(), steps=1):
    """The step through `tributary run`: ("ok", {name: json}) or ("error", code)."""
    args = [BINARY, "run", "--graph", graph_path]
    for name, value in feeds.items():
        value = np.asarray(value)
        args += ["--feed", f"{name}={value.dtype.name}:{json.dumps(value.tolist())}"]
    for f in fetches:
        args += ["--fetch", f]
    for t in targets:
        args += ["--run-target", t]
    for i in inits:
        args += ["--init", i]
    args += ["--steps", str(steps)]
    proc = subprocess.run(args, capture_output=True, text=True, timeout=120)
    out = parse_run_output(proc)
    if "error" in out:
        if proc.returncode == 0:
            raise AssertionError(f"error reported with exit status 0: {out}")
        return "error", out["error"]["code"]
    if proc.returncode != 0:
        raise AssertionError(f"exit {proc.returncode} without an error: {out}")
    return "ok", out["fetches"]


def from_json(fetched):
    """A fetch as printed by tributary -> (dtype name, numpy array)."""
    values = fetched["values"]
    special = {"NaN": np.nan, "Infinity": np.inf, "-Infinity": -np.inf}
    values = [special.get(v, v) if isinstance(v, str) else v for v in values]
    return fetched["dtype"], np.array(values).reshape(fetched["shape"])


class SessionOracleTest(unittest.TestCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory()

    def tearDown(self):
        self._tmp.cleanup()

    def write_graph(self, graph_def):
        path = os.path.join(self._tmp.name, "graph.pbtxt")
        with open(path, "w") as f:
            f.write(str(graph_def))
        return path

    def check(self, graph_def, feeds=None, fetches=(), targets=(), inits=(), steps=1,
              graph_path=None, rtol=1e-5, atol=1e-6):
        feeds = feeds or {}
        path = graph_path or self.write_graph(graph_def)
        tf_kind, tf_result = run_tf(graph_def, feeds, fetches, targets, inits, steps)
        our_kind, our_result = run_ours(path, feeds, fetches, targets, inits, steps)
        self.assertEqual(our_kind, tf_kind,
                         f"TensorFlow: {tf_kind} {tf_result}; tributary: {our_kind} {our_result}")
        if tf_kind == "error":
            self.assertEqual(our_result, tf_result)
            return
        for name, want in zip(fetches, tf_result):
            with self.subTest(fetch=name):
                want = np.asarray(want)
                dtype, got = from_json(our_result[name])
                self.assertEqual(
                    dtype, types_pb2.DataType.Name(tf.as_dtype(want.dtype).as_datatype_enum))
                self.assertEqual(list(got.shape), list(want.shape))
                if want.dtype.kind == "f":
                    np.testing.assert_allclose(got.astype(want.dtype), want, rtol=rtol,
                                               atol=atol)
                else:
                    np.testing.assert_array_equal(got.astype(want.dtype), want)

    # ---- the repository's linear model, trained ------------------------------

    def linear_model(self):
        graph_def = tf1.GraphDef()
        with open(LINEAR_MODEL) as f:
            text_format.Parse(f.read(), graph_def)
        return graph_def

    def test_linear_model_training_steps(self):
        rng = np.random.default_rng(1)
        feeds = {"x": rng.normal(size=(8, 3)).astype(np.float32),
                 "y": rng.normal(size=(8, 1)).astype(np.float32)}
        for steps in (1, 3, 10):
            with self.subTest(steps=steps):
                self.check(self.linear_model(), feeds, ["loss", "prediction"],
                           targets=["train"], inits=["init"], steps=steps,
                           graph_path=LINEAR_MODEL, rtol=1e-4)

    def test_linear_model_initialised_weights(self):
        self.check(self.linear_model(), {}, ["w", "b", "w/read"], inits=["init"],
                   graph_path=LINEAR_MODEL)

    def test_linear_model_unfed_placeholder(self):
        self.check(self.linear_model(), {"y": np.ones((1, 1), np.float32)}, ["prediction"],
                   inits=["init"], graph_path=LINEAR_MODEL)

    def test_linear_model_uninitialised(self):
        self.check(self.linear_model(), {"x": np.ones((1, 3), np.float32)}, ["prediction"],
                   graph_path=LINEAR_MODEL)

    # ---- small graphs built here --------------------------------------------

    def build(self, fn):
        g = tf.Graph()
        with g.as_default():
            fn()
        return g.as_graph_def()

    def test_broadcasting_arithmetic(self):
        def fn():
            x = tf1.placeholder(tf.float32, [None, 3], name="x")
            y = tf1.placeholder(tf.float32, [3], name="y")
            tf.add(x, y, name="add")
            tf.subtract(x, y, name="sub")
            tf.multiply(x, y, name="mul")
            tf.divide(x, y, name="div")
            tf.maximum(x, y, name="max")
            tf.minimum(x, y, name="min")
            tf.pow(tf.abs(x), y, name="pow")
            tf.add_n([x, x, x], name="addn")
            tf.sqrt(tf.abs(x), name="sqrt")
            tf.math.rsqrt(tf.abs(x) + 1, name="rsqrt")
            tf.exp(x, name="exp")
            tf.math.log(tf.abs(x) + 1, name="log")
            tf.tanh(x, name="tanh")
            tf.sigmoid(x, name="sigmoid")
            tf.square(x, name="square")
            tf.negative(x, name="neg")
        rng = np.random.default_rng(3)
        feeds = {"x": rng.normal(size=(4, 3)).astype(np.float32),
                 "y": np.array([0.5, 2.0, -1.5], np.float32)}
        self.check(self.build(fn), feeds,
                   ["add", "sub", "mul", "div", "max", "min", "pow", "addn", "sqrt",
                    "rsqrt", "exp", "log", "tanh", "sigmoid", "square", "neg"])

    def test_integer_math_comparisons_and_select(self):
        def fn():
            a = tf1.placeholder(tf.int32, [None], name="a")
            b = tf1.placeholder(tf.int32, [None], name="b")
            tf.math.floordiv(a, b, name="floordiv")
            tf.math.floormod(a, b, name="floormod")
            less = tf.less(a, b, name="less")
            tf.greater_equal(a, b, name="ge")
            tf.equal(a, b, name="eq")
            tf.logical_and(less, tf.not_equal(a, 0), name="and")
            tf1.where(less, a, b, name="select")
            tf.cast(a, tf.float32, name="cast")
            tf.cast(a, tf.int64, name="cast64")
        feeds = {"a": np.array([7, -7, 3, 0, 10], np.int32),
                 "b": np.array([2, 2, -4, 5, 10], np.int32)}
        self.check(self.build(fn), feeds,
                   ["floordiv", "floormod", "less", "ge", "eq", "and", "select", "cast",
                    "cast64"])

    def test_dense_layer_softmax_and_reductions(self):
        def fn():
            x = tf1.placeholder(tf.float32, [None, 4], name="x")
            w = tf.constant(np.linspace(-1, 1, 12, dtype=np.float32).reshape(4, 3))
            b = tf.constant([0.1, -0.2, 0.3])
            h = tf.nn.relu(tf.nn.bias_add(tf.matmul(x, w), b), name="h")
            tf.nn.softmax(h, name="softmax")
            tf.nn.log_softmax(h, name="log_softmax")
            tf.reduce_sum(h, axis=1, name="sum")
            tf.reduce_mean(h, axis=0, keepdims=True, name="mean")
            tf.reduce_max(h, axis=-1, name="max")
            tf.reduce_min(h, name="min")
            tf.reduce_prod(h + 1, axis=[0, 1], name="prod")
            tf.argmax(h, axis=1, name="argmax")
            tf.matmul(x, w, transpose_a=False, name="mm")
            tf.matmul(w, x, transpose_a=True, transpose_b=True, name="mm_tt")
        rng = np.random.default_rng(4)
        self.check(self.build(fn), {"x": rng.normal(size=(5, 4)).astype(np.float32)},
                   ["h", "softmax", "log_softmax", "sum", "mean", "max", "min", "prod",
                    "argmax", "mm", "mm_tt"])

    def test_cross_entropy_losses(self):
        def fn():
            logits = tf1.placeholder(tf.float32, [None, 3], name="logits")
            labels = tf1.placeholder(tf.float32, [None, 3], name="labels")
            ids = tf1.placeholder(tf.int32, [None], name="ids")
            tf.identity(tf.nn.softmax_cross_entropy_with_logits(labels=labels, logits=logits),
                        name="xent")
            tf.identity(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=ids,
                                                                       logits=logits),
                        name="sparse_xent")
        rng = np.random.default_rng(5)
        feeds = {"logits": rng.normal(size=(4, 3)).astype(np.float32),
                 "labels": np.eye(3, dtype=np.float32)[[0, 2, 1, 1]],
                 "ids": np.array([0, 2, 1, 1], np.int32)}
        self.check(self.build(fn), feeds, ["xent", "sparse_xent"])

    def test_conv_and_pooling(self):
        def fn():
            image = tf1.placeholder(tf.float32, [1, 6, 6, 2], name="image")
            kernel = tf.constant(np.linspace(-1, 1, 36, dtype=np.float32).reshape(3, 3, 2, 2))
            conv = tf.nn.conv2d(image, kernel, strides=1, padding="SAME", name="conv")
            tf.nn.conv2d(image, kernel, strides=2, padding="VALID", name="conv_valid")
            tf.nn.max_pool2d(conv, ksize=2, strides=2, padding="VALID", name="maxpool")
            tf.nn.avg_pool2d(conv, ksize=3, strides=1, padding="SAME", name="avgpool")
        rng = np.random.default_rng(6)
        self.check(self.build(fn), {"image": rng.normal(size=(1, 6, 6, 2)).astype(np.float32)},
                   ["conv", "conv_valid", "maxpool", "avgpool"], rtol=1e-4, atol=1e-5)

    def test_array_ops(self):
        def fn():
            x = tf1.placeholder(tf.float32, [None, 4], name="x")
            tf.reshape(x, [-1, 2, 2], name="reshape")
            tf.transpose(x, name="transpose")
            tf.concat([x, x * 2], axis=1, name="concat")
            tf.stack([x, x], axis=0, name="stack")
            tf.tile(x, [2, 1], name="tile")
            tf.slice(x, [0, 1], [2, 2], name="slice")
            tf.identity(x[1:, ::2], name="strided")
            tf.expand_dims(x, 1, name="expand")
            tf.squeeze(tf.expand_dims(x, 0), axis=0, name="squeeze")
            tf.shape(x, name="shape")
            tf.size(x, name="size")
            tf.rank(x, name="rank")
            tf.fill([2, 3], 1.5, name="fill")
            tf.zeros_like(x, name="zeros")
            tf.ones_like(x, name="ones")
            tf.range(1, 10, 3, name="range")
            tf.gather(x, [2, 0], axis=0, name="gather")
            tf.broadcast_to(tf.constant([1.0, 2.0, 3.0, 4.0]), [3, 4], name="broadcast")
        x = np.arange(12, dtype=np.float32).reshape(3, 4)
        self.check(self.build(fn), {"x": x},
                   ["reshape", "transpose", "concat", "stack", "tile", "slice", "strided",
                    "expand", "squeeze", "shape", "size", "rank", "fill", "zeros", "ones",
                    "range", "gather", "broadcast"])

    def test_variables_across_steps(self):
        def fn():
            v = tf1.Variable(1.0, name="v", use_resource=False)
            tf1.assign_add(v, 2.5, name="inc")
            tf1.assign_sub(v, 0.5, name="dec")
            tf1.variables_initializer([v], name="init")
        g = self.build(fn)
        self.check(g, {}, ["v"], inits=["init", "inc", "inc", "dec"])
        self.check(g, {}, ["v"], inits=["inc"])  # before init: FailedPrecondition

    def test_momentum_and_adam_training(self):
        for name, make in (("momentum", lambda: tf1.train.MomentumOptimizer(0.05, 0.9)),
                           ("adam", lambda: tf1.train.AdamOptimizer(0.05))):
            def fn():
                x = tf1.placeholder(tf.float32, [None, 2], name="x")
                y = tf1.placeholder(tf.float32, [None, 1], name="y")
                w = tf1.Variable(tf.ones([2, 1]), name="w", use_resource=False)
                loss = tf.reduce_mean(tf.square(tf.matmul(x, w) - y), name="loss")
                make().minimize(loss, name="train")
                tf1.global_variables_initializer()  # "init"
            g = self.build(fn)
            rng = np.random.default_rng(7)
            feeds = {"x": rng.normal(size=(6, 2)).astype(np.float32),
                     "y": rng.normal(size=(6, 1)).astype(np.float32)}
            with self.subTest(optimizer=name):
                self.check(g, feeds, ["loss"], targets=["train"], inits=["init"], steps=5,
                           rtol=1e-4)

    def test_tf1_while_loop(self):
        def fn():
            tf1.disable_control_flow_v2()
            try:
                limit = tf1.placeholder(tf.int32, [], name="limit")
                i, acc = tf1.while_loop(lambda i, acc: i < limit,
                                        lambda i, acc: (i + 1, acc * 2.0),
                                        [tf.constant(0), tf.constant(1.0)], name="loop")
                tf.identity(i, name="count")
                tf.identity(acc, name="acc")
            finally:
                tf1.enable_control_flow_v2()
        self.check(self.build(fn), {"limit": np.array(6, np.int32)}, ["count", "acc"])

    def test_runtime_errors(self):
        def fn():
            a = tf1.placeholder(tf.float32, None, name="a")
            b = tf1.placeholder(tf.float32, None, name="b")
            tf.matmul(a, b, name="mm")
            tf.add(a, b, name="add")
            tf.reshape(a, [5], name="reshape")
        g = self.build(fn)
        two_by_three = np.ones((2, 3), np.float32)
        with self.subTest("unfed placeholder"):
            self.check(g, {"a": two_by_three}, ["add"])
        with self.subTest("matmul shapes"):
            self.check(g, {"a": two_by_three, "b": two_by_three}, ["mm"])
        with self.subTest("broadcast shapes"):
            self.check(g, {"a": two_by_three, "b": np.ones((4,), np.float32)}, ["add"])
        with self.subTest("reshape size"):
            self.check(g, {"a": two_by_three}, ["reshape"])


if __name__ == "__main__":
    unittest.main()
