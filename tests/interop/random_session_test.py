"""Seeded random ops, end to end: TensorFlow's Session and `tributary run` on the
same tf.compat.v1 graphs must give the SAME BITS.

* Variable initializers (glorot uniform, truncated normal, he normal, random
  normal, integer uniform) under a graph-level seed: the values of the
  variables after global_variables_initializer() are identical.
* Successive steps of the same random nodes: step k here equals TensorFlow's
  step k, so each kernel's generator advances as TensorFlow's does.
* RandomShuffle (1-D, rows of a 3-D tensor, one element) and Multinomial
  (tf.random.categorical) give TensorFlow's permutations and samples.

The graphs are built here with TensorFlow's Python API, as the session oracle
does; the step runners are session_oracle_test's.
"""
import sys
import unittest

sys.path.insert(0, "tests/interop")  # cwd is the runfiles root

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
from tensorflow.core.framework import types_pb2  # noqa: E402

from session_oracle_test import from_json, run_ours, run_tf  # noqa: E402

tf1 = tf.compat.v1


class RandomSessionTest(unittest.TestCase):
    def check_exact(self, graph_def, fetches, inits=(), steps=1):
        import os
        import tempfile
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "graph.pbtxt")
            with open(path, "w") as f:
                f.write(str(graph_def))
            tf_kind, tf_result = run_tf(graph_def, {}, fetches, inits=inits, steps=steps)
            our_kind, our_result = run_ours(path, {}, fetches, inits=inits, steps=steps)
        self.assertEqual(tf_kind, "ok", tf_result)
        self.assertEqual(our_kind, "ok", our_result)
        for name, want in zip(fetches, tf_result):
            with self.subTest(fetch=name, steps=steps):
                want = np.asarray(want)
                dtype, got = from_json(our_result[name])
                self.assertEqual(
                    dtype, types_pb2.DataType.Name(tf.as_dtype(want.dtype).as_datatype_enum))
                self.assertEqual(list(got.shape), list(want.shape))
                # Printed in shortest round-trip form: converting back is exact.
                np.testing.assert_array_equal(got.astype(want.dtype), want)

    def test_variable_initializers_with_graph_seed(self):
        g = tf.Graph()
        with g.as_default():
            tf1.set_random_seed(1234)
            variables = {
                "glorot": tf1.get_variable(
                    "glorot", [13, 7], initializer=tf1.glorot_uniform_initializer()),
                "truncated": tf1.get_variable(
                    "truncated", [5, 3, 2],
                    initializer=tf1.truncated_normal_initializer(stddev=0.1)),
                "he": tf1.get_variable(
                    "he", [3, 3, 4, 9], initializer=tf1.variance_scaling_initializer(
                        scale=2.0, distribution="truncated_normal")),
                "normal": tf1.get_variable(
                    "normal", [11], dtype=tf.float64,
                    initializer=tf1.random_normal_initializer(mean=1.0)),
                "ints": tf1.get_variable(
                    "ints", [6], dtype=tf.int64,
                    initializer=tf1.random_uniform_initializer(-50, 50, dtype=tf.int64)),
                # A TF1 ref variable too (VariableV2 + Assign).
                "ref_glorot": tf1.get_variable(
                    "ref_glorot", [4, 10], use_resource=False,
                    initializer=tf1.glorot_uniform_initializer()),
            }
            # Resource variables are read through an Identity of their value.
            for name, v in variables.items():
                tf.identity(v, name=name + "_value")
            tf1.global_variables_initializer()
        names = [name + "_value" for name in variables]
        graph_def = g.as_graph_def()
        ops = {n.op for n in graph_def.node}
        self.assertTrue({"RandomUniform", "TruncatedNormal", "RandomStandardNormal",
                         "RandomUniformInt"} <= ops, ops)
        self.check_exact(graph_def, names, inits=["init"])

    def test_successive_steps_advance_like_tensorflow(self):
        g = tf.Graph()
        with g.as_default():
            tf1.set_random_seed(7)
            tf.identity(tf.random.uniform([7]), name="uniform")
            tf.identity(tf.random.normal([5, 3], dtype=tf.float64), name="normal")
            tf.identity(tf.random.truncated_normal([9], seed=99), name="truncated")
            tf.identity(tf.random.uniform([5], minval=-9, maxval=9, dtype=tf.int32),
                        name="ints")
        for steps in (1, 2, 3):
            self.check_exact(g.as_graph_def(), ["uniform", "normal", "truncated", "ints"],
                             steps=steps)

    def test_random_shuffle_and_multinomial(self):
        # Seeded: the permutations and the samples are TensorFlow's, step
        # after step. The multinomial stays small enough for TensorFlow to run
        # it on one thread (see kernels/random/multinomial_op.cc).
        g = tf.Graph()
        with g.as_default():
            tf1.set_random_seed(11)
            tf.identity(tf.random.shuffle(tf.range(10)), name="shuffle_1d")
            tf.identity(tf.random.shuffle(
                tf.reshape(tf.range(24, dtype=tf.float32), [6, 2, 2]), seed=5),
                name="shuffle_3d")
            tf.identity(tf.random.shuffle(tf.constant([3], tf.int64)),
                        name="shuffle_one")
            logits = tf.constant([[0.1, 1.0, -2.0, 0.5], [3.0, 0.0, 0.0, -np.inf]])
            tf.identity(tf1.multinomial(logits, 9, seed=3), name="multinomial_samples")
            tf.identity(tf.random.categorical(
                tf.constant([[1.0, 2.0, 3.0]], tf.float64), 5, dtype=tf.int32),
                name="categorical_int32")
        graph_def = g.as_graph_def()
        ops = {n.op for n in graph_def.node}
        self.assertTrue({"RandomShuffle", "Multinomial"} <= ops, ops)
        for steps in (1, 3):
            self.check_exact(graph_def, ["shuffle_1d", "shuffle_3d", "shuffle_one",
                                         "multinomial_samples", "categorical_int32"],
                             steps=steps)


if __name__ == "__main__":
    unittest.main()
