"""complex64 / complex128 math kernels against live TensorFlow.

Each case builds one op with tf.raw_ops on fed Placeholders, runs it in
TensorFlow and through //kernels/math:run_complex_cases, and compares
(tf_oracle compares complex outputs as |ours - TF| <= atol + rtol * |TF|,
with NaN parts in the same places).

Tolerances. EXACT (rtol = atol = 0) where both sides do the same IEEE
operations on each part: Complex, Real, Imag, Conj, Neg, Add/Sub, casts,
Select, the comparisons, AddN. Everything else uses the dtype default
(complex64 rtol = atol = 1e-6, complex128 1e-12; tf_oracle.TOLERANCES) or a
looser bound stated at the case: complex products and quotients may be
evaluated with or without FMA and with different division formulas (our
build is -march=native, TensorFlow's wheel is not), the transcendental
functions go through libstdc++/Eigen on our side and TensorFlow's (newer)
Eigen on its, and sums/products/contractions may associate differently.
"""
import sys

sys.path.insert(0, "kernels/testing")  # cwd is the runfiles root

import numpy as np  # noqa: E402

import tf_oracle  # noqa: E402
from tf_oracle import tf  # noqa: E402

raw = tf.raw_ops
cases = tf_oracle.Cases()
rng = np.random.default_rng(4321)

COMPLEX = [np.complex64, np.complex128]
PART = {np.complex64: np.float32, np.complex128: np.float64}
TF_DTYPE = {np.complex64: tf.complex64, np.complex128: tf.complex128,
            np.float32: tf.float32, np.float64: tf.float64}
INVALID_ARGUMENT = 3
EXACT = dict(rtol=0, atol=0)
# Several roundings on each side with possibly different formulas (FMA,
# complex division, accumulation order): a few float ulps of the modulus.
PRODUCT = {np.complex64: dict(rtol=1e-5, atol=1e-5),
           np.complex128: dict(rtol=1e-12, atol=1e-12)}


def dname(dtype):
    return np.dtype(dtype).name


def cvalues(shape, dtype, low=-3, high=3, nonzero=False):
    """Deterministic complex test data; nonzero keeps |x| >= 0.5."""
    part = PART[dtype]
    v = (rng.uniform(low, high, size=shape).astype(part) +
         1j * rng.uniform(low, high, size=shape).astype(part)).astype(dtype)
    if nonzero:
        v = np.where(np.abs(v) < 0.5, dtype(1.5 - 0.5j), v).astype(dtype)
    return np.asarray(v, dtype)


def rvalues(shape, dtype, low=-3, high=3):
    return np.asarray(rng.uniform(low, high, size=shape).astype(dtype))


def special(dtype):
    """Zeros, signed zeros, infinities and NaNs in either part.

    Eight elements, a whole number of SIMD packets for every width: for
    inf/NaN, TensorFlow's own result depends on whether an element falls in a
    packet (Eigen's textbook complex product and quotient: x / 0 has NaN
    parts) or in the scalar tail after the last packet (libstdc++'s C99
    Annex G recovery: x / 0 is infinite). Our complex kernels use the
    textbook formulas for every element (-fcx-limited-range, BUILD.bazel),
    so the special-value cases keep to whole packets.
    """
    part = PART[dtype]
    re = np.array([0.0, -0.0, 1.0, np.inf, -np.inf, np.nan, 2.0, 0.0], part)
    im = np.array([0.0, 0.0, -0.0, 1.0, 0.0, 1.0, np.inf, np.nan], part)
    v = np.empty(re.shape, dtype)
    v.real, v.imag = re, im
    return v


BCAST_SHAPES = [
    ((2, 3), (2, 3)),
    ((2, 3), ()),
    ((), (2, 3)),
    ((), ()),
    ((2, 3), (3,)),
    ((3, 1), (1, 4)),
    ((4, 1, 3), (2, 1)),
    ((0, 3), (3,)),
    ((2, 1, 3, 1, 2), (1, 4, 1, 5, 1)),
]


def shape_name(s):
    return "x".join(map(str, s)) or "scalar"


# ---- Complex, Real, Imag, Angle, ComplexAbs, Conj ----------------------------
for cdtype in COMPLEX:
    part = PART[cdtype]
    tout = TF_DTYPE[cdtype]
    for sx, sy in BCAST_SHAPES:
        cases.add(f"Complex_{dname(cdtype)}_{shape_name(sx)}_{shape_name(sy)}",
                  lambda a, b, tout=tout: raw.Complex(real=a, imag=b, Tout=tout),
                  [rvalues(sx, part), rvalues(sy, part)], **EXACT)
    cases.add(f"Complex_{dname(cdtype)}_incompatible",
              lambda a, b, tout=tout: raw.Complex(real=a, imag=b, Tout=tout),
              [rvalues((2, 3), part), rvalues((4,), part)],
              expect_code=INVALID_ARGUMENT, message_contains=["[2,3]", "[4]"])
    cases.add(f"Complex_{dname(cdtype)}_special",
              lambda a, b, tout=tout: raw.Complex(real=a, imag=b, Tout=tout),
              [special(cdtype).real.copy(), special(cdtype).imag.copy()], **EXACT)
    tpart = TF_DTYPE[part]
    for op in ["Real", "Imag", "Angle", "ComplexAbs"]:
        fn = getattr(raw, op)
        arg = "x" if op == "ComplexAbs" else "input"
        exact = op in ("Real", "Imag")
        for name, value in [("3x4", cvalues((3, 4), cdtype)),
                            ("scalar", cvalues((), cdtype)),
                            ("empty", cvalues((0, 2), cdtype)),
                            ("special", special(cdtype))]:
            cases.add(f"{op}_{dname(cdtype)}_{name}",
                      lambda a, fn=fn, arg=arg, tpart=tpart:
                          fn(**{arg: a, "Tout": tpart}),
                      [value], **(EXACT if exact else {}))
    for name, value in [("3x4", cvalues((3, 4), cdtype)),
                        ("scalar", cvalues((), cdtype)),
                        ("empty", cvalues((0, 2), cdtype)),
                        ("special", special(cdtype))]:
        cases.add(f"Conj_{dname(cdtype)}_{name}", lambda a: raw.Conj(input=a),
                  [value], **EXACT)
# (A Tout that does not go with T, e.g. float -> complex128, fails at kernel
# lookup on both sides; TensorFlow reports INVALID_ARGUMENT, our executor
# NOT_FOUND for any missing kernel, so that case is not compared here.)
# ComplexAbs is registered on T only: the kernel's signature check refuses.
cases.add("ComplexAbs_complex64_to_float64",
          lambda a: raw.ComplexAbs(x=a, Tout=tf.float64),
          [cvalues((2,), np.complex64)])
cases.add("Conj_defaults", lambda a: raw.Conj(input=a),
          [tf_oracle.Const(cvalues((3,), np.complex64))], **EXACT)


# ---- Binary elementwise -------------------------------------------------------
def add_binary(op, make=None, shapes=BCAST_SHAPES, tol=None):
    fn = getattr(raw, op)
    for dtype in COMPLEX:
        opts = tol(dtype) if callable(tol) else (tol or {})
        for sx, sy in shapes:
            x, y = (make(sx, sy, dtype) if make else
                    (cvalues(sx, dtype), cvalues(sy, dtype)))
            cases.add(f"{op}_{dname(dtype)}_{shape_name(sx)}_{shape_name(sy)}",
                      lambda a, b, fn=fn: fn(x=a, y=b), [x, y], **opts)
        cases.add(f"{op}_{dname(dtype)}_incompatible",
                  lambda a, b, fn=fn: fn(x=a, y=b),
                  [cvalues((2, 3), dtype, nonzero=True),
                   cvalues((4,), dtype, nonzero=True)],
                  expect_code=INVALID_ARGUMENT, message_contains=["[2,3]", "[4]"])


def nonzero_divisor(sx, sy, dtype):
    return cvalues(sx, dtype), cvalues(sy, dtype, nonzero=True)


def with_zeros(sx, sy, dtype):
    """Some exact zeros in both operands (the zero-guarded ops)."""
    x, y = cvalues(sx, dtype, nonzero=True), cvalues(sy, dtype, nonzero=True)
    x = np.where(rng.uniform(size=sx) < 0.3, dtype(0), x).astype(dtype)
    y = np.where(rng.uniform(size=sy) < 0.3, dtype(0), y).astype(dtype)
    return np.asarray(x, dtype), np.asarray(y, dtype)


def small_set(sx, sy, dtype):
    """Values from a small set, so equal elements occur."""
    pool = np.array([0, 1, 1j, 1 + 1j, -1], dtype)
    return (pool[rng.integers(0, len(pool), size=sx)],
            pool[rng.integers(0, len(pool), size=sy)])


def pow_inputs(sx, sy, dtype):
    return cvalues(sx, dtype, -2, 2, nonzero=True), cvalues(sy, dtype, -1.5, 1.5)


for op in ["Add", "AddV2", "Sub"]:
    add_binary(op, tol=EXACT)
# A complex product is 2 multiplies and an add per part; with FMA (ours,
# -march=native) one of them is not rounded separately.
add_binary("Mul", tol=lambda d: PRODUCT[d])
add_binary("Div", nonzero_divisor, tol=lambda d: PRODUCT[d])
add_binary("RealDiv", nonzero_divisor, tol=lambda d: PRODUCT[d])
add_binary("SquaredDifference", tol=lambda d: PRODUCT[d])
add_binary("Pow", pow_inputs, tol=lambda d: PRODUCT[d])
add_binary("DivNoNan", with_zeros, tol=lambda d: PRODUCT[d])
add_binary("MulNoNan", with_zeros, tol=lambda d: PRODUCT[d])
add_binary("Xdivy", with_zeros, tol=lambda d: PRODUCT[d])
add_binary("Xlogy", with_zeros, tol=lambda d: PRODUCT[d])
add_binary("Xlog1py", with_zeros, tol=lambda d: PRODUCT[d])
for op in ["Equal", "NotEqual"]:
    add_binary(op, small_set)
    fn = getattr(raw, op)
    cases.add(f"{op}_complex64_no_incompatible_shape_error",
              lambda a, b, fn=fn: fn(x=a, y=b, incompatible_shape_error=False),
              [cvalues((2, 3), np.complex64), cvalues((4,), np.complex64)])
for dtype in COMPLEX:
    s = special(dtype)
    # Zero and non-finite operands; the zero-guarded ops must give 0 where
    # the guard holds even against inf/NaN on the other side.
    for op in ["Add", "Sub", "Equal", "NotEqual"]:
        fn = getattr(raw, op)
        cases.add(f"{op}_{dname(dtype)}_special", lambda a, b, fn=fn: fn(x=a, y=b),
                  [s, s[::-1].copy()], **EXACT)
    # Non-finite and zero operands of the products and quotients: textbook
    # formulas on both sides (x / 0 and 0 * inf have NaN parts), odd sizes so
    # that the elements past the last SIMD packet are covered too.
    for op in ["Mul", "Div", "RealDiv", "Xlog1py", "Pow"]:
        fn = getattr(raw, op)
        cases.add(f"{op}_{dname(dtype)}_special", lambda a, b, fn=fn: fn(x=a, y=b),
                  [s, s[::-1].copy()], **PRODUCT[dtype])
        cases.add(f"{op}_{dname(dtype)}_special_by_zero",
                  lambda a, b, fn=fn: fn(x=a, y=b),
                  [s, np.zeros(s.shape, dtype)], **PRODUCT[dtype])
    # (Not Sigmoid: TensorFlow's newer Eigen evaluates complex exp in
    # packets, Eigen 3.4 element by element; exp(inf) differs in NaN parts.)
    for op in ["Reciprocal", "Square"]:
        fn = getattr(raw, op)
        cases.add(f"{op}_{dname(dtype)}_special", lambda a, fn=fn: fn(x=a),
                  [np.concatenate([s, np.zeros(8, dtype)])], **PRODUCT[dtype])
    for op in ["DivNoNan", "MulNoNan", "Xdivy", "Xlogy"]:
        fn = getattr(raw, op)
        zeros = np.zeros(s.shape, dtype)
        cases.add(f"{op}_{dname(dtype)}_zero_x", lambda a, b, fn=fn: fn(x=a, y=b),
                  [zeros, s], **EXACT)
        cases.add(f"{op}_{dname(dtype)}_zero_y", lambda a, b, fn=fn: fn(x=a, y=b),
                  [s, zeros])

# ---- Unary elementwise ----------------------------------------------------------
# Inputs kept where the functions are well conditioned (|re|, |im| < 3, away
# from branch points), so a relative bound on the modulus is meaningful.
UNARY = {
    "Neg": dict(tol=EXACT),
    "Square": dict(tol=PRODUCT),
    "Sqrt": {},
    "Rsqrt": dict(nonzero=True),
    "Reciprocal": dict(nonzero=True, tol=PRODUCT),
    "Inv": dict(nonzero=True, tol=PRODUCT),
    "Exp": {},
    "Log": dict(nonzero=True),
    "Log1p": {},
    "Expm1": {},
    "Sin": {},
    "Cos": {},
    "Tan": dict(low=-1, high=1),
    "Tanh": dict(low=-1, high=1),
    "Sigmoid": dict(low=-1, high=1),
    "Sinh": {},
    "Cosh": {},
    "Asin": {},
    "Acos": {},
    "Atan": dict(low=-0.8, high=0.8),
    "Asinh": {},
    "Acosh": dict(nonzero=True),
    "Atanh": dict(low=-0.8, high=0.8),
    "Sign": dict(tol=PRODUCT),
}
for op, args in UNARY.items():
    fn = getattr(raw, op)
    args = dict(args)
    tol = args.pop("tol", {})
    for dtype in COMPLEX:
        opts = tol.get(dtype, tol) if tol is PRODUCT else tol
        for shape in [(), (200,), (3, 4), (0, 2)]:
            cases.add(f"{op}_{dname(dtype)}_{shape_name(shape)}",
                      lambda a, fn=fn: fn(x=a), [cvalues(shape, dtype, **args)],
                      **opts)
for dtype in COMPLEX:
    cases.add(f"Sign_{dname(dtype)}_zero_and_axes",
              lambda a: raw.Sign(x=a),
              [np.array([0, 3 + 4j, -2, 5j, -0.0], dtype)], **PRODUCT[dtype])
    cases.add(f"Sqrt_{dname(dtype)}_negative_real",
              lambda a: raw.Sqrt(x=a), [np.array([-4, -1 + 0j, 0, 4], dtype)])

# ---- Gradients -------------------------------------------------------------------
# SqrtGrad, RsqrtGrad, ReciprocalGrad/InvGrad conjugate y in the kernel;
# TanhGrad and SigmoidGrad do not (TensorFlow's Python gradient does).
for op in ["SqrtGrad", "RsqrtGrad", "ReciprocalGrad", "InvGrad", "TanhGrad",
           "SigmoidGrad"]:
    fn = getattr(raw, op)
    for dtype in COMPLEX:
        y = cvalues((3, 5), dtype, nonzero=True)
        dy = cvalues((3, 5), dtype)
        dy[0, :2] = 0
        cases.add(f"{op}_{dname(dtype)}", lambda a, b, fn=fn: fn(y=a, dy=b),
                  [y, dy], **PRODUCT[dtype])
        cases.add(f"{op}_{dname(dtype)}_reshaped",
                  lambda a, b, fn=fn: fn(y=a, dy=b),
                  [cvalues((2, 3), dtype, nonzero=True), cvalues((6,), dtype)],
                  **PRODUCT[dtype])
        cases.add(f"{op}_{dname(dtype)}_count_mismatch",
                  lambda a, b, fn=fn: fn(y=a, dy=b),
                  [cvalues((2, 3), dtype), cvalues((4,), dtype)],
                  expect_code=INVALID_ARGUMENT,
                  message_contains=["same number of elements"])
    if op in ("SqrtGrad", "RsqrtGrad", "ReciprocalGrad"):
        # dy == 0 gives 0 even where y is infinite or NaN.
        s = special(np.complex128)
        cases.add(f"{op}_complex128_zero_dy", lambda a, b, fn=fn: fn(y=a, dy=b),
                  [s, np.zeros(s.shape, np.complex128)], **EXACT)

# ---- Cast ------------------------------------------------------------------------
REAL_TYPES = [np.float32, np.float64, np.float16, tf.bfloat16.as_numpy_dtype,
              np.int32, np.int64, np.int8, np.int16, np.uint8, np.uint16,
              np.uint32, np.uint64, np.bool_]
for cdtype in COMPLEX:
    tc = TF_DTYPE[cdtype]
    for rdtype in REAL_TYPES:
        unsigned = np.issubdtype(rdtype, np.unsignedinteger)
        lo, hi = (0, 100) if unsigned else (-100, 100)
        src = cvalues((3, 4), cdtype, lo, hi)
        src[0, 0] = 0.25j  # real part 0: bool False although x != 0
        src[0, 1] = 0
        cases.add(f"Cast_{dname(cdtype)}_to_{tf.as_dtype(rdtype).name}",
                  lambda a, d=tf.as_dtype(rdtype): raw.Cast(x=a, DstT=d),
                  [src], **EXACT)
        if rdtype == np.bool_:
            r = rng.integers(0, 2, size=(3, 4)).astype(np.bool_)
        elif np.issubdtype(rdtype, np.integer):
            r = rng.integers(lo, hi, size=(3, 4)).astype(rdtype)
        else:
            r = rng.uniform(-100, 100, size=(3, 4)).astype(rdtype)
        cases.add(f"Cast_{tf.as_dtype(rdtype).name}_to_{dname(cdtype)}",
                  lambda a, tc=tc: raw.Cast(x=a, DstT=tc), [r], **EXACT)
    other = np.complex128 if cdtype == np.complex64 else np.complex64
    cases.add(f"Cast_{dname(cdtype)}_to_{dname(other)}",
              lambda a, d=TF_DTYPE[other]: raw.Cast(x=a, DstT=d),
              [np.concatenate([cvalues((5,), cdtype, -1e3, 1e3),
                               special(cdtype)])], **EXACT)
    cases.add(f"Cast_{dname(cdtype)}_to_itself",
              lambda a, tc=tc: raw.Cast(x=a, DstT=tc), [special(cdtype)], **EXACT)
    cases.add(f"Cast_{dname(cdtype)}_special_to_float32",
              lambda a: raw.Cast(x=a, DstT=tf.float32), [special(cdtype)], **EXACT)

# ---- Reductions ------------------------------------------------------------------
REDUCE_AXES = [
    ((3, 4), [0]), ((3, 4), [1]), ((3, 4), [0, 1]), ((3, 4), []),
    ((2, 3, 4), [1]), ((2, 3, 4), [0, 2]), ((2, 3, 4, 5), [1, 3]),
    ((2, 3, 4), [-1]), ((5,), [0]), ((0, 3), [0]), ((3, 0), [1]),
]
for op in ["Sum", "Mean", "Prod"]:
    fn = getattr(raw, op)
    for dtype in COMPLEX:
        for shape, axes in REDUCE_AXES:
            for keep in [False, True]:
                low, high = (-1.2, 1.2) if op == "Prod" else (-3, 3)
                axes_name = "_".join(str(a) for a in axes) or "none"
                cases.add(f"{op}_{dname(dtype)}_{shape_name(shape)}_axes_{axes_name}"
                          f"{'_keep' if keep else ''}",
                          lambda a, ax, fn=fn, keep=keep:
                              fn(input=a, axis=ax, keep_dims=keep),
                          [cvalues(shape, dtype, low, high),
                           np.array(axes, np.int32)], **PRODUCT[dtype])
        cases.add(f"{op}_{dname(dtype)}_int64_axes",
                  lambda a, ax, fn=fn: fn(input=a, axis=ax),
                  [cvalues((2, 3), dtype), np.array([1], np.int64)],
                  **PRODUCT[dtype])
        cases.add(f"{op}_{dname(dtype)}_bad_axis",
                  lambda a, ax, fn=fn: fn(input=a, axis=ax),
                  [cvalues((2, 3), dtype), np.array([2], np.int32)],
                  expect_code=INVALID_ARGUMENT)

# ---- AddN ------------------------------------------------------------------------
for dtype in COMPLEX:
    for n in [1, 2, 3, 5]:
        cases.add(f"AddN_{dname(dtype)}_{n}",
                  lambda *xs: raw.AddN(inputs=list(xs)),
                  [cvalues((3, 4), dtype) for _ in range(n)], **EXACT)
    cases.add(f"AddN_{dname(dtype)}_shape_mismatch",
              lambda a, b: raw.AddN(inputs=[a, b]),
              [cvalues((3, 4), dtype), cvalues((4, 3), dtype)],
              expect_code=INVALID_ARGUMENT)

# ---- MatMul, BatchMatMulV2 -------------------------------------------------------
# Contractions accumulate k products in an order Eigen picks by blocking.
for dtype in COMPLEX:
    for ta in [False, True]:
        for tb in [False, True]:
            a = cvalues((4, 3) if ta else (3, 4), dtype)
            b = cvalues((5, 4) if tb else (4, 5), dtype)
            cases.add(f"MatMul_{dname(dtype)}_ta{int(ta)}_tb{int(tb)}",
                      lambda x, y, ta=ta, tb=tb:
                          raw.MatMul(a=x, b=y, transpose_a=ta, transpose_b=tb),
                      [a, b], **PRODUCT[dtype])
    cases.add(f"MatMul_{dname(dtype)}_large",
              lambda x, y: raw.MatMul(a=x, b=y),
              [cvalues((70, 90), dtype, -1, 1), cvalues((90, 60), dtype, -1, 1)],
              **PRODUCT[dtype])
    cases.add(f"MatMul_{dname(dtype)}_empty_inner",
              lambda x, y: raw.MatMul(a=x, b=y),
              [cvalues((3, 0), dtype), cvalues((0, 2), dtype)], **EXACT)
    cases.add(f"MatMul_{dname(dtype)}_incompatible",
              lambda x, y: raw.MatMul(a=x, b=y),
              [cvalues((3, 4), dtype), cvalues((5, 2), dtype)],
              expect_code=INVALID_ARGUMENT, message_contains=["Matrix size-incompatible"])
    for ax in [False, True]:
        for ay in [False, True]:
            x = cvalues((2, 4, 3) if ax else (2, 3, 4), dtype)
            y = cvalues((1, 5, 4) if ay else (1, 4, 5), dtype)
            cases.add(f"BatchMatMulV2_{dname(dtype)}_adjx{int(ax)}_adjy{int(ay)}",
                      lambda p, q, ax=ax, ay=ay:
                          raw.BatchMatMulV2(x=p, y=q, adj_x=ax, adj_y=ay),
                      [x, y], **PRODUCT[dtype])
    cases.add(f"BatchMatMulV2_{dname(dtype)}_broadcast_adj",
              lambda p, q: raw.BatchMatMulV2(x=p, y=q, adj_x=True, adj_y=True),
              [cvalues((3, 1, 4, 2), dtype), cvalues((5, 3, 4), dtype)],
              **PRODUCT[dtype])
    cases.add(f"BatchMatMulV2_{dname(dtype)}_many_batches",
              lambda p, q: raw.BatchMatMulV2(x=p, y=q, adj_y=True),
              [cvalues((40, 3, 4), dtype), cvalues((40, 2, 4), dtype)],
              **PRODUCT[dtype])
    cases.add(f"BatchMatMulV2_{dname(dtype)}_incompatible",
              lambda p, q: raw.BatchMatMulV2(x=p, y=q),
              [cvalues((2, 3, 4), dtype), cvalues((3, 4, 5), dtype)],
              expect_code=INVALID_ARGUMENT)

# ---- BatchMatMul (V1), BatchMatMulV3, Einsum, Qr, ClipByValue --------------------
for dtype in COMPLEX:
    n = dname(dtype)
    cases.add(f"BatchMatMul_{n}_adj",
              lambda p, q: raw.BatchMatMul(x=p, y=q, adj_x=True, adj_y=True),
              [cvalues((3, 4, 2), dtype), cvalues((3, 5, 4), dtype)], **PRODUCT[dtype])
    cases.add(f"BatchMatMul_{n}_no_broadcast",
              lambda p, q: raw.BatchMatMul(x=p, y=q),
              [cvalues((1, 3, 4), dtype), cvalues((2, 4, 5), dtype)],
              expect_code=INVALID_ARGUMENT)
    cases.add(f"BatchMatMulV3_{n}",
              lambda p, q, t=dtype: raw.BatchMatMulV3(x=p, y=q, Tout=TF_DTYPE[t],
                                                      adj_y=True),
              [cvalues((2, 1, 3, 4), dtype), cvalues((5, 2, 4), dtype)], **PRODUCT[dtype])
    for i, (eq, shapes) in enumerate([("abc,cde->abde", [(2, 3, 4), (4, 2, 5)]),
                                      ("aecd,abcd->acbe", [(2, 3, 2, 4), (2, 5, 2, 4)]),
                                      ("ij,ij->i", [(3, 4), (3, 4)]),
                                      ("ijk->ki", [(2, 3, 4)]),
                                      ("ii->i", [(3, 3)])]):
        cases.add(f"Einsum_{n}_{i}",
                  lambda *xs, eq=eq: raw.Einsum(inputs=list(xs), equation=eq),
                  [cvalues(sh, dtype) for sh in shapes], **PRODUCT[dtype])
    for full in [False, True]:
        for shape in [(4, 3), (3, 5), (2, 4, 4)]:
            cases.add(f"Qr_{n}_{'x'.join(map(str, shape))}_full{int(full)}",
                      lambda a, full=full: raw.Qr(input=a, full_matrices=full),
                      [cvalues(shape, dtype)], **PRODUCT[dtype])
    # Each part clipped between the bounds' parts; odd sizes reach the
    # scalar tail after whole SIMD packets.
    for size in [1, 7, 64]:
        cases.add(f"ClipByValue_{n}_{size}",
                  lambda a, b, c: raw.ClipByValue(t=a, clip_value_min=b, clip_value_max=c),
                  [cvalues((size,), dtype), np.asarray(dtype(-1 + 0.5j)),
                   np.asarray(dtype(1.5 + 2j))], **EXACT)
    cases.add(f"ClipByValue_{n}_tensor_bounds",
              lambda a, b, c: raw.ClipByValue(t=a, clip_value_min=b, clip_value_max=c),
              [cvalues((3, 5), dtype), cvalues((3, 5), dtype, -2, 0),
               cvalues((3, 5), dtype, 0, 2)], **EXACT)

# ---- Select, SelectV2, Cumsum, Cumprod -------------------------------------------
for dtype in COMPLEX:
    cond = rng.integers(0, 2, size=(3, 4)).astype(np.bool_)
    cases.add(f"Select_{dname(dtype)}",
              lambda c, a, b: raw.Select(condition=c, x=a, y=b),
              [cond, cvalues((3, 4), dtype), cvalues((3, 4), dtype)], **EXACT)
    cases.add(f"Select_{dname(dtype)}_rows",
              lambda c, a, b: raw.Select(condition=c, x=a, y=b),
              [cond[:, 0].copy(), cvalues((3, 4), dtype), cvalues((3, 4), dtype)],
              **EXACT)
    cases.add(f"SelectV2_{dname(dtype)}_broadcast",
              lambda c, a, b: raw.SelectV2(condition=c, t=a, e=b),
              [cond[:, :1].copy(), cvalues((1, 4), dtype), cvalues((), dtype)],
              **EXACT)
    cases.add(f"SelectV2_{dname(dtype)}_incompatible",
              lambda c, a, b: raw.SelectV2(condition=c, t=a, e=b),
              [cond, cvalues((2, 4), dtype), cvalues((), dtype)],
              expect_code=INVALID_ARGUMENT)
    for op in ["Cumsum", "Cumprod"]:
        fn = getattr(raw, op)
        for exclusive in [False, True]:
            for reverse in [False, True]:
                cases.add(f"{op}_{dname(dtype)}_ex{int(exclusive)}_rev{int(reverse)}",
                          lambda a, ax, fn=fn, e=exclusive, r=reverse:
                              fn(x=a, axis=ax, exclusive=e, reverse=r),
                          [cvalues((3, 5), dtype, -1.2, 1.2), np.array(1, np.int32)],
                          **PRODUCT[dtype])
        cases.add(f"{op}_{dname(dtype)}_axis0_int64",
                  lambda a, ax, fn=fn: fn(x=a, axis=ax),
                  [cvalues((4, 2), dtype, -1.2, 1.2), np.array(0, np.int64)],
                  **PRODUCT[dtype])

ComplexOracleTest = tf_oracle.make_test_class("kernels/math/run_complex_cases", cases,
                                              "ComplexOracleTest")
