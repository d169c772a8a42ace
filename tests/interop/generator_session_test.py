"""tf.random.Generator, end to end: TensorFlow's Session and `tributary run` on
the same tf.compat.v1 graph must give the SAME BITS, step after step.

`tf.random.Generator.from_seed(s)` keeps its Philox state in a resource
variable; each draw is RngReadAndSkip (read the state, advance it by 256
samples per element) then Bitcast/StridedSlice into key and counter and a
V2 stateless op. Draws are chained with control dependencies: in a TF1 graph
nothing else orders them, and the values depend on the order. Several steps
check that the state advances as TensorFlow's does; `skip` is in the chain;
the raw Stateful* ops (what older graphs hold) draw from a second generator.
RandomGamma and StatelessRandomGammaV3 (what tf.random.gamma and
tf.random.stateless_gamma emit) are checked the same way.
"""
import sys
import unittest

sys.path.insert(0, "tests/interop")  # cwd is the runfiles root

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

# The module, not the class: unittest would run an imported TestCase too.
import random_session_test  # noqa: E402

tf1 = tf.compat.v1
raw = tf.raw_ops


def chain(draws):
    """Runs the thunks in order (each after the last one); names the tensor
    results draw_<i> and returns their names (an Operation is only ordered)."""
    names, last = [], None
    for i, draw in enumerate(draws):
        with tf.control_dependencies([last] if last is not None else []):
            out = draw()
            if not isinstance(out, tf.Operation):
                out = tf.identity(out, name=f"draw_{i}")
                names.append(out.op.name)
        last = out
    return names


class GeneratorSessionTest(unittest.TestCase):
    check_exact = random_session_test.RandomSessionTest.check_exact

    def test_generator_methods_give_tensorflow_bits(self):
        for seed in (1234, 0, 2**40 + 7):
            g = tf.Graph()
            with g.as_default():
                gen = tf.random.Generator.from_seed(seed)
                names = chain([
                    lambda: gen.uniform([7]),
                    lambda: gen.normal([3, 5], dtype=tf.float64),
                    lambda: gen.truncated_normal([9], stddev=2.0),
                    lambda: gen.uniform([6], minval=-5, maxval=9, dtype=tf.int32),
                    lambda: gen.uniform([5], minval=-3, maxval=2**40, dtype=tf.int64),
                    lambda: gen.uniform_full_int([3], dtype=tf.int64),
                    lambda: gen.uniform_full_int([4], dtype=tf.uint32),
                    lambda: gen.skip(10),
                    lambda: gen.normal([2001], dtype=tf.float32),  # many groups
                    lambda: gen.uniform([2, 2], minval=1.0, maxval=3.0, dtype=tf.float16),
                    # The state after the draws: its read is in the chain too.
                    lambda: gen.state.read_value(),
                ])
                tf1.global_variables_initializer()
            graph_def = g.as_graph_def()
            ops = {n.op for n in graph_def.node}
            self.assertTrue({"RngReadAndSkip", "Bitcast", "StatelessRandomUniformV2",
                             "StatelessRandomNormalV2", "StatelessTruncatedNormalV2",
                             "StatelessRandomUniformIntV2",
                             "StatelessRandomUniformFullIntV2"} <= ops, ops)
            for steps in (1, 3):
                with self.subTest(seed=seed):
                    self.check_exact(graph_def, names, inits=["init"], steps=steps)

    def test_raw_stateful_ops_give_tensorflow_bits(self):
        g = tf.Graph()
        with g.as_default():
            gen = tf.random.Generator.from_seed(99)
            h = gen.state.handle
            alg = np.int64(1)
            names = chain([
                lambda: raw.StatefulUniform(resource=h, algorithm=alg, shape=[5]),
                lambda: raw.StatefulStandardNormalV2(resource=h, algorithm=alg,
                                                     shape=[4], dtype=tf.float64),
                lambda: raw.StatefulTruncatedNormal(resource=h, algorithm=alg, shape=[6]),
                lambda: raw.StatefulUniformInt(resource=h, algorithm=alg, shape=[5],
                                               minval=np.int32(-4), maxval=np.int32(4)),
                # Fetched as int64: the fetch printer's JSON has no uint64.
                lambda: tf.bitcast(raw.StatefulUniformFullInt(
                    resource=h, algorithm=alg, shape=[3], dtype=tf.uint64), tf.int64),
                lambda: raw.RngSkip(resource=h, algorithm=alg, delta=np.int64(3)),
                lambda: raw.StatefulUniform(resource=h, algorithm=np.int64(3), shape=[2]),
                lambda: gen.state.read_value(),
            ])
            tf1.global_variables_initializer()
        for steps in (1, 2):
            self.check_exact(g.as_graph_def(), names, inits=["init"], steps=steps)

    def test_gamma_samplers_give_tensorflow_bits(self):
        # tf.random.gamma and tf.random.stateless_gamma wrap these ops in a
        # BroadcastArgs/BroadcastTo of alpha and beta, and BroadcastArgs is
        # not on this branch: the raw ops, fed as those functions feed them.
        g = tf.Graph()
        with g.as_default():
            tf1.set_random_seed(3)
            tf.identity(raw.RandomGamma(shape=[5], alpha=[0.5, 1.0, 3.0], seed=3, seed2=4),
                        name="gamma")
            tf.identity(raw.RandomGamma(shape=tf.constant([3, 2], tf.int64),
                                        alpha=tf.constant(0.05, tf.float64), seed=8),
                        name="gamma_tiny_alpha")
            key, counter = raw.StatelessRandomGetKeyCounter(seed=[1, 2])
            tf.identity(raw.StatelessRandomGammaV3(
                shape=[4, 2], key=key, counter=counter, alg=1, alpha=[0.3, 4.0]),
                name="stateless_gamma")
        graph_def = g.as_graph_def()
        for steps in (1, 2):
            self.check_exact(graph_def, ["gamma", "gamma_tiny_alpha", "stateless_gamma"],
                             steps=steps)

if __name__ == "__main__":
    unittest.main()
