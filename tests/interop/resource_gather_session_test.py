"""Gathers from a resource variable, TensorFlow against `tributary run` on the
same tf.compat.v1 graphs:

* tf.gather(v, ids) (ResourceGather, batch_dims 0) and its IndexedSlices
  gradient;
* tf.gather(v, ids, batch_dims=1) (TensorFlow emits GatherV2 on a read of the
  variable) and tf.raw_ops.ResourceGather(batch_dims=1 and 2), the same
  selection read from the resource directly;
* tf.gather_nd(v, idx) (ResourceGatherNd) with full and partial index tuples.

Indices are fed, so an out-of-range index is checked at run time: an
INVALID_ARGUMENT on both sides for batch_dims 0 and gather_nd. TensorFlow
2.21's ResourceGather does not validate indices when batch_dims > 0 (it reads
the next batch's row), so there only ours is checked to refuse.
"""
import os
import sys
import tempfile
import unittest

os.environ["TF_ENABLE_ONEDNN_OPTS"] = "0"

sys.path.insert(0, "tests/interop")  # cwd is the runfiles root

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

from embedding_session_test import run_ours  # noqa: E402
from session_oracle_test import from_json, run_tf  # noqa: E402

tf1 = tf.compat.v1

VALUE = np.arange(2 * 3 * 4, dtype=np.float32).reshape(2, 3, 4) / 4.0 - 1.0


def build():
    g = tf.Graph()
    with g.as_default():
        v = tf1.get_variable("v", initializer=tf.constant(VALUE),
                             use_resource=True)
        ids = tf1.placeholder(tf.int32, [None], name="ids")
        bids = tf1.placeholder(tf.int64, [2, None], name="bids")
        bids2 = tf1.placeholder(tf.int32, [2, 3, None], name="bids2")
        nd = tf1.placeholder(tf.int32, [None, 2], name="nd")
        nd3 = tf1.placeholder(tf.int64, [None, 3], name="nd3")
        rows = tf.gather(v, ids)
        tf.identity(rows, name="rows")
        tf.identity(tf.gather(v, bids, batch_dims=1), name="batched_v2")
        tf.identity(tf.raw_ops.ResourceGather(
            resource=v.handle, indices=bids, dtype=tf.float32, batch_dims=1),
            name="batched")
        tf.identity(tf.raw_ops.ResourceGather(
            resource=v.handle, indices=bids2, dtype=tf.float32, batch_dims=2),
            name="batched2")
        tf.identity(tf.gather_nd(v, nd), name="gathered_nd")
        tf.identity(tf.gather_nd(v, nd3), name="gathered_nd3")
        loss = tf.reduce_sum(rows * rows)
        grad, = tf.gradients(loss, [v])
        tf.identity(grad.values, name="grad_values")
        tf.identity(grad.indices, name="grad_indices")
        tf1.variables_initializer(tf1.global_variables(), name="init")
    return g.as_graph_def()


FETCHES = ["rows", "batched_v2", "batched", "batched2", "gathered_nd",
           "gathered_nd3", "grad_values", "grad_indices"]

FEEDS = {
    "ids": np.array([1, 0, 1], np.int32),
    "bids": np.array([[2, 0], [1, 1]], np.int64),
    "bids2": np.array([[[0], [3], [1]], [[2], [2], [0]]], np.int32),
    "nd": np.array([[0, 2], [1, 0], [1, 2]], np.int32),
    "nd3": np.array([[1, 2, 3], [0, 1, 0]], np.int64),
}


class ResourceGatherSessionTest(unittest.TestCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory()
        self.graph_def = build()
        self.path = os.path.join(self._tmp.name, "gather.pbtxt")
        with open(self.path, "w") as f:
            f.write(str(self.graph_def))

    def tearDown(self):
        self._tmp.cleanup()

    def test_values_and_gradient_equal_tensorflow(self):
        tf_kind, tf_result = run_tf(self.graph_def, FEEDS, FETCHES,
                                    inits=["init"])
        our_kind, our_result = run_ours(self.path, FEEDS, FETCHES,
                                        inits=["init"])
        self.assertEqual(tf_kind, "ok", tf_result)
        self.assertEqual(our_kind, "ok", our_result)
        for fetch, want in zip(FETCHES, tf_result):
            want = np.asarray(want)
            _, got = from_json(our_result[fetch])
            self.assertEqual(got.shape, want.shape, fetch)
            np.testing.assert_array_equal(got.astype(want.dtype), want,
                                          err_msg=fetch)

    def test_out_of_range_indices(self):
        for feed, bad, fetch, oracle in [
                ("ids", np.array([0, 2], np.int32), "rows", True),
                ("nd", np.array([[0, 3]], np.int32), "gathered_nd", True),
                ("nd3", np.array([[0, 0, -1]], np.int64), "gathered_nd3", True),
                ("bids", np.array([[0, 3], [1, 1]], np.int64), "batched",
                 False),
                ("bids2", np.full([2, 3, 1], 4, np.int32), "batched2", False)]:
            with self.subTest(fetch=fetch):
                feeds = {feed: bad}
                if oracle:
                    self.assertEqual(
                        run_tf(self.graph_def, feeds, [fetch], inits=["init"]),
                        ("error", "INVALID_ARGUMENT"))
                self.assertEqual(
                    run_ours(self.path, feeds, [fetch], inits=["init"]),
                    ("error", "INVALID_ARGUMENT"))


if __name__ == "__main__":
    unittest.main()
