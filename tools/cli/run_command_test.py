"""`tributary run` end to end: the real binary on real graphs, checking its JSON
output and exit status against the contract in tools/cli/run_command.h.

Graphs come from tests/testdata, TensorFlow's own from tests/testdata/tf_graphs (Bazel
data of this test; $TRIBUTARY_TF_GRAPHS, when set, points them at another folder).
"""
import json
import math
import os
import subprocess
import tempfile
import unittest

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
                      "--feed", "input=float32:2.5", "--fetch", "out:1", "--fetch", "out")
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

    # ---- errors ---------------------------------------------------------

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

    def test_shape_error_names_the_node(self):
        rc, out = run("--graph", LINEAR_MODEL, "--init", "init",
                      "--feed", "x=[[1,2]]", "--feed", "y=[[1]]", "--fetch", "loss")
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
