"""TensorFlow as the oracle for our kernels (the Python half; see README.md).

A test module lists cases, each "this TensorFlow op on these inputs":

    import sys; sys.path.insert(0, "kernels/testing")
    import numpy as np
    import tf_oracle
    from tf_oracle import tf

    cases = tf_oracle.Cases()
    cases.add("addv2_f32_broadcast",
              lambda x, y: tf.raw_ops.AddV2(x=x, y=y),
              [np.ones((2, 3), np.float32), np.arange(3, dtype=np.float32)])
    cases.add("addv2_bad_shapes", lambda x, y: tf.raw_ops.AddV2(x=x, y=y),
              [np.ones((2, 3), np.float32), np.ones((4,), np.float32)],
              message_contains=["[2,3]", "[4]"])

    MathOracleTest = tf_oracle.make_test_class("kernels/math/run_math_cases", cases)

For every case TensorFlow builds a graph (numpy inputs become Placeholders
of unknown shape, so shape errors surface at run time in the kernel, not in
graph construction; wrap an input in tf_oracle.Const(...) to bake it in as
a Const instead), runs it in a Session with graph optimisations off (so no
constant folding hides the kernel), and records the outputs or the error
code. The same GraphDef, feeds and fetches then go to our binary
(run_kernel_cases), and the test compares: same error code; or same number
of outputs, dtypes, shapes and values (allclose for floating point).

Each case is its own unittest method (test_<name>), so the JUnit report
counts every check. All cases of a class run through the binary in one
batch in setUpClass; a crash is pinned on the case that caused it and the
rest are retried.
"""
import base64
import json
import os
import re
import subprocess
import sys
import tempfile
import unittest

import numpy as np
import tensorflow as tf

tf1 = tf.compat.v1

# TF error codes by name, for readable assertion messages.
CODE_NAMES = {
    0: "OK", 1: "CANCELLED", 2: "UNKNOWN", 3: "INVALID_ARGUMENT",
    4: "DEADLINE_EXCEEDED", 5: "NOT_FOUND", 6: "ALREADY_EXISTS",
    7: "PERMISSION_DENIED", 8: "RESOURCE_EXHAUSTED", 9: "FAILED_PRECONDITION",
    10: "ABORTED", 11: "OUT_OF_RANGE", 12: "UNIMPLEMENTED", 13: "INTERNAL",
    14: "UNAVAILABLE", 15: "DATA_LOSS", 16: "UNAUTHENTICATED",
}

# Default tolerances by dtype (rtol, atol); integers and bools compare exactly.
TOLERANCES = {
    np.float16: (1e-3, 1e-3),
    tf.bfloat16.as_numpy_dtype: (8e-3, 1e-3),
    np.float32: (1e-5, 1e-6),
    np.float64: (1e-12, 1e-12),
    # Complex: |ours - TF| <= atol + rtol * |TF| (the modulus), NaN parts in
    # the same places.
    np.complex64: (1e-6, 1e-6),
    np.complex128: (1e-12, 1e-12),
}


class Const:
    """An input baked into the graph as a tf.constant instead of being fed."""

    def __init__(self, value, dtype=None):
        self.value = np.asarray(value) if dtype is None else np.asarray(value, dtype=dtype)


class Placeholder:
    """A fed input with an explicit (possibly partial) static shape."""

    def __init__(self, value, shape=None, dtype=None):
        self.value = np.asarray(value) if dtype is None else np.asarray(value, dtype=dtype)
        self.shape = shape


class Case:
    def __init__(self, name, fn, inputs, rtol=None, atol=None,
                 message_contains=(), expect_code=None, tf_single_thread=False):
        self.name = name
        self.fn = fn
        self.inputs = list(inputs)
        self.rtol = rtol
        self.atol = atol
        self.message_contains = list(message_contains)
        # Optional: the code TF must give (guards against a case that
        # accidentally tests nothing, e.g. expecting an error that TF
        # does not raise).
        self.expect_code = expect_code
        # Run TensorFlow's side on one intra-op thread: for kernels whose
        # values depend on how TensorFlow shards them over its threads.
        # TensorFlow sizes its CPU device's thread pool once per process, by
        # the first session's intra_op_parallelism_threads (a later session's
        # setting changes nothing there), so make_test_class runs these cases
        # first, and every later case of the process then runs on that one
        # thread as well.
        self.tf_single_thread = tf_single_thread
        # Filled by _prepare.
        self.request = None       # dict sent to the binary
        self.tf_code = None
        self.tf_message = ""
        self.tf_outputs = []
        self.build_error = None


class Cases:
    """An ordered, name-unique list of cases."""

    def __init__(self):
        self._cases = []
        self._names = set()

    def add(self, name, fn, inputs, **options):
        name = re.sub(r"[^0-9A-Za-z_]", "_", name)
        if name in self._names:
            raise ValueError(f"duplicate oracle case name {name!r}")
        self._names.add(name)
        self._cases.append(Case(name, fn, inputs, **options))

    def __iter__(self):
        return iter(self._cases)

    def __len__(self):
        return len(self._cases)


def _session_config(single_thread=False):
    config = tf1.ConfigProto()
    if single_thread:
        config.intra_op_parallelism_threads = 1
    # No grappler, no constant folding: the kernels themselves must run.
    config.graph_options.optimizer_options.opt_level = tf1.OptimizerOptions.L0
    config.graph_options.optimizer_options.do_constant_folding = False
    config.graph_options.rewrite_options.disable_meta_optimizer = True
    return config


def _tensor_b64(array):
    proto = tf.make_tensor_proto(array)
    return base64.b64encode(proto.SerializeToString()).decode("ascii")


# Whether this process has run a TensorFlow session yet, and whether that
# first session was on one intra-op thread (which then holds for all).
_first_session_single_thread = None


def _prepare(case):
    """Builds the case's graph, runs it in TensorFlow, fills the request."""
    global _first_session_single_thread
    if _first_session_single_thread is None:
        _first_session_single_thread = case.tf_single_thread
    elif case.tf_single_thread and not _first_session_single_thread:
        raise RuntimeError(
            "a tf_single_thread case after a multi-threaded session: TensorFlow "
            "keeps the first session's CPU thread pool for the whole process")
    graph = tf.Graph()
    feeds = {}       # tf placeholder tensor -> value
    feed_names = {}  # "in0:0" -> b64
    with graph.as_default():
        args = []
        for i, value in enumerate(case.inputs):
            if isinstance(value, Const):
                args.append(tf.constant(value.value, name=f"const{i}"))
                continue
            shape = None
            if isinstance(value, Placeholder):
                shape = value.shape
                value = value.value
            value = np.asarray(value)
            ph = tf1.placeholder(tf.as_dtype(value.dtype), shape=shape, name=f"in{i}")
            feeds[ph] = value
            feed_names[ph.name] = _tensor_b64(value)
            args.append(ph)
        try:
            out = case.fn(*args)
        except (ValueError, TypeError, tf.errors.OpError) as e:
            case.build_error = f"{type(e).__name__}: {e}"
            return
    if out is None:
        outs = []
    elif isinstance(out, (list, tuple)):
        outs = list(out)
    else:
        outs = [out]
    fetches = [t for t in outs if isinstance(t, tf.Tensor)]
    targets = [t for t in outs if isinstance(t, tf.Operation)]
    with tf1.Session(graph=graph,
                     config=_session_config(case.tf_single_thread)) as sess:
        try:
            values = sess.run(fetches + targets, feed_dict=feeds)
            case.tf_code = 0
            case.tf_outputs = [np.asarray(v) for v in values[:len(fetches)]]
        except tf.errors.OpError as e:
            case.tf_code = e.error_code
            case.tf_message = e.message
    case.request = {
        "name": case.name,
        "graph": base64.b64encode(graph.as_graph_def().SerializeToString()).decode("ascii"),
        "feeds": feed_names,
        "fetches": [t.name for t in fetches],
        "targets": [op.name for op in targets],
    }


def _run_binary(binary, cases):
    """Runs `cases` through `binary`; returns {name: result dict}.

    A crash (CHECK failure, segfault) is charged to the first case without a
    result, and the binary is restarted on the cases after it.
    """
    results = {}
    pending = [c for c in cases if c.request is not None]
    while pending:
        with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False) as f:
            for c in pending:
                f.write(json.dumps(c.request) + "\n")
            path = f.name
        try:
            proc = subprocess.run([binary, path], capture_output=True, timeout=600)
        finally:
            os.unlink(path)
        got = 0
        for line in proc.stdout.decode(errors="replace").splitlines():
            if not line.strip():
                continue
            r = json.loads(line)
            results[r["name"]] = r
            got += 1
        if got >= len(pending):
            break
        stderr = proc.stderr.decode(errors="replace")[-3000:]
        crashed = pending[got]
        results[crashed.name] = {
            "crash": f"{binary} exited with {proc.returncode} on this case:\n{stderr}"}
        pending = pending[got + 1:]
    return results


def _decode(b64):
    from tensorflow.core.framework import tensor_pb2
    proto = tensor_pb2.TensorProto()
    proto.ParseFromString(base64.b64decode(b64))
    return tf.make_ndarray(proto)


def _assert_complex_close(ours, expected, rtol, atol, err_msg):
    """Complex allclose: NaN real and imaginary parts must coincide, then
    |ours - expected| <= atol + rtol * |expected| elementwise (infinities
    equal as values)."""
    for part in ("real", "imag"):
        np.testing.assert_array_equal(
            np.isnan(getattr(ours, part)), np.isnan(getattr(expected, part)),
            err_msg=f"{err_msg}: NaN {part} parts differ")

    def zero_nans(a):
        # Parts set one by one: 1j * inf would make a NaN real part.
        out = np.empty(a.shape, np.complex128)
        out.real = np.where(np.isnan(a.real), 0, a.real)
        out.imag = np.where(np.isnan(a.imag), 0, a.imag)
        return out

    np.testing.assert_allclose(zero_nans(ours), zero_nans(expected),
                               rtol=rtol, atol=atol, err_msg=err_msg)


def check_case(test, case, result):
    """Asserts our result matches TensorFlow's for `case`."""
    if case.build_error is not None:
        test.fail(f"TensorFlow could not build the case: {case.build_error}")
    if case.expect_code is not None:
        test.assertEqual(CODE_NAMES.get(case.tf_code), CODE_NAMES.get(case.expect_code),
                         f"TensorFlow itself gave {case.tf_message!r}")
    if result is None:
        test.fail("no result from our binary")
    if "crash" in result:
        test.fail(result["crash"])
    ours = result["code"]
    test.assertEqual(
        CODE_NAMES.get(ours, ours), CODE_NAMES.get(case.tf_code, case.tf_code),
        f"\n  ours: {result['message']!r}\n  TF:   {case.tf_message!r}")
    if ours != 0:
        for s in case.message_contains:
            test.assertIn(s, result["message"], "our error message lacks it")
        return
    outs = [_decode(b) for b in result["outputs"]]
    test.assertEqual(len(outs), len(case.tf_outputs), "number of outputs")
    for i, (o, e) in enumerate(zip(outs, case.tf_outputs)):
        test.assertEqual(o.dtype, e.dtype, f"output {i} dtype")
        test.assertEqual(o.shape, e.shape, f"output {i} shape")
        if np.issubdtype(e.dtype, np.complexfloating):
            rtol, atol = TOLERANCES[e.dtype.type]
            rtol = case.rtol if case.rtol is not None else rtol
            atol = case.atol if case.atol is not None else atol
            _assert_complex_close(o, e, rtol, atol, f"output {i}")
        elif e.dtype.type in TOLERANCES or np.issubdtype(e.dtype, np.floating):
            rtol, atol = TOLERANCES.get(e.dtype.type, (1e-5, 1e-6))
            rtol = case.rtol if case.rtol is not None else rtol
            atol = case.atol if case.atol is not None else atol
            # As float64: numpy's tolerance math does not take bfloat16.
            np.testing.assert_allclose(o.astype(np.float64), e.astype(np.float64),
                                       rtol=rtol, atol=atol, equal_nan=True,
                                       err_msg=f"output {i}")
        else:
            np.testing.assert_array_equal(o, e, err_msg=f"output {i}")


def make_test_class(binary, cases, class_name="OracleTest"):
    """A unittest.TestCase subclass with one test_<name> per case."""

    class _OracleTest(unittest.TestCase):
        results = {}

        @classmethod
        def setUpClass(cls):
            # Single-thread cases first: see Case.tf_single_thread.
            ordered = sorted(cases, key=lambda c: not c.tf_single_thread)
            for c in ordered:
                try:
                    _prepare(c)
                except Exception as e:  # pylint: disable=broad-except
                    # One broken case must not take the whole class down.
                    c.build_error = f"{type(e).__name__}: {e}"
            cls.results = _run_binary(binary, list(cases))

    for c in cases:
        def test(self, c=c):
            check_case(self, c, self.results.get(c.name))
        test.__name__ = f"test_{c.name}"
        setattr(_OracleTest, test.__name__, test)
    _OracleTest.__name__ = class_name
    _OracleTest.__qualname__ = class_name
    # Report cases under the calling test module, not tf_oracle.
    _OracleTest.__module__ = sys._getframe(1).f_globals.get("__name__", __name__)
    return _OracleTest
