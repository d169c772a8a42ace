"""The Poisson samplers against live TensorFlow: RandomPoissonV2 (seeded;
rate and output types apart) and StatelessRandomPoisson (seed) must give the
SAME BITS (rtol = atol = 0) and TensorFlow's errors. (RandomPoisson, V1, is
refused by TensorFlow in GraphDefs from version 25 on; poisson_sampler_test
checks that our V1 kernel equals V2.)

Rates cover both algorithms (Knuth below 10, Hormann's rejection from 10),
zero and negative rates, large rates and several rates at once (the
rate-fastest layout); sizes cover one sample, odd counts and thousands of
outputs (split over threads: each output has its own skip).

Rates TensorFlow would loop on forever (NaN, infinite, larger than the output
type holds) are INVALID_ARGUMENT here; TensorFlow is not asked (it hangs), so
those cases check ours alone in poisson_sampler_test.
"""
import sys

sys.path.insert(0, "kernels/testing")  # cwd is the runfiles root

import numpy as np  # noqa: E402

import tf_oracle  # noqa: E402
from tf_oracle import tf  # noqa: E402

raw = tf.raw_ops
INVALID_ARGUMENT = 3
EXACT = dict(rtol=0, atol=0)

RATES = {
    "small": [0.5],
    "ten": [10.0],
    "mixed": [0.0, 3.0, 9.99, 10.0, 37.5, -1.0, 1000.0],
    "matrix": [[0.2, 12.0, 4.0], [250.0, 1.0, 60000.0]],
}
FLOATS = {"f16": np.float16, "f32": np.float32, "f64": np.float64}
ALL = dict(FLOATS, i32=np.int32, i64=np.int64)
SAMPLE_SHAPES = {"s1": [1], "s7": [7], "s3x5": [3, 5], "s2000": [2000]}
SEEDS = [(1, 2), (87654, 0)]

cases = tf_oracle.Cases()


def rates(values, dtype):
    return np.array(values, np.float64).astype(dtype) if np.issubdtype(
        dtype, np.floating) else np.abs(np.array(values)).astype(dtype)


# ---- RandomPoissonV2 with rate and output of one type ------------------------

for dname, dtype in FLOATS.items():
    for rname, rate in RATES.items():
        for sname, shape in SAMPLE_SHAPES.items():
            seeds = SEEDS if sname == "s7" else SEEDS[:1]
            for seed, seed2 in seeds:
                cases.add(f"poisson_{dname}_{rname}_{sname}_{seed}_{seed2}",
                          lambda s, r, seed=seed, seed2=seed2:
                          raw.RandomPoissonV2(shape=s, rate=r, seed=seed,
                                              seed2=seed2, dtype=r.dtype),
                          [np.array(shape, np.int32), rates(rate, dtype)],
                          **EXACT)

# ---- RandomPoissonV2: every rate type x output type ---------------------------

for rname_t, rtype in ALL.items():
    for oname, otype in ALL.items():
        cases.add(f"poisson_v2_{rname_t}_to_{oname}",
                  lambda s, r, otype=otype: raw.RandomPoissonV2(
                      shape=s, rate=r, seed=3, seed2=4, dtype=otype),
                  [np.array([6, 2], np.int64),
                   rates([[1.5, 20.0, 0.0], [7.0, 100.0, 3.0]], rtype)],
                  **EXACT)
cases.add("poisson_v2_default_types",
          lambda s, r: raw.RandomPoissonV2(shape=s, rate=r, seed=9),
          [np.array([300], np.int32), np.array([4.0, 55.5], np.float64)],
          **EXACT)


def poisson_two_nodes(s, r):
    first = raw.RandomPoissonV2(shape=s, rate=r, seed=5, seed2=6,
                                dtype=tf.int32)
    with tf.control_dependencies([first]):
        second = raw.RandomPoissonV2(shape=s, rate=r, seed=5, seed2=7,
                                     dtype=tf.int32)
    return [first, second]


cases.add("poisson_two_nodes", poisson_two_nodes,
          [np.array([4], np.int64), np.array([0.9, 11.0], np.float32)],
          **EXACT)
cases.add("poisson_empty_shape",
          lambda s, r: raw.RandomPoissonV2(shape=s, rate=r, seed=1),
          [np.array([0, 3], np.int32), np.array([2.0], np.float32)], **EXACT)
cases.add("poisson_empty_rate",
          lambda s, r: raw.RandomPoissonV2(shape=s, rate=r, seed=1),
          [np.array([3], np.int32), np.zeros([0], np.float32)], **EXACT)
cases.add("poisson_scalar_shape_scalar_rate",
          lambda s, r: raw.RandomPoissonV2(shape=s, rate=r, seed=1),
          [np.array([], np.int32), np.array(12.0, np.float64)], **EXACT)
cases.add("poisson_shape_matrix",
          lambda s, r: raw.RandomPoissonV2(shape=s, rate=r, seed=1),
          [np.array([[3]], np.int32), np.array([2.0], np.float32)],
          expect_code=INVALID_ARGUMENT,
          message_contains=["shape must be a vector"])
cases.add("poisson_negative_dim",
          lambda s, r: raw.RandomPoissonV2(shape=s, rate=r, seed=1),
          [np.array([2, -1], np.int32), np.array([2.0], np.float32)],
          expect_code=INVALID_ARGUMENT)

# ---- StatelessRandomPoisson: the output shape ends with lam's ---------------

STATELESS = {
    "scalar_lam": ([5], 3.0),
    "vector_lam": ([4, 3], [0.5, 15.0, 2.0]),
    "matrix_lam": ([3, 2, 2], [[1.0, 80.0], [9.0, 10.5]]),
    "big": ([1500, 2], [6.0, 33.0]),
}

for rname_t, rtype in ALL.items():
    for oname, otype in ALL.items():
        for name, (shape, lam) in STATELESS.items():
            if name == "big" and (rname_t, oname) != ("f32", "i32"):
                continue
            cases.add(f"stateless_poisson_{rname_t}_to_{oname}_{name}",
                      lambda s, seed, lam, otype=otype:
                      raw.StatelessRandomPoisson(shape=s, seed=seed, lam=lam,
                                                 dtype=otype),
                      [np.array(shape, np.int32),
                       np.array([7, 11], np.int64), rates(lam, rtype)],
                      **EXACT)
cases.add("stateless_poisson_int32_seed",
          lambda s, seed, lam: raw.StatelessRandomPoisson(
              shape=s, seed=seed, lam=lam, dtype=tf.float32),
          [np.array([9], np.int64), np.array([-3, 2], np.int32),
           np.array(4.5, np.float32)], **EXACT)
cases.add("stateless_poisson_empty",
          lambda s, seed, lam: raw.StatelessRandomPoisson(
              shape=s, seed=seed, lam=lam, dtype=tf.float32),
          [np.array([0, 2], np.int32), np.array([1, 2], np.int64),
           np.array([1.0, 2.0], np.float32)], **EXACT)
cases.add("stateless_poisson_shape_mismatch",
          lambda s, seed, lam: raw.StatelessRandomPoisson(
              shape=s, seed=seed, lam=lam, dtype=tf.float32),
          [np.array([4, 3], np.int32), np.array([1, 2], np.int64),
           np.array([1.0, 2.0], np.float32)],
          expect_code=INVALID_ARGUMENT,
          message_contains=["Shape passed in must end with broadcasted shape."])
cases.add("stateless_poisson_bad_seed",
          lambda s, seed, lam: raw.StatelessRandomPoisson(
              shape=s, seed=seed, lam=lam, dtype=tf.float32),
          [np.array([4], np.int32), np.array([1, 2, 3], np.int64),
           np.array(1.0, np.float32)],
          expect_code=INVALID_ARGUMENT,
          message_contains=["seed must have shape [2], not [3]"])

PoissonOracleTest = tf_oracle.make_test_class("kernels/random/run_random_cases",
                                              cases)
