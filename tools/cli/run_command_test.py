"""`tributary run` end to end: the real binary on real graphs, checking its JSON
output and exit status against the contract in tools/cli/run_command.h.

Graphs come from tests/testdata, TensorFlow's own from tests/testdata/tf_graphs (Bazel
data of this test; $TRIBUTARY_TF_GRAPHS, when set, points them at another folder).
The .npy / .npz cases need numpy (run_command_test.sh runs this with the TensorFlow
virtualenv's Python when it has numpy; they are skipped otherwise).
"""
import json
import math
import os
import subprocess
import tempfile
import unittest
import zipfile

try:
    import numpy as np
except ImportError:
    np = None

BINARY = os.path.join("tools", "tributary")
LINEAR_MODEL = os.path.join("tests", "testdata", "linear_model.pbtxt")
TF_GRAPHS = os.environ.get("TRIBUTARY_TF_GRAPHS") or os.path.join("tests", "testdata", "tf_graphs")


def run(*args):
    """Runs `tributary run ARGS`; returns (exit status, parsed JSON)."""
    proc = subprocess.run([BINARY, "run", *args], capture_output=True, text=True,
                          timeout=120)
    try:
        out = json.loads(proc.stdout)
    except json.JSONDecodeError as e:
        raise AssertionError(f"not JSON: {proc.stdout!r} (stderr {proc.stderr!r})") from e
    return proc.returncode, out


def graph(name):
    return os.path.join(TF_GRAPHS, name)


def needs_numpy(test):
    return unittest.skipUnless(np is not None, "numpy not importable")(test)


# Placeholder -> Identity per dtype, for round trips through files.
NPY_DTYPES = {
    "DT_BOOL": "bool", "DT_INT8": "int8", "DT_INT16": "int16", "DT_INT32": "int32",
    "DT_INT64": "int64", "DT_UINT8": "uint8", "DT_UINT16": "uint16",
    "DT_UINT32": "uint32", "DT_UINT64": "uint64", "DT_HALF": "float16",
    "DT_FLOAT": "float32", "DT_DOUBLE": "float64", "DT_COMPLEX64": "complex64",
    "DT_COMPLEX128": "complex128", "DT_STRING": "bytes",
}


def identity_graph(path):
    nodes = []
    for dt in NPY_DTYPES:
        n = dt[3:].lower()
        nodes.append(f'''node {{ name: "p_{n}" op: "Placeholder"
  attr {{ key: "dtype" value {{ type: {dt} }} }} }}
node {{ name: "i_{n}" op: "Identity" input: "p_{n}"
  attr {{ key: "T" value {{ type: {dt} }} }} }}''')
    with open(path, "w") as f:
        f.write("\n".join(nodes) + "\nversions { producer: 1000 }\n")
    return path


# A constant pinned to a GPU this runtime lacks: placement fails unless the
# session config allows soft placement.
GPU_PINNED_GRAPH = """
node { name: "c" op: "Const" device: "/device:GPU:0"
  attr { key: "dtype" value { type: DT_FLOAT } }
  attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 2.5 } } } }
versions { producer: 1000 }
"""


class RunCommandTest(unittest.TestCase):
    def fetch(self, out, name):
        self.assertIn("fetches", out, out)
        self.assertIn(name, out["fetches"], out)
        return out["fetches"][name]

    def assert_error(self, rc, out, code, text=None):
        self.assertNotEqual(rc, 0, out)
        self.assertIn("error", out, out)
        self.assertEqual(out["error"]["code"], code, out)
        if text is not None:
            self.assertIn(text, out["error"]["message"])

    # ---- values ---------------------------------------------------------

    def test_consts(self):
        rc, out = run("--graph", graph("tfadd_consts.pbtxt"), "--fetch", "x_y_sum")
        self.assertEqual(rc, 0, out)
        self.assertEqual(out, {"fetches": {"x_y_sum": {
            "dtype": "DT_INT32", "shape": [1], "values": [3]}}})

    def test_int32_feeds_take_the_placeholder_dtype(self):
        a = list(range(10))
        b = [100 * i for i in range(10)]
        rc, out = run("--graph", graph("add_int32_feeds.pbtxt"),
                      "--feed", f"input0={json.dumps(a)}",
                      "--feed", f"input1=int32:{json.dumps(b)}", "--fetch", "Add")
        self.assertEqual(rc, 0, out)
        add = self.fetch(out, "Add")
        self.assertEqual(add["dtype"], "DT_INT32")
        self.assertEqual(add["shape"], [10])
        self.assertEqual(add["values"], [x + y for x, y in zip(a, b)])

    def test_nonzero_output_slot_and_order(self):
        rc, out = run("--graph", graph("relu_identityn_multi_fetch.pbtxt"),
                      "--feed", "input=float32:[2.5]", "--fetch", "out:1", "--fetch", "out")
        self.assertEqual(rc, 0, out)
        self.assertEqual(self.fetch(out, "out:1")["values"], [2.5])
        self.assertEqual(self.fetch(out, "out")["values"], [2.5])

    def test_conv2d_shape(self):
        image = [[[[0.5, -0.5]] * 8] * 8]
        rc, out = run("--graph", graph("conv2d_bias_relu.pbtxt"),
                      "--feed", f"input={json.dumps(image)}", "--fetch", "output_0")
        self.assertEqual(rc, 0, out)
        conv = self.fetch(out, "output_0")
        self.assertEqual(conv["shape"], [1, 8, 8, 2])
        self.assertEqual(len(conv["values"]), 128)
        self.assertTrue(all(v >= 0 for v in conv["values"]))  # relu

    def test_init_steps_run_in_order(self):
        rc, out = run("--graph", graph("variablev2_assign_add_target.pbtxt"),
                      "--init", "Variable/Assign", "--init", "AssignAdd",
                      "--fetch", "Variable/read")
        self.assertEqual(rc, 0, out)
        self.assertEqual(self.fetch(out, "Variable/read")["values"], [5.0])

    def test_run_target_and_steps(self):
        # AssignAdd (+3) runs in each of 4 main steps after the init step.
        rc, out = run("--graph", graph("variablev2_assign_add_target.pbtxt"),
                      "--init", "Variable/Assign", "--run-target", "AssignAdd",
                      "--steps", "4")
        self.assertEqual(rc, 0, out)
        self.assertEqual(out, {"fetches": {}})

    def test_tf1_while_loop(self):
        rc, out = run("--graph", graph("tf1_while_counter.pbtxt"), "--fetch", "while/Exit")
        self.assertEqual(rc, 0, out)
        self.assertEqual(self.fetch(out, "while/Exit")["values"], [10])

    def test_saved_model_half_plus_two(self):
        # The graph inside a text SavedModel; its save/restore and ParseExample
        # nodes have no kernels here but these steps never run them.
        rc, out = run("--graph", graph("half_plus_two_saved_model.pbtxt"),
                      "--init", "init", "--feed", "x=[[0],[1],[4]]", "--fetch", "y")
        self.assertEqual(rc, 0, out)
        y = self.fetch(out, "y")
        self.assertEqual(y["shape"], [3, 1])
        self.assertEqual(y["values"], [2.0, 2.5, 4.0])

    def test_training_steps_lower_the_loss(self):
        common = ["--graph", LINEAR_MODEL, "--init", "init",
                  "--feed", "x=[[0.1,0.2,0.3],[0.4,0.5,0.6],[0.7,0.8,0.9]]",
                  "--feed", "y=[[1],[2],[3]]", "--run-target", "train", "--fetch", "loss"]
        losses = []
        for steps in (1, 5, 20):
            rc, out = run(*common, "--steps", str(steps))
            self.assertEqual(rc, 0, out)
            losses.append(self.fetch(out, "loss")["values"][0])
        # Step 1 sees zero weights: mean of y^2.
        self.assertAlmostEqual(losses[0], (1 + 4 + 9) / 3, places=5)
        self.assertLess(losses[1], losses[0])
        self.assertLess(losses[2], losses[1])

    def test_trace_writes_chrome_trace(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "trace.json")
            rc, out = run("--graph", LINEAR_MODEL, "--init", "init",
                          "--feed", "x=[[1,2,3]]", "--feed", "y=[[1]]",
                          "--run-target", "train", "--fetch", "loss", "--trace", path)
            self.assertEqual(rc, 0, out)
            with open(path) as f:
                trace = json.load(f)
        events = [e for e in trace["traceEvents"] if e["ph"] == "X"]
        names = {e["args"]["name"] for e in events}
        self.assertIn("MatMul", names)
        self.assertIn("train/update_w/ApplyGradientDescent", names)
        self.assertTrue(all(e["dur"] >= 0 and e["ts"] >= 0 for e in events))
        ops = {e["name"] for e in events}
        self.assertIn("ApplyGradientDescent", ops)

    # ---- feeds from files, --output, --config -----------------------------

    @needs_numpy
    def test_npy_feeds_and_npz_output(self):
        # Far beyond one argument's limit (128 KiB) as inline JSON.
        rng = np.random.default_rng(0)
        x = rng.standard_normal((100000, 3)).astype(np.float32)
        w = rng.standard_normal((3, 1)).astype(np.float32)
        b = np.array([0.5], np.float32)
        with tempfile.TemporaryDirectory() as tmp:
            paths = {n: os.path.join(tmp, n + ".npy") for n in ("x", "w", "b")}
            for n, v in (("x", x), ("w", w), ("b", b)):
                np.save(paths[n], v)
            out_path = os.path.join(tmp, "out.npz")
            rc, out = run("--graph", LINEAR_MODEL, "--feed", f"x=@{paths['x']}",
                          "--feed", f"w/read=@{paths['w']}", "--feed", f"b/read=@{paths['b']}",
                          "--fetch", "MatMul", "--fetch", "prediction", "--output", out_path)
            self.assertEqual(rc, 0, out)
            self.assertEqual(out["output"], out_path)
            self.assertEqual(self.fetch(out, "prediction"),
                             {"dtype": "DT_FLOAT", "shape": [100000, 1]})
            with np.load(out_path) as npz:
                self.assertEqual(sorted(npz.files), ["MatMul", "prediction"])
                matmul, pred = npz["MatMul"], npz["prediction"]
        self.assertEqual(pred.dtype, np.float32)
        self.assertEqual(pred.shape, (100000, 1))
        np.testing.assert_allclose(matmul, x @ w, rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(pred, x @ w + b, rtol=1e-5, atol=1e-5)

    @needs_numpy
    def test_npy_layouts_give_the_same_values(self):
        x = np.arange(12, dtype=np.float32).reshape(4, 3) / 7
        w = np.array([[1], [-2], [3]], np.float32)
        variants = {
            "c": x, "fortran": np.asfortranarray(x),
            "big_endian": x.astype(">f4"), "big_fortran": np.asfortranarray(x.astype(">f4")),
        }
        with tempfile.TemporaryDirectory() as tmp:
            np.save(os.path.join(tmp, "w.npy"), w)
            for name, arr in variants.items():
                for version in ((1, 0), (2, 0), (3, 0)):
                    path = os.path.join(tmp, f"{name}_{version[0]}.npy")
                    with open(path, "wb") as f:
                        np.lib.format.write_array(f, arr, version=version)
                    out_path = os.path.join(tmp, "out.npy")
                    rc, out = run("--graph", LINEAR_MODEL, "--feed", f"x=@{path}",
                                  "--feed", f"w/read=@{tmp}/w.npy", "--fetch", "MatMul",
                                  "--output", out_path)
                    self.assertEqual(rc, 0, (name, version, out))
                    np.testing.assert_allclose(np.load(out_path), x @ w, rtol=1e-6,
                                               err_msg=f"{name} v{version}")

    @needs_numpy
    def test_every_dtype_round_trips(self):
        values = {
            "bool": np.array([[True, False], [False, True]]),
            "int8": np.array([-128, 127], np.int8), "int16": np.array([-3, 300], np.int16),
            "int32": np.array([[1 << 30]], np.int32), "int64": np.array([-(1 << 40)], np.int64),
            "uint8": np.array([255], np.uint8), "uint16": np.array([65535], np.uint16),
            "uint32": np.array([1 << 31], np.uint32), "uint64": np.array([1 << 63], np.uint64),
            "float16": np.array([1.5, -0.25], np.float16),
            "float32": np.array([np.nan, np.inf, 0.1], np.float32),
            "float64": np.array([[0.1, 1e300]], np.float64),
            "complex64": np.array([1 + 2j], np.complex64),
            "complex128": np.array([0.5 - 1j, 3j], np.complex128),
            "bytes": np.array([b"ab", b"", b"xyz"]),
        }
        with tempfile.TemporaryDirectory() as tmp:
            graph_path = identity_graph(os.path.join(tmp, "identity.pbtxt"))
            args = ["--graph", graph_path]
            for dt, np_name in NPY_DTYPES.items():
                n = dt[3:].lower()
                path = os.path.join(tmp, n + ".npy")
                np.save(path, values[np_name])
                args += ["--feed", f"p_{n}=@{path}", "--fetch", f"i_{n}"]
            out_path = os.path.join(tmp, "all.npz")
            rc, out = run(*args, "--output", out_path)
            self.assertEqual(rc, 0, out)
            with np.load(out_path) as npz:
                for dt, np_name in NPY_DTYPES.items():
                    got, want = npz[f"i_{dt[3:].lower()}"], values[np_name]
                    self.assertEqual(got.dtype.kind, want.dtype.kind, dt)
                    if np_name != "bytes":
                        self.assertEqual(got.dtype, want.dtype, dt)
                    np.testing.assert_array_equal(got, want, err_msg=dt)
            # A unicode array arrives as UTF-8 strings.
            np.save(os.path.join(tmp, "u.npy"), np.array(["h\u00e9", "z"]))
            rc, out = run("--graph", graph_path, "--feed", f"p_string=@{tmp}/u.npy",
                          "--fetch", "i_string")
            self.assertEqual(rc, 0, out)
            self.assertEqual(self.fetch(out, "i_string")["values"], ["h\u00e9", "z"])

    def test_json_file_feed(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "x.json")
            with open(path, "w") as f:
                json.dump([[1, 2, 3], [4, 5, 6]], f)
            with open(os.path.join(tmp, "w.json"), "w") as f:
                f.write("[[1], [0], [-1]]")
            rc, out = run("--graph", LINEAR_MODEL, "--feed", f"x=@{path}",
                          "--feed", f"w/read=float32:@{tmp}/w.json", "--fetch", "MatMul")
        self.assertEqual(rc, 0, out)
        self.assertEqual(self.fetch(out, "MatMul"),
                         {"dtype": "DT_FLOAT", "shape": [2, 1], "values": [-2.0, -2.0]})

    def test_config_allows_soft_placement(self):
        with tempfile.TemporaryDirectory() as tmp:
            graph_path = os.path.join(tmp, "gpu.pbtxt")
            with open(graph_path, "w") as f:
                f.write(GPU_PINNED_GRAPH)
            rc, out = run("--graph", graph_path, "--fetch", "c")
            self.assert_error(rc, out, "INVALID_ARGUMENT", "GPU")
            rc, out = run("--graph", graph_path, "--fetch", "c",
                          "--config", "allow_soft_placement: true")
            self.assertEqual(rc, 0, out)
            self.assertEqual(self.fetch(out, "c")["values"], [2.5])
            config_path = os.path.join(tmp, "config.pbtxt")
            with open(config_path, "w") as f:
                f.write("# soft placement\nallow_soft_placement: true\n")
            rc, out = run("--graph", graph_path, "--fetch", "c", "--config-file", config_path)
            self.assertEqual(rc, 0, out)

    def test_bad_config(self):
        for args in (["--config", "allow_soft_placement: maybe"],
                     ["--config", "no_such_field: 1"],
                     ["--config-file", "/no/such/config.pbtxt"]):
            rc, out = run("--graph", LINEAR_MODEL, "--fetch", "loss", *args)
            self.assert_error(rc, out, "INVALID_ARGUMENT", args[0])
            self.assertEqual(rc, 2)

    # ---- errors ---------------------------------------------------------

    def test_bad_feed_files(self):
        with tempfile.TemporaryDirectory() as tmp:
            def write(name, data):
                path = os.path.join(tmp, name)
                with open(path, "wb") as f:
                    f.write(data)
                return path

            def npy(header, data):
                h = header.encode() + b"\n"
                return b"\x93NUMPY\x01\x00" + len(h).to_bytes(2, "little") + h + data

            f4 = lambda shape: "{'descr': '<f4', 'fortran_order': False, 'shape': %s, }" % shape
            cases = {
                "missing": os.path.join(tmp, "nope.npy"),
                "not npy": write("text.npy", b"hello"),
                "truncated": write("trunc.npy", npy(f4("(2, 3)"), b"\0" * 20)),
                "header lies": write("lies.npy", npy(f4("(1000000, 3)"), b"\0" * 24)),
                "huge": write("huge.npy", npy(f4("(4294967296, 4294967296, 3)"), b"\0" * 24)),
                "negative": write("neg.npy", npy(f4("(-2, 3)"), b"\0" * 24)),
                "object": write("obj.npy", npy("{'descr': '|O', 'fortran_order': False, 'shape': (2, 3), }", b"\0" * 48)),
                "bad json": write("bad.json", b"[[1,2,3],"),
                "other extension": write("x.csv", b"1,2,3"),
                "wrong dtype": write("f8.npy", npy("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }", b"\0" * 48)),
                "wrong shape": write("shape.npy", npy(f4("(2, 4)"), b"\0" * 32)),
                "wrong rank": write("rank.npy", npy(f4("(6,)"), b"\0" * 24)),
            }
            for case, path in cases.items():
                rc, out = run("--graph", LINEAR_MODEL, "--feed", f"x=@{path}",
                              "--feed", "y=[[1],[2]]", "--fetch", "loss")
                self.assert_error(rc, out, "INVALID_ARGUMENT", "--feed x")
                self.assertEqual(rc, 2, case)
            rc, out = run("--graph", LINEAR_MODEL, "--feed", "x=float64:@" + cases["wrong dtype"],
                          "--fetch", "loss")
            self.assert_error(rc, out, "INVALID_ARGUMENT", "--feed x")

    def test_bad_output(self):
        common = ["--graph", LINEAR_MODEL, "--init", "init", "--feed", "x=[[1,2,3]]",
                  "--feed", "y=[[1]]"]
        rc, out = run(*common, "--fetch", "loss", "--fetch", "prediction", "--output", "o.npy")
        self.assert_error(rc, out, "INVALID_ARGUMENT", "--output")
        self.assertEqual(rc, 2)
        rc, out = run(*common, "--fetch", "loss", "--output", "o.csv")
        self.assert_error(rc, out, "INVALID_ARGUMENT", "--output")
        rc, out = run(*common, "--fetch", "loss", "--output", "/no/such/dir/o.npz")
        self.assertNotEqual(rc, 0, out)
        self.assertIn("error", out)

    def test_npz_output_without_numpy(self):
        # zipfile alone checks the archive numpy would open: names and CRCs.
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "o.npz")
            rc, out = run("--graph", LINEAR_MODEL, "--init", "init", "--feed", "x=[[1,2,3]]",
                          "--feed", "y=[[1]]", "--fetch", "loss", "--fetch", "prediction",
                          "--fetch", "loss", "--output", path)
            self.assertEqual(rc, 0, out)
            self.assertNotIn("values", self.fetch(out, "loss"))
            with zipfile.ZipFile(path) as z:
                self.assertIsNone(z.testzip())
                self.assertEqual(z.namelist(), ["loss.npy", "prediction.npy"])
                self.assertTrue(z.read("loss.npy").startswith(b"\x93NUMPY"))


    def test_unfed_placeholder(self):
        rc, out = run("--graph", LINEAR_MODEL, "--init", "init", "--feed", "y=[[1]]",
                      "--fetch", "loss")
        self.assert_error(rc, out, "INVALID_ARGUMENT",
                          "You must feed a value for placeholder tensor 'x'")

    def test_unknown_fetch(self):
        rc, out = run("--graph", LINEAR_MODEL, "--fetch", "no_such_node")
        self.assert_error(rc, out, "NOT_FOUND", "no_such_node")

    def test_uninitialised_variable(self):
        rc, out = run("--graph", LINEAR_MODEL, "--fetch", "w")
        self.assert_error(rc, out, "FAILED_PRECONDITION")

    def test_feed_shape_must_match_the_placeholder(self):
        # x is [?, 3]: caught before the session runs, naming the feed.
        rc, out = run("--graph", LINEAR_MODEL, "--init", "init",
                      "--feed", "x=[[1,2]]", "--feed", "y=[[1]]", "--fetch", "loss")
        self.assert_error(rc, out, "INVALID_ARGUMENT", "--feed x")
        self.assertIn("[?,3]", out["error"]["message"])

    def test_shape_error_names_the_node(self):
        # w/read has no declared shape; MatMul finds the mismatch.
        rc, out = run("--graph", LINEAR_MODEL, "--feed", "x=[[1,2,3]]",
                      "--feed", "w/read=[[1,2]]", "--fetch", "MatMul")
        self.assert_error(rc, out, "INVALID_ARGUMENT", "MatMul")

    def test_bad_feed_value(self):
        for value in ("x=[[1,2],[3]]", "x=[1,", "x=int32:1.5", "x=nosuchtype:1", "x"):
            rc, out = run("--graph", LINEAR_MODEL, "--feed", value, "--fetch", "loss")
            self.assert_error(rc, out, "INVALID_ARGUMENT")
            self.assertEqual(rc, 2)

    def test_feed_of_wrong_dtype(self):
        rc, out = run("--graph", LINEAR_MODEL, "--feed", "x=int32:[[1,2,3]]",
                      "--feed", "y=[[1]]", "--fetch", "prediction")
        self.assert_error(rc, out, "INVALID_ARGUMENT")

    def test_missing_graph_file(self):
        rc, out = run("--graph", "no/such/file.pbtxt", "--fetch", "x")
        self.assert_error(rc, out, "NOT_FOUND")

    def test_nothing_to_run(self):
        rc, out = run("--graph", LINEAR_MODEL)
        self.assert_error(rc, out, "INVALID_ARGUMENT")

    def test_grpc_target_without_master_is_unavailable(self):
        # Nothing listens on loopback port 1: the error names the address.
        rc, out = run("--graph", LINEAR_MODEL, "--target", "grpc://127.0.0.1:1",
                      "--fetch", "loss")
        self.assert_error(rc, out, "UNAVAILABLE", "127.0.0.1:1")

    def test_invalid_output_index(self):
        rc, out = run("--graph", graph("err_invalid_output_index.pbtxt"), "--fetch", "input:1")
        self.assert_error(rc, out, "INVALID_ARGUMENT")

    def test_malformed_graph(self):
        rc, out = run("--graph", graph("err_malformed_text.pbtxt"), "--fetch", "x")
        self.assert_error(rc, out, "INVALID_ARGUMENT")

    def test_unknown_op_rejects_the_graph(self):
        rc, out = run("--graph", graph("err_unknown_op.pbtxt"), "--fetch", "x_y_sum")
        self.assert_error(rc, out, "NOT_FOUND", "SomeUnknownOp")

    def test_assign_add_before_init(self):
        rc, out = run("--graph", graph("variablev2_assign_add_target.pbtxt"),
                      "--init", "AssignAdd", "--fetch", "Variable/read")
        self.assert_error(rc, out, "FAILED_PRECONDITION")


if __name__ == "__main__":
    unittest.main()
