"""Stateless random ops, end to end: TensorFlow's Session and `tributary run` on
the same tf.compat.v1 graph must give the SAME BITS.

tf.random.stateless_uniform (float, int and full-range int)/stateless_normal/
stateless_truncated_normal build StatelessRandomGetKeyCounter feeding the V2
ops (alg auto-select); the raw V1 ops are in the graph too. Stateless means every step gives the same values, so
two steps are checked as well.
"""
import sys
import unittest

sys.path.insert(0, "tests/interop")  # cwd is the runfiles root

import tensorflow as tf  # noqa: E402

# The module, not the class: unittest would run an imported TestCase too.
import random_session_test  # noqa: E402

tf1 = tf.compat.v1


class StatelessRandomSessionTest(unittest.TestCase):
    check_exact = random_session_test.RandomSessionTest.check_exact

    def test_stateless_ops_give_tensorflow_bits(self):
        g = tf.Graph()
        with g.as_default():
            seed = tf.constant([12, 34], tf.int64)
            tf.identity(tf.random.stateless_uniform([7], seed), name="uniform")
            tf.identity(tf.random.stateless_uniform([3, 5], [-1, 99], minval=-2.0,
                                                    maxval=3.0, dtype=tf.float64),
                        name="uniform_f64")
            tf.identity(tf.random.stateless_normal([9, 3], seed), name="normal")
            tf.identity(tf.random.stateless_normal([5], [7, -8], dtype=tf.float64),
                        name="normal_f64")
            tf.identity(tf.random.stateless_truncated_normal([4, 3], seed),
                        name="truncated")
            tf.identity(tf.random.stateless_uniform([9], seed, minval=-5, maxval=9,
                                                    dtype=tf.int32), name="ints")
            tf.identity(tf.random.stateless_uniform([5], seed, minval=None, maxval=None,
                                                    dtype=tf.int64), name="full_ints")
            tf.identity(tf.raw_ops.StatelessRandomUniform(
                shape=[6], seed=tf.constant([5, 6], tf.int32)), name="v1_uniform")
            tf.identity(tf.raw_ops.StatelessRandomNormal(
                shape=[5], seed=seed, dtype=tf.float64), name="v1_normal")
        graph_def = g.as_graph_def()
        ops = {n.op for n in graph_def.node}
        self.assertTrue({"StatelessRandomGetKeyCounter", "StatelessRandomUniformV2",
                         "StatelessRandomNormalV2", "StatelessTruncatedNormalV2",
                         "StatelessRandomUniformIntV2",
                         "StatelessRandomUniformFullIntV2"} <= ops, ops)
        names = ["uniform", "uniform_f64", "normal", "normal_f64", "truncated", "ints",
                 "full_ints", "v1_uniform", "v1_normal"]
        for steps in (1, 2):
            self.check_exact(graph_def, names, steps=steps)


if __name__ == "__main__":
    unittest.main()
