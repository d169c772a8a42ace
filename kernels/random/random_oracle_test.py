"""The stateful random kernels against live TensorFlow: the same node with the
same seed/seed2 must give the SAME BITS (rtol = atol = 0), and bad inputs the
same error codes (see kernels/testing/README.md for the harness).

Each case runs a fresh kernel once, i.e. the first step of the node; successive
steps are checked end to end in random_session_test.py. Sizes cover a partial
last group (not a multiple of 4 or 2), many groups (so the fill is split over
threads), a scalar and an empty output.
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
    "uniform": raw.RandomUniform,
    "normal": raw.RandomStandardNormal,
    "truncated": raw.TruncatedNormal,
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
SEEDS = [(1, 2), (87654321, 0), (0, 5), (-3, 123456789012345)]

cases = tf_oracle.Cases()


def float_case(op, dtype, seed, seed2):
    return lambda s: op(shape=s, dtype=dtype, seed=seed, seed2=seed2)


for op_name, op in FLOAT_OPS.items():
    for dtype_name, dtype in FLOAT_DTYPES.items():
        for shape_name, shape in SHAPES.items():
            for seed, seed2 in SEEDS[:2] if shape_name != "n7" else SEEDS:
                cases.add(f"{op_name}_{dtype_name}_{shape_name}_{seed}_{seed2}",
                          float_case(op, dtype, seed, seed2),
                          [np.array(shape, np.int32)], **EXACT)
    # int64 shape input; empty output.
    cases.add(f"{op_name}_shape_int64", float_case(op, tf.float32, 9, 10),
              [np.array([2, 9], np.int64)], **EXACT)
    cases.add(f"{op_name}_empty", float_case(op, tf.float32, 9, 10),
              [np.array([4, 0], np.int32)], **EXACT)
    cases.add(f"{op_name}_negative_dim", float_case(op, tf.float32, 9, 10),
              [np.array([2, -1], np.int32)], expect_code=INVALID_ARGUMENT)
    cases.add(f"{op_name}_shape_not_vector", float_case(op, tf.float32, 9, 10),
              [np.array([[2, 1]], np.int32)], expect_code=INVALID_ARGUMENT)


def int_case(seed, seed2):
    return lambda s, lo, hi: raw.RandomUniformInt(shape=s, minval=lo, maxval=hi,
                                                  seed=seed, seed2=seed2)


INT_RANGES = {
    "small": (-3, 4),
    "one": (5, 6),
    "wide": None,  # the dtype's whole range but its maximum
}
for dtype in (np.int32, np.int64):
    info = np.iinfo(dtype)
    for range_name, bounds in INT_RANGES.items():
        lo, hi = bounds if bounds else (info.min, info.max)
        for shape_name, shape in SHAPES.items():
            cases.add(f"int_{dtype.__name__}_{range_name}_{shape_name}", int_case(7, 8),
                      [np.array(shape, np.int32), dtype(lo), dtype(hi)])
    cases.add(f"int_{dtype.__name__}_seed2_only", int_case(0, 77),
              [np.array([5], np.int64), dtype(-1000), dtype(1000)])
    cases.add(f"int_{dtype.__name__}_empty_ignores_range", int_case(7, 8),
              [np.array([0], np.int32), dtype(3), dtype(3)])
    cases.add(f"int_{dtype.__name__}_min_not_less", int_case(7, 8),
              [np.array([2], np.int32), dtype(3), dtype(3)],
              expect_code=INVALID_ARGUMENT, message_contains=["Need minval < maxval: 3 >= 3"])
    cases.add(f"int_{dtype.__name__}_min_greater", int_case(7, 8),
              [np.array([2], np.int32), dtype(4), dtype(-4)],
              expect_code=INVALID_ARGUMENT, message_contains=["4 >= -4"])
    cases.add(f"int_{dtype.__name__}_minval_not_scalar", int_case(7, 8),
              [np.array([2], np.int32), np.array([0], dtype), dtype(4)],
              expect_code=INVALID_ARGUMENT, message_contains=["minval must be 0-D"])
    cases.add(f"int_{dtype.__name__}_maxval_not_scalar", int_case(7, 8),
              [np.array([2], np.int32), dtype(0), np.array([4, 5], dtype)],
              expect_code=INVALID_ARGUMENT, message_contains=["maxval must be 0-D"])
    cases.add(f"int_{dtype.__name__}_negative_dim", int_case(7, 8),
              [np.array([-2], np.int32), dtype(0), dtype(4)],
              expect_code=INVALID_ARGUMENT)

RandomOracleTest = tf_oracle.make_test_class("kernels/random/run_random_cases", cases)
