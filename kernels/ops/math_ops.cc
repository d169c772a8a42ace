// Math ops: element-wise arithmetic, comparisons, logic, casts, MatMul,
// reductions, Range, LinSpace, scans, bitwise ops and special functions.
//
// Binary element-wise ops broadcast their inputs (numpy rules). Each op keeps
// TensorFlow's own allowed type set, which differ from op to op for historical
// reasons (e.g. Add accepts string, AddV2 does not); do not "tidy" them, a
// GraphDef that validates in TensorFlow must validate here and vice versa.

#include "common/op/op_registry.h"

// One builder call per line reads like the op signature it defines;
// clang-format would fold short chains onto one line.
// clang-format off

namespace tributary {
namespace {

// Attr specs shared by several ops below. Each is exactly the set TensorFlow
// registers for those ops.

// Mul, RealDiv, Div, FloorDiv.
constexpr char kBinaryArithmeticT[] =
    "T: {bfloat16, half, float, double, uint8, int8, uint16, int16, int32, "
    "uint32, uint64, int64, complex64, complex128}";

// Maximum, Minimum.
constexpr char kMinMaxT[] =
    "T: {bfloat16, half, float, double, int8, uint8, int16, uint16, int32, "
    "uint32, int64, uint64}";

// Transcendental unary ops and their gradients: floating and complex only.
constexpr char kFloatOrComplexT[] =
    "T: {bfloat16, half, float, double, complex64, complex128}";

// Bitwise ops.
constexpr char kIntegerT[] =
    "T: {int8, int16, int32, int64, uint8, uint16, uint32, uint64}";

// Index type of reduction axes.
constexpr char kReductionTidx[] = "Tidx: {int32, int64} = DT_INT32";

}  // namespace

// --- Binary arithmetic -------------------------------------------------------

// Add also concatenates strings; AddV2 (what tf.add emits today) does not,
// which is what lets it be commutative and aggregate.
REGISTER_OP("Add")
    .Input("x: T")
    .Input("y: T")
    .Output("z: T")
    .Attr(
        "T: {bfloat16, half, float, double, uint8, int8, int16, int32, int64, "
        "complex64, complex128, string}");

REGISTER_OP("AddV2")
    .Input("x: T")
    .Input("y: T")
    .Output("z: T")
    .Attr(
        "T: {bfloat16, half, float, double, uint8, uint16, uint32, uint64, "
        "int8, int16, int32, int64, complex64, complex128}")
    .SetIsCommutative()
    .SetIsAggregate();

// Sums N same-shaped tensors (no broadcasting). variant allows summing
// TensorList gradients.
REGISTER_OP("AddN")
    .Input("inputs: N * T")
    .Output("sum: T")
    .Attr("N: int >= 1")
    .Attr("T: {numbertype, variant}")
    .SetIsCommutative()
    .SetIsAggregate();

REGISTER_OP("Sub")
    .Input("x: T")
    .Input("y: T")
    .Output("z: T")
    .Attr(
        "T: {bfloat16, half, float, double, uint8, int8, uint16, int16, int32, "
        "int64, complex64, complex128, uint32, uint64}");

REGISTER_OP("Mul")
    .Input("x: T")
    .Input("y: T")
    .Output("z: T")
    .Attr(kBinaryArithmeticT)
    .SetIsCommutative();

// True division (floating result for floating inputs).
REGISTER_OP("RealDiv")
    .Input("x: T")
    .Input("y: T")
    .Output("z: T")
    .Attr(kBinaryArithmeticT);

// Python-2 style: truncating for integers, true division for floats.
REGISTER_OP("Div")
    .Input("x: T")
    .Input("y: T")
    .Output("z: T")
    .Attr(kBinaryArithmeticT);

REGISTER_OP("FloorDiv")
    .Input("x: T")
    .Input("y: T")
    .Output("z: T")
    .Attr(kBinaryArithmeticT);

// Integer and floating remainders that round toward -inf, as Python's %; the
// gradient of Mean uses it to normalise reduction axes.
REGISTER_OP("FloorMod")
    .Input("x: T")
    .Input("y: T")
    .Output("z: T")
    .Attr("T: {int8, int16, int32, int64, uint8, uint16, uint32, uint64, "
          "bfloat16, half, float, double}");

REGISTER_OP("Maximum")
    .Input("x: T")
    .Input("y: T")
    .Output("z: T")
    .Attr(kMinMaxT);

REGISTER_OP("Minimum")
    .Input("x: T")
    .Input("y: T")
    .Output("z: T")
    .Attr(kMinMaxT);

// (x - y)^2 with broadcasting: what Keras' MSE losses and normalisation
// layers emit.
REGISTER_OP("SquaredDifference")
    .Input("x: T")
    .Input("y: T")
    .Output("z: T")
    .Attr(
        "T: {bfloat16, half, float, double, int32, int64, complex64, "
        "complex128}")
    .SetIsCommutative();

// x / y, but 0 where y == 0 (the gradient of a mean over possibly empty
// segments divides by counts that may be zero).
REGISTER_OP("DivNoNan")
    .Input("x: T")
    .Input("y: T")
    .Output("z: T")
    .Attr("T: {half, float, bfloat16, double, complex64, complex128}");

REGISTER_OP("Pow")
    .Input("x: T")
    .Input("y: T")
    .Output("z: T")
    .Attr(
        "T: {bfloat16, float, half, double, int8, int16, int32, int64, "
        "complex64, complex128}");

// Truncating division and remainder (C's / and %, rounding toward zero);
// Mod is TruncateMod's older name.
REGISTER_OP("TruncateDiv")
    .Input("x: T")
    .Input("y: T")
    .Output("z: T")
    .Attr(kBinaryArithmeticT);

REGISTER_OP("TruncateMod")
    .Input("x: T")
    .Input("y: T")
    .Output("z: T")
    .Attr("T: {int32, int64, bfloat16, half, float, double}");

REGISTER_OP("Mod")
    .Input("x: T")
    .Input("y: T")
    .Output("z: T")
    .Attr("T: {int32, int64, half, bfloat16, float, double}");

// atan2(y, x), the angle of the point (x, y).
REGISTER_OP("Atan2")
    .Input("y: T")
    .Input("x: T")
    .Output("z: T")
    .Attr("T: {bfloat16, half, float, double}");

// x * log(y), x / y, x * log1p(y), all 0 where x == 0 (even for y == 0 or
// NaN); x * y, but 0 where y == 0 (even for x NaN or infinite).
REGISTER_OP("Xlogy")
    .Input("x: T")
    .Input("y: T")
    .Output("z: T")
    .Attr("T: {half, bfloat16, float, double, complex64, complex128}");

REGISTER_OP("Xdivy")
    .Input("x: T")
    .Input("y: T")
    .Output("z: T")
    .Attr("T: {half, bfloat16, float, double, complex64, complex128}");

REGISTER_OP("Xlog1py")
    .Input("x: T")
    .Input("y: T")
    .Output("z: T")
    .Attr("T: {half, bfloat16, float, double, complex64, complex128}");

REGISTER_OP("MulNoNan")
    .Input("x: T")
    .Input("y: T")
    .Output("z: T")
    .Attr(kFloatOrComplexT);

// t clipped to [clip_value_min, clip_value_max]; the bounds are t's shape or
// scalars (no other broadcasting).
REGISTER_OP("ClipByValue")
    .Input("t: T")
    .Input("clip_value_min: T")
    .Input("clip_value_max: T")
    .Output("output: T")
    .Attr("T: numbertype");

// --- Bitwise -----------------------------------------------------------------

REGISTER_OP("BitwiseAnd")
    .Input("x: T")
    .Input("y: T")
    .Output("z: T")
    .Attr(kIntegerT)
    .SetIsCommutative();

REGISTER_OP("BitwiseOr")
    .Input("x: T")
    .Input("y: T")
    .Output("z: T")
    .Attr(kIntegerT)
    .SetIsCommutative();

REGISTER_OP("BitwiseXor")
    .Input("x: T")
    .Input("y: T")
    .Output("z: T")
    .Attr(kIntegerT)
    .SetIsCommutative();

// Shift counts outside [0, bits) are clamped to that range; right shifts of
// signed values are arithmetic.
REGISTER_OP("LeftShift")
    .Input("x: T")
    .Input("y: T")
    .Output("z: T")
    .Attr(kIntegerT);

REGISTER_OP("RightShift")
    .Input("x: T")
    .Input("y: T")
    .Output("z: T")
    .Attr(kIntegerT);

REGISTER_OP("Invert")
    .Input("x: T")
    .Output("y: T")
    .Attr(kIntegerT);

// Set bits per element (of the two's-complement pattern for signed types).
REGISTER_OP("PopulationCount")
    .Input("x: T")
    .Output("y: uint8")
    .Attr(kIntegerT);

// --- Unary arithmetic --------------------------------------------------------

REGISTER_OP("Neg")
    .Input("x: T")
    .Output("y: T")
    .Attr(
        "T: {bfloat16, half, float, double, int8, int16, int32, int64, "
        "complex64, complex128}");

REGISTER_OP("Reciprocal")
    .Input("x: T")
    .Output("y: T")
    .Attr(
        "T: {bfloat16, half, float, double, int8, int16, int32, int64, "
        "complex64, complex128}");

REGISTER_OP("Abs")
    .Input("x: T")
    .Output("y: T")
    .Attr("T: {bfloat16, half, float, double, int8, int16, int32, int64}");

REGISTER_OP("Square")
    .Input("x: T")
    .Output("y: T")
    .Attr(
        "T: {bfloat16, half, float, double, int8, int16, int32, int64, uint8, "
        "uint16, uint32, uint64, complex64, complex128}");

REGISTER_OP("Sqrt")
    .Input("x: T")
    .Output("y: T")
    .Attr(kFloatOrComplexT);

REGISTER_OP("Rsqrt")
    .Input("x: T")
    .Output("y: T")
    .Attr(kFloatOrComplexT);

REGISTER_OP("Exp")
    .Input("x: T")
    .Output("y: T")
    .Attr(kFloatOrComplexT);

REGISTER_OP("Log")
    .Input("x: T")
    .Output("y: T")
    .Attr(kFloatOrComplexT);

REGISTER_OP("Log1p")
    .Input("x: T")
    .Output("y: T")
    .Attr(kFloatOrComplexT);

REGISTER_OP("Expm1")
    .Input("x: T")
    .Output("y: T")
    .Attr(kFloatOrComplexT);

REGISTER_OP("Tanh")
    .Input("x: T")
    .Output("y: T")
    .Attr(kFloatOrComplexT);

REGISTER_OP("Sigmoid")
    .Input("x: T")
    .Output("y: T")
    .Attr(kFloatOrComplexT);

// The Gauss error function and its complement (GELU activations).
REGISTER_OP("Erf")
    .Input("x: T")
    .Output("y: T")
    .Attr("T: {bfloat16, half, float, double}");

REGISTER_OP("Erfc")
    .Input("x: T")
    .Output("y: T")
    .Attr("T: {bfloat16, half, float, double}");

// Rounding, trigonometry and sign: learning-rate schedules (staircase decay
// floors, cosine decay, cyclic polynomial decay ceils) and the orthogonal
// initializer (sign of R's diagonal).
REGISTER_OP("Floor")
    .Input("x: T")
    .Output("y: T")
    .Attr("T: {bfloat16, half, float, double}");

REGISTER_OP("Ceil")
    .Input("x: T")
    .Output("y: T")
    .Attr("T: {bfloat16, half, float, double}");

REGISTER_OP("Cos")
    .Input("x: T")
    .Output("y: T")
    .Attr(kFloatOrComplexT);

REGISTER_OP("Sin")
    .Input("x: T")
    .Output("y: T")
    .Attr(kFloatOrComplexT);

REGISTER_OP("Sign")
    .Input("x: T")
    .Output("y: T")
    .Attr(
        "T: {bfloat16, half, float, double, int8, int16, int32, int64, "
        "complex64, complex128}");

// 1 / x under its older name.
REGISTER_OP("Inv")
    .Input("x: T")
    .Output("y: T")
    .Attr(
        "T: {bfloat16, half, float, double, int8, int16, int32, int64, "
        "complex64, complex128}");

// Round half to even (banker's rounding); Rint is the same for floats.
REGISTER_OP("Round")
    .Input("x: T")
    .Output("y: T")
    .Attr(
        "T: {bfloat16, half, float, double, int8, int16, int32, int64, "
        "complex64, complex128}");

REGISTER_OP("Rint")
    .Input("x: T")
    .Output("y: T")
    .Attr("T: {bfloat16, half, float, double}");

REGISTER_OP("Tan")
    .Input("x: T")
    .Output("y: T")
    .Attr(kFloatOrComplexT);

REGISTER_OP("Asin")
    .Input("x: T")
    .Output("y: T")
    .Attr(kFloatOrComplexT);

REGISTER_OP("Acos")
    .Input("x: T")
    .Output("y: T")
    .Attr(kFloatOrComplexT);

REGISTER_OP("Atan")
    .Input("x: T")
    .Output("y: T")
    .Attr(kFloatOrComplexT);

REGISTER_OP("Sinh")
    .Input("x: T")
    .Output("y: T")
    .Attr(kFloatOrComplexT);

REGISTER_OP("Cosh")
    .Input("x: T")
    .Output("y: T")
    .Attr(kFloatOrComplexT);

REGISTER_OP("Asinh")
    .Input("x: T")
    .Output("y: T")
    .Attr(kFloatOrComplexT);

REGISTER_OP("Acosh")
    .Input("x: T")
    .Output("y: T")
    .Attr(kFloatOrComplexT);

REGISTER_OP("Atanh")
    .Input("x: T")
    .Output("y: T")
    .Attr(kFloatOrComplexT);

// Special functions: log|Gamma(x)|, its derivative, the inverse error
// function and the inverse of the standard normal CDF.
REGISTER_OP("Lgamma")
    .Input("x: T")
    .Output("y: T")
    .Attr("T: {bfloat16, half, float, double}");

REGISTER_OP("Digamma")
    .Input("x: T")
    .Output("y: T")
    .Attr("T: {bfloat16, half, float, double}");

REGISTER_OP("Erfinv")
    .Input("x: T")
    .Output("y: T")
    .Attr("T: {bfloat16, half, float, double}");

REGISTER_OP("Ndtri")
    .Input("x: T")
    .Output("y: T")
    .Attr("T: {bfloat16, half, float, double}");

// Special functions of two arguments, elementwise with broadcasting: the
// regularized incomplete gamma functions P(a, x) and Q(a, x), dP/da, the
// derivative of a Gamma(alpha) sample with respect to alpha (the gradient of
// RandomGamma), Hurwitz zeta(x, q) and polygamma(a, x).
REGISTER_OP("Igamma")
    .Input("a: T")
    .Input("x: T")
    .Output("z: T")
    .Attr("T: {bfloat16, half, float, double}");

REGISTER_OP("Igammac")
    .Input("a: T")
    .Input("x: T")
    .Output("z: T")
    .Attr("T: {bfloat16, half, float, double}");

REGISTER_OP("IgammaGradA")
    .Input("a: T")
    .Input("x: T")
    .Output("z: T")
    .Attr("T: {float, double}");

REGISTER_OP("RandomGammaGrad")
    .Input("alpha: T")
    .Input("sample: T")
    .Output("output: T")
    .Attr("T: {float, double}");

REGISTER_OP("Zeta")
    .Input("x: T")
    .Input("q: T")
    .Output("z: T")
    .Attr("T: {float, double}");

REGISTER_OP("Polygamma")
    .Input("a: T")
    .Input("x: T")
    .Output("z: T")
    .Attr("T: {float, double}");

// Householder QR of each innermost [M, N] matrix: q [..., M, P], r [..., P, N]
// with P = M when full_matrices, else min(M, N) (tf.linalg.qr; the
// orthogonal initializer).
REGISTER_OP("Qr")
    .Input("input: T")
    .Output("q: T")
    .Output("r: T")
    .Attr("full_matrices: bool = false")
    .Attr("T: {double, float, half, complex64, complex128}");

// Gradients expressed through the forward output y: z = dy * (1 - y*y) and
// z = dy * y * (1 - y). TensorFlow registers them in math_ops too.
REGISTER_OP("TanhGrad")
    .Input("y: T")
    .Input("dy: T")
    .Output("z: T")
    .Attr(kFloatOrComplexT);

REGISTER_OP("SigmoidGrad")
    .Input("y: T")
    .Input("dy: T")
    .Output("z: T")
    .Attr(kFloatOrComplexT);

// Gradients of Sqrt, Rsqrt and Reciprocal (Inv) through their output y:
// dy * 0.5 / y, dy * -0.5 * y^3, dy * -y^2, each 0 where dy == 0 (so an
// infinite or NaN y with a zero gradient gives 0, not NaN).
REGISTER_OP("SqrtGrad")
    .Input("y: T")
    .Input("dy: T")
    .Output("z: T")
    .Attr(kFloatOrComplexT);

REGISTER_OP("RsqrtGrad")
    .Input("y: T")
    .Input("dy: T")
    .Output("z: T")
    .Attr(kFloatOrComplexT);

REGISTER_OP("ReciprocalGrad")
    .Input("y: T")
    .Input("dy: T")
    .Output("z: T")
    .Attr(kFloatOrComplexT);

REGISTER_OP("InvGrad")
    .Input("y: T")
    .Input("dy: T")
    .Output("z: T")
    .Attr(kFloatOrComplexT);

// --- Complex numbers ---------------------------------------------------------

// real + i * imag, with broadcasting; float gives complex64, double complex128.
REGISTER_OP("Complex")
    .Input("real: T")
    .Input("imag: T")
    .Output("out: Tout")
    .Attr("T: {float, double} = DT_FLOAT")
    .Attr("Tout: {complex64, complex128} = DT_COMPLEX64");

// The real and imaginary parts, the argument atan2(imag, real) and the
// modulus |x| (Abs has no complex kernels; tf.abs emits ComplexAbs).
REGISTER_OP("Real")
    .Input("input: T")
    .Output("output: Tout")
    .Attr("T: {complex64, complex128} = DT_COMPLEX64")
    .Attr("Tout: {float, double} = DT_FLOAT");

REGISTER_OP("Imag")
    .Input("input: T")
    .Output("output: Tout")
    .Attr("T: {complex64, complex128} = DT_COMPLEX64")
    .Attr("Tout: {float, double} = DT_FLOAT");

REGISTER_OP("Angle")
    .Input("input: T")
    .Output("output: Tout")
    .Attr("T: {complex64, complex128} = DT_COMPLEX64")
    .Attr("Tout: {float, double} = DT_FLOAT");

REGISTER_OP("ComplexAbs")
    .Input("x: T")
    .Output("y: Tout")
    .Attr("T: {complex64, complex128} = DT_COMPLEX64")
    .Attr("Tout: {float, double} = DT_FLOAT");

// The complex conjugate; TensorFlow also allows variant (kernels here are
// complex only).
REGISTER_OP("Conj")
    .Input("input: T")
    .Output("output: T")
    .Attr("T: {complex64, complex128, variant} = DT_COMPLEX64");

// --- Comparisons and logic ---------------------------------------------------

// Equality works on any type. With incompatible_shape_error=false,
// non-broadcastable shapes give a scalar false/true instead of an error.
REGISTER_OP("Equal")
    .Input("x: T")
    .Input("y: T")
    .Output("z: bool")
    .Attr("T: type")
    .Attr("incompatible_shape_error: bool = true")
    .SetIsCommutative();

REGISTER_OP("NotEqual")
    .Input("x: T")
    .Input("y: T")
    .Output("z: bool")
    .Attr("T: type")
    .Attr("incompatible_shape_error: bool = true")
    .SetIsCommutative();

// Ordering comparisons need an order: real numbers only.
REGISTER_OP("Less")
    .Input("x: T")
    .Input("y: T")
    .Output("z: bool")
    .Attr("T: realnumbertype");

REGISTER_OP("Greater")
    .Input("x: T")
    .Input("y: T")
    .Output("z: bool")
    .Attr("T: realnumbertype");

REGISTER_OP("LessEqual")
    .Input("x: T")
    .Input("y: T")
    .Output("z: bool")
    .Attr("T: realnumbertype");

REGISTER_OP("GreaterEqual")
    .Input("x: T")
    .Input("y: T")
    .Output("z: bool")
    .Attr("T: realnumbertype");

REGISTER_OP("LogicalAnd")
    .Input("x: bool")
    .Input("y: bool")
    .Output("z: bool")
    .SetIsCommutative();

REGISTER_OP("LogicalOr")
    .Input("x: bool")
    .Input("y: bool")
    .Output("z: bool")
    .SetIsCommutative();

REGISTER_OP("LogicalNot")
    .Input("x: bool")
    .Output("y: bool");

// Select: `condition` is either t's shape or a vector over t's first dimension.
// SelectV2 broadcasts all three inputs instead.
REGISTER_OP("Select")
    .Input("condition: bool")
    .Input("t: T")
    .Input("e: T")
    .Output("output: T")
    .Attr("T: type");

REGISTER_OP("SelectV2")
    .Input("condition: bool")
    .Input("t: T")
    .Input("e: T")
    .Output("output: T")
    .Attr("T: type");

// --- Casts -------------------------------------------------------------------

// Truncate=true truncates instead of rounding when narrowing floating types.
REGISTER_OP("Cast")
    .Input("x: SrcT")
    .Output("y: DstT")
    .Attr("SrcT: type")
    .Attr("DstT: type")
    .Attr("Truncate: bool = false");

// --- Matrix products ---------------------------------------------------------

// grad_a / grad_b only tell the compiler that this MatMul computes a gradient;
// they never change the result. Note T comes after the transpose attrs.
REGISTER_OP("MatMul")
    .Input("a: T")
    .Input("b: T")
    .Output("product: T")
    .Attr("transpose_a: bool = false")
    .Attr("transpose_b: bool = false")
    .Attr(
        "T: {bfloat16, half, float, double, int32, int64, uint8, uint16, "
        "uint32, uint64, complex64, complex128}")
    .Attr("grad_a: bool = false")
    .Attr("grad_b: bool = false");

// Batched MatMul with broadcasting over the batch dimensions; adj_* takes the
// adjoint (conjugate transpose) of the last two dimensions.
REGISTER_OP("BatchMatMulV2")
    .Input("x: T")
    .Input("y: T")
    .Output("output: T")
    .Attr(
        "T: {bfloat16, half, float, double, int16, int32, int64, uint8, "
        "uint16, uint32, uint64, complex64, complex128}")
    .Attr("adj_x: bool = false")
    .Attr("adj_y: bool = false")
    .Attr("grad_x: bool = false")
    .Attr("grad_y: bool = false");

// BatchMatMul's first version: as BatchMatMulV2 but without broadcasting
// (both inputs of the same rank, every batch dimension equal). Graphs frozen
// by TensorFlow 1.x still carry it.
REGISTER_OP("BatchMatMul")
    .Input("x: T")
    .Input("y: T")
    .Output("output: T")
    .Attr(
        "T: {bfloat16, half, float, double, int32, int64, complex64, "
        "complex128}")
    .Attr("adj_x: bool = false")
    .Attr("adj_y: bool = false")
    .Attr("grad_x: bool = false")
    .Attr("grad_y: bool = false");

// BatchMatMulV2 with input and output types of their own (tf.matmul with
// inputs of different types or an output_type: int8 x int8 -> int32).
REGISTER_OP("BatchMatMulV3")
    .Input("x: Ta")
    .Input("y: Tb")
    .Output("output: Tout")
    .Attr(
        "Ta: {bfloat16, half, float, double, uint8, int8, int16, int32, int64, "
        "complex64, complex128}")
    .Attr(
        "Tb: {bfloat16, half, float, double, uint8, int8, int16, int32, int64, "
        "complex64, complex128}")
    .Attr(
        "Tout: {bfloat16, half, float, double, int16, int32, int64, complex64, "
        "complex128}")
    .Attr("adj_x: bool = false")
    .Attr("adj_y: bool = false")
    .Attr("grad_x: bool = false")
    .Attr("grad_y: bool = false");

// Einstein summation over one or two inputs, e.g. "abc,cd->abd"; the
// equation's labels say which axes are kept, matched and summed.
REGISTER_OP("Einsum")
    .Input("inputs: N * T")
    .Output("output: T")
    .Attr("equation: string")
    .Attr("N: int >= 1")
    .Attr("T: type");

// --- Reductions --------------------------------------------------------------

// The axes arrive as a tensor (scalar or vector), not an attr, so they can be
// computed at run time.
REGISTER_OP("Sum")
    .Input("input: T")
    .Input("reduction_indices: Tidx")
    .Output("output: T")
    .Attr("keep_dims: bool = false")
    .Attr("T: numbertype")
    .Attr(kReductionTidx);

REGISTER_OP("Mean")
    .Input("input: T")
    .Input("reduction_indices: Tidx")
    .Output("output: T")
    .Attr("keep_dims: bool = false")
    .Attr("T: numbertype")
    .Attr(kReductionTidx);

// Logical reductions (tf.reduce_all / tf.reduce_any, and the assertions
// tf.debugging builds on them).
REGISTER_OP("All")
    .Input("input: bool")
    .Input("reduction_indices: Tidx")
    .Output("output: bool")
    .Attr("keep_dims: bool = false")
    .Attr(kReductionTidx);

REGISTER_OP("Any")
    .Input("input: bool")
    .Input("reduction_indices: Tidx")
    .Output("output: bool")
    .Attr("keep_dims: bool = false")
    .Attr(kReductionTidx);

REGISTER_OP("Prod")
    .Input("input: T")
    .Input("reduction_indices: Tidx")
    .Output("output: T")
    .Attr("keep_dims: bool = false")
    .Attr("T: numbertype")
    .Attr(kReductionTidx);

// Max/Min need an order: real numbers, plus quantized types.
REGISTER_OP("Max")
    .Input("input: T")
    .Input("reduction_indices: Tidx")
    .Output("output: T")
    .Attr("keep_dims: bool = false")
    .Attr("T: {realnumbertype, quantizedtype}")
    .Attr(kReductionTidx);

REGISTER_OP("Min")
    .Input("input: T")
    .Input("reduction_indices: Tidx")
    .Output("output: T")
    .Attr("keep_dims: bool = false")
    .Attr("T: {realnumbertype, quantizedtype}")
    .Attr(kReductionTidx);

// ArgMax accepts wider index/output types than ArgMin in TensorFlow; kept.
REGISTER_OP("ArgMax")
    .Input("input: T")
    .Input("dimension: Tidx")
    .Output("output: output_type")
    .Attr("T: {realnumbertype, quantizedtype, bool}")
    .Attr("Tidx: {int16, int32, int64} = DT_INT32")
    .Attr("output_type: {int16, uint16, int32, int64} = DT_INT64");

REGISTER_OP("ArgMin")
    .Input("input: T")
    .Input("dimension: Tidx")
    .Output("output: output_type")
    .Attr("T: {realnumbertype, quantizedtype, bool}")
    .Attr("Tidx: {int32, int64} = DT_INT32")
    .Attr("output_type: {int32, int64} = DT_INT64");

// --- Sequences ---------------------------------------------------------------

REGISTER_OP("Range")
    .Input("start: Tidx")
    .Input("limit: Tidx")
    .Input("delta: Tidx")
    .Output("output: Tidx")
    .Attr(
        "Tidx: {bfloat16, half, float, double, int8, int16, int32, int64, "
        "uint16, uint32, uint64} = DT_INT32");

// num evenly spaced values from start to stop inclusive (num > 0).
REGISTER_OP("LinSpace")
    .Input("start: T")
    .Input("stop: T")
    .Input("num: Tidx")
    .Output("output: T")
    .Attr("T: {bfloat16, half, float, double}")
    .Attr("Tidx: {int32, int64} = DT_INT32");

// The index of the bucket each value falls in: the number of boundaries
// <= the value (boundaries must be sorted).
REGISTER_OP("Bucketize")
    .Input("input: T")
    .Output("output: int32")
    .Attr("T: {int32, int64, float, double}")
    .Attr("boundaries: list(float)");

// --- Floating-point classification (mixed-precision loss scaling) -----------

REGISTER_OP("IsFinite")
    .Input("x: T")
    .Output("y: bool")
    .Attr("T: {bfloat16, half, float, double}");

REGISTER_OP("IsNan")
    .Input("x: T")
    .Output("y: bool")
    .Attr("T: {bfloat16, half, float, double}");

REGISTER_OP("IsInf")
    .Input("x: T")
    .Output("y: bool")
    .Attr("T: {bfloat16, half, float, double}");

// Passes the tensor through unchanged, or fails the step with
// InvalidArgument "<message> : Tensor had ... values" naming what it found
// (V1: Inf/NaN; V2 tells -Inf from +Inf). Stateful so that it is never
// folded or pruned as a pure function.
REGISTER_OP("CheckNumerics")
    .Input("tensor: T")
    .Output("output: T")
    .Attr("T: {bfloat16, half, float, double}")
    .Attr("message: string")
    .SetIsStateful();

REGISTER_OP("CheckNumericsV2")
    .Input("tensor: T")
    .Output("output: T")
    .Attr("T: {bfloat16, half, float, double}")
    .Attr("message: string")
    .SetIsStateful();

// --- Scans and selection -----------------------------------------------------

// Running sum along `axis`; exclusive leaves out the element itself, reverse
// runs from the end.
REGISTER_OP("Cumsum")
    .Input("x: T")
    .Input("axis: Tidx")
    .Attr("exclusive: bool = false")
    .Attr("reverse: bool = false")
    .Output("out: T")
    .Attr("T: numbertype")
    .Attr("Tidx: {int32, int64} = DT_INT32");

// Running product, and running log(sum(exp)) (computed stably, starting
// from -inf), with Cumsum's exclusive/reverse.
REGISTER_OP("Cumprod")
    .Input("x: T")
    .Input("axis: Tidx")
    .Attr("exclusive: bool = false")
    .Attr("reverse: bool = false")
    .Output("out: T")
    .Attr("T: numbertype")
    .Attr("Tidx: {int32, int64} = DT_INT32");

REGISTER_OP("CumulativeLogsumexp")
    .Input("x: T")
    .Input("axis: Tidx")
    .Attr("exclusive: bool = false")
    .Attr("reverse: bool = false")
    .Output("out: T")
    .Attr("T: {bfloat16, half, float, double}")
    .Attr("Tidx: {int32, int64} = DT_INT32");

// Whether each row's target class is among its k largest predictions (ties
// count in the target's favour; a non-finite target prediction or an
// out-of-range target is false).
REGISTER_OP("InTopKV2")
    .Input("predictions: float")
    .Input("targets: T")
    .Input("k: T")
    .Output("precision: bool")
    .Attr("T: {int32, int64} = DT_INT32");

// The k largest entries of each last-dimension row and their indices (ties:
// the lower index first).
REGISTER_OP("TopKV2")
    .Input("input: T")
    .Input("k: Tk")
    .Output("values: T")
    .Output("indices: index_type")
    .Attr("sorted: bool = true")
    .Attr("T: realnumbertype")
    .Attr("Tk: {int16, int32, int64} = DT_INT32")
    .Attr("index_type: {int16, int32, int64} = DT_INT32");

}  // namespace tributary

// clang-format on
