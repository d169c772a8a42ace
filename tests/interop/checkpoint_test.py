"""Checkpoints in TensorFlow's format, both ways, through `tributary run`.

TensorFlow writes checkpoints with tf.compat.v1.train.Saver (plain, sharded,
partitioned variables from fixed_size_partitioner, every dtype a variable can
hold, scalars and empty tensors) and with tf.train.Checkpoint; Tributary's local
session restores them by running the graph's restore ops and must fetch the
variables' exact bytes. Tributary runs the same graphs' save ops; the files
it writes must be byte for byte the files TensorFlow writes for the same values
(so tf.train.load_checkpoint and tf.train.Checkpoint read them). Corrupted
checkpoints (a flipped byte, a truncated shard, a missing shard, a missing
tensor, a wrong dtype or slice shape) fail the restore with TensorFlow's error
code and a message naming the tensor and file.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, "tests/interop")  # cwd is the runfiles root

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

from session_oracle_test import parse_run_output  # noqa: E402

tf1 = tf.compat.v1
BINARY = os.path.join("tools", "tributary")

# dtype -> values of a [2, 3] variable (a partitionable shape) of that dtype.
RNG = np.random.RandomState(7)
VALUES = {
    "float32": RNG.randn(2, 3).astype(np.float32),
    "float64": RNG.randn(2, 3),
    "float16": RNG.randn(2, 3).astype(np.float16),
    "bfloat16": RNG.randn(2, 3).astype(tf.bfloat16.as_numpy_dtype),
    "int8": np.array([[-128, 0, 127], [1, 2, 3]], np.int8),
    "int16": np.array([[-32768, 0, 32767], [1, 2, 3]], np.int16),
    "int32": np.array([[-(2**31), 0, 2**31 - 1], [1, 2, 3]], np.int32),
    "int64": np.array([[-(2**63), 0, 2**63 - 1], [1, 2, 3]], np.int64),
    "uint8": np.array([[0, 128, 255], [1, 2, 3]], np.uint8),
    "uint16": np.array([[0, 1, 65535], [1, 2, 3]], np.uint16),
    "complex64": (RNG.randn(2, 3) + 1j * RNG.randn(2, 3)).astype(np.complex64),
    "complex128": RNG.randn(2, 3) + 1j * RNG.randn(2, 3),
    "bool": np.array([[True, False, True], [False, False, True]]),
    "string": np.array([[b"", b"a", b"x" * 300], [b"a\x00b", b"\xff\xfe", b"end"]],
                       dtype=object),
}


def run_ours(graph_path, fetches=(), inits=(), targets=(), output=None):
    """`tributary run`: ("ok", npz dict or None) or ("error", (code, message))."""
    args = [BINARY, "run", "--graph", graph_path]
    for i in inits:
        args += ["--init", i]
    for t in targets:
        args += ["--run-target", t]
    for f in fetches:
        args += ["--fetch", f]
    if output:
        args += ["--output", output]
    proc = subprocess.run(args, capture_output=True, text=True, timeout=300)
    out = parse_run_output(proc)
    if "error" in out:
        return "error", (out["error"]["code"], out["error"]["message"])
    if proc.returncode != 0:
        raise AssertionError(f"exit {proc.returncode} without an error: {out}")
    if output:
        with np.load(output) as npz:
            return "ok", {k: npz[k] for k in npz.files}
    return "ok", None


def same_bytes(test, got, want, what):
    """`got` from an .npz fetch equals TensorFlow's `want` exactly."""
    want = np.asarray(want)
    if want.dtype == object:
        test.assertEqual([bytes(x) for x in got.ravel()],
                         [bytes(x) for x in want.ravel()], what)
        return
    if want.dtype == tf.bfloat16.as_numpy_dtype:
        want = want.astype(np.float32)  # `--output` writes bfloat16 as float32
        got = np.asarray(got).astype(np.float32)
    test.assertEqual(got.dtype, want.dtype, what)
    test.assertEqual(got.shape, want.shape, what)
    test.assertEqual(got.tobytes(), want.tobytes(), what)


def bake(graph_def, node_name, value):
    """Turns node `node_name` of `graph_def` into a Const holding `value`.
    tf.train.Checkpoint's graph-mode ops read the checkpoint path (and the
    object graph they save) from tensors Python feeds, and `--init` steps of
    `tributary run` take no feeds."""
    node = next(n for n in graph_def.node if n.name == node_name)
    assert node.op in ("Const", "Placeholder", "PlaceholderWithDefault"), node
    node.op = "Const"
    del node.input[:]
    node.attr.clear()
    node.attr["dtype"].type = tf.string.as_datatype_enum
    node.attr["value"].tensor.CopyFrom(tf.make_tensor_proto(value))


def write_graph_def(graph_def, out):
    with open(out, "wb") as f:
        f.write(graph_def.SerializeToString())
    return out


def files_of(prefix):
    d, base = os.path.split(prefix)
    return sorted(f for f in os.listdir(d) if f.startswith(base + "."))


class CheckpointTest(unittest.TestCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory(dir=os.environ.get("TEST_TMPDIR"))
        self.dir = self._tmp.name
        self.saver_defs = {}

    def tearDown(self):
        self._tmp.cleanup()

    def path(self, *parts):
        return os.path.join(self.dir, *parts)

    def write_graph(self, graph, name="graph.pb"):
        path = self.path(name)
        with open(path, "wb") as f:
            f.write(graph.as_graph_def().SerializeToString())
        return path

    # ---- graphs -------------------------------------------------------------

    def variables_graph(self, prefix, sharded=False, partitioned=False,
                        use_resource=False, dtypes=tuple(VALUES)):
        """Variables holding VALUES (plus a scalar and an empty one) with a Saver
        whose default path is `prefix`; reads are named read_<name>."""
        g = tf.Graph()
        reads = {}
        with g.as_default():
            for name in dtypes:
                v = tf1.get_variable(name, initializer=tf.constant(VALUES[name]),
                                     use_resource=use_resource)
                reads[name] = VALUES[name]
                tf.identity(v, name="read_" + name)
            scalar = tf1.get_variable("scalar", initializer=np.float32(3.5),
                                      use_resource=use_resource)
            tf.identity(scalar, name="read_scalar")
            reads["scalar"] = np.float32(3.5)
            empty = tf1.get_variable("empty", initializer=np.zeros((0, 4), np.int32),
                                     use_resource=use_resource)
            tf.identity(empty, name="read_empty")
            reads["empty"] = np.zeros((0, 4), np.int32)
            if partitioned:
                table = RNG.randn(10, 4).astype(np.float32)
                p = tf1.get_variable("table", initializer=tf.constant(table),
                                     partitioner=tf1.fixed_size_partitioner(3),
                                     use_resource=use_resource)
                for i, part in enumerate(p):
                    tf.identity(part, name=f"read_table_{i}")
                bounds = [0, 4, 7, 10]  # fixed_size_partitioner(3) of 10 rows
                for i in range(3):
                    reads[f"table_{i}"] = table[bounds[i]:bounds[i + 1]]
            self.saver_defs[id(g)] = tf1.train.Saver(
                sharded=sharded, filename=prefix).saver_def
            init = tf1.global_variables_initializer()
        return g, init.name, reads

    def tf_save(self, graph, init, prefix):
        """TensorFlow's own save of `graph`'s variables (after `init`) to `prefix`,
        with the Saver built into the graph."""
        os.makedirs(os.path.dirname(prefix), exist_ok=True)
        with graph.as_default(), tf1.Session(graph=graph) as sess:
            sess.run(init)
            saver = tf1.train.Saver(saver_def=self.saver_defs[id(graph)])
            saver.save(sess, prefix, write_meta_graph=False, write_state=False)

    # ---- TensorFlow writes, Tributary restores ------------------------------

    def check_restore(self, sharded, partitioned, use_resource):
        prefix = self.path("tf", "model.ckpt")
        g, init, reads = self.variables_graph(prefix, sharded, partitioned, use_resource)
        self.tf_save(g, init, prefix)
        graph = self.write_graph(g)
        kind, got = run_ours(graph, fetches=[f"read_{n}" for n in reads],
                             inits=["save/restore_all"], output=self.path("out.npz"))
        self.assertEqual(kind, "ok", got)
        for name, want in reads.items():
            same_bytes(self, got[f"read_{name}"], want, name)

    def test_saver_every_dtype_restores_exact_bytes(self):
        self.check_restore(sharded=False, partitioned=False, use_resource=False)

    def test_saver_resource_variables_restore(self):
        self.check_restore(sharded=False, partitioned=False, use_resource=True)

    def test_sharded_saver_with_partitioned_variable_restores(self):
        self.check_restore(sharded=True, partitioned=True, use_resource=False)

    def test_partitioned_resource_variable_restores(self):
        self.check_restore(sharded=False, partitioned=True, use_resource=True)

    # ---- Tributary writes, TensorFlow reads ----------------------------------

    def check_save(self, sharded, partitioned, use_resource):
        ours = self.path("ours", "model.ckpt")
        g, init, reads = self.variables_graph(ours, sharded, partitioned, use_resource)
        graph = self.write_graph(g)
        save = self.saver_defs[id(g)].save_tensor_name.split(":")[0]
        kind, got = run_ours(graph, inits=[init], targets=[save])
        self.assertEqual(kind, "ok", got)
        theirs = self.path("theirs", "model.ckpt")
        self.tf_save(g, init, theirs)
        # Byte for byte what TensorFlow writes for the same values.
        self.assertEqual(files_of(ours), files_of(theirs))
        for f in files_of(ours):
            with open(os.path.join(os.path.dirname(ours), f), "rb") as a, \
                    open(os.path.join(os.path.dirname(theirs), f), "rb") as b:
                self.assertEqual(a.read(), b.read(), f)
        reader = tf.train.load_checkpoint(ours)
        for name in VALUES:
            same_bytes(self, np.asarray(reader.get_tensor(name)).astype(
                VALUES[name].dtype) if VALUES[name].dtype != object else
                reader.get_tensor(name), VALUES[name], name)
        if partitioned:
            full = np.concatenate([reads[f"table_{i}"] for i in range(3)])
            same_bytes(self, reader.get_tensor("table"), full, "table")

    def test_saver_save_is_byte_identical_and_loads(self):
        self.check_save(sharded=False, partitioned=False, use_resource=False)

    def test_sharded_partitioned_save_is_byte_identical(self):
        self.check_save(sharded=True, partitioned=True, use_resource=True)

    # ---- tf.train.Checkpoint --------------------------------------------------

    def test_tf2_checkpoint_both_ways(self):
        values = {"w": RNG.randn(3, 2).astype(np.float32),
                  "step": np.int64(42), "names": np.array([b"a", b"bc"], dtype=object)}
        # TensorFlow 2 (eager) writes; a graph built by tf.compat.v1's
        # Checkpoint restores it on Tributary.
        eager = {k: tf.Variable(v) for k, v in values.items()}
        written = tf.train.Checkpoint(**eager).write(self.path("tf2", "ckpt"))
        g = tf.Graph()
        with g.as_default():
            gv = {k: tf1.get_variable(k, initializer=tf.zeros_like(tf.constant(v)),
                                      use_resource=True) for k, v in values.items()}
            for k, v in gv.items():
                tf.identity(v, name="read_" + k)
            before = {n.name for n in g.as_graph_def().node}
            with tf1.Session(graph=g) as sess:
                sess.run(tf1.global_variables_initializer())
                tf1.train.Checkpoint(**gv).restore(written).run_restore_ops(sess)
            assigns = [n.name for n in g.as_graph_def().node
                       if n.name not in before and n.op == "AssignVariableOp"]
            tf.group(*[g.get_operation_by_name(a) for a in assigns], name="restore_group")
        # One per variable, and one for the Checkpoint's own save_counter.
        self.assertEqual(len(assigns), len(values) + 1)
        # The restore ops read the path from a tensor Python feeds (a Const
        # "model" here); bake the path in, since `--init` steps take no feeds.
        graph_def = g.as_graph_def()
        for n in graph_def.node:
            if n.op == "RestoreV2":
                bake(graph_def, n.input[0], written)
        graph_path = write_graph_def(graph_def, self.path("restore.pb"))
        kind, got = run_ours(graph_path, fetches=[f"read_{k}" for k in values],
                             inits=["restore_group"], output=self.path("out.npz"))
        self.assertEqual(kind, "ok", got)
        for k, v in values.items():
            same_bytes(self, got[f"read_{k}"], v, k)

        # The graph-mode Checkpoint's save ops on Tributary write what
        # TensorFlow writes; TensorFlow 2 restores it.
        prefix = self.path("ck", "ckpt")
        g = tf.Graph()
        with g.as_default():
            gv = {k: tf1.get_variable(k, initializer=tf.constant(v), use_resource=True)
                  for k, v in values.items()}
            ckpt = tf1.train.Checkpoint(**gv)
            before = {n.name for n in g.as_graph_def().node}
            with tf1.Session(graph=g) as sess:
                sess.run(tf1.global_variables_initializer())
                saved = ckpt.write(prefix, session=sess)
            save_ops = [n for n in g.as_graph_def().node
                        if n.name not in before and n.op == "Identity" and
                        any(i.startswith("^MergeV2Checkpoints") for i in n.input)]
            init = tf1.global_variables_initializer()
        self.assertEqual(len(save_ops), 1)
        theirs = {f: open(os.path.join(self.path("ck"), f), "rb").read()
                  for f in files_of(saved)}
        object_graph_value = tf.train.load_checkpoint(saved).get_tensor(
            "_CHECKPOINTABLE_OBJECT_GRAPH")
        shutil.rmtree(self.path("ck"))
        graph_def = g.as_graph_def()
        merge = next(n for n in graph_def.node if n.op == "MergeV2Checkpoints")
        bake(graph_def, merge.input[1], prefix)
        save = next(n for n in graph_def.node if n.op == "SaveV2")
        names = tf.make_ndarray(next(
            n for n in graph_def.node if n.name == save.input[1]).attr["value"].tensor)
        object_graph = list(names).index(b"_CHECKPOINTABLE_OBJECT_GRAPH")
        bake(graph_def, save.input[3 + object_graph], object_graph_value)
        graph_path = write_graph_def(graph_def, self.path("save.pb"))
        kind, got = run_ours(graph_path, inits=[init.name], targets=[save_ops[0].name])
        self.assertEqual(kind, "ok", got)
        self.assertEqual(files_of(saved), sorted(theirs))
        for f, data in theirs.items():
            with open(os.path.join(self.path("ck"), f), "rb") as ours:
                self.assertEqual(ours.read(), data, f)
        fresh = {k: tf.Variable(tf.zeros_like(tf.constant(v))) for k, v in values.items()}
        tf.train.Checkpoint(**fresh).read(saved).assert_existing_objects_matched()
        for k, v in values.items():
            same_bytes(self, fresh[k].numpy(), v, k)

    # ---- corrupted checkpoints -------------------------------------------------

    def restore_error(self, prefix, graph):
        kind, got = run_ours(graph, fetches=["read_float32"], inits=["save/restore_all"])
        self.assertEqual(kind, "error", got)
        return got

    def corrupted_case(self, damage):
        prefix = self.path("bad", "model.ckpt")
        g, init, _ = self.variables_graph(prefix, dtypes=("float32", "int32"))
        self.tf_save(g, init, prefix)
        damage(prefix)
        return self.restore_error(prefix, self.write_graph(g))

    def test_flipped_byte_is_data_loss(self):
        def flip(prefix):
            data = prefix + ".data-00000-of-00001"
            b = bytearray(open(data, "rb").read())
            b[2] ^= 0x10  # inside float32, the first tensor in the file
            open(data, "wb").write(bytes(b))
        code, message = self.corrupted_case(flip)
        self.assertEqual(code, "DATA_LOSS")
        self.assertIn("float32", message)
        self.assertIn("model.ckpt.data-00000-of-00001", message)

    def test_truncated_shard_is_data_loss(self):
        def truncate(prefix):
            data = prefix + ".data-00000-of-00001"
            b = open(data, "rb").read()
            open(data, "wb").write(b[:len(b) - 3])
        code, message = self.corrupted_case(truncate)
        self.assertEqual(code, "DATA_LOSS")
        self.assertIn("truncated", message)

    def test_missing_shard_is_not_found(self):
        code, message = self.corrupted_case(
            lambda p: os.remove(p + ".data-00000-of-00001"))
        self.assertEqual(code, "NOT_FOUND")
        self.assertIn("model.ckpt.data-00000-of-00001", message)

    def test_truncated_index_is_data_loss(self):
        def truncate(prefix):
            b = open(prefix + ".index", "rb").read()
            open(prefix + ".index", "wb").write(b[:len(b) // 2])
        code, message = self.corrupted_case(truncate)
        self.assertEqual(code, "DATA_LOSS")
        self.assertIn("model.ckpt.index", message)

    def checkpoint_of(self, prefix, variables):
        """A checkpoint TensorFlow writes holding `variables` (name -> value)."""
        g = tf.Graph()
        with g.as_default():
            for name, value in variables.items():
                tf1.get_variable(name, initializer=value)
            saver = tf1.train.Saver()
            os.makedirs(os.path.dirname(prefix), exist_ok=True)
            with tf1.Session() as sess:
                sess.run(tf1.global_variables_initializer())
                saver.save(sess, prefix, write_meta_graph=False, write_state=False)

    def test_wrong_dtype_is_invalid_argument(self):
        # The graph's float32 variable is an int32 in the checkpoint.
        prefix = self.path("dtype", "model.ckpt")
        self.checkpoint_of(prefix, {"empty": np.zeros((0, 4), np.int32),
                                    "float32": np.int32(1), "int32": VALUES["int32"],
                                    "scalar": np.float32(1)})
        g, _, _ = self.variables_graph(prefix, dtypes=("float32", "int32"))
        code, message = self.restore_error(prefix, self.write_graph(g))
        self.assertEqual(code, "INVALID_ARGUMENT")
        self.assertIn("tensor_name = float32; expected dtype float does not equal "
                      "original dtype int32", message)

    def test_missing_tensor_is_not_found(self):
        prefix = self.path("missing", "model.ckpt")
        self.checkpoint_of(prefix, {"empty": np.zeros((0, 4), np.int32),
                                    "float32": VALUES["float32"],
                                    "int32": VALUES["int32"]})
        g, _, _ = self.variables_graph(prefix, dtypes=("float32", "int32"))
        code, message = self.restore_error(prefix, self.write_graph(g))
        self.assertEqual(code, "NOT_FOUND")
        self.assertIn("Key scalar not found in checkpoint", message)

    def test_partition_shape_mismatch_is_invalid_argument(self):
        prefix = self.path("shape", "model.ckpt")
        g, init, _ = self.variables_graph(prefix, partitioned=True, dtypes=("float32",))
        self.tf_save(g, init, prefix)
        g2 = tf.Graph()
        with g2.as_default():
            tf1.get_variable("table", shape=[12, 4],
                             partitioner=tf1.fixed_size_partitioner(3))
            tf1.train.Saver(filename=prefix)
            tf.identity(tf.constant(0.0), name="read_float32")
        code, message = self.restore_error(prefix, self.write_graph(g2))
        self.assertEqual(code, "INVALID_ARGUMENT")
        self.assertIn("table", message)


if __name__ == "__main__":
    unittest.main()
