"""Every math kernel against live TensorFlow: values, dtypes, shapes, error codes.

Each case builds one op with tf.raw_ops on fed Placeholders (unknown static
shape, so shape errors come from the kernels at run time), runs it in
TensorFlow and through //kernels/math:run_math_cases, and compares.
"""
import sys

sys.path.insert(0, "kernels/testing")  # cwd is the runfiles root

import numpy as np  # noqa: E402

import tf_oracle  # noqa: E402
from tf_oracle import tf  # noqa: E402

raw = tf.raw_ops
cases = tf_oracle.Cases()
rng = np.random.default_rng(1234)

FLOATS = [np.float32, np.float64]
INTS = [np.int32, np.int64]
NUMBERS = FLOATS + INTS
INVALID_ARGUMENT = 3
UNIMPLEMENTED = 12


def dname(dtype):
    return np.dtype(dtype).name


def values(shape, dtype, low=-10, high=10, nonzero=False, positive=False):
    """Deterministic test data of `dtype` and `shape`."""
    if dtype == np.bool_:
        return rng.integers(0, 2, size=shape).astype(np.bool_)
    if np.issubdtype(dtype, np.integer):
        lo = 1 if positive else low
        v = rng.integers(lo, high + 1, size=shape).astype(dtype)
        if nonzero:
            v[v == 0] = 1
        return v
    v = rng.uniform(low, high, size=shape).astype(dtype)
    if positive:
        v = np.abs(v) + dtype(0.5)
    if nonzero:
        v[np.abs(v) < 0.5] = dtype(1.5)
    return v


# Shapes (x, y) that broadcast; the last one has 5 alternating dimensions,
# the maximum the kernels evaluate after merging.
BCAST_SHAPES = [
    ((2, 3), (2, 3)),
    ((2, 3), ()),
    ((), (2, 3)),
    ((), ()),
    ((2, 3), (3,)),
    ((3, 1), (1, 4)),
    ((4, 1, 3), (2, 1)),
    ((2, 3, 4), (2, 1, 4)),
    ((1,), (5,)),
    ((0, 3), (3,)),
    ((2, 1, 3, 1, 2), (1, 4, 1, 5, 1)),
]


def shape_name(s):
    return "x".join(map(str, s)) or "scalar"


def add_binary(op, dtypes, make=None, shapes=BCAST_SHAPES, **options):
    fn = getattr(raw, op)
    for dtype in dtypes:
        for sx, sy in shapes:
            x, y = (make(sx, sy, dtype) if make else
                    (values(sx, dtype), values(sy, dtype)))
            cases.add(f"{op}_{dname(dtype)}_{shape_name(sx)}_{shape_name(sy)}",
                      lambda a, b, fn=fn: fn(x=a, y=b), [x, y], **options)
        # Incompatible shapes: InvalidArgument naming both shapes.
        cases.add(f"{op}_{dname(dtype)}_incompatible",
                  lambda a, b, fn=fn: fn(x=a, y=b),
                  [values((2, 3), dtype, positive=True),
                   values((4,), dtype, positive=True)],
                  expect_code=INVALID_ARGUMENT, message_contains=["[2,3]", "[4]"])
    # Six alternating broadcast dimensions: TensorFlow refuses too.
    dtype = dtypes[0]
    cases.add(f"{op}_{dname(dtype)}_6d_alternating",
              lambda a, b, fn=fn: fn(x=a, y=b),
              [values((2, 1, 2, 1, 2, 1), dtype, positive=True),
               values((1, 2, 1, 2, 1, 2), dtype, positive=True)])


def nonzero_divisor(sx, sy, dtype):
    return values(sx, dtype), values(sy, dtype, nonzero=True)


def pow_inputs(sx, sy, dtype):
    if np.issubdtype(dtype, np.integer):
        return values(sx, dtype, -4, 4), values(sy, dtype, 0, 5)
    return values(sx, dtype, 0.1, 3), values(sy, dtype, -2, 2)


def bool_inputs(sx, sy, dtype):
    return values(sx, np.bool_), values(sy, np.bool_)


# ---- Binary arithmetic -----------------------------------------------------
for op in ["Add", "AddV2", "Sub", "Mul"]:
    add_binary(op, NUMBERS)
add_binary("RealDiv", FLOATS, nonzero_divisor)
add_binary("Div", NUMBERS, nonzero_divisor)
add_binary("FloorDiv", NUMBERS, nonzero_divisor)
add_binary("FloorMod", NUMBERS, nonzero_divisor)
add_binary("Maximum", NUMBERS)
add_binary("Minimum", NUMBERS)
add_binary("Pow", NUMBERS, pow_inputs)
add_binary("SquaredDifference", NUMBERS)

for dtype in INTS:
    for op in ["Div", "FloorDiv", "FloorMod"]:
        fn = getattr(raw, op)
        cases.add(f"{op}_{dname(dtype)}_by_zero", lambda a, b, fn=fn: fn(x=a, y=b),
                  [np.array([1, 2, 3], dtype), np.array([1, 0, 2], dtype)],
                  expect_code=INVALID_ARGUMENT,
                  message_contains=["Integer division by zero"])
        cases.add(f"{op}_{dname(dtype)}_by_zero_scalar",
                  lambda a, b, fn=fn: fn(x=a, y=b),
                  [np.array([1, 2, 3], dtype), np.array(0, dtype)],
                  expect_code=INVALID_ARGUMENT)
        info = np.iinfo(dtype)
        cases.add(f"{op}_{dname(dtype)}_min_by_minus_one",
                  lambda a, b, fn=fn: fn(x=a, y=b),
                  [np.array([info.min, 7, -7], dtype), np.array([-1, -2, 2], dtype)])
    cases.add(f"Pow_{dname(dtype)}_negative_exponent", lambda a, b: raw.Pow(x=a, y=b),
              [np.array([2, 3], dtype), np.array([1, -1], dtype)],
              expect_code=INVALID_ARGUMENT,
              message_contains=["Integers to negative integer powers are not allowed"])
    cases.add(f"FloorDivMod_{dname(dtype)}_signs",
              lambda a, b: [raw.FloorDiv(x=a, y=b), raw.FloorMod(x=a, y=b),
                            raw.Div(x=a, y=b)],
              [np.array([7, -7, 7, -7, 0, 6], dtype), np.array([2, 2, -2, -2, 3, -3], dtype)])

for dtype in FLOATS:
    special = np.array([np.nan, 1.0, -np.inf, np.inf, 0.0, -0.0], dtype)
    other = np.array([1.0, np.nan, 2.0, -1.0, -0.0, 0.0], dtype)
    cases.add(f"MaxMin_{dname(dtype)}_nan", lambda a, b: [raw.Maximum(x=a, y=b),
                                                          raw.Minimum(x=a, y=b)],
              [special, other])
    cases.add(f"FloorDivMod_{dname(dtype)}_signs",
              lambda a, b: [raw.FloorDiv(x=a, y=b), raw.FloorMod(x=a, y=b)],
              [np.array([7.5, -7.5, 7.5, -7.5, 0.0], dtype),
               np.array([2.0, 2.0, -2.0, -2.0, 3.0], dtype)])
    cases.add(f"SquaredDifference_{dname(dtype)}_special",
              lambda a, b: raw.SquaredDifference(x=a, y=b), [special, other])
    cases.add(f"RealDiv_{dname(dtype)}_by_zero", lambda a, b: raw.RealDiv(x=a, y=b),
              [np.array([1.0, -1.0, 0.0], dtype), np.array([0.0, 0.0, 0.0], dtype)])

# ---- Comparisons and logic -------------------------------------------------
for op in ["Equal", "NotEqual"]:
    add_binary(op, NUMBERS, lambda sx, sy, dtype: (values(sx, dtype, -2, 2),
                                                    values(sy, dtype, -2, 2)))
    add_binary(op, [np.bool_], bool_inputs, shapes=BCAST_SHAPES[:6])
    fn = getattr(raw, op)
    cases.add(f"{op}_no_incompatible_shape_error",
              lambda a, b, fn=fn: fn(x=a, y=b, incompatible_shape_error=False),
              [values((2, 3), np.float32), values((4,), np.float32)])
    cases.add(f"{op}_no_incompatible_shape_error_compatible",
              lambda a, b, fn=fn: fn(x=a, y=b, incompatible_shape_error=False),
              [values((2, 3), np.int32, 0, 1), values((3,), np.int32, 0, 1)])
for op in ["Less", "LessEqual", "Greater", "GreaterEqual"]:
    add_binary(op, NUMBERS, lambda sx, sy, dtype: (values(sx, dtype, -2, 2),
                                                    values(sy, dtype, -2, 2)))
for op in ["LogicalAnd", "LogicalOr"]:
    add_binary(op, [np.bool_], bool_inputs)
cases.add("LogicalNot", lambda a: raw.LogicalNot(x=a), [values((3, 4), np.bool_)])
cases.add("LogicalNot_empty", lambda a: raw.LogicalNot(x=a), [values((0, 4), np.bool_)])

# ---- Unary ------------------------------------------------------------------
for op in ["Neg", "Abs", "Square"]:
    fn = getattr(raw, op)
    for dtype in NUMBERS:
        for shape in [(), (7,), (3, 4, 5), (0, 2)]:
            cases.add(f"{op}_{dname(dtype)}_{shape_name(shape)}",
                      lambda a, fn=fn: fn(x=a), [values(shape, dtype)])
UNARY_FLOAT = {
    "Sqrt": dict(low=0, high=100),
    "Rsqrt": dict(low=0.01, high=100),
    "Exp": dict(low=-20, high=20),
    "Log": dict(low=0.001, high=1000),
    "Log1p": dict(low=-0.999, high=1000),
    "Reciprocal": dict(low=0.01, high=100),
    "Expm1": dict(low=-20, high=20),
    "Tanh": dict(low=-10, high=10),
    "Sigmoid": dict(low=-30, high=30),
    "Erf": dict(low=-5, high=5),
    "Erfc": dict(low=-4, high=4),
}
for op, rng_args in UNARY_FLOAT.items():
    fn = getattr(raw, op)
    for dtype in FLOATS:
        for shape in [(), (1000,), (3, 4)]:
            cases.add(f"{op}_{dname(dtype)}_{shape_name(shape)}",
                      lambda a, fn=fn: fn(x=a), [values(shape, dtype, **rng_args)],
                      rtol=2e-6 if dtype == np.float32 else 1e-12)
        special = [0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan]
        if op == "Erf" and dtype == np.float64:
            # TensorFlow 2.21's double Erf (its bundled Eigen's polynomial)
            # returns NaN at +-inf; ours returns the limits +-1, as
            # TensorFlow's float32 Erf does. Infinities left out here.
            special = [0.0, -0.0, 1.0, -1.0, np.nan]
        cases.add(f"{op}_{dname(dtype)}_special", lambda a, fn=fn: fn(x=a),
                  [np.array(special, dtype)],
                  rtol=2e-6 if dtype == np.float32 else 1e-12)

# ---- AddN -------------------------------------------------------------------
for dtype in NUMBERS:
    for n in [1, 2, 3, 4, 5]:
        cases.add(f"AddN_{dname(dtype)}_{n}", lambda *xs: raw.AddN(inputs=list(xs)),
                  [values((3, 4), dtype) for _ in range(n)])
    cases.add(f"AddN_{dname(dtype)}_mismatch", lambda a, b: raw.AddN(inputs=[a, b]),
              [values((3, 4), dtype), values((4, 3), dtype)],
              expect_code=INVALID_ARGUMENT, message_contains=["[3,4]", "[4,3]"])
cases.add("AddN_scalar_3", lambda *xs: raw.AddN(inputs=list(xs)),
          [values((), np.float32) for _ in range(3)])
cases.add("AddN_empty", lambda *xs: raw.AddN(inputs=list(xs)),
          [values((0, 3), np.float32) for _ in range(2)])

# ---- Cast -------------------------------------------------------------------
CAST_TYPES = NUMBERS + [np.bool_]
for src in CAST_TYPES:
    for dst in CAST_TYPES:
        if src == np.bool_:
            x = values((2, 5), src)
        elif np.issubdtype(src, np.floating):
            x = np.array([[0.0, -0.0, 1.5, -1.5, 2.9], [-2.9, 100.25, -7.0, 0.1, 1e3]], src)
        else:
            x = np.array([[0, 1, -1, 7, -100], [3, 0, 2, 5, 1000]], src)
        cases.add(f"Cast_{dname(src)}_to_{dname(dst)}",
                  lambda a, dst=dst: raw.Cast(x=a, DstT=tf.as_dtype(dst)), [x])
cases.add("Cast_truncate_attr", lambda a: raw.Cast(x=a, DstT=tf.int32, Truncate=True),
          [np.array([1.7, -1.7], np.float32)])
cases.add("Cast_empty", lambda a: raw.Cast(x=a, DstT=tf.float64),
          [np.zeros((0, 2), np.int32)])
# uint32/uint64 (tf.random.Generator casts its skip deltas to uint64): to and
# from the signed ints (wrapping as C++ does), floats (non-negative: a negative
# float to an unsigned int is undefined in C++) and bool.
UNSIGNED_SOURCES = {
    np.int32: np.array([0, 1, -1, 7, -100, 2**31 - 1], np.int32),
    np.int64: np.array([0, 1, -1, 2**40 + 3, -(2**62), 2**63 - 1], np.int64),
    np.float32: np.array([0.0, 1.5, 2.9, 1e9, 4e9, 0.1], np.float32),
    np.float64: np.array([0.0, 1.5, 2.9, 1e18, 4e9, 0.1], np.float64),
    np.bool_: np.array([True, False, True, True, False, False]),
}
for wide in (np.uint32, np.uint64):
    for src, x in UNSIGNED_SOURCES.items():
        cases.add(f"Cast_{dname(src)}_to_{dname(wide)}",
                  lambda a, dst=wide: raw.Cast(x=a, DstT=tf.as_dtype(dst)), [x])
    x = np.array([0, 1, 7, 2**32 - 1, 123456789, 2**31], wide)
    for dst in (np.int32, np.int64, np.float32, np.float64, np.bool_, np.uint32, np.uint64):
        if dst != wide:
            cases.add(f"Cast_{dname(wide)}_to_{dname(dst)}",
                      lambda a, dst=dst: raw.Cast(x=a, DstT=tf.as_dtype(dst)), [x])

# ---- Select / SelectV2 ------------------------------------------------------
for dtype in NUMBERS + [np.bool_]:
    n = dname(dtype)
    cases.add(f"Select_{n}_same_shape", lambda c, t, e: raw.Select(condition=c, x=t, y=e),
              [values((3, 4), np.bool_), values((3, 4), dtype), values((3, 4), dtype)])
    cases.add(f"Select_{n}_scalar_cond", lambda c, t, e: raw.Select(condition=c, x=t, y=e),
              [np.array(False), values((3, 4), dtype), values((3, 4), dtype)])
    cases.add(f"Select_{n}_vector_cond", lambda c, t, e: raw.Select(condition=c, x=t, y=e),
              [values((3,), np.bool_), values((3, 2, 2), dtype), values((3, 2, 2), dtype)])
    cases.add(f"SelectV2_{n}_bcast", lambda c, t, e: raw.SelectV2(condition=c, t=t, e=e),
              [values((3, 1), np.bool_), values((1, 4), dtype), values((), dtype)])
cases.add("Select_vector_vector", lambda c, t, e: raw.Select(condition=c, x=t, y=e),
          [values((4,), np.bool_), values((4,), np.float32), values((4,), np.float32)])
cases.add("Select_then_else_mismatch", lambda c, t, e: raw.Select(condition=c, x=t, y=e),
          [np.array(True), values((3,), np.float32), values((4,), np.float32)],
          expect_code=INVALID_ARGUMENT)
cases.add("Select_cond_shape_mismatch", lambda c, t, e: raw.Select(condition=c, x=t, y=e),
          [values((2, 2), np.bool_), values((3, 4), np.float32), values((3, 4), np.float32)],
          expect_code=INVALID_ARGUMENT)
cases.add("Select_vector_cond_wrong_batch",
          lambda c, t, e: raw.Select(condition=c, x=t, y=e),
          [values((2,), np.bool_), values((3, 4), np.float32), values((3, 4), np.float32)],
          expect_code=INVALID_ARGUMENT)
for i, (sc, st, se) in enumerate([((2, 3), (2, 3), (2, 3)), ((), (2, 3), (2, 3)),
                                   ((2, 1, 3), (4, 1), (1,)),
                                   ((2, 1, 2, 1, 2), (1, 2, 1, 2, 1), (2, 1, 1, 1, 2)),
                                   ((0, 3), (3,), ())]):
    cases.add(f"SelectV2_shapes_{i}", lambda c, t, e: raw.SelectV2(condition=c, t=t, e=e),
              [values(sc, np.bool_), values(st, np.float32), values(se, np.float32)])
cases.add("SelectV2_incompatible", lambda c, t, e: raw.SelectV2(condition=c, t=t, e=e),
          [values((2,), np.bool_), values((3,), np.float32), values((3,), np.float32)],
          expect_code=INVALID_ARGUMENT)

# ---- MatMul -----------------------------------------------------------------
for dtype in NUMBERS:
    n = dname(dtype)
    tol = dict(rtol=1e-5, atol=1e-5) if dtype == np.float32 else {}
    for ta in [False, True]:
        for tb in [False, True]:
            a = values((5, 3) if ta else (3, 5), dtype, -3, 3)
            b = values((4, 5) if tb else (5, 4), dtype, -3, 3)
            cases.add(f"MatMul_{n}_ta{int(ta)}_tb{int(tb)}",
                      lambda x, y, ta=ta, tb=tb: raw.MatMul(a=x, b=y, transpose_a=ta,
                                                            transpose_b=tb),
                      [a, b], **tol)
    cases.add(f"MatMul_{n}_large", lambda x, y: raw.MatMul(a=x, b=y),
              [values((67, 129), dtype, -2, 2), values((129, 33), dtype, -2, 2)],
              **(dict(rtol=1e-4, atol=1e-4) if dtype == np.float32 else {}))
    cases.add(f"MatMul_{n}_size_mismatch", lambda x, y: raw.MatMul(a=x, b=y),
              [values((2, 3), dtype), values((4, 5), dtype)],
              expect_code=INVALID_ARGUMENT, message_contains=["[2,3]", "[4,5]"])
cases.add("MatMul_empty_inner", lambda x, y: raw.MatMul(a=x, b=y),
          [np.zeros((3, 0), np.float32), np.zeros((0, 4), np.float32)])
cases.add("MatMul_empty_outer", lambda x, y: raw.MatMul(a=x, b=y),
          [np.zeros((0, 3), np.float32), np.zeros((3, 4), np.float32)])
cases.add("MatMul_vector", lambda x, y: raw.MatMul(a=x, b=y),
          [values((3,), np.float32), values((3, 4), np.float32)],
          expect_code=INVALID_ARGUMENT)
cases.add("MatMul_rank3", lambda x, y: raw.MatMul(a=x, b=y),
          [values((2, 2, 3), np.float32), values((2, 3, 4), np.float32)],
          expect_code=INVALID_ARGUMENT)

# ---- BatchMatMulV2 ----------------------------------------------------------
BMM_SHAPES = [
    ((3, 4), (4, 5)),
    ((2, 3, 4), (2, 4, 5)),
    ((2, 3, 4), (4, 5)),
    ((3, 4), (6, 4, 5)),
    ((2, 1, 3, 4), (1, 5, 4, 2)),
    ((64, 2, 3), (64, 3, 2)),
    ((0, 3, 4), (4, 5)),
]
for dtype in NUMBERS:
    n = dname(dtype)
    tol = dict(rtol=1e-5, atol=1e-5) if dtype == np.float32 else {}
    for i, (sx, sy) in enumerate(BMM_SHAPES):
        cases.add(f"BatchMatMulV2_{n}_{i}", lambda x, y: raw.BatchMatMulV2(x=x, y=y),
                  [values(sx, dtype, -3, 3), values(sy, dtype, -3, 3)], **tol)
    for adj_x in [False, True]:
        for adj_y in [False, True]:
            sx = (2, 4, 3) if adj_x else (2, 3, 4)
            sy = (5, 4) if adj_y else (4, 5)
            cases.add(f"BatchMatMulV2_{n}_adj{int(adj_x)}{int(adj_y)}",
                      lambda x, y, ax=adj_x, ay=adj_y: raw.BatchMatMulV2(
                          x=x, y=y, adj_x=ax, adj_y=ay),
                      [values(sx, dtype, -3, 3), values(sy, dtype, -3, 3)], **tol)
cases.add("BatchMatMulV2_large_batch", lambda x, y: raw.BatchMatMulV2(x=x, y=y),
          [values((3, 100, 64), np.float32), values((64, 70), np.float32)],
          rtol=1e-4, atol=1e-3)
cases.add("BatchMatMulV2_batch_mismatch", lambda x, y: raw.BatchMatMulV2(x=x, y=y),
          [values((2, 3, 4), np.float32), values((3, 4, 5), np.float32)],
          expect_code=INVALID_ARGUMENT, message_contains=["[2,3,4]", "[3,4,5]"])
cases.add("BatchMatMulV2_inner_mismatch", lambda x, y: raw.BatchMatMulV2(x=x, y=y),
          [values((2, 3, 4), np.float32), values((2, 5, 5), np.float32)],
          expect_code=INVALID_ARGUMENT)
cases.add("BatchMatMulV2_rank1", lambda x, y: raw.BatchMatMulV2(x=x, y=y),
          [values((4,), np.float32), values((4, 5), np.float32)],
          expect_code=INVALID_ARGUMENT)
cases.add("BatchMatMulV2_empty_inner", lambda x, y: raw.BatchMatMulV2(x=x, y=y),
          [np.zeros((2, 3, 0), np.float64), np.zeros((0, 4), np.float64)])

# ---- Reductions ---------------------------------------------------------------
REDUCE_AXES = [
    ((2, 3, 4), 1),
    ((2, 3, 4), -1),
    ((2, 3, 4), [0, 2]),
    ((2, 3, 4), [0]),
    ((2, 3, 4), [0, 1, 2]),
    ((2, 3, 4), []),
    ((2, 3, 4, 5), [0, 2]),      # alternating: 4 collapsed dims (transpose path)
    ((2, 3, 4, 5, 6), [1, 3]),
    ((5,), 0),
    ((), []),
    ((3, 1, 4), [1]),            # only a size-1 axis: a copy
    ((2, 1, 3), [0, 2]),
    ((0, 3), [0]),               # empty reduction: the identity
    ((3, 0), [0]),               # empty output
]
REDUCTIONS = ["Sum", "Mean", "Max", "Min", "Prod"]
for op in REDUCTIONS:
    fn = getattr(raw, op)
    for dtype in NUMBERS:
        n = dname(dtype)
        for i, (shape, axes) in enumerate(REDUCE_AXES):
            low, high = (-3, 3) if op == "Prod" else (-10, 10)
            data = values(shape, dtype, low, high)
            for keep in [False, True]:
                if keep and i % 3:
                    continue  # keep_dims on a subset is enough
                for axis_type in ([np.int32, np.int64] if i in (0, 2) else [np.int32]):
                    cases.add(f"{op}_{n}_{i}_keep{int(keep)}_{dname(axis_type)}",
                              lambda x, a, fn=fn, keep=keep: fn(input=x, axis=a,
                                                               keep_dims=keep),
                              [data, np.array(axes, axis_type)],
                              rtol=1e-5 if dtype == np.float32 else 1e-12)
    cases.add(f"{op}_bad_axis", lambda x, a, fn=fn: fn(input=x, axis=a),
              [values((2, 3), np.float32), np.array([2], np.int32)],
              expect_code=INVALID_ARGUMENT)
    cases.add(f"{op}_bad_negative_axis", lambda x, a, fn=fn: fn(input=x, axis=a),
              [values((2, 3), np.float32), np.array(-3, np.int64)],
              expect_code=INVALID_ARGUMENT)
    cases.add(f"{op}_duplicate_axis", lambda x, a, fn=fn: fn(input=x, axis=a),
              [values((2, 3), np.float32), np.array([1, -1], np.int32)],
              expect_code=INVALID_ARGUMENT)
for dtype in FLOATS:
    cases.add(f"MaxMin_reduce_{dname(dtype)}_nan",
              lambda x, a: [raw.Max(input=x, axis=a), raw.Min(input=x, axis=a)],
              [np.array([[1.0, np.nan, 3.0], [1.0, 2.0, -np.inf]], dtype),
               np.array(1, np.int32)])
# half/bfloat16 through the transpose path (2-byte elements); Max/Min are
# exact whatever the order. (Not Sum: TensorFlow accumulates these in float,
# our reducer in the type itself.)
for dtype in [np.float16, tf.bfloat16.as_numpy_dtype]:
    n = tf.as_dtype(dtype).name
    data = values((2, 3, 4, 5), np.float32, -4, 4).astype(dtype)
    for op in ["Max", "Min"]:
        fn = getattr(raw, op)
        cases.add(f"{op}_{n}_alternating_transpose",
                  lambda x, a, fn=fn: fn(input=x, axis=a),
                  [data, np.array([0, 2], np.int32)], rtol=0, atol=0)
cases.add("Sum_large_f32", lambda x, a: raw.Sum(input=x, axis=a),
          [values((300, 257), np.float32, -1, 1), np.array([0], np.int32)],
          rtol=1e-4, atol=1e-4)

# ---- ArgMax / ArgMin ----------------------------------------------------------
for op in ["ArgMax", "ArgMin"]:
    fn = getattr(raw, op)
    for dtype in NUMBERS + [np.bool_]:
        n = dname(dtype)
        for dim in [0, 1, -1, 2]:
            data = values((3, 4, 5), dtype, -3, 3)  # small range: many ties
            cases.add(f"{op}_{n}_dim{dim}",
                      lambda x, d, fn=fn: fn(input=x, dimension=d), [data, np.array(dim, np.int32)])
        for out_type in [tf.int32, tf.int64]:
            cases.add(f"{op}_{n}_out_{out_type.name}",
                      lambda x, d, fn=fn, ot=out_type: fn(input=x, dimension=d,
                                                          output_type=ot),
                      [values((7,), dtype), np.array(0, np.int64)])
    cases.add(f"{op}_bad_dim", lambda x, d, fn=fn: fn(input=x, dimension=d),
              [values((3, 4), np.float32), np.array(2, np.int32)],
              expect_code=INVALID_ARGUMENT)
    cases.add(f"{op}_empty_axis", lambda x, d, fn=fn: fn(input=x, dimension=d),
              [values((0, 4), np.float32), np.array(0, np.int32)],
              expect_code=INVALID_ARGUMENT)
    cases.add(f"{op}_empty_other_axis", lambda x, d, fn=fn: fn(input=x, dimension=d),
              [values((0, 4), np.float32), np.array(1, np.int32)])
    cases.add(f"{op}_vector_dim", lambda x, d, fn=fn: fn(input=x, dimension=d),
              [values((3, 4), np.float32), np.array([0], np.int32)],
              expect_code=INVALID_ARGUMENT)

# ---- Mixed precision: half and bfloat16 ----------------------------------------
# What Keras's mixed_float16 / mixed_bfloat16 policies compute in. Elementwise
# ops round each result once, as TensorFlow's Eigen functors do, so they agree
# to the last bit but for the transcendental functions (rtol 1e-3 for half,
# 1e-2 for bfloat16: one unit in the last place). MatMul and the sums
# accumulate in float on both sides, in a different order.
BF16 = tf.bfloat16.as_numpy_dtype
LOW_PRECISION = [np.float16, BF16]


def low_precision_tol(dtype, ulps=1):
    return dict(rtol=ulps * (1e-3 if dtype == np.float16 else 8e-3), atol=1e-3)


for dtype in LOW_PRECISION:
    n = dname(dtype)
    tol = low_precision_tol(dtype)
    for op in ["Add", "AddV2", "Sub", "Mul", "SquaredDifference", "Maximum", "Minimum",
               "Equal", "NotEqual", "Less", "LessEqual", "Greater", "GreaterEqual"]:
        add_binary(op, [dtype], lambda sx, sy, dtype: (values(sx, np.float32, -4, 4)
                                                       .astype(dtype),
                                                       values(sy, np.float32, -4, 4)
                                                       .astype(dtype)),
                   shapes=BCAST_SHAPES[:8], **tol)
    for op in ["RealDiv", "Div"]:
        add_binary(op, [dtype], lambda sx, sy, dtype: tuple(
            v.astype(dtype) for v in nonzero_divisor(sx, sy, np.float32)),
            shapes=BCAST_SHAPES[:6], **tol)
    for op in ["Neg", "Abs", "Square"]:
        cases.add(f"{op}_{n}", lambda a, fn=getattr(raw, op): fn(x=a),
                  [values((3, 4), np.float32, -8, 8).astype(dtype)], **tol)
    for op, rng_args in UNARY_FLOAT.items():
        cases.add(f"{op}_{n}", lambda a, fn=getattr(raw, op): fn(x=a),
                  [values((50,), np.float32, **rng_args).astype(dtype)],
                  **low_precision_tol(dtype, ulps=2))
    for other in [np.float32, np.float64, np.int32, np.int64, np.bool_]:
        x = np.array([[0.0, -0.0, 1.5, -1.5, 2.9], [-2.9, 100.25, -7.0, 0.1, 1e3]],
                     np.float32)
        cases.add(f"Cast_{n}_to_{dname(other)}",
                  lambda a, dst=other: raw.Cast(x=a, DstT=tf.as_dtype(dst)),
                  [x.astype(dtype)])
        src = x.astype(other) if other != np.bool_ else values((2, 5), np.bool_)
        cases.add(f"Cast_{dname(other)}_to_{n}",
                  lambda a, dt=dtype: raw.Cast(x=a, DstT=tf.as_dtype(dt)), [src])
    # Rounding to nearest even at the halfway points, overflow to infinity.
    cases.add(f"Cast_float32_to_{n}_rounding",
              lambda a, dt=dtype: raw.Cast(x=a, DstT=tf.as_dtype(dt)),
              [np.array([1 + 2**-11, 1 + 3 * 2**-11, 1 + 2**-8, 1 + 3 * 2**-8, 1e5,
                         -1e39, np.nan, 3.1e-8], np.float32)])
    for ta in [False, True]:
        for tb in [False, True]:
            a = values((5, 3) if ta else (3, 5), np.float32, -3, 3).astype(dtype)
            b = values((4, 5) if tb else (5, 4), np.float32, -3, 3).astype(dtype)
            cases.add(f"MatMul_{n}_ta{int(ta)}_tb{int(tb)}",
                      lambda x, y, ta=ta, tb=tb: raw.MatMul(a=x, b=y, transpose_a=ta,
                                                            transpose_b=tb),
                      [a, b], **low_precision_tol(dtype, ulps=2))
    cases.add(f"BatchMatMulV2_{n}", lambda x, y: raw.BatchMatMulV2(x=x, y=y),
              [values((2, 3, 5), np.float32, -2, 2).astype(dtype),
               values((5, 4), np.float32, -2, 2).astype(dtype)],
              **low_precision_tol(dtype, ulps=2))
    for op in REDUCTIONS:
        cases.add(f"{op}_{n}", lambda x, a, fn=getattr(raw, op): fn(input=x, axis=a),
                  [values((4, 6), np.float32, 0.5, 1.5).astype(dtype),
                   np.array([1], np.int32)], **low_precision_tol(dtype, ulps=4))

# ---- IsFinite / IsNan / IsInf ---------------------------------------------------

CLASSIFY_SPECIALS = np.array([np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0,
                              -3.5, 1e-30, 6e4], np.float32)
for op in ["IsFinite", "IsNan", "IsInf"]:
    for dtype in FLOATS + [np.float16, tf.bfloat16.as_numpy_dtype]:
        n = dname(dtype)
        cases.add(f"{op}_{n}_specials", lambda x, fn=getattr(raw, op): fn(x=x),
                  [CLASSIFY_SPECIALS.astype(dtype)])
        cases.add(f"{op}_{n}_2d", lambda x, fn=getattr(raw, op): fn(x=x),
                  [values((3, 4), np.float32).astype(dtype)])
    cases.add(f"{op}_empty", lambda x, fn=getattr(raw, op): fn(x=x),
              [np.zeros((0, 3), np.float32)])

# ---- Cumsum ---------------------------------------------------------------------

for dtype in NUMBERS + [np.float16]:
    for shape, axis in [((7,), 0), ((3, 5), 0), ((3, 5), 1), ((3, 5), -1),
                        ((2, 3, 4), 1), ((2, 3, 4), -3), ((0, 4), 1)]:
        for exclusive in (False, True):
            for reverse in (False, True):
                cases.add(f"Cumsum_{dname(dtype)}_{shape_name(shape)}_axis{axis}"
                          f"_e{int(exclusive)}_r{int(reverse)}",
                          lambda x, a, e=exclusive, r=reverse: raw.Cumsum(
                              x=x, axis=a, exclusive=e, reverse=r),
                          [values(shape, dtype), np.array(axis, np.int32)],
                          **({"rtol": 1e-2, "atol": 1e-2} if dtype == np.float16 else {}))
cases.add("Cumsum_axis_int64", lambda x, a: raw.Cumsum(x=x, axis=a),
          [values((3, 4), np.float64), np.array(1, np.int64)])
cases.add("Cumsum_axis_out_of_range", lambda x, a: raw.Cumsum(x=x, axis=a),
          [values((2, 3), np.float32), np.array(2, np.int32)],
          expect_code=INVALID_ARGUMENT,
          message_contains=["ScanOp: Expected scan axis in the range [-2, 2), but got 2"])
cases.add("Cumsum_axis_not_scalar", lambda x, a: raw.Cumsum(x=x, axis=a),
          [values((2, 3), np.float32), np.array([1], np.int32)],
          expect_code=INVALID_ARGUMENT,
          message_contains=["ScanOp: axis must be a scalar, not [1]"])

# ---- TopKV2 ---------------------------------------------------------------------

for dtype in NUMBERS + [np.float16]:
    for shape, k in [((10,), 3), ((4, 9), 1), ((4, 9), 4), ((2, 3, 6), 6),
                     ((3, 5), 0), ((0, 5), 2)]:
        # Small integers so that ties are frequent: TensorFlow puts the lower
        # index first.
        cases.add(f"TopKV2_{dname(dtype)}_{shape_name(shape)}_k{k}",
                  lambda x, k_: raw.TopKV2(input=x, k=k_),
                  [rng.integers(-3, 4, size=shape).astype(dtype), np.array(k, np.int32)])
    cases.add(f"TopKV2_{dname(dtype)}_distinct",
              lambda x, k_: raw.TopKV2(input=x, k=k_),
              [values((5, 40), dtype, -1000, 1000), np.array(7, np.int32)])
cases.add("TopKV2_k_int64", lambda x, k_: raw.TopKV2(input=x, k=k_),
          [values((3, 8), np.float32), np.array(2, np.int64)])
# The rarer types TensorFlow registers: 8/16-bit and unsigned values (with
# ties), k as int16, and int16 / int64 indices.
SMALL_INTS = [np.int8, np.int16, np.uint8, np.uint16, np.uint32, np.uint64]
for dtype in SMALL_INTS:
    lo = 0 if np.issubdtype(dtype, np.unsignedinteger) else -3
    for k_type, index_type in [(np.int32, tf.int32), (np.int16, tf.int16),
                               (np.int64, tf.int64)]:
        cases.add(f"TopKV2_{dname(dtype)}_k_{dname(k_type)}_index_{index_type.name}",
                  lambda x, k_, it=index_type: raw.TopKV2(input=x, k=k_, index_type=it),
                  [rng.integers(lo, lo + 7, size=(4, 9)).astype(dtype),
                   np.array(4, k_type)])
for dtype in SMALL_INTS:
    for exclusive, reverse in [(False, False), (True, True)]:
        for op in ["Cumsum", "Cumprod"]:
            cases.add(f"{op}_{dname(dtype)}_ex{int(exclusive)}_rev{int(reverse)}",
                      lambda x, a, fn=getattr(raw, op), e=exclusive, r=reverse: fn(
                          x=x, axis=a, exclusive=e, reverse=r),
                      [rng.integers(0, 5, size=(3, 6)).astype(dtype), np.array(1, np.int32)])
# Integer sums wrap as the type's arithmetic does on both sides.
cases.add("Cumsum_int8_wraps", lambda x, a: raw.Cumsum(x=x, axis=a),
          [np.array([100, 100, 100, -128, -128], np.int8), np.array(0, np.int64)])
for name, x, k, msg in [
        ("k_negative", values((2, 3), np.float32), np.array(-1, np.int32), "Need k >= 0, got -1"),
        ("k_too_big", values((2, 3), np.float32), np.array(4, np.int32),
         "input must have at least k columns. Had 3, needed 4"),
        ("k_not_scalar", values((2, 3), np.float32), np.array([1], np.int32),
         "k must be scalar, got shape [1]"),
        ("scalar_input", np.float32(1), np.array(0, np.int32), "input must be >= 1-D, got shape []")]:
    cases.add(f"TopKV2_error_{name}", lambda x, k_: raw.TopKV2(input=x, k=k_), [x, k],
              expect_code=INVALID_ARGUMENT, message_contains=[msg])

# ---- Gradient ops, Inv -------------------------------------------------------------
# TensorFlow's functors round differently on their scalar and packet paths
# (SqrtGrad: (0.5 * dy) / y vs (0.5 / y) * dy; RsqrtGrad associates its
# products differently too), and which elements take which path depends on
# the SIMD width each build was compiled for, so those two get 2 ulp.
# ReciprocalGrad's paths agree: bit-exact.
EXACT = dict(rtol=0, atol=0)


def ulps(dtype, n):
    eps = {np.float32: 2**-23, np.float64: 2**-52, np.float16: 2**-10}.get(dtype, 2**-7)
    return dict(rtol=n * eps, atol=0)


def grad_inputs(shape, dtype, low=0.1, high=10):
    return [values(shape, np.float32, low, high).astype(dtype),
            values(shape, np.float32, -3, 3).astype(dtype)]


for dtype in FLOATS + LOW_PRECISION:
    n = dname(dtype)
    for op, tol in [("SqrtGrad", ulps(dtype, 2)), ("RsqrtGrad", ulps(dtype, 2)),
                    ("ReciprocalGrad", EXACT), ("InvGrad", EXACT)]:
        fn = getattr(raw, op)
        for shape in [(), (37,), (3, 4), (0, 2)]:
            cases.add(f"{op}_{n}_{shape_name(shape)}", lambda y, dy, fn=fn: fn(y=y, dy=dy),
                      grad_inputs(shape, dtype), **tol)
        # dy == 0 gives 0 even where y is infinite or NaN (mul_no_nan).
        cases.add(f"{op}_{n}_zero_dy", lambda y, dy, fn=fn: fn(y=y, dy=dy),
                  [np.array([np.inf, 0.0, np.nan, 2.0, -np.inf] * 4, dtype),
                   np.array([0.0, 0.0, 0.0, 1.0, 0.0] * 4, dtype)], **tol)
    cases.add(f"Inv_{n}", lambda x: raw.Inv(x=x),
              [np.array([2.0, -4.0, 0.0, -0.0, 0.1, np.inf, np.nan], dtype)], **EXACT)
cases.add("SqrtGrad_element_count_mismatch", lambda y, dy: raw.SqrtGrad(y=y, dy=dy),
          [values((3,), np.float32), values((2,), np.float32)],
          expect_code=INVALID_ARGUMENT,
          message_contains=["must have same number of elements, got 3 and 2"])
cases.add("RsqrtGrad_same_count_other_shape", lambda y, dy: raw.RsqrtGrad(y=y, dy=dy),
          [values((2, 3), np.float32, 0.5, 2), values((6,), np.float32)], **ulps(np.float32, 2))

# ---- Rounding, trigonometry, special functions ------------------------------------
HALVES = [0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 0.49999997, -0.49999997, 2.6, -2.4, 1e8 + 1,
          0.0, -0.0, np.inf, -np.inf, np.nan]
for dtype in FLOATS + LOW_PRECISION:
    ops = ["Round"] if dtype in LOW_PRECISION else ["Round", "Rint"]
    for op in ops:
        cases.add(f"{op}_{dname(dtype)}_halves", lambda x, fn=getattr(raw, op): fn(x=x),
                  [np.array(HALVES, np.float64).astype(dtype)], **EXACT)
        cases.add(f"{op}_{dname(dtype)}_random", lambda x, fn=getattr(raw, op): fn(x=x),
                  [(np.round(values((200,), np.float32, -50, 50) * 2) / 2).astype(dtype)],
                  **EXACT)
# TensorFlow 2.21's CPU Round on int32/int64 returns 0 for every element (its
# round_half_to_even functor takes a floating-point path for integers); we
# return the integers unchanged, as the op's definition says, so there is no
# oracle case for it (cwise_special_test checks ours).

# Eigen 3.4 (ours) evaluates these with std:: libm calls; TensorFlow's newer
# bundled Eigen has its own polynomial kernels for some (atan, tanh-based,
# asin/acos on float), which are within a few ulp of libm: 4 ulp for float
# and double, 1 ulp for half and bfloat16 (each rounded once from float).
UNARY_SPECIAL = {
    "Tan": dict(low=-1.5, high=1.5),
    "Asin": dict(low=-1, high=1),
    "Acos": dict(low=-1, high=1),
    "Atan": dict(low=-20, high=20),
    "Sinh": dict(low=-10, high=10),
    "Cosh": dict(low=-10, high=10),
    "Asinh": dict(low=-100, high=100),
    "Acosh": dict(low=1, high=100),
    "Atanh": dict(low=-0.999, high=0.999),
    "Lgamma": dict(low=-10, high=30),
    "Digamma": dict(low=-10, high=30),
    "Erfinv": dict(low=-0.999, high=0.999),
    "Ndtri": dict(low=0.001, high=0.999),
}
SPECIAL_DTYPES = {"Lgamma": FLOATS + [np.float16], "Digamma": FLOATS + [np.float16],
                  "Erfinv": FLOATS, "Ndtri": FLOATS}
for op, rng_args in UNARY_SPECIAL.items():
    fn = getattr(raw, op)
    for dtype in SPECIAL_DTYPES.get(op, FLOATS + LOW_PRECISION):
        tol = ulps(dtype, 4 if dtype in FLOATS else 1)
        if op in ("Lgamma", "Digamma"):
            # Near their zeros (lgamma at 1 and 2, digamma at 1.4616...) the
            # relative error of any implementation blows up; an absolute
            # bound of a few ulp of the function's scale covers those.
            tol = dict(tol, atol=1e-6 if dtype == np.float32 else
                       (1e-14 if dtype == np.float64 else 1e-2))
        for shape in [(), (300,), (0, 3)]:
            cases.add(f"{op}_{dname(dtype)}_{shape_name(shape)}", lambda x, fn=fn: fn(x=x),
                      [values(shape, np.float64, **rng_args).astype(dtype)], **tol)
        special = [0.0, -0.0, 1.0, -1.0, 2.0, np.inf, -np.inf, np.nan]
        cases.add(f"{op}_{dname(dtype)}_special", lambda x, fn=fn: fn(x=x),
                  [np.array(special, dtype)], **tol)

# ---- Binary: truncating division, Atan2, zero-guarded products -----------------------
SIGNED_INTS = [np.int8, np.int16, np.int32, np.int64]
UNSIGNED_INTS = [np.uint8, np.uint16, np.uint32, np.uint64]
ALL_INTS = SIGNED_INTS + UNSIGNED_INTS

add_binary("TruncateDiv", FLOATS + ALL_INTS, nonzero_divisor, shapes=BCAST_SHAPES, **EXACT)
add_binary("TruncateMod", NUMBERS, nonzero_divisor, **EXACT)
add_binary("Mod", NUMBERS, nonzero_divisor, **EXACT)
for dtype in LOW_PRECISION:
    add_binary("TruncateDiv", [dtype], lambda sx, sy, dtype: tuple(
        v.astype(dtype) for v in nonzero_divisor(sx, sy, np.float32)),
        shapes=BCAST_SHAPES[:6], **EXACT)
for dtype in SIGNED_INTS[2:]:
    info = np.iinfo(dtype)
    for op in ["TruncateDiv", "TruncateMod", "Mod"]:
        fn = getattr(raw, op)
        cases.add(f"{op}_{dname(dtype)}_signs", lambda a, b, fn=fn: fn(x=a, y=b),
                  [np.array([7, -7, 7, -7, 0, 6], dtype), np.array([2, 2, -2, -2, 3, -3], dtype)])
        cases.add(f"{op}_{dname(dtype)}_min_by_minus_one", lambda a, b, fn=fn: fn(x=a, y=b),
                  [np.array([info.min, 7, -7], dtype), np.array([-1, -2, 2], dtype)])
        # Mod reports "Integer division by zero" (InvalidArgument) as Div
        # does; TensorFlow's TruncateDiv/TruncateMod fail with its catch-all
        # Internal error instead, and so do we.
        cases.add(f"{op}_{dname(dtype)}_by_zero", lambda a, b, fn=fn: fn(x=a, y=b),
                  [np.array([1, 2, 3], dtype), np.array([1, 0, 2], dtype)],
                  expect_code=INVALID_ARGUMENT if op == "Mod" else 13,
                  message_contains=["Integer division by zero"] if op == "Mod" else
                  ["Unexpected error in binary operator"])
for dtype in [np.uint8, np.int8]:
    cases.add(f"TruncateDiv_{dname(dtype)}_by_zero_scalar",
              lambda a, b: raw.TruncateDiv(x=a, y=b),
              [np.array([1, 2], dtype), np.array(0, dtype)], expect_code=13)
for dtype in FLOATS:
    cases.add(f"TruncateDivMod_{dname(dtype)}_special",
              lambda a, b: [raw.TruncateDiv(x=a, y=b), raw.TruncateMod(x=a, y=b),
                            raw.Mod(x=a, y=b)],
              [np.array([7.5, -7.5, 1.0, 0.0, np.inf, 5.0, -0.0], dtype),
               np.array([2.0, 2.0, 0.0, 0.0, 2.0, np.inf, 3.0], dtype)], **EXACT)

# Atan2: TensorFlow 2.21's values differ from std::atan2's (ours) by 1 ulp
# in a few percent of the elements (its build's libm/Eigen atan2): 2 ulp.
ATAN2_TOL = {np.float32: ulps(np.float32, 2), np.float64: ulps(np.float64, 2)}
for dtype in FLOATS:
    add_binary("Atan2", [dtype], lambda sx, sy, dtype: (values(sx, dtype), values(sy, dtype)),
               shapes=BCAST_SHAPES[:8], **ATAN2_TOL[dtype])
for dtype in FLOATS + LOW_PRECISION:
    zeros = np.array([0.0, -0.0, 0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, 1.0], dtype)
    other = np.array([0.0, 0.0, -0.0, -0.0, np.inf, -np.inf, np.inf, 1.0, 1.0, 0.0], dtype)
    cases.add(f"Atan2_{dname(dtype)}_signed_zeros", lambda a, b: raw.Atan2(y=a, x=b),
              [zeros, other], **ATAN2_TOL.get(dtype, EXACT))
for dtype in LOW_PRECISION:
    cases.add(f"Atan2_{dname(dtype)}", lambda a, b: raw.Atan2(y=a, x=b),
              [values((50,), np.float32).astype(dtype), values((50,), np.float32).astype(dtype)],
              **EXACT)

# MulNoNan and Xdivy are one multiply/divide: bit-exact. Xlogy and Xlog1py
# multiply by Eigen's log/log1p, whose packet kernels differ slightly between
# Eigen 3.4 and TensorFlow's newer Eigen (and from the scalar libm path):
# 2 ulp.
for op, make, tol in [
        ("MulNoNan", None, EXACT),
        ("Xdivy", nonzero_divisor, EXACT),
        ("Xlogy", lambda sx, sy, d: (values(sx, d), values(sy, d, 0.01, 100)), None),
        ("Xlog1py", lambda sx, sy, d: (values(sx, d), values(sy, d, -0.99, 100)), None)]:
    for dtype in FLOATS:
        t = tol if tol is not None else ulps(dtype, 2)
        add_binary(op, [dtype], make, shapes=BCAST_SHAPES[:10], **t)
    for dtype in FLOATS + LOW_PRECISION:
        t = tol if tol is not None else ulps(dtype, 2)
        cases.add(f"{op}_{dname(dtype)}_zero_x", lambda a, b, fn=getattr(raw, op): fn(x=a, y=b),
                  [np.array([0.0, 0.0, 0.0, -0.0, 2.0, np.nan, np.inf, 1.0] * 3, dtype),
                   np.array([0.0, np.nan, -1.0, np.inf, 0.0, 0.0, 0.0, 3.0] * 3, dtype)], **t)
for dtype in LOW_PRECISION:
    for op in ["MulNoNan", "Xdivy", "Xlogy", "Xlog1py"]:
        cases.add(f"{op}_{dname(dtype)}", lambda a, b, fn=getattr(raw, op): fn(x=a, y=b),
                  [values((40,), np.float32, -4, 4).astype(dtype),
                   values((40,), np.float32, 0.1, 4).astype(dtype)], **ulps(dtype, 1))

# ---- Bitwise ------------------------------------------------------------------------


def int_inputs(sx, sy, dtype):
    info = np.iinfo(dtype)
    return (rng.integers(info.min, info.max, size=sx, dtype=dtype, endpoint=True),
            rng.integers(info.min, info.max, size=sy, dtype=dtype, endpoint=True))


def shift_inputs(sx, sy, dtype):
    info = np.iinfo(dtype)
    bits = np.iinfo(dtype).bits
    lo = -3 if info.min < 0 else 0
    return (rng.integers(info.min, info.max, size=sx, dtype=dtype, endpoint=True),
            rng.integers(lo, bits + 4, size=sy).astype(dtype))


for op in ["BitwiseAnd", "BitwiseOr", "BitwiseXor"]:
    add_binary(op, ALL_INTS, int_inputs, shapes=BCAST_SHAPES[:8])
for op in ["LeftShift", "RightShift"]:
    add_binary(op, ALL_INTS, shift_inputs, shapes=BCAST_SHAPES[:8])
for dtype in ALL_INTS:
    info = np.iinfo(dtype)
    edge = np.array([0, 1, info.max, info.min, info.max // 3], dtype)
    for op in ["Invert", "PopulationCount"]:
        cases.add(f"{op}_{dname(dtype)}", lambda a, fn=getattr(raw, op): fn(x=a),
                  [np.concatenate([edge, int_inputs((40,), (), dtype)[0]])])
        cases.add(f"{op}_{dname(dtype)}_empty", lambda a, fn=getattr(raw, op): fn(x=a),
                  [np.zeros((0, 2), dtype)])

# ---- ClipByValue ----------------------------------------------------------------------
CLIP_TYPES = FLOATS + LOW_PRECISION + SIGNED_INTS + [np.uint8, np.uint16]
for dtype in CLIP_TYPES:
    n = dname(dtype)
    lo_v, hi_v = (2, 7) if dtype in (np.uint8, np.uint16) else (-3, 4)
    t = values((3, 4), np.float32, -10, 10).astype(dtype) if dtype not in (
        np.uint8, np.uint16) else values((3, 4), dtype, 0, 10)
    for name, lo, hi in [
            ("scalars", np.array(lo_v, dtype), np.array(hi_v, dtype)),
            ("tensor_min", np.full((3, 4), lo_v, dtype) + np.arange(12).reshape(3, 4).astype(dtype) % 3,
             np.array(hi_v, dtype)),
            ("tensor_max", np.array(lo_v, dtype),
             np.full((3, 4), hi_v, dtype) - np.arange(12).reshape(3, 4).astype(dtype) % 3),
            ("tensors", np.full((3, 4), lo_v, dtype), np.full((3, 4), hi_v, dtype)),
            ("inverted", np.array(hi_v, dtype), np.array(lo_v, dtype))]:
        cases.add(f"ClipByValue_{n}_{name}",
                  lambda a, b, c: raw.ClipByValue(t=a, clip_value_min=b, clip_value_max=c),
                  [t, lo, hi], **EXACT)
cases.add("ClipByValue_nan", lambda a, b, c: raw.ClipByValue(t=a, clip_value_min=b,
                                                            clip_value_max=c),
          [np.array([np.nan, 1, 5, -5] * 5, np.float32), np.float32(0), np.float32(2)], **EXACT)
cases.add("ClipByValue_nan_bound", lambda a, b, c: raw.ClipByValue(t=a, clip_value_min=b,
                                                                  clip_value_max=c),
          [np.array([1, 5, -5] * 5, np.float32), np.float32(np.nan), np.float32(2)], **EXACT)
cases.add("ClipByValue_empty", lambda a, b, c: raw.ClipByValue(t=a, clip_value_min=b,
                                                              clip_value_max=c),
          [np.zeros((0, 3), np.float32), np.float32(0), np.float32(1)])
cases.add("ClipByValue_bad_bound_shape",
          lambda a, b, c: raw.ClipByValue(t=a, clip_value_min=b, clip_value_max=c),
          [values((2, 2), np.float32), values((3,), np.float32), np.float32(3)],
          expect_code=INVALID_ARGUMENT,
          message_contains=["clip_value_min and clip_value_max must be either of the same "
                            "shape as input, or a scalar. input shape: [2,2]clip_value_min "
                            "shape: [3]clip_value_max shape: []"])

# ---- Cumprod / CumulativeLogsumexp ----------------------------------------------------
# Sequential products on both sides: bit-exact. CumulativeLogsumexp folds
# with max + log1p(exp(min - max)); TensorFlow's scan may evaluate exp and
# log1p with packet kernels: 4 ulp (float/double), 2 ulp (half, bfloat16).
for op in ["Cumprod", "CumulativeLogsumexp"]:
    dtypes = NUMBERS + [np.float16] if op == "Cumprod" else FLOATS + LOW_PRECISION
    for dtype in dtypes:
        tol = EXACT if op == "Cumprod" and dtype not in LOW_PRECISION else ulps(
            dtype, 4 if dtype in FLOATS else 2)
        if op == "Cumprod" and dtype == np.float16:
            tol = EXACT
        for shape, axis in [((7,), 0), ((3, 5), 0), ((3, 5), 1), ((3, 5), -1),
                            ((2, 3, 4), 1), ((2, 3, 4), -3), ((0, 4), 1)]:
            for exclusive in (False, True):
                for reverse in (False, True):
                    data = (values(shape, dtype, -3, 3) if op == "Cumprod" else
                            values(shape, np.float32, -20, 20).astype(dtype))
                    cases.add(f"{op}_{dname(dtype)}_{shape_name(shape)}_axis{axis}"
                              f"_e{int(exclusive)}_r{int(reverse)}",
                              lambda x, a, e=exclusive, r=reverse, fn=getattr(raw, op): fn(
                                  x=x, axis=a, exclusive=e, reverse=r),
                              [data, np.array(axis, np.int32)], **tol)
    cases.add(f"{op}_axis_int64", lambda x, a, fn=getattr(raw, op): fn(x=x, axis=a),
              [values((3, 4), np.float64, -2, 2), np.array(1, np.int64)], **ulps(np.float64, 4))
    cases.add(f"{op}_axis_out_of_range", lambda x, a, fn=getattr(raw, op): fn(x=x, axis=a),
              [values((2, 3), np.float32), np.array(-3, np.int32)],
              expect_code=INVALID_ARGUMENT,
              message_contains=["ScanOp: Expected scan axis in the range [-2, 2), but got -1"])
cases.add("CumulativeLogsumexp_infinities",
          lambda x, a: [raw.CumulativeLogsumexp(x=x, axis=a),
                        raw.CumulativeLogsumexp(x=x, axis=a, exclusive=True, reverse=True)],
          [np.array([-np.inf, 1.0, np.inf, np.inf, -np.inf, np.nan, 3.0], np.float32),
           np.array(0, np.int32)], **EXACT)

# ---- LinSpace, Bucketize, InTopKV2, CheckNumerics -----------------------------------------
# LinSpace computes start + step * i on both sides, but our -march=native build
# contracts that into one fused multiply-add where the host has FMA, and
# TensorFlow's x86 wheel is built without it: 1 rounding apart, so 2 ulp of
# the larger endpoint (absolute, since values cross zero). The endpoints are
# exact.
for dtype in FLOATS:
    for num_type in [np.int32, np.int64]:
        for start, stop, num in [(0.0, 1.0, 7), (-3.5, 10.25, 50), (5.0, -5.0, 11),
                                 (1.0, 2.0, 1), (2.0, 2.0, 4), (0.1, 0.7, 1000)]:
            eps = ulps(dtype, 2)["rtol"]
            cases.add(f"LinSpace_{dname(dtype)}_{dname(num_type)}_{start}_{stop}_{num}",
                      lambda a, b, c: raw.LinSpace(start=a, stop=b, num=c),
                      [np.array(start, dtype), np.array(stop, dtype), np.array(num, num_type)],
                      rtol=eps, atol=eps * max(abs(start), abs(stop)))
for name, args, msg in [
        ("num_zero", [np.float32(0), np.float32(1), np.int32(0)], "Requires num > 0: 0"),
        ("num_negative", [np.float32(0), np.float32(1), np.int64(-2)], "Requires num > 0: -2"),
        ("start_vector", [np.array([0.0], np.float32), np.float32(1), np.int32(3)],
         "start must be a scalar, not shape [1]"),
        ("stop_vector", [np.float32(0), np.array([1.0], np.float32), np.int32(3)],
         "stop must be a scalar, not shape [1]"),
        ("num_vector", [np.float32(0), np.float32(1), np.array([3], np.int32)],
         "num must be a scalar, not shape [1]")]:
    cases.add(f"LinSpace_error_{name}", lambda a, b, c: raw.LinSpace(start=a, stop=b, num=c),
              args, expect_code=INVALID_ARGUMENT, message_contains=[msg])

BOUNDARIES = [-5.0, -1.0, 0.0, 0.5, 2.0, 2.0, 7.25, 100.0]
for dtype in NUMBERS:
    data = (np.concatenate([values((40,), dtype, -10, 10),
                            np.array(BOUNDARIES, np.float64).astype(dtype)])
            if dtype in FLOATS else values((40,), dtype, -10, 10))
    cases.add(f"Bucketize_{dname(dtype)}", lambda x: raw.Bucketize(input=x, boundaries=BOUNDARIES),
              [data.reshape(6, -1) if data.size % 6 == 0 else data])
    cases.add(f"Bucketize_{dname(dtype)}_no_boundaries",
              lambda x: raw.Bucketize(input=x, boundaries=[]), [values((3,), dtype)])
cases.add("Bucketize_nan_inf", lambda x: raw.Bucketize(input=x, boundaries=BOUNDARIES),
          [np.array([np.nan, np.inf, -np.inf, -0.0], np.float32)])
cases.add("Bucketize_empty", lambda x: raw.Bucketize(input=x, boundaries=BOUNDARIES),
          [np.zeros((0, 3), np.float32)])
cases.add("Bucketize_unsorted", lambda x: raw.Bucketize(input=x, boundaries=[1.0, 0.0]),
          [np.array([1.0], np.float32)], expect_code=INVALID_ARGUMENT,
          message_contains=["Expected sorted boundaries"])

for index_type in [np.int32, np.int64]:
    preds = rng.integers(-2, 3, size=(30, 6)).astype(np.float32)  # many ties
    preds[3, 2] = np.nan
    preds[4, 1] = np.inf
    preds[5, 0] = -np.inf
    targets = rng.integers(0, 6, size=30).astype(index_type)
    targets[7] = 6
    targets[8] = -1
    targets[3], targets[4], targets[5] = 2, 3, 0
    for k in [-1, 0, 1, 2, 5, 6, 9]:
        cases.add(f"InTopKV2_{dname(index_type)}_k{k}",
                  lambda p, t, k_: raw.InTopKV2(predictions=p, targets=t, k=k_),
                  [preds, targets, np.array(k, index_type)])
    cases.add(f"InTopKV2_{dname(index_type)}_empty",
              lambda p, t, k_: raw.InTopKV2(predictions=p, targets=t, k=k_),
              [np.zeros((0, 3), np.float32), np.zeros((0,), index_type),
               np.array(1, index_type)])
for name, args, msg in [
        ("batch_mismatch", [values((1, 3), np.float32), np.array([0, 1], np.int32),
                            np.int32(1)],
         "First dimension of predictions 1 must match length of targets 2"),
        ("predictions_1d", [values((3,), np.float32), np.array([0], np.int32), np.int32(1)],
         "predictions must be 2-dimensional"),
        ("targets_2d", [values((1, 3), np.float32), np.array([[0]], np.int32), np.int32(1)],
         "targets must be 1-dimensional"),
        ("k_vector", [values((1, 3), np.float32), np.array([0], np.int32),
                      np.array([1], np.int32)], "k must be 0-D, got shape [1]")]:
    cases.add(f"InTopKV2_error_{name}",
              lambda p, t, k_: raw.InTopKV2(predictions=p, targets=t, k=k_), args,
              expect_code=INVALID_ARGUMENT, message_contains=[msg])

for op in ["CheckNumerics", "CheckNumericsV2"]:
    fn = getattr(raw, op)
    for dtype in FLOATS + LOW_PRECISION:
        cases.add(f"{op}_{dname(dtype)}_finite", lambda x, fn=fn: fn(tensor=x, message="m"),
                  [values((3, 4), np.float32).astype(dtype)], **EXACT)
        cases.add(f"{op}_{dname(dtype)}_empty", lambda x, fn=fn: fn(tensor=x, message="m"),
                  [np.zeros((0,), dtype)])
    for i, v in enumerate([[np.inf], [-np.inf], [np.nan], [np.inf, -np.inf],
                           [1.0, np.inf, np.nan], [np.nan, np.inf, -np.inf, 2.0],
                           [-np.inf, np.nan]]):
        v1 = {(True, True): "Inf and NaN", (True, False): "Inf", (False, True): "NaN"}
        has_inf = any(np.isinf(v))
        has_nan = any(np.isnan(v))
        if op == "CheckNumerics":
            what = v1[(has_inf, has_nan)]
        else:
            found = [s for s, c in [("-Inf", -np.inf in v), ("+Inf", np.inf in v),
                                    ("NaN", has_nan)] if c]
            what = (found[0] if len(found) == 1 else " and ".join(found) if len(found) == 2
                    else f"{found[0]}, {found[1]}, and {found[2]}")
        cases.add(f"{op}_bad_{i}", lambda x, fn=fn: fn(tensor=x, message="layer_7/grad"),
                  [np.array(v, np.float32)], expect_code=INVALID_ARGUMENT,
                  message_contains=[f"layer_7/grad : Tensor had {what} values"])

# ---- BatchMatMul (V1), BatchMatMulV3, Einsum and Qr in more types -----------------
# V1 is V2 without broadcasting: the same products, and TensorFlow's own
# refusals of what V2 would broadcast.
V1_TYPES = NUMBERS + LOW_PRECISION
for dtype in V1_TYPES:
    n = dname(dtype)
    tol = (low_precision_tol(dtype, ulps=2) if dtype in LOW_PRECISION else
           dict(rtol=1e-5, atol=1e-5) if dtype == np.float32 else {})
    for adj_x in [False, True]:
        for adj_y in [False, True]:
            sx = (2, 4, 3) if adj_x else (2, 3, 4)
            sy = (2, 5, 4) if adj_y else (2, 4, 5)
            cases.add(f"BatchMatMul_{n}_adj{int(adj_x)}{int(adj_y)}",
                      lambda x, y, ax=adj_x, ay=adj_y: raw.BatchMatMul(
                          x=x, y=y, adj_x=ax, adj_y=ay),
                      [values(sx, np.float32 if dtype in LOW_PRECISION else dtype,
                              -3, 3).astype(dtype),
                       values(sy, np.float32 if dtype in LOW_PRECISION else dtype,
                              -3, 3).astype(dtype)], **tol)
cases.add("BatchMatMul_matrices", lambda x, y: raw.BatchMatMul(x=x, y=y),
          [values((3, 4), np.float64), values((4, 5), np.float64)])
cases.add("BatchMatMul_rank4", lambda x, y: raw.BatchMatMul(x=x, y=y),
          [values((2, 3, 4, 5), np.float64), values((2, 3, 5, 2), np.float64)])
cases.add("BatchMatMul_empty_batch", lambda x, y: raw.BatchMatMul(x=x, y=y),
          [np.zeros((0, 3, 4), np.float32), np.zeros((0, 4, 2), np.float32)])
cases.add("BatchMatMul_no_broadcast_of_1", lambda x, y: raw.BatchMatMul(x=x, y=y),
          [values((1, 3, 4), np.float32), values((2, 4, 5), np.float32)],
          expect_code=INVALID_ARGUMENT,
          message_contains=["In[0].dim(0) and In[1].dim(0) must be the same"])
cases.add("BatchMatMul_ranks_differ", lambda x, y: raw.BatchMatMul(x=x, y=y),
          [values((2, 3, 4), np.float32), values((4, 5), np.float32)],
          expect_code=INVALID_ARGUMENT, message_contains=["different ndims"])
cases.add("BatchMatMul_inner_mismatch", lambda x, y: raw.BatchMatMul(x=x, y=y),
          [values((2, 3, 4), np.float32), values((2, 5, 5), np.float32)],
          expect_code=INVALID_ARGUMENT)

# V3: every CPU registration of TensorFlow's (one type throughout, or 8-bit
# integers into int32 / bfloat16), broadcasting as V2. An 8-bit integer times
# a bfloat16 may round once more on TensorFlow's side: a bfloat16 ulp apart
# (positive bfloat16 values, so that no sum cancels to below its terms' ulp).
V3_SAME = [np.float32, np.float64, np.int16, np.int32, np.int64, BF16]
for dtype in V3_SAME:
    n = dname(dtype)
    tol = (low_precision_tol(dtype, ulps=2) if dtype == BF16 else
           dict(rtol=1e-5, atol=1e-5) if dtype == np.float32 else {})
    src = np.float32 if dtype == BF16 else dtype
    cases.add(f"BatchMatMulV3_{n}",
              lambda x, y, t=dtype: raw.BatchMatMulV3(x=x, y=y, Tout=tf.as_dtype(t)),
              [values((2, 1, 3, 4), src, -3, 3).astype(dtype),
               values((5, 4, 2), src, -3, 3).astype(dtype)], **tol)
for ta in [np.int8, np.uint8]:
    for tb in [np.int8, np.uint8]:
        lo_a, lo_b = (-128 if ta == np.int8 else 0), (-128 if tb == np.int8 else 0)
        cases.add(f"BatchMatMulV3_{dname(ta)}_{dname(tb)}_to_int32",
                  lambda x, y: raw.BatchMatMulV3(x=x, y=y, Tout=tf.int32, adj_y=True),
                  [rng.integers(lo_a, 128, size=(3, 4, 16)).astype(ta),
                   rng.integers(lo_b, 128, size=(3, 5, 16)).astype(tb)])
    cases.add(f"BatchMatMulV3_{dname(ta)}_bfloat16",
              lambda x, y: raw.BatchMatMulV3(x=x, y=y, Tout=tf.bfloat16),
              [rng.integers(0, 100, size=(2, 3, 4)).astype(ta),
               values((2, 4, 3), np.float32, 0.1, 2).astype(BF16)],
              **low_precision_tol(BF16, ulps=4))
    cases.add(f"BatchMatMulV3_bfloat16_{dname(ta)}",
              lambda x, y: raw.BatchMatMulV3(x=x, y=y, Tout=tf.bfloat16, adj_x=True),
              [values((4, 3), np.float32, 0.1, 2).astype(BF16),
               rng.integers(0, 100, size=(4, 2)).astype(ta)],
              **low_precision_tol(BF16, ulps=4))
cases.add("BatchMatMulV3_batch_mismatch",
          lambda x, y: raw.BatchMatMulV3(x=x, y=y, Tout=tf.float32),
          [values((2, 3, 4), np.float32), values((3, 4, 5), np.float32)],
          expect_code=INVALID_ARGUMENT, message_contains=["[2,3,4]", "[3,4,5]"])

# Einsum in half and bfloat16 (Keras mixed precision's attention and
# EinsumDense): contractions and sums of private labels widen to float.
EINSUM_LOW = [("abc,cde->abde", [(2, 3, 4), (4, 2, 5)]),
              ("aecd,abcd->acbe", [(2, 3, 2, 4), (2, 5, 2, 4)]),
              ("acbe,aecd->abcd", [(2, 2, 5, 3), (2, 3, 2, 4)]),
              ("ijk->k", [(4, 6, 3)]),
              ("ij,jk->ki", [(3, 8), (8, 5)]),
              ("bij,bkj->bik", [(2, 3, 4), (2, 5, 4)])]
# A sum that cancels is off by a few ulps of its largest terms (products up
# to 4 here) rather than of the result, as each side rounds partial sums
# differently: atol two ulps of 4 in the type.
EINSUM_ATOL = {np.float16: 1e-2, BF16: 6e-2}
for dtype in LOW_PRECISION:
    for i, (eq, shapes) in enumerate(EINSUM_LOW):
        cases.add(f"Einsum_{dname(dtype)}_{i}",
                  lambda *xs, eq=eq: raw.Einsum(inputs=list(xs), equation=eq),
                  [values(sh, np.float32, -2, 2).astype(dtype) for sh in shapes],
                  rtol=low_precision_tol(dtype, ulps=4)["rtol"], atol=EINSUM_ATOL[dtype])

# Qr: Eigen's Householder QR on both sides (half as TensorFlow registers it).
for dtype, tol in [(np.float32, dict(rtol=1e-4, atol=1e-5)), (np.float64, {}),
                   (np.float16, dict(rtol=2e-2, atol=2e-2))]:
    for full in [False, True]:
        for shape in [(4, 3), (3, 5), (2, 4, 4)]:
            cases.add(f"Qr_{dname(dtype)}_{'x'.join(map(str, shape))}_full{int(full)}",
                      lambda a, full=full: raw.Qr(input=a, full_matrices=full),
                      [values(shape, np.float32, -2, 2).astype(dtype)], **tol)

# Denormals: TensorFlow runs kernels with flush-to-zero and
# denormals-are-zero, and so do we (common/framework/flush_denormal.h).
DENORMAL_INPUTS = np.array([1e-40, -1e-39, 1e-30, 1.0, 1e-45], np.float32)
cases.add("Mul_denormal_result_flushed", lambda x, y: raw.Mul(x=x, y=y),
          [np.array([1e-30, -1e-25, 1e-20, 3.0, 1e-19], np.float32),
           np.array([1e-10, 1e-14, 1e-19, 2.0, 1e-19], np.float32)], **EXACT)
cases.add("AddV2_denormal_input_as_zero", lambda x, y: raw.AddV2(x=x, y=y),
          [DENORMAL_INPUTS, np.zeros(5, np.float32)], **EXACT)
cases.add("Exp_denormal_result_flushed", lambda x: raw.Exp(x=x),
          [np.array([-100.0, -88.0, -87.0, -103.0, 0.0], np.float32)], **EXACT)
cases.add("Mul_denormal_double", lambda x, y: raw.Mul(x=x, y=y),
          [np.array([1e-300, 1e-310, 2.0], np.float64),
           np.array([1e-10, 1.0, 3.0], np.float64)], **EXACT)

MathOracleTest = tf_oracle.make_test_class("kernels/math/run_math_cases", cases)
