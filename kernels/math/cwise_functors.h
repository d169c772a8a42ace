#ifndef TRIBUTARY_KERNELS_MATH_CWISE_FUNCTORS_H_
#define TRIBUTARY_KERNELS_MATH_CWISE_FUNCTORS_H_

// Element functors for the cwise kernels, with TensorFlow's semantics
// (floor division rounds toward -inf, integer division by zero is an error,
// max/min propagate NaN, ...). Each kernel "spec" below names the element
// type in and out, the Eigen functor, and whether it can fail; cwise_ops.h
// turns a spec into a kernel.
//
// Vectorisable functors implement packetOp and declare PacketAccess in
// Eigen::internal::functor_traits, so Eigen evaluates them with SIMD.

#include <atomic>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "absl/status/status.h"
#include "common/framework/status.h"
#include "unsupported/Eigen/CXX11/Tensor"
#include "unsupported/Eigen/SpecialFunctions"

namespace tributary {
namespace functor {

// ---- Error-reporting element functors ----------------------------------------
// They run on many Eigen threads at once; a relaxed atomic flag is enough
// (we only need "some element failed", read after the evaluation joined).

// Integer a / b (truncating) or floor-div/floor-mod, error on b == 0.
// INT_MIN / -1 would trap (SIGFPE); like TensorFlow we wrap instead.
template <typename T, typename DivOrMod>
struct SafeDivOrMod {
  static_assert(std::is_integral<T>::value, "integer type expected");
  explicit SafeDivOrMod(std::atomic<bool>* error) : error(error) {}
  T operator()(const T& a, const T& b) const {
    if (b == 0) {
      error->store(true, std::memory_order_relaxed);
      return T(0);
    }
    if (std::is_signed<T>::value && b == T(-1) &&
        a == std::numeric_limits<T>::min()) {
      return DivOrMod()(WrappingNeg(a), T(1));
    }
    return DivOrMod()(a, b);
  }
  static T WrappingNeg(T a) {
    using U = typename std::make_unsigned<T>::type;
    return static_cast<T>(U(0) - static_cast<U>(a));
  }
  std::atomic<bool>* error;
};

struct TruncDiv {
  template <typename T>
  T operator()(T a, T b) const { return a / b; }
};
// Rounds toward -inf; avoids overflow by correcting the truncated quotient.
struct FloorDivInt {
  template <typename T>
  T operator()(T x, T y) const {
    const T z = x / y;
    return (z * y != x && ((x < T(0)) != (y < T(0)))) ? z - T(1) : z;
  }
};
// Result has the sign of the divisor (Python's %).
struct FloorModInt {
  template <typename T>
  T operator()(T x, T y) const {
    const T r = x % y;
    return (r != T(0) && ((y < T(0)) != (r < T(0)))) ? r + y : r;
  }
};

// Integer x ** y, error for y < 0 (TensorFlow refuses rather than
// returning 0 or 1). Overflow wraps like TensorFlow's repeated squaring.
template <typename T>
struct SafeIntPow {
  explicit SafeIntPow(std::atomic<bool>* error) : error(error) {}
  T operator()(const T& a, const T& b) const {
    if (b < 0) {
      error->store(true, std::memory_order_relaxed);
      return T(0);
    }
    using U = typename std::make_unsigned<T>::type;
    U base = static_cast<U>(a), result = 1;
    for (T e = b; e > 0; e >>= 1) {
      if (e & 1) result *= base;
      base *= base;
    }
    return static_cast<T>(result);
  }
  std::atomic<bool>* error;
};

// ---- Plain element functors (no packet path) ----------------------------------

template <typename T>
struct FloorDivReal {
  // Eigen::numext: also for half and bfloat16, which std::floor would widen.
  T operator()(const T& x, const T& y) const {
    return Eigen::numext::floor(T(x / y));
  }
  template <typename Packet>
  Packet packetOp(const Packet& x, const Packet& y) const {
    return Eigen::internal::pfloor(Eigen::internal::pdiv(x, y));
  }
};

// (x - y)^2, the difference computed once (TensorFlow's squared_difference;
// real types only here, so no conjugate).
template <typename T>
struct SquaredDifferenceF {
  T operator()(const T& x, const T& y) const {
    const T d = x - y;
    return d * d;
  }
  template <typename Packet>
  Packet packetOp(const Packet& x, const Packet& y) const {
    const Packet d = Eigen::internal::psub(x, y);
    return Eigen::internal::pmul(d, d);
  }
};

template <typename T>
struct FloorModReal {
  T operator()(const T& x, const T& y) const {
    const T r = T(std::fmod(static_cast<double>(x), static_cast<double>(y)));
    return (r != T(0) && ((y < T(0)) != (r < T(0)))) ? r + y : r;
  }
};

// ---- Gradients through the forward output (TensorFlow's cwise_ops_gradients)
// (y, dy) -> z. Each is 0 where dy == 0, whatever y is (an infinite y with
// no gradient flowing gives 0, not NaN). The scalar and packet paths round
// as TensorFlow's do, which differ: the scalar SqrtGrad divides 0.5 * dy by
// y, the packet one multiplies dy by 0.5 / y.

// a * b, but 0 where b == 0 (TensorFlow's mul_no_nan).
template <typename T>
struct MulNoNanF {
  T operator()(const T& a, const T& b) const {
    return b != T(0) ? T(a * b) : T(0);
  }
  template <typename Packet>
  Packet packetOp(const Packet& a, const Packet& b) const {
    using namespace Eigen::internal;  // NOLINT
    return pandnot(pmul(a, b), pcmp_eq(b, pzero(b)));
  }
};

template <typename T>
struct SqrtGradF {
  T operator()(const T& y, const T& dy) const {
    if (dy == T(0)) return T(0);
    return T(T(T(0.5) * dy) / y);
  }
  template <typename Packet>
  Packet packetOp(const Packet& y, const Packet& dy) const {
    using namespace Eigen::internal;  // NOLINT
    return MulNoNanF<T>().packetOp(pdiv(pset1<Packet>(T(0.5)), y), dy);
  }
};

template <typename T>
struct RsqrtGradF {
  T operator()(const T& y, const T& dy) const {
    if (dy == T(0)) return T(0);
    return T(T(T(-0.5) * T(dy * y)) * T(y * y));
  }
  template <typename Packet>
  Packet packetOp(const Packet& y, const Packet& dy) const {
    using namespace Eigen::internal;  // NOLINT
    const MulNoNanF<T> safe_mul;
    return safe_mul.packetOp(pmul(pset1<Packet>(T(-0.5)), pmul(y, y)),
                             safe_mul.packetOp(y, dy));
  }
};

// ReciprocalGrad and InvGrad.
template <typename T>
struct InverseGradF {
  T operator()(const T& y, const T& dy) const {
    if (dy == T(0)) return T(0);
    return T(T(T(-y) * y) * dy);
  }
  template <typename Packet>
  Packet packetOp(const Packet& y, const Packet& dy) const {
    using namespace Eigen::internal;  // NOLINT
    return MulNoNanF<T>().packetOp(pnegate(pmul(y, y)), dy);
  }
};

// ---- x-weighted functions: 0 where x == 0 (even for y == 0 or NaN) ----------

template <typename T>
struct XlogyF {
  T operator()(const T& x, const T& y) const {
    if (x == T(0)) return T(0);
    return T(x * Eigen::numext::log(y));
  }
  template <typename Packet>
  Packet packetOp(const Packet& x, const Packet& y) const {
    using namespace Eigen::internal;  // NOLINT
    const Packet mask = pcmp_eq(x, pzero(x));
    return pselect(mask, x, pmul(x, scalar_log_op<T>().packetOp(y)));
  }
};

template <typename T>
struct Xlog1pyF {
  T operator()(const T& x, const T& y) const {
    if (x == T(0)) return T(0);
    return T(x * Eigen::numext::log1p(y));
  }
  template <typename Packet>
  Packet packetOp(const Packet& x, const Packet& y) const {
    using namespace Eigen::internal;  // NOLINT
    const Packet mask = pcmp_eq(x, pzero(x));
    return pselect(mask, x, pmul(x, scalar_log1p_op<T>().packetOp(y)));
  }
};

template <typename T>
struct XdivyF {
  T operator()(const T& x, const T& y) const {
    if (x == T(0)) return T(0);
    return T(x / y);
  }
  template <typename Packet>
  Packet packetOp(const Packet& x, const Packet& y) const {
    using namespace Eigen::internal;  // NOLINT
    const Packet mask = pcmp_eq(x, pzero(x));
    return pselect(mask, x, pdiv(x, y));
  }
};

// ---- Rounding, special functions, atan2 ---------------------------------------

// Round half to even: rint under the default rounding mode; integers are
// returned unchanged.
template <typename T, bool IsInteger = std::is_integral<T>::value>
struct RoundHalfToEvenF {
  T operator()(const T& x) const { return Eigen::numext::rint(x); }
  template <typename Packet>
  Packet packetOp(const Packet& x) const {
    return Eigen::internal::print(x);
  }
};
template <typename T>
struct RoundHalfToEvenF<T, true> {
  T operator()(const T& x) const { return x; }
};

// erfinv(x) = ndtri((x + 1) / 2) / sqrt(2), as TensorFlow computes it.
template <typename T>
struct ErfinvF {
  T operator()(const T& x) const {
    const T y = Eigen::numext::ndtri(T(T(0.5) * x + T(0.5)));
    return T(y * T(M_SQRT1_2));
  }
  template <typename Packet>
  Packet packetOp(const Packet& x) const {
    using namespace Eigen::internal;  // NOLINT
    const Packet half = pset1<Packet>(T(0.5));
    return pmul(pndtri<Packet>(pmadd(half, x, half)),
                pset1<Packet>(T(M_SQRT1_2)));
  }
};

// std::atan2 in T's precision (half and bfloat16 through float).
template <typename T>
struct Atan2F {
  using Wide = typename std::conditional<std::is_same<T, double>::value,
                                         double, float>::type;
  T operator()(const T& y, const T& x) const {
    return static_cast<T>(
        std::atan2(static_cast<Wide>(y), static_cast<Wide>(x)));
  }
};

// Truncating floating-point division: trunc(x / y).
template <typename T>
struct TruncateDivReal {
  using Wide = typename std::conditional<std::is_same<T, double>::value,
                                         double, float>::type;
  T operator()(const T& x, const T& y) const {
    return static_cast<T>(std::trunc(static_cast<Wide>(T(x / y))));
  }
};

struct TruncModInt {
  template <typename T>
  T operator()(T a, T b) const { return a % b; }
};

// ---- Bitwise -------------------------------------------------------------------

template <typename T>
struct BitwiseAndF {
  T operator()(const T& x, const T& y) const { return x & y; }
};
template <typename T>
struct BitwiseOrF {
  T operator()(const T& x, const T& y) const { return x | y; }
};
template <typename T>
struct BitwiseXorF {
  T operator()(const T& x, const T& y) const { return x ^ y; }
};
template <typename T>
struct InvertF {
  T operator()(const T& x) const { return static_cast<T>(~x); }
};

// Shift counts are clamped to [0, bits - 1] (no undefined behaviour for
// negative or oversized counts); left shifts are done unsigned, right shifts
// of signed values are arithmetic.
template <typename T>
T ClampShift(T y) {
  constexpr T kMax = static_cast<T>(sizeof(T) * 8 - 1);
  if (std::is_signed<T>::value && y < T(0)) return T(0);
  return y > kMax ? kMax : y;
}
template <typename T>
struct LeftShiftF {
  T operator()(const T& x, const T& y) const {
    using U = typename std::make_unsigned<T>::type;
    return static_cast<T>(static_cast<U>(static_cast<U>(x)
                                         << static_cast<U>(ClampShift(y))));
  }
};
template <typename T>
struct RightShiftF {
  T operator()(const T& x, const T& y) const {
    return static_cast<T>(x >> ClampShift(y));
  }
};

template <typename T>
struct PopulationCountF {
  uint8_t operator()(const T& x) const {
    using U = typename std::make_unsigned<T>::type;
    return static_cast<uint8_t>(
        __builtin_popcountll(static_cast<unsigned long long>(static_cast<U>(x))));
  }
};

#define TRIB_CMP_FUNCTOR(NAME, OP)                               \
  template <typename T>                                          \
  struct NAME {                                                  \
    bool operator()(const T& a, const T& b) const { return a OP b; } \
  };
TRIB_CMP_FUNCTOR(EqualTo, ==)
TRIB_CMP_FUNCTOR(NotEqualTo, !=)
TRIB_CMP_FUNCTOR(LessThan, <)
TRIB_CMP_FUNCTOR(LessEqualThan, <=)
TRIB_CMP_FUNCTOR(GreaterThan, >)
TRIB_CMP_FUNCTOR(GreaterEqualThan, >=)
#undef TRIB_CMP_FUNCTOR

struct LogicalAndF {
  bool operator()(const bool& a, const bool& b) const { return a && b; }
};
struct LogicalOrF {
  bool operator()(const bool& a, const bool& b) const { return a || b; }
};
struct LogicalNotF {
  bool operator()(const bool& a) const { return !a; }
};

// f(scalar, x) and f(x, scalar) as unary functors, keeping the binary
// functor's packet path (the scalar is splatted into a packet).
template <typename Binary, typename T>
struct BindLeft {
  BindLeft(const Binary& f, const T* s) : f(f), s(s) {}
  auto operator()(const T& x) const { return f(*s, x); }
  template <typename Packet>
  Packet packetOp(const Packet& x) const {
    return f.packetOp(Eigen::internal::pset1<Packet>(*s), x);
  }
  Binary f;
  const T* s;
};
template <typename Binary, typename T>
struct BindRight {
  BindRight(const Binary& f, const T* s) : f(f), s(s) {}
  auto operator()(const T& x) const { return f(x, *s); }
  template <typename Packet>
  Packet packetOp(const Packet& x) const {
    return f.packetOp(x, Eigen::internal::pset1<Packet>(*s));
  }
  Binary f;
  const T* s;
};

// ---- Kernel specs ----------------------------------------------------------------

template <typename T, typename F, typename Tout = T>
struct Spec {
  using in_type = T;
  using out_type = Tout;
  using func = F;
  static constexpr bool has_errors = false;
  static func Make(std::atomic<bool>* /*error*/) { return func(); }
  static absl::Status Error() { return absl::OkStatus(); }
};

template <typename T, typename F>
struct ErrorSpec {
  using in_type = T;
  using out_type = T;
  using func = F;
  static constexpr bool has_errors = true;
  static func Make(std::atomic<bool>* error) { return func(error); }
};

// Binary arithmetic.
template <typename T>
struct add : Spec<T, Eigen::internal::scalar_sum_op<T>> {};
template <typename T>
struct sub : Spec<T, Eigen::internal::scalar_difference_op<T>> {};
template <typename T>
struct mul : Spec<T, Eigen::internal::scalar_product_op<T>> {};
template <typename T>
struct div : Spec<T, Eigen::internal::scalar_quotient_op<T>> {};
template <typename T>
struct safe_div : ErrorSpec<T, SafeDivOrMod<T, TruncDiv>> {
  static absl::Status Error() {
    return errors::InvalidArgument("Integer division by zero");
  }
};
template <typename T>
struct floor_div_real : Spec<T, FloorDivReal<T>> {};
template <typename T>
struct safe_floor_div : ErrorSpec<T, SafeDivOrMod<T, FloorDivInt>> {
  static absl::Status Error() { return safe_div<T>::Error(); }
};
template <typename T>
struct floor_fmod : Spec<T, FloorModReal<T>> {};
template <typename T>
struct safe_floor_mod : ErrorSpec<T, SafeDivOrMod<T, FloorModInt>> {
  static absl::Status Error() { return safe_div<T>::Error(); }
};
template <typename T>
struct maximum
    : Spec<T, Eigen::internal::scalar_max_op<T, T, Eigen::PropagateNaN>> {};
template <typename T>
struct minimum
    : Spec<T, Eigen::internal::scalar_min_op<T, T, Eigen::PropagateNaN>> {};
template <typename T>
struct squared_difference : Spec<T, SquaredDifferenceF<T>> {};
template <typename T>
struct pow : Spec<T, Eigen::internal::scalar_pow_op<T, T>> {};
template <typename T>
struct safe_pow : ErrorSpec<T, SafeIntPow<T>> {
  static absl::Status Error() {
    return errors::InvalidArgument(
        "Integers to negative integer powers are not allowed");
  }
};

// Comparisons and logic: bool out.
template <typename T>
struct equal_to : Spec<T, EqualTo<T>, bool> {};
template <typename T>
struct not_equal_to : Spec<T, NotEqualTo<T>, bool> {};
template <typename T>
struct less : Spec<T, LessThan<T>, bool> {};
template <typename T>
struct less_equal : Spec<T, LessEqualThan<T>, bool> {};
template <typename T>
struct greater : Spec<T, GreaterThan<T>, bool> {};
template <typename T>
struct greater_equal : Spec<T, GreaterEqualThan<T>, bool> {};
struct logical_and : Spec<bool, LogicalAndF> {};
struct logical_or : Spec<bool, LogicalOrF> {};

// Unary.
template <typename T>
struct neg : Spec<T, Eigen::internal::scalar_opposite_op<T>> {};
template <typename T>
struct abs : Spec<T, Eigen::internal::scalar_abs_op<T>> {};
template <typename T>
struct square : Spec<T, Eigen::internal::scalar_square_op<T>> {};
template <typename T>
struct sqrt : Spec<T, Eigen::internal::scalar_sqrt_op<T>> {};
template <typename T>
struct rsqrt : Spec<T, Eigen::internal::scalar_rsqrt_op<T>> {};
template <typename T>
struct exp : Spec<T, Eigen::internal::scalar_exp_op<T>> {};
template <typename T>
struct log : Spec<T, Eigen::internal::scalar_log_op<T>> {};
template <typename T>
struct reciprocal : Spec<T, Eigen::internal::scalar_inverse_op<T>> {};
template <typename T>
struct log1p : Spec<T, Eigen::internal::scalar_log1p_op<T>> {};
template <typename T>
struct expm1 : Spec<T, Eigen::internal::scalar_expm1_op<T>> {};
template <typename T>
struct tanh : Spec<T, Eigen::internal::scalar_tanh_op<T>> {};
template <typename T>
struct sigmoid : Spec<T, Eigen::internal::scalar_logistic_op<T>> {};
template <typename T>
struct erf : Spec<T, Eigen::internal::scalar_erf_op<T>> {};
template <typename T>
struct erfc : Spec<T, Eigen::internal::scalar_erfc_op<T>> {};
struct logical_not : Spec<bool, LogicalNotF> {};

// Gradients (SimpleBinaryOp: equal element counts, no broadcasting).
template <typename T>
struct sqrt_grad : Spec<T, SqrtGradF<T>> {};
template <typename T>
struct rsqrt_grad : Spec<T, RsqrtGradF<T>> {};
template <typename T>
struct inverse_grad : Spec<T, InverseGradF<T>> {};

// Binary special functions.
template <typename T>
struct mul_no_nan : Spec<T, MulNoNanF<T>> {};
template <typename T>
struct xlogy : Spec<T, XlogyF<T>> {};
template <typename T>
struct xlog1py : Spec<T, Xlog1pyF<T>> {};
template <typename T>
struct xdivy : Spec<T, XdivyF<T>> {};
template <typename T>
struct atan2 : Spec<T, Atan2F<T>> {};
template <typename T>
struct truncate_div_real : Spec<T, TruncateDivReal<T>> {};
template <typename T>
struct fmod : Spec<T, Eigen::internal::scalar_fmod_op<T>> {};
// Mod (the old name) reports a zero divisor as TensorFlow's Div does;
// TruncateDiv and TruncateMod are not in TensorFlow's list of integer
// division ops, so they fail with its catch-all Internal error.
template <typename T>
struct safe_mod : ErrorSpec<T, SafeDivOrMod<T, TruncModInt>> {
  static absl::Status Error() { return safe_div<T>::Error(); }
};
inline absl::Status UnexpectedBinaryError() {
  return errors::Internal(
      "Unexpected error in binary operator (only integer div and mod should "
      "have errors)");
}
template <typename T>
struct safe_truncate_div : ErrorSpec<T, SafeDivOrMod<T, TruncDiv>> {
  static absl::Status Error() { return UnexpectedBinaryError(); }
};
template <typename T>
struct safe_truncate_mod : ErrorSpec<T, SafeDivOrMod<T, TruncModInt>> {
  static absl::Status Error() { return UnexpectedBinaryError(); }
};

// Bitwise.
template <typename T>
struct bitwise_and : Spec<T, BitwiseAndF<T>> {};
template <typename T>
struct bitwise_or : Spec<T, BitwiseOrF<T>> {};
template <typename T>
struct bitwise_xor : Spec<T, BitwiseXorF<T>> {};
template <typename T>
struct left_shift : Spec<T, LeftShiftF<T>> {};
template <typename T>
struct right_shift : Spec<T, RightShiftF<T>> {};
template <typename T>
struct invert : Spec<T, InvertF<T>> {};
template <typename T>
struct population_count : Spec<T, PopulationCountF<T>, uint8_t> {};

// Unary: rounding, trigonometry, special functions.
template <typename T>
struct round : Spec<T, RoundHalfToEvenF<T>> {};
template <typename T>
struct rint : Spec<T, Eigen::internal::scalar_rint_op<T>> {};
template <typename T>
struct tan : Spec<T, Eigen::internal::scalar_tan_op<T>> {};
template <typename T>
struct asin : Spec<T, Eigen::internal::scalar_asin_op<T>> {};
template <typename T>
struct acos : Spec<T, Eigen::internal::scalar_acos_op<T>> {};
template <typename T>
struct atan : Spec<T, Eigen::internal::scalar_atan_op<T>> {};
template <typename T>
struct sinh : Spec<T, Eigen::internal::scalar_sinh_op<T>> {};
template <typename T>
struct cosh : Spec<T, Eigen::internal::scalar_cosh_op<T>> {};
template <typename T>
struct asinh : Spec<T, Eigen::internal::scalar_asinh_op<T>> {};
template <typename T>
struct acosh : Spec<T, Eigen::internal::scalar_acosh_op<T>> {};
template <typename T>
struct atanh : Spec<T, Eigen::internal::scalar_atanh_op<T>> {};
template <typename T>
struct lgamma : Spec<T, Eigen::internal::scalar_lgamma_op<T>> {};
template <typename T>
struct digamma : Spec<T, Eigen::internal::scalar_digamma_op<T>> {};
template <typename T>
struct ndtri : Spec<T, Eigen::internal::scalar_ndtri_op<T>> {};
template <typename T>
struct erfinv : Spec<T, ErfinvF<T>> {};


}  // namespace functor
}  // namespace tributary

namespace Eigen {
namespace internal {

template <typename T, typename D>
struct functor_traits<tributary::functor::SafeDivOrMod<T, D>> {
  enum { Cost = 2 * NumTraits<T>::MulCost + 2 * NumTraits<T>::AddCost,
         PacketAccess = false };
};
template <typename T>
struct functor_traits<tributary::functor::SafeIntPow<T>> {
  enum { Cost = 5 * NumTraits<T>::MulCost, PacketAccess = false };
};
template <typename T>
struct functor_traits<tributary::functor::FloorDivReal<T>> {
  enum {
    Cost = 2 * NumTraits<T>::MulCost + NumTraits<T>::AddCost,
    PacketAccess = packet_traits<T>::HasDiv && packet_traits<T>::HasRound
  };
};
template <typename T>
struct functor_traits<tributary::functor::SquaredDifferenceF<T>> {
  enum {
    Cost = NumTraits<T>::MulCost + NumTraits<T>::AddCost,
    PacketAccess = packet_traits<T>::HasSub && packet_traits<T>::HasMul
  };
};
template <typename T>
struct functor_traits<tributary::functor::FloorModReal<T>> {
  enum { Cost = 13 * NumTraits<T>::MulCost, PacketAccess = false };
};
template <typename T>
struct functor_traits<tributary::functor::MulNoNanF<T>> {
  enum { Cost = NumTraits<T>::MulCost + NumTraits<T>::AddCost,
         PacketAccess = packet_traits<T>::HasMul && packet_traits<T>::HasCmp };
};
template <typename T>
struct functor_traits<tributary::functor::SqrtGradF<T>> {
  enum { Cost = NumTraits<T>::MulCost + scalar_div_cost<T, true>::value,
         PacketAccess = packet_traits<T>::HasMul && packet_traits<T>::HasDiv &&
                        packet_traits<T>::HasCmp };
};
template <typename T>
struct functor_traits<tributary::functor::RsqrtGradF<T>> {
  enum { Cost = 4 * NumTraits<T>::MulCost,
         PacketAccess = packet_traits<T>::HasMul && packet_traits<T>::HasCmp };
};
template <typename T>
struct functor_traits<tributary::functor::InverseGradF<T>> {
  enum { Cost = NumTraits<T>::AddCost + 2 * NumTraits<T>::MulCost,
         PacketAccess = packet_traits<T>::HasMul && packet_traits<T>::HasNegate &&
                        packet_traits<T>::HasCmp };
};
template <typename T>
struct functor_traits<tributary::functor::XlogyF<T>> {
  enum { Cost = functor_traits<scalar_log_op<T>>::Cost + NumTraits<T>::MulCost,
         PacketAccess = functor_traits<scalar_log_op<T>>::PacketAccess &&
                        packet_traits<T>::HasCmp };
};
template <typename T>
struct functor_traits<tributary::functor::Xlog1pyF<T>> {
  enum { Cost = functor_traits<scalar_log1p_op<T>>::Cost + NumTraits<T>::MulCost,
         PacketAccess = functor_traits<scalar_log1p_op<T>>::PacketAccess &&
                        packet_traits<T>::HasCmp };
};
template <typename T>
struct functor_traits<tributary::functor::XdivyF<T>> {
  enum { Cost = NumTraits<T>::AddCost + scalar_div_cost<T, true>::value,
         PacketAccess = packet_traits<T>::HasDiv && packet_traits<T>::HasCmp };
};
template <typename T, bool I>
struct functor_traits<tributary::functor::RoundHalfToEvenF<T, I>> {
  enum { Cost = NumTraits<T>::AddCost,
         PacketAccess = !I && packet_traits<T>::HasRint };
};
template <typename T>
struct functor_traits<tributary::functor::ErfinvF<T>> {
  enum { Cost = functor_traits<scalar_ndtri_op<T>>::Cost + NumTraits<T>::AddCost,
         PacketAccess = packet_traits<T>::HasNdtri };
};
template <typename T>
struct functor_traits<tributary::functor::PopulationCountF<T>> {
  enum { Cost = NumTraits<T>::AddCost, PacketAccess = false };
};
template <typename B, typename T>
struct functor_traits<tributary::functor::BindLeft<B, T>> {
  enum { Cost = functor_traits<B>::Cost,
         PacketAccess = functor_traits<B>::PacketAccess };
};
template <typename B, typename T>
struct functor_traits<tributary::functor::BindRight<B, T>> {
  enum { Cost = functor_traits<B>::Cost,
         PacketAccess = functor_traits<B>::PacketAccess };
};

}  // namespace internal
}  // namespace Eigen

#endif  // TRIBUTARY_KERNELS_MATH_CWISE_FUNCTORS_H_
