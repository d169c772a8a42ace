"""The array ops TensorFlow's public APIs emit, TensorFlow's Session against
`tributary run` on the same tf.compat.v1 graph (fed Placeholders):

* tf.eye (square, rectangular, batched), tf.linalg.diag with and without a
  band k, diag_part with a band, set_diag, band_part (the causal mask);
* tf.roll, tf.reverse_sequence, tf.nn.depth_to_space / space_to_depth,
  tf.ensure_shape;
* tf.scatter_nd, tf.tensor_scatter_nd_update / add / sub / min / max;
* tf.random.gamma (graph-level and op seeds; BroadcastArgs + RandomGamma),
  tf.random.stateless_gamma, tf.random.poisson (RandomPoissonV2) and
  tf.random.stateless_poisson;
* a loss through a strided slice of a resource variable, a REFLECT pad and a
  tf.gather_nd from the variable, so tf.gradients emits StridedSliceGrad,
  MirrorPadGrad and the ResourceGatherNd gradient (VariableShape +
  ScatterNd);
* `w[0:2, 1:3].assign(...)` (ResourceStridedSliceAssign) then a read.

Values equal TensorFlow's (float32 rtol 1e-5, atol 1e-6; gamma and integer
results exactly); a feed that breaks tf.ensure_shape or a scatter index out
of range is INVALID_ARGUMENT on both sides.
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
rng = np.random.default_rng(13)

V_INIT = (np.arange(20, dtype=np.float32).reshape(4, 5) - 7.0) / 5.0


def build():
    g = tf.Graph()
    with g.as_default():
        tf1.set_random_seed(21)
        x = tf1.placeholder(tf.float32, [None, None], name="x")
        d3 = tf1.placeholder(tf.float32, [None, 3, None], name="d3")
        img = tf1.placeholder(tf.float32, [None, None, None, 8], name="img")
        img2 = tf1.placeholder(tf.float32, [None, None, None, 3], name="img2")
        idx = tf1.placeholder(tf.int32, [None, 1], name="idx")
        upd = tf1.placeholder(tf.float32, [None, 5], name="upd")
        lens = tf1.placeholder(tf.int64, [None], name="lens")
        alpha = tf1.placeholder(tf.float32, [None, 1], name="alpha")

        outs = {
            "eye": tf.eye(3),
            "eye_rect": tf.eye(3, 5, dtype=tf.int32),
            "eye_batch": tf.eye(2, batch_shape=[3]),
            "diag": tf.linalg.diag(x),
            "diag_band": tf.linalg.diag(d3, k=(-1, 1)),
            "diag_band_rect": tf.linalg.diag(d3, k=(-1, 1), num_rows=5,
                                             align="LEFT_RIGHT"),
            "diag_part": tf.linalg.diag_part(x, k=(-1, 2)),
            "set_diag": tf.linalg.set_diag(x, tf.zeros([4])),
            "set_diag_super": tf.linalg.set_diag(x, tf.ones([4]) * 9.0, k=1),
            "set_diag_band": tf.linalg.set_diag(
                tf.reshape(d3, [2, 3, 4]), tf.ones([2, 2, 3]) * 9.0, k=(-1, 0)),
            "causal": tf.linalg.band_part(x, -1, 0),
            "band": tf.linalg.band_part(x, 1, 2),
            "roll": tf.roll(x, shift=[1, -2], axis=[0, 1]),
            "reverse_sequence": tf.reverse_sequence(x, lens, seq_axis=1,
                                                    batch_axis=0),
            "depth_to_space": tf.nn.depth_to_space(img, 2),
            "space_to_depth": tf.nn.space_to_depth(img2, 2),
            "ensured": tf.ensure_shape(x, [None, 5]) * 2.0,
            "scatter_nd": tf.scatter_nd(idx, upd, [6, 5]),
            "scatter_update": tf.tensor_scatter_nd_update(x, idx[:2], upd[:2]),
            "scatter_add": tf.tensor_scatter_nd_add(x, idx[:2], upd[:2]),
            "scatter_sub": tf.tensor_scatter_nd_sub(x, idx[:2], upd[:2]),
            "scatter_max": tf.tensor_scatter_nd_max(x, idx[:2], upd[:2]),
            "scatter_min": tf.tensor_scatter_nd_min(x, idx[:2], upd[:2]),
            "gamma": tf.random.gamma([3], alpha),
            "gamma_seeded": tf.random.gamma([2, 2], alpha, beta=2.0, seed=7),
            "stateless_gamma": tf.random.stateless_gamma(
                [4, 3], seed=[3, 4], alpha=[0.5, 1.0, 3.0]),
            "poisson": tf.random.poisson([5], alpha * 10.0, dtype=tf.int32),
            "poisson_seeded": tf.random.poisson([2, 3], [1.5, 40.0], seed=4),
            "stateless_poisson": tf.random.stateless_poisson(
                [6, 2], seed=[5, 6], lam=[3.0, 12.0], dtype=tf.int64),
        }

        v = tf1.get_variable("v", initializer=tf.constant(V_INIT),
                             use_resource=True)
        part = v[1:, ::2]
        padded = tf.pad(part * x[:3, :3], [[1, 1], [2, 0]], mode="REFLECT")
        picked = tf.gather_nd(v, [[0, 1], [3, 4], [0, 1]])
        loss = tf.reduce_sum(padded * padded) + tf.reduce_sum(picked * 3.0)
        grad_v, grad_x = tf.gradients(loss, [v, x])
        outs["loss"] = loss
        outs["grad_v"] = tf.convert_to_tensor(grad_v)
        outs["grad_x"] = grad_x

        w = tf1.get_variable("w", initializer=tf.zeros([3, 4]),
                             use_resource=True)
        assign = w[0:2, 1:3].assign(tf.ones([2, 2]) * 5.0)
        with tf.control_dependencies([assign]):
            outs["sliced_assign"] = w.read_value()

        for name, t in outs.items():
            tf.identity(t, name="out_" + name)
        tf1.variables_initializer(tf1.global_variables(), name="init")
    return g.as_graph_def(), ["out_" + name for name in sorted(outs)]


FEEDS = {
    "x": rng.standard_normal((4, 5)).astype(np.float32),
    "d3": rng.standard_normal((2, 3, 4)).astype(np.float32),
    "img": rng.standard_normal((2, 2, 3, 8)).astype(np.float32),
    "img2": rng.standard_normal((1, 4, 6, 3)).astype(np.float32),
    "idx": np.array([[1], [3], [1]], np.int32),
    "upd": rng.standard_normal((3, 5)).astype(np.float32),
    "lens": np.array([5, 3, 0, 2], np.int64),
    "alpha": np.array([[0.7], [2.5]], np.float32),
}

EXACT = {"out_eye", "out_eye_rect", "out_eye_batch", "out_gamma",
         "out_gamma_seeded", "out_stateless_gamma", "out_poisson",
         "out_poisson_seeded", "out_stateless_poisson", "out_sliced_assign"}


class ArrayModelsSessionTest(unittest.TestCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory()
        self.graph_def, self.fetches = build()
        self.path = os.path.join(self._tmp.name, "array.pbtxt")
        with open(self.path, "w") as f:
            f.write(str(self.graph_def))

    def tearDown(self):
        self._tmp.cleanup()

    def test_values_equal_tensorflow(self):
        fetches = self.fetches
        tf_kind, tf_result = run_tf(self.graph_def, FEEDS, fetches,
                                    inits=["init"])
        our_kind, our_result = run_ours(self.path, FEEDS, fetches,
                                        inits=["init"])
        self.assertEqual(tf_kind, "ok", tf_result)
        self.assertEqual(our_kind, "ok", our_result)
        for fetch, want in zip(fetches, tf_result):
            want = np.asarray(want)
            _, got = from_json(our_result[fetch])
            self.assertEqual(got.shape, want.shape, fetch)
            if fetch in EXACT or want.dtype.kind in "iub":
                np.testing.assert_array_equal(got.astype(want.dtype), want,
                                              err_msg=fetch)
            else:
                np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6,
                                           err_msg=fetch)

    def test_bad_feeds_are_invalid_argument_on_both_sides(self):
        for feeds, fetch in [
                ({"x": np.ones((4, 6), np.float32)}, "out_ensured"),
                ({"idx": np.array([[1], [6], [0]], np.int32),
                  "upd": np.ones((3, 5), np.float32)}, "out_scatter_nd"),
                ({"x": np.ones((4, 5), np.float32),
                  "idx": np.array([[4], [0], [0]], np.int32),
                  "upd": np.ones((3, 5), np.float32)}, "out_scatter_update"),
                ({"x": np.ones((4, 5), np.float32),
                  "lens": np.array([6, 0, 0, 0], np.int64)},
                 "out_reverse_sequence")]:
            with self.subTest(fetch=fetch):
                self.assertEqual(run_tf(self.graph_def, feeds, [fetch],
                                        inits=["init"]),
                                 ("error", "INVALID_ARGUMENT"))
                self.assertEqual(run_ours(self.path, feeds, [fetch],
                                          inits=["init"]),
                                 ("error", "INVALID_ARGUMENT"))


if __name__ == "__main__":
    unittest.main()
