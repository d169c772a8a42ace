"""The gamma samplers against live TensorFlow: RandomGamma (seeded),
StatelessRandomGammaV2 (seed) and StatelessRandomGammaV3 (key/counter/alg)
must give the SAME BITS (rtol = atol = 0) and TensorFlow's errors.

Alphas cover alpha == 1 (the exponential branch), alpha < 1 (the extra
uniform), large and tiny alphas and several alphas at once (the alpha-fastest
layout); sizes cover one sample, odd counts and thousands of outputs (split
over threads: each output has its own skip, so the split must not matter).
"""
import sys

sys.path.insert(0, "kernels/testing")  # cwd is the runfiles root

import numpy as np  # noqa: E402

import tf_oracle  # noqa: E402
from tf_oracle import tf  # noqa: E402

raw = tf.raw_ops
INVALID_ARGUMENT = 3
EXACT = dict(rtol=0, atol=0)

ALPHAS = {
    "one": [1.0],
    "half": [0.5],
    "mixed": [1.0, 0.3, 2.5, 7.0, 0.01, 150.0],
    "matrix": [[0.7, 1.0, 3.0], [1.5, 0.2, 40.0]],
}
DTYPES = {"f16": np.float16, "f32": np.float32, "f64": np.float64}
SAMPLE_SHAPES = {"s1": [1], "s7": [7], "s3x5": [3, 5], "s2500": [2500]}
SEEDS = [(1, 2), (87654, 0), (0, 3)]

cases = tf_oracle.Cases()

# ---- RandomGamma: output shape + alpha.shape --------------------------------

for dname, dtype in DTYPES.items():
    for aname, alpha in ALPHAS.items():
        for sname, shape in SAMPLE_SHAPES.items():
            seeds = SEEDS if sname == "s7" else SEEDS[:1]
            for seed, seed2 in seeds:
                cases.add(f"gamma_{dname}_{aname}_{sname}_{seed}_{seed2}",
                          lambda s, a, seed=seed, seed2=seed2: raw.RandomGamma(
                              shape=s, alpha=a, seed=seed, seed2=seed2),
                          [np.array(shape, np.int32), np.array(alpha, dtype)], **EXACT)


def gamma_two_steps(s, a):
    # The same node twice in one graph is two nodes; use two draws in sequence
    # from one op via two fetches of different nodes with the same seeds.
    first = raw.RandomGamma(shape=s, alpha=a, seed=5, seed2=6)
    with tf.control_dependencies([first]):
        second = raw.RandomGamma(shape=s, alpha=a, seed=5, seed2=7)
    return [first, second]


cases.add("gamma_two_nodes", gamma_two_steps,
          [np.array([4], np.int64), np.array([0.9, 1.1], np.float32)], **EXACT)
cases.add("gamma_empty_shape", lambda s, a: raw.RandomGamma(shape=s, alpha=a, seed=1),
          [np.array([0, 3], np.int32), np.array([2.0], np.float32)], **EXACT)
cases.add("gamma_scalar_shape_scalar_alpha",
          lambda s, a: raw.RandomGamma(shape=s, alpha=a, seed=1),
          [np.array([], np.int32), np.array(2.0, np.float32)], **EXACT)
# TensorFlow 2.21 returns an empty output before it checks alpha's size.
cases.add("gamma_empty_alpha", lambda s, a: raw.RandomGamma(shape=s, alpha=a, seed=1),
          [np.array([3], np.int32), np.zeros([0], np.float32)], **EXACT)
cases.add("gamma_empty_alpha_no_samples",
          lambda s, a: raw.RandomGamma(shape=s, alpha=a, seed=1),
          [np.array([0], np.int32), np.zeros([0], np.float32)], **EXACT)
cases.add("gamma_shape_matrix", lambda s, a: raw.RandomGamma(shape=s, alpha=a, seed=1),
          [np.array([[3]], np.int32), np.array([2.0], np.float32)],
          expect_code=INVALID_ARGUMENT, message_contains=["shape must be a vector"])
cases.add("gamma_negative_dim", lambda s, a: raw.RandomGamma(shape=s, alpha=a, seed=1),
          [np.array([2, -1], np.int32), np.array([2.0], np.float32)],
          expect_code=INVALID_ARGUMENT)

# ---- StatelessRandomGammaV2 / V3: output shape ends with alpha's ---------------

STATELESS = {
    "one": ([5], [1.0]),
    "mixed": ([7, 6], [1.0, 0.3, 2.5, 7.0, 0.01, 150.0]),
    "matrix": ([5, 2, 3], [[0.7, 1.0, 3.0], [1.5, 0.2, 40.0]]),
    "big": ([2001, 2], [0.5, 4.0]),
    "scalar_alpha": ([3, 3], 2.0),
}
SEED_INPUTS = {"i64": np.array([1, 2], np.int64), "i32_neg": np.array([-3, 99], np.int32)}
KEY = np.array([0x0123456789ABCDEF], np.uint64)
COUNTER = np.array([5, 0xFFFFFFFFFFFFFFFF], np.uint64)


def v2(s, seed, a):
    return raw.StatelessRandomGammaV2(shape=s, seed=seed, alpha=a)


def v3(s, k, c, alg, a):
    return raw.StatelessRandomGammaV3(shape=s, key=k, counter=c, alg=alg, alpha=a)


for dname, dtype in DTYPES.items():
    for name, (shape, alpha) in STATELESS.items():
        for seed_name, seed in SEED_INPUTS.items():
            cases.add(f"stateless_v2_{dname}_{name}_{seed_name}", v2,
                      [np.array(shape, np.int32), seed, np.array(alpha, dtype)], **EXACT)
        cases.add(f"stateless_v3_{dname}_{name}", v3,
                  [np.array(shape, np.int64), KEY, COUNTER, np.int32(1),
                   np.array(alpha, dtype)], **EXACT)
cases.add("stateless_v3_auto_select", v3,
          [np.array([9], np.int32), KEY, COUNTER, np.int32(3), np.float32(0.8)], **EXACT)
cases.add("stateless_v2_bad_suffix", v2,
          [np.array([3, 4], np.int32), SEED_INPUTS["i64"], np.ones([3], np.float32)],
          expect_code=INVALID_ARGUMENT,
          message_contains=["Shape passed in must end with broadcasted shape."])
cases.add("stateless_v2_empty_alpha", v2,
          [np.array([3, 0], np.int32), SEED_INPUTS["i64"], np.ones([0], np.float32)],
          **EXACT)
cases.add("stateless_v2_bad_seed", v2,
          [np.array([3], np.int32), np.array([1, 2, 3], np.int64), np.float32(2)],
          expect_code=INVALID_ARGUMENT, message_contains=["seed must have shape [2]"])
cases.add("stateless_v3_bad_suffix", v3,
          [np.array([3, 4], np.int32), KEY, COUNTER, np.int32(1), np.ones([3], np.float32)],
          expect_code=INVALID_ARGUMENT,
          message_contains=["Shape passed in must end with broadcasted shape."])
cases.add("stateless_v3_threefry", v3,
          [np.array([3], np.int32), KEY, COUNTER, np.int32(2), np.float32(2)],
          expect_code=INVALID_ARGUMENT)
cases.add("stateless_v3_bad_key", v3,
          [np.array([3], np.int32), np.array([1, 2], np.uint64), COUNTER, np.int32(1),
           np.float32(2)], expect_code=INVALID_ARGUMENT)

GammaOracleTest = tf_oracle.make_test_class("kernels/random/run_random_cases", cases)
