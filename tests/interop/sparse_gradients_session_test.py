"""The sparse gradients TensorFlow 2.21 emits and UniqueV2, TensorFlow against
`tributary run` on the same tf.compat.v1 graphs:

* tf.sparse.segment_{sum,mean,sqrt_n}(..., sparse_gradient=True), with and
  without num_segments: tf.gradients gives IndexedSlices made by
  SparseSegment{Sum,Mean,SqrtN}GradV2 (values, sorted unique indices, and
  the dense form);
* tf.sparse.fill_empty_rows on a SparseTensor of fed values: the gradients
  w.r.t. the values and the default value (SparseFillEmptyRowsGrad);
* tf.raw_ops.UniqueV2 / UniqueWithCountsV2 along axis 0, 1 and -1 of a fed
  matrix, and with an empty axis on a vector.

Out-of-range indices must be INVALID_ARGUMENT on both sides. Tolerance: rtol
1e-5, atol 1e-6 (summation order is the only difference).
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
RTOL, ATOL = 1e-5, 1e-6

REDUCTIONS = {"sum": tf.sparse.segment_sum, "mean": tf.sparse.segment_mean,
              "sqrtn": tf.sparse.segment_sqrt_n}


def fetch_slices(grad, prefix):
    tf.identity(grad.values, name=prefix + "_values")
    tf.identity(grad.indices, name=prefix + "_indices")
    tf.identity(tf.convert_to_tensor(grad), name=prefix + "_dense")
    return [prefix + "_values", prefix + "_indices", prefix + "_dense"]


def build_segments():
    g = tf.Graph()
    fetches = []
    with g.as_default():
        data = tf1.placeholder(tf.float32, [None, 3], name="data")
        idx = tf1.placeholder(tf.int64, [None], name="idx")
        seg = tf1.placeholder(tf.int32, [None], name="seg")
        for name, fn in REDUCTIONS.items():
            for num in (None, 5):
                tag = name + ("_num" if num else "")
                y = fn(data, idx, seg, num_segments=num, sparse_gradient=True)
                tf.identity(y, name=tag)
                loss = tf.reduce_sum(y * y)
                grad, = tf.gradients(loss, [data])
                assert isinstance(grad, tf.IndexedSlices), tag
                fetches += [tag] + fetch_slices(grad, tag + "_grad")
    ops = {n.op for n in g.as_graph_def().node}
    assert {"SparseSegmentSumGradV2", "SparseSegmentMeanGradV2",
            "SparseSegmentSqrtNGradV2"} <= ops, ops
    return g.as_graph_def(), fetches


def build_fill_empty_rows():
    g = tf.Graph()
    with g.as_default():
        indices = tf1.placeholder(tf.int64, [None, 2], name="sp_indices")
        values = tf1.placeholder(tf.float32, [None], name="sp_values")
        default = tf1.placeholder(tf.float32, [], name="default")
        sp = tf.SparseTensor(indices, values, [5, 3])
        filled, empty = tf.sparse.fill_empty_rows(sp, default)
        tf.identity(filled.values, name="filled_values")
        tf.identity(empty, name="empty_rows")
        weights = tf.cast(tf.range(tf.size(filled.values)), tf.float32) + 1.0
        loss = tf.reduce_sum(filled.values * filled.values * weights)
        d_values, d_default = tf.gradients(loss, [values, default])
        tf.identity(d_values, name="d_values")
        tf.identity(d_default, name="d_default")
    assert "SparseFillEmptyRowsGrad" in {n.op for n in g.as_graph_def().node}
    return g.as_graph_def(), ["filled_values", "empty_rows", "d_values",
                              "d_default"]


def build_unique():
    g = tf.Graph()
    fetches = []
    with g.as_default():
        x = tf1.placeholder(tf.int32, [None, None], name="x")
        v = tf1.placeholder(tf.float32, [None], name="v")
        for axis, taxis in ((0, tf.int64), (1, tf.int32), (-1, tf.int64)):
            tag = f"u{axis}".replace("-", "m")
            y, i = tf.raw_ops.UniqueV2(x=x, axis=tf.constant([axis], taxis))
            tf.identity(y, name=tag + "_y")
            tf.identity(i, name=tag + "_idx")
            yc, ic, c = tf.raw_ops.UniqueWithCountsV2(
                x=x, axis=tf.constant([axis], taxis), out_idx=tf.int64)
            tf.identity(yc, name=tag + "_cy")
            tf.identity(ic, name=tag + "_cidx")
            tf.identity(c, name=tag + "_count")
            fetches += [tag + s for s in ("_y", "_idx", "_cy", "_cidx",
                                          "_count")]
        y, i = tf.raw_ops.UniqueV2(x=v, axis=tf.constant([], tf.int64))
        tf.identity(y, name="vec_y")
        tf.identity(i, name="vec_idx")
        fetches += ["vec_y", "vec_idx"]
    return g.as_graph_def(), fetches


class SparseGradientsSessionTest(unittest.TestCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory()

    def tearDown(self):
        self._tmp.cleanup()

    def save(self, graph_def, name):
        path = os.path.join(self._tmp.name, name + ".pbtxt")
        with open(path, "w") as f:
            f.write(str(graph_def))
        return path

    def compare(self, graph_def, feeds, fetches, name):
        path = self.save(graph_def, name)
        tf_kind, tf_result = run_tf(graph_def, feeds, fetches)
        our_kind, our_result = run_ours(path, feeds, fetches)
        self.assertEqual(tf_kind, "ok", tf_result)
        self.assertEqual(our_kind, "ok", our_result)
        for fetch, want in zip(fetches, tf_result):
            want = np.asarray(want)
            _, got = from_json(our_result[fetch])
            self.assertEqual(got.shape, want.shape, fetch)
            if want.dtype.kind in "iub":
                np.testing.assert_array_equal(got, want, err_msg=fetch)
            else:
                np.testing.assert_allclose(got.astype(want.dtype), want,
                                           rtol=RTOL, atol=ATOL, err_msg=fetch)
        return path

    def test_sparse_segment_gradients_v2(self):
        graph_def, fetches = build_segments()
        feeds = {
            "data": np.arange(21, dtype=np.float32).reshape(7, 3) / 5.0 - 2.0,
            # Rows 6 and 2 repeated across segments; segment 2 empty.
            "idx": np.array([6, 2, 0, 6, 2, 5, 2], np.int64),
            "seg": np.array([0, 0, 1, 1, 3, 3, 4], np.int32),
        }
        path = self.compare(graph_def, feeds, fetches, "segments")
        bad = dict(feeds, idx=np.array([6, 2, 0, 7, 2, 5, 2], np.int64))
        for fetch in ("sum_grad_values", "mean_num_grad_indices"):
            with self.subTest(fetch=fetch):
                self.assertEqual(run_tf(graph_def, bad, [fetch]),
                                 ("error", "INVALID_ARGUMENT"))
                self.assertEqual(run_ours(path, bad, [fetch]),
                                 ("error", "INVALID_ARGUMENT"))

    def test_fill_empty_rows_gradient(self):
        graph_def, fetches = build_fill_empty_rows()
        feeds = {
            "sp_indices": np.array([[0, 1], [0, 2], [2, 0], [4, 1]], np.int64),
            "sp_values": np.array([1.5, -2.0, 3.0, 0.5], np.float32),
            "default": np.float32(-0.75),
        }
        self.compare(graph_def, feeds, fetches, "fill")

    def test_unique_v2(self):
        graph_def, fetches = build_unique()
        feeds = {
            "x": np.array([[1, 0, 1, 1], [2, 0, 2, 2], [1, 0, 1, 1]],
                          np.int32),
            "v": np.array([3.0, -0.0, 3.0, 0.0, 7.5], np.float32),
        }
        self.compare(graph_def, feeds, fetches, "unique")


if __name__ == "__main__":
    unittest.main()
