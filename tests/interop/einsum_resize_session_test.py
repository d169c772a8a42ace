"""Einsum, ResizeBilinear, ResizeNearestNeighbor and ResizeBilinearGrad:
TensorFlow's Session vs `tributary run` on one-op graphs (fed Placeholders of
unknown shape), over the equations Keras emits and general ones, the resize
attr combinations and dtypes, and the errors.

Tolerance: rtol 1e-5, atol 1e-5 for float32 (summation order), 1e-12 for
float64; integers exactly.
"""
import sys
import tempfile
import unittest

sys.path.insert(0, "tests/interop")  # cwd is the runfiles root

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

from session_oracle_test import from_json, run_ours, run_tf  # noqa: E402
from tensorflow.core.framework import types_pb2  # noqa: E402

tf1 = tf.compat.v1
rng = np.random.default_rng(99)

# (equation, input shapes): MultiHeadAttention's and EinsumDense's, then
# general ones (broadcast "...", sums of private labels, outer products).
EQUATIONS = [
    ("abc,cde->abde", [(2, 3, 4), (4, 2, 5)]),
    ("aecd,abcd->acbe", [(2, 3, 2, 4), (2, 5, 2, 4)]),
    ("acbe,aecd->abcd", [(2, 2, 5, 3), (2, 3, 2, 4)]),
    ("abcd,cde->abe", [(2, 3, 2, 4), (2, 4, 6)]),
    ("ij,jk->ik", [(3, 4), (4, 5)]),
    ("ij,jk->ki", [(3, 4), (4, 5)]),
    ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
    ("...ij,...jk->...ik", [(2, 1, 3, 4), (5, 4, 2)]),
    ("...j,j->...", [(2, 3, 4), (4,)]),
    ("ij,ij->i", [(3, 4), (3, 4)]),
    ("i,j->ij", [(3,), (4,)]),
    ("ijk,kl->", [(2, 3, 4), (4, 5)]),
    ("abc,bd->dca", [(2, 3, 4), (3, 5)]),
    ("ij->ji", [(3, 4)]),
    ("ijk->k", [(2, 3, 4)]),
    ("ijk->", [(2, 3, 4)]),
    ("...ij->...ji", [(2, 3, 4, 5)]),
    ("ab,cd->abcd", [(2, 0), (3, 2)]),
]


def values(shape, dtype):
    if np.issubdtype(dtype, np.integer):
        lo = 0 if np.issubdtype(dtype, np.unsignedinteger) else -20
        return rng.integers(lo, 50, shape).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


class EinsumResizeSessionTest(unittest.TestCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory()

    def tearDown(self):
        self._tmp.cleanup()

    def run_both(self, graph_def, feeds, fetch="out"):
        path = self._tmp.name + "/g.pbtxt"
        with open(path, "w") as f:
            f.write(str(graph_def))
        return run_tf(graph_def, feeds, [fetch]), run_ours(path, feeds, [fetch])

    def check(self, graph_def, feeds, fetch="out"):
        (tf_kind, tf_res), (our_kind, our_res) = self.run_both(graph_def, feeds, fetch)
        self.assertEqual(our_kind, tf_kind, f"TF {tf_res}; ours {our_res}")
        if tf_kind == "error":
            self.assertEqual(our_res, tf_res)
            return
        want = np.asarray(tf_res[0])
        dtype, got = from_json(our_res[fetch])
        self.assertEqual(dtype, types_pb2.DataType.Name(
            tf.as_dtype(want.dtype).as_datatype_enum))
        self.assertEqual(got.shape, want.shape)
        if want.dtype == np.float64:
            np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
        elif want.dtype == np.float32:
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
        else:
            np.testing.assert_array_equal(got, want)

    def einsum_graph(self, equation, shapes, dtype):
        g = tf.Graph()
        feeds = {}
        with g.as_default():
            inputs = []
            for i, shape in enumerate(shapes):
                inputs.append(tf1.placeholder(dtype, None, name=f"x{i}"))
                feeds[f"x{i}"] = values(shape, dtype)
            tf.raw_ops.Einsum(inputs=inputs, equation=equation, name="out")
        return g.as_graph_def(), feeds

    def test_einsum_float(self):
        for equation, shapes in EQUATIONS:
            for dtype in (np.float32, np.float64):
                with self.subTest(equation=equation, dtype=dtype.__name__):
                    self.check(*self.einsum_graph(equation, shapes, dtype))

    def test_einsum_int(self):
        for equation, shapes in EQUATIONS[:8]:
            for dtype in (np.int32, np.int64):
                with self.subTest(equation=equation, dtype=dtype.__name__):
                    self.check(*self.einsum_graph(equation, shapes, dtype))

    def test_einsum_errors(self):
        for equation, shapes in [("ij,jk->ik", [(3, 4), (5, 6)]),
                                 ("...j,...j->", [(2, 1, 3), (4, 3)])]:
            with self.subTest(equation=equation):
                self.check(*self.einsum_graph(equation, shapes, np.float32))

    def test_einsum_malformed_equations(self):
        # TensorFlow rejects these while building the graph (its shape
        # function), so the GraphDef is patched after building a valid one.
        for valid, bad, shapes in [("ij,jk->ik", "ij,jk", [(3, 4), (4, 5)]),
                                   ("ij->ij", "ij->ijk", [(3, 4)]),
                                   ("ij->ij", "i2->i", [(3, 4)])]:
            with self.subTest(equation=bad):
                graph_def, feeds = self.einsum_graph(valid, shapes, np.float32)
                for node in graph_def.node:
                    if node.name == "out":
                        node.attr["equation"].s = bad.encode()
                path = self._tmp.name + "/bad.pbtxt"
                with open(path, "w") as f:
                    f.write(str(graph_def))
                self.assertEqual(run_ours(path, feeds, ["out"]),
                                 ("error", "INVALID_ARGUMENT"))

    def test_einsum_repeated_labels(self):
        # A label repeated within one operand takes its diagonal.
        for equation, shapes in [("ii->i", [(3, 3)]), ("ii->", [(4, 4)]),
                                 ("iij->j", [(3, 3, 2)]),
                                 ("bii->bi", [(2, 3, 3)]),
                                 ("iij,jk->ik", [(3, 3, 2), (2, 4)]),
                                 ("ij,jj->i", [(2, 3), (3, 3)]),
                                 ("...ii->...i", [(2, 4, 4)])]:
            for dtype in (np.float32, np.float64, np.int32):
                with self.subTest(equation=equation, dtype=dtype.__name__):
                    self.check(*self.einsum_graph(equation, shapes, dtype))
        # Unequal sizes of a repeated label: an error on both sides.
        self.check(*self.einsum_graph("ii->i", [(3, 4)], np.float32))

    def resize_graph(self, op, shape, size, dtype, align_corners, half_pixel):
        g = tf.Graph()
        with g.as_default():
            x = tf1.placeholder(dtype, None, name="x")
            # Fed, so that a bad size reaches the kernel (a constant one is
            # rejected by TensorFlow's shape function while building).
            size_t = tf1.placeholder(tf.int32, None, name="size")
            getattr(tf.raw_ops, op)(images=x, size=size_t,
                                    align_corners=align_corners,
                                    half_pixel_centers=half_pixel, name="out")
        return g.as_graph_def(), {"x": values(shape, dtype),
                                  "size": np.array(size, np.int32)}

    def test_resize(self):
        modes = [(False, False), (True, False), (False, True)]
        sizes = [(7, 9), (3, 2), (1, 1), (5, 5)]
        for op in ("ResizeBilinear", "ResizeNearestNeighbor"):
            for dtype in (np.float32, np.float64, np.int32, np.uint8, np.int64,
                          np.int8, np.int16):
                for align, half in modes:
                    for size in sizes:
                        with self.subTest(op=op, dtype=dtype.__name__,
                                          align=align, half=half, size=size):
                            self.check(*self.resize_graph(
                                op, (2, 5, 4, 3), size, dtype, align, half))

    def test_resize_errors(self):
        for op in ("ResizeBilinear", "ResizeNearestNeighbor"):
            for shape, size, align, half in [((2, 5, 4, 3), (3, 3), True, True),
                                             ((5, 4, 3), (3, 3), False, False),
                                             ((2, 5, 4, 3), (0, 3), False, False),
                                             ((2, 5, 4, 3), (3, 3, 3), False, False)]:
                with self.subTest(op=op, shape=shape, size=size):
                    self.check(*self.resize_graph(op, shape, size, np.float32,
                                                  align, half))

    def test_resize_bilinear_grad(self):
        # float64 sums its float terms in double (upsampled and downsampled).
        for dtype in (np.float32, np.float64):
            for align, half in [(False, False), (True, False), (False, True)]:
                for grad_shape in [(2, 7, 9, 3), (2, 3, 2, 3)]:
                    with self.subTest(dtype=dtype.__name__, align=align,
                                      half=half, grad_shape=grad_shape):
                        g = tf.Graph()
                        with g.as_default():
                            grads = tf1.placeholder(tf.float32, None, name="g")
                            image = tf1.placeholder(dtype, None, name="image")
                            tf.raw_ops.ResizeBilinearGrad(
                                grads=grads, original_image=image,
                                align_corners=align, half_pixel_centers=half,
                                name="out")
                        self.check(g.as_graph_def(),
                                   {"g": values(grad_shape, np.float32),
                                    "image": values((2, 5, 4, 3), dtype)})


if __name__ == "__main__":
    unittest.main()
