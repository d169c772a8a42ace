"""The V1 stateless random kernels against live TensorFlow: the same shape and
seed must give the SAME BITS (rtol = atol = 0), and bad inputs the same error
codes (see kernels/testing/README.md for the harness).

Seeds are inputs here: int32 and int64 seeds, negative halves (int32 seeds
sign-extend) and a seed with a high 32-bit word. Sizes cover a partial last
group, many groups (the fill split over threads), a scalar and empty outputs.
"""
import sys

sys.path.insert(0, "kernels/testing")  # cwd is the runfiles root

import numpy as np  # noqa: E402

import tf_oracle  # noqa: E402
from tf_oracle import tf  # noqa: E402

raw = tf.raw_ops
INVALID_ARGUMENT = 3
EXACT = dict(rtol=0, atol=0)

FLOAT_OPS = {
    "uniform": raw.StatelessRandomUniform,
    "normal": raw.StatelessRandomNormal,
    "truncated": raw.StatelessTruncatedNormal,
}
FLOAT_DTYPES = {
    "f16": tf.float16,
    "bf16": tf.bfloat16,
    "f32": tf.float32,
    "f64": tf.float64,
}
SHAPES = {
    "scalar": [],
    "n7": [7],
    "3x5": [3, 5],
    "big": [3, 3001],  # 9003 elements: thousands of groups, last one partial
}
SEEDS = {
    "i64_1_2": np.array([1, 2], np.int64),
    "i32_neg": np.array([-7, 123], np.int32),
    "i64_high": np.array([0x123456789AB, -5], np.int64),
    "i32_0_0": np.array([0, 0], np.int32),
}

cases = tf_oracle.Cases()


def float_case(op, dtype):
    return lambda s, seed: op(shape=s, seed=seed, dtype=dtype)


for op_name, op in FLOAT_OPS.items():
    for dtype_name, dtype in FLOAT_DTYPES.items():
        for shape_name, shape in SHAPES.items():
            seeds = list(SEEDS.items()) if shape_name == "n7" else list(SEEDS.items())[:2]
            for seed_name, seed in seeds:
                cases.add(f"{op_name}_{dtype_name}_{shape_name}_{seed_name}",
                          float_case(op, dtype),
                          [np.array(shape, np.int32), seed], **EXACT)
    f32 = float_case(op, tf.float32)
    cases.add(f"{op_name}_shape_int64", f32,
              [np.array([2, 9], np.int64), SEEDS["i64_1_2"]], **EXACT)
    cases.add(f"{op_name}_empty", f32,
              [np.array([4, 0], np.int32), SEEDS["i64_1_2"]], **EXACT)
    cases.add(f"{op_name}_negative_dim", f32,
              [np.array([2, -1], np.int32), SEEDS["i64_1_2"]],
              expect_code=INVALID_ARGUMENT)
    cases.add(f"{op_name}_seed_len3", f32,
              [np.array([2], np.int32), np.array([1, 2, 3], np.int64)],
              expect_code=INVALID_ARGUMENT, message_contains=["seed must have shape [2]"])
    cases.add(f"{op_name}_seed_2x1", f32,
              [np.array([2], np.int32), np.array([[1], [2]], np.int64)],
              expect_code=INVALID_ARGUMENT, message_contains=["seed must have shape [2]"])


def int_case():
    return lambda s, seed, lo, hi: raw.StatelessRandomUniformInt(
        shape=s, seed=seed, minval=lo, maxval=hi)


SEED = SEEDS["i64_1_2"]
for dtype in (np.int32, np.int64):
    info = np.iinfo(dtype)
    name = dtype.__name__
    for range_name, (lo, hi) in {"small": (-3, 4), "one": (5, 6),
                                 "wide": (info.min, info.max)}.items():
        for shape_name, shape in SHAPES.items():
            for seed_name, seed in list(SEEDS.items())[:2]:
                cases.add(f"int_{name}_{range_name}_{shape_name}_{seed_name}", int_case(),
                          [np.array(shape, np.int32), seed, dtype(lo), dtype(hi)])
    cases.add(f"int_{name}_empty_ignores_range", int_case(),
              [np.array([0], np.int32), SEED, dtype(3), dtype(3)])
    cases.add(f"int_{name}_min_not_less", int_case(),
              [np.array([2], np.int32), SEED, dtype(3), dtype(3)],
              expect_code=INVALID_ARGUMENT, message_contains=["Need minval < maxval: 3 >= 3"])
    cases.add(f"int_{name}_minval_not_scalar", int_case(),
              [np.array([2], np.int32), SEED, np.array([0], dtype), dtype(4)],
              expect_code=INVALID_ARGUMENT, message_contains=["minval must be 0-D"])
    cases.add(f"int_{name}_maxval_not_scalar", int_case(),
              [np.array([2], np.int32), SEED, dtype(0), np.array([4, 5], dtype)],
              expect_code=INVALID_ARGUMENT, message_contains=["maxval must be 0-D"])
    cases.add(f"int_{name}_bad_seed", int_case(),
              [np.array([2], np.int32), np.array([1], np.int32), dtype(0), dtype(4)],
              expect_code=INVALID_ARGUMENT, message_contains=["seed must have shape [2]"])

# ---- V2: key/counter/alg inputs ---------------------------------------------

for seed_name, seed in SEEDS.items():
    cases.add(f"get_key_counter_{seed_name}",
              lambda seed: raw.StatelessRandomGetKeyCounter(seed=seed), [seed], **EXACT)
cases.add("get_key_counter_bad_seed", lambda seed: raw.StatelessRandomGetKeyCounter(seed=seed),
          [np.array([1, 2, 3], np.int64)], expect_code=INVALID_ARGUMENT)

V2_OPS = {
    "uniform_v2": raw.StatelessRandomUniformV2,
    "normal_v2": raw.StatelessRandomNormalV2,
    "truncated_v2": raw.StatelessTruncatedNormalV2,
}
KEY = np.array([0x0123456789ABCDEF], np.uint64)
COUNTER = np.array([5, 0xFFFFFFFFFFFFFFF0], np.uint64)  # the fill carries into word 1


def v2_case(op, dtype):
    return lambda s, key, counter, alg: op(shape=s, key=key, counter=counter, alg=alg,
                                           dtype=dtype)


for op_name, op in V2_OPS.items():
    for dtype_name, dtype in FLOAT_DTYPES.items():
        for shape_name, shape in SHAPES.items():
            for alg in (1, 3):
                cases.add(f"{op_name}_{dtype_name}_{shape_name}_alg{alg}", v2_case(op, dtype),
                          [np.array(shape, np.int32), KEY, COUNTER, np.int32(alg)], **EXACT)
    f32 = v2_case(op, tf.float32)
    good = [KEY, COUNTER, np.int32(1)]
    cases.add(f"{op_name}_shape_int64", f32, [np.array([2, 9], np.int64)] + good, **EXACT)
    cases.add(f"{op_name}_long_counter", f32,
              [np.array([9], np.int32), KEY, np.array([1, 2, 3], np.uint64), np.int32(1)],
              **EXACT)
    cases.add(f"{op_name}_empty", f32, [np.array([0, 3], np.int32)] + good, **EXACT)
    cases.add(f"{op_name}_threefry", f32,
              [np.array([3], np.int32), KEY, COUNTER, np.int32(2)],
              expect_code=INVALID_ARGUMENT)
    cases.add(f"{op_name}_alg_unknown", f32,
              [np.array([3], np.int32), KEY, COUNTER, np.int32(7)],
              expect_code=INVALID_ARGUMENT)
    cases.add(f"{op_name}_alg_not_scalar", f32,
              [np.array([3], np.int32), KEY, COUNTER, np.array([1], np.int32)],
              expect_code=INVALID_ARGUMENT)
    cases.add(f"{op_name}_key_len2", f32,
              [np.array([3], np.int32), np.array([1, 2], np.uint64), COUNTER, np.int32(1)],
              expect_code=INVALID_ARGUMENT)
    # A counter shorter than 2 is not compared: TensorFlow 2.21 accepts it
    # (and reads past it); ours is InvalidArgument.
    cases.add(f"{op_name}_negative_dim", f32, [np.array([-1], np.int32)] + good,
              expect_code=INVALID_ARGUMENT)


def int_v2_case():
    return lambda s, key, counter, alg, lo, hi: raw.StatelessRandomUniformIntV2(
        shape=s, key=key, counter=counter, alg=alg, minval=lo, maxval=hi)


def full_int_v2_case(dtype):
    return lambda s, key, counter, alg: raw.StatelessRandomUniformFullIntV2(
        shape=s, key=key, counter=counter, alg=alg, dtype=dtype)


for dtype in (np.int32, np.int64, np.uint32, np.uint64):
    info = np.iinfo(dtype)
    name = dtype.__name__
    stream = [KEY, COUNTER, np.int32(3)]
    for shape_name, shape in SHAPES.items():
        for alg in (1, 3):
            cases.add(f"full_int_v2_{name}_{shape_name}_alg{alg}", full_int_v2_case(dtype),
                      [np.array(shape, np.int32), KEY, COUNTER, np.int32(alg)])
    cases.add(f"full_int_v2_{name}_threefry", full_int_v2_case(dtype),
              [np.array([3], np.int32), KEY, COUNTER, np.int32(2)],
              expect_code=INVALID_ARGUMENT)
    if dtype in (np.uint32, np.uint64):
        continue  # TensorFlow's CPU has no UniformIntV2 kernel for them
    for range_name, (lo, hi) in {"small": (-3, 4), "one": (5, 6),
                                 "wide": (info.min, info.max)}.items():
        for shape_name, shape in SHAPES.items():
            cases.add(f"int_v2_{name}_{range_name}_{shape_name}", int_v2_case(),
                      [np.array(shape, np.int32)] + stream + [dtype(lo), dtype(hi)])
    two = [np.array([2], np.int32)] + stream
    cases.add(f"int_v2_{name}_empty_ignores_order", int_v2_case(),
              [np.array([0], np.int32)] + stream + [dtype(3), dtype(3)])
    cases.add(f"int_v2_{name}_min_not_less", int_v2_case(), two + [dtype(3), dtype(3)],
              expect_code=INVALID_ARGUMENT, message_contains=["Need minval < maxval: 3 >= 3"])
    cases.add(f"int_v2_{name}_minval_not_scalar", int_v2_case(),
              two + [np.array([0], dtype), dtype(4)],
              expect_code=INVALID_ARGUMENT, message_contains=["minval must be 0-D"])
    cases.add(f"int_v2_{name}_maxval_not_scalar", int_v2_case(),
              two + [dtype(0), np.array([4, 5], dtype)],
              expect_code=INVALID_ARGUMENT, message_contains=["maxval must be 0-D"])
    cases.add(f"int_v2_{name}_threefry", int_v2_case(),
              [np.array([2], np.int32), KEY, COUNTER, np.int32(2), dtype(0), dtype(4)],
              expect_code=INVALID_ARGUMENT)

StatelessOracleTest = tf_oracle.make_test_class("kernels/random/run_random_cases", cases)
