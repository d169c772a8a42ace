"""Embedding lookups, TensorFlow against `tributary run` on the same
tf.compat.v1 graphs (forward values and gradients):

* tf.nn.embedding_lookup on a plain table and on tables partitioned with
  fixed_size_partitioner(3) and min_max_variable_partitioner, with
  partition_strategy "mod" and "div", on ref and resource variables
  (GatherV2/ResourceGather, DynamicPartition, ParallelDynamicStitch,
  FloorMod/FloorDiv, and UnsortedSegmentSum in the dense gradient);
* tf.compat.v1.nn.embedding_lookup_sparse with combiner sum/mean/sqrtn, with
  and without weights, on a SparseTensor fed from placeholders
  (Unique, SparseSegment{Sum,Mean,SqrtN} and their Grad ops, SegmentSum,
  DivNoNan);
* a hashed categorical feature: tf.strings.to_hash_bucket_fast on a string
  placeholder, then a lookup (StringToHashBucketFast).

Gradients are fetched both as the IndexedSlices' values/indices and dense
(tf.convert_to_tensor). Tables start from constants (per partition, by
offset), so both runtimes start from the same values. An out-of-range id must
give INVALID_ARGUMENT in both. Tolerance: rtol 1e-5, atol 1e-6 (summation
order is the only difference).
"""
import json
import os
import subprocess
import sys
import tempfile
import unittest

# TensorFlow's reference CPU kernels, as the other session oracles use.
os.environ["TF_ENABLE_ONEDNN_OPTS"] = "0"

sys.path.insert(0, "tests/interop")  # cwd is the runfiles root

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

from session_oracle_test import BINARY, from_json, run_tf  # noqa: E402

tf1 = tf.compat.v1

ROWS, DIM = 40, 3
RTOL, ATOL = 1e-5, 1e-6
TABLE = (np.arange(ROWS * DIM, dtype=np.float32).reshape(ROWS, DIM) / 10.0
         - 3.0)


def run_ours(graph_path, feeds, fetches, inits=()):
    """`tributary run` with feeds through .npy files (strings inline):
    ("ok", {name: json}) or ("error", code)."""
    with tempfile.TemporaryDirectory() as tmp:
        args = [BINARY, "run", "--graph", graph_path]
        for i, (name, value) in enumerate(feeds.items()):
            value = np.asarray(value)
            if value.dtype.kind in "US":
                args += ["--feed", f"{name}=string:{json.dumps(value.tolist())}"]
            else:
                path = os.path.join(tmp, f"feed{i}.npy")
                np.save(path, value)
                args += ["--feed", f"{name}=@{path}"]
        for f in fetches:
            args += ["--fetch", f]
        for init in inits:
            args += ["--init", init]
        proc = subprocess.run(args, capture_output=True, text=True, timeout=120)
    try:
        out = json.loads(proc.stdout)
    except json.JSONDecodeError as e:
        raise AssertionError(f"tributary printed no JSON (exit {proc.returncode}): "
                             f"{proc.stdout!r} {proc.stderr!r}") from e
    if "error" in out:
        return "error", out["error"]["code"]
    return "ok", out["fetches"]


def table_initializer(shape, dtype=None, partition_info=None):
    offset = 0 if partition_info is None else partition_info.single_offset(shape)
    return tf.constant(TABLE[offset:offset + shape[0]])


def fetch_gradients(loss, variables):
    """Named fetches for d loss / d each variable: slices and dense."""
    names = []
    for k, grad in enumerate(tf.gradients(loss, variables)):
        if isinstance(grad, tf.IndexedSlices):
            tf.identity(grad.values, name=f"grad{k}_values")
            tf.identity(grad.indices, name=f"grad{k}_indices")
            names += [f"grad{k}_values", f"grad{k}_indices"]
        tf.identity(tf.convert_to_tensor(grad), name=f"grad{k}_dense")
        names.append(f"grad{k}_dense")
    return names


def build_lookup(partitioner, use_resource, strategy):
    g = tf.Graph()
    with g.as_default():
        with tf1.variable_scope("emb", partitioner=partitioner):
            table = tf1.get_variable("table", shape=[ROWS, DIM], dtype=tf.float32,
                                     initializer=table_initializer,
                                     use_resource=use_resource)
        variables = list(table) if partitioner is not None else [table]
        ids = tf1.placeholder(tf.int64, [None], name="ids")
        emb = tf1.nn.embedding_lookup(table, ids, partition_strategy=strategy)
        tf.identity(emb, name="lookup")
        loss = tf.reduce_sum(emb * emb, name="loss")
        fetches = ["lookup", "loss"] + fetch_gradients(loss, variables)
        tf1.variables_initializer(tf1.global_variables(), name="init")
    return g.as_graph_def(), fetches, len(variables)


def build_sparse(combiner, weighted):
    g = tf.Graph()
    with g.as_default():
        table = tf1.get_variable("table", shape=[ROWS, DIM], dtype=tf.float32,
                                 initializer=table_initializer)
        indices = tf1.placeholder(tf.int64, [None, 2], name="sp_indices")
        values = tf1.placeholder(tf.int64, [None], name="sp_values")
        shape = tf1.placeholder(tf.int64, [2], name="sp_shape")
        weights = tf1.placeholder(tf.float32, [None], name="sp_weights")
        sp_ids = tf.SparseTensor(indices, values, shape)
        sp_weights = tf.SparseTensor(indices, weights, shape) if weighted else None
        emb = tf1.nn.embedding_lookup_sparse(table, sp_ids, sp_weights,
                                             combiner=combiner)
        tf.identity(emb, name="lookup")
        loss = tf.reduce_sum(emb * emb, name="loss")
        fetches = ["lookup", "loss"] + fetch_gradients(loss, [table])
        tf1.variables_initializer(tf1.global_variables(), name="init")
    return g.as_graph_def(), fetches


def build_hashed():
    g = tf.Graph()
    with g.as_default():
        table = tf1.get_variable("table", shape=[ROWS, DIM], dtype=tf.float32,
                                 initializer=table_initializer)
        words = tf1.placeholder(tf.string, [None], name="words")
        buckets = tf.strings.to_hash_bucket_fast(words, ROWS, name="buckets")
        emb = tf1.nn.embedding_lookup(table, buckets)
        tf.identity(emb, name="lookup")
        loss = tf.reduce_sum(emb * emb, name="loss")
        fetches = ["buckets", "lookup", "loss"] + fetch_gradients(loss, [table])
        tf1.variables_initializer(tf1.global_variables(), name="init")
    return g.as_graph_def(), fetches


PARTITIONERS = {
    "plain": lambda: None,
    "fixed3": lambda: tf1.fixed_size_partitioner(3),
    # 40x3 floats = 480 bytes: 4 partitions of at least 128 bytes.
    "minmax": lambda: tf1.min_max_variable_partitioner(max_partitions=4,
                                                       min_slice_size=128),
}

SPARSE_FEEDS = {
    # Rows 0, 1 and 3 of a [5, 3] batch; rows 2 and 4 empty; id 7 twice.
    "sp_indices": np.array([[0, 0], [0, 1], [1, 0], [3, 0], [3, 1], [3, 2]],
                           np.int64),
    "sp_values": np.array([3, 7, 3, 19, 0, 7], np.int64),
    "sp_shape": np.array([5, 3], np.int64),
    "sp_weights": np.array([0.5, 2.0, -1.0, 1.5, 0.25, 3.0], np.float32),
}


class EmbeddingSessionTest(unittest.TestCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory()

    def tearDown(self):
        self._tmp.cleanup()

    def compare(self, graph_def, feeds, fetches, name):
        path = os.path.join(self._tmp.name, name + ".pbtxt")
        with open(path, "w") as f:
            f.write(str(graph_def))
        tf_kind, tf_result = run_tf(graph_def, feeds, fetches, inits=["init"])
        our_kind, our_result = run_ours(path, feeds, fetches, inits=["init"])
        self.assertEqual(tf_kind, "ok", tf_result)
        self.assertEqual(our_kind, "ok", our_result)
        for fetch, want in zip(fetches, tf_result):
            want = np.asarray(want)
            dtype, got = from_json(our_result[fetch])
            self.assertEqual(got.shape, want.shape, fetch)
            if want.dtype.kind in "iu":
                np.testing.assert_array_equal(got, want, err_msg=fetch)
            else:
                np.testing.assert_allclose(got.astype(want.dtype), want,
                                           rtol=RTOL, atol=ATOL, err_msg=fetch)
        return path

    def test_embedding_lookup(self):
        ids = np.array([0, 5, 39, 5, 17, 2, 33, 13, 14, 26, 27], np.int64)
        for part in PARTITIONERS:
            for use_resource in (False, True):
                for strategy in ("mod", "div"):
                    if part == "plain" and strategy == "div":
                        continue  # the strategy only matters for several tables
                    with self.subTest(partitioner=part, resource=use_resource,
                                      strategy=strategy):
                        graph_def, fetches, n = build_lookup(
                            PARTITIONERS[part](), use_resource, strategy)
                        if part != "plain":
                            self.assertGreater(n, 1)
                            ops = {node.op for node in graph_def.node}
                            self.assertIn("DynamicPartition", ops)
                            self.assertIn("ParallelDynamicStitch", ops)
                        name = f"{part}_{use_resource}_{strategy}"
                        path = self.compare(graph_def, {"ids": ids}, fetches, name)
                        # An id past the table: INVALID_ARGUMENT in both.
                        bad = {"ids": np.array([1, ROWS + 5], np.int64)}
                        tf_kind, tf_code = run_tf(graph_def, bad, ["lookup"],
                                                  inits=["init"])
                        our_kind, our_code = run_ours(path, bad, ["lookup"],
                                                      inits=["init"])
                        self.assertEqual((tf_kind, tf_code),
                                         ("error", "INVALID_ARGUMENT"))
                        self.assertEqual((our_kind, our_code), (tf_kind, tf_code))

    def test_embedding_lookup_sparse(self):
        for combiner in ("sum", "mean", "sqrtn"):
            for weighted in (False, True):
                with self.subTest(combiner=combiner, weighted=weighted):
                    graph_def, fetches = build_sparse(combiner, weighted)
                    feeds = dict(SPARSE_FEEDS)
                    if not weighted:
                        del feeds["sp_weights"]
                    self.compare(graph_def, feeds, fetches,
                                 f"sparse_{combiner}_{weighted}")

    def test_hashed_feature(self):
        graph_def, fetches = build_hashed()
        self.assertIn("StringToHashBucketFast", {n.op for n in graph_def.node})
        words = np.array(["cat", "dog", "", "a fairly long token for farmhash",
                          "dog", "zebra"])
        self.compare(graph_def, {"words": words}, fetches, "hashed")


if __name__ == "__main__":
    unittest.main()
