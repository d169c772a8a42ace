// complex64 and complex128 kernels of the broadcasting binary ops
// TensorFlow registers them for: Add, AddV2, Sub, Mul, Div, RealDiv, Pow,
// SquaredDifference ((x - y) * conj(x - y), real-valued), DivNoNan,
// MulNoNan, Xdivy, Xlogy, Xlog1py, Equal, NotEqual. The zero-guarded ones
// compare with complex 0 (both parts zero) and have no packet path.
#include <complex>

#include "kernels/math/cwise_ops.h"

namespace tributary {
namespace functor {
namespace {

template <typename T>
struct ComplexSquaredDifferenceF {
  T operator()(const T& x, const T& y) const {
    const T d = x - y;
    return d * std::conj(d);
  }
};
template <typename T>
struct ComplexDivNoNanF {
  T operator()(const T& x, const T& y) const {
    return y == T(0) ? T(0) : T(x / y);
  }
};
template <typename T>
struct ComplexMulNoNanF {
  T operator()(const T& x, const T& y) const {
    return y == T(0) ? T(0) : T(x * y);
  }
};
template <typename T>
struct ComplexXdivyF {
  T operator()(const T& x, const T& y) const {
    return x == T(0) ? T(0) : T(x / y);
  }
};
template <typename T>
struct ComplexXlogyF {
  T operator()(const T& x, const T& y) const {
    return x == T(0) ? T(0) : T(x * Eigen::numext::log(y));
  }
};
template <typename T>
struct ComplexXlog1pyF {
  T operator()(const T& x, const T& y) const {
    return x == T(0) ? T(0) : T(x * Eigen::numext::log1p(y));
  }
};

template <typename T>
struct c_squared_difference : Spec<T, ComplexSquaredDifferenceF<T>> {};
template <typename T>
struct c_div_no_nan : Spec<T, ComplexDivNoNanF<T>> {};
template <typename T>
struct c_mul_no_nan : Spec<T, ComplexMulNoNanF<T>> {};
template <typename T>
struct c_xdivy : Spec<T, ComplexXdivyF<T>> {};
template <typename T>
struct c_xlogy : Spec<T, ComplexXlogyF<T>> {};
template <typename T>
struct c_xlog1py : Spec<T, ComplexXlog1pyF<T>> {};

}  // namespace
}  // namespace functor

#define REGISTER_COMPLEX_BINARY(T)                                             \
  TRIB_REGISTER_CWISE("Add", BinaryOp, add, T);                                \
  TRIB_REGISTER_CWISE("AddV2", BinaryOp, add, T);                              \
  TRIB_REGISTER_CWISE("Sub", BinaryOp, sub, T);                                \
  TRIB_REGISTER_CWISE("Mul", BinaryOp, mul, T);                                \
  TRIB_REGISTER_CWISE("Div", BinaryOp, div, T);                                \
  TRIB_REGISTER_CWISE("RealDiv", BinaryOp, div, T);                            \
  TRIB_REGISTER_CWISE("Pow", BinaryOp, pow, T);                                \
  TRIB_REGISTER_CWISE("SquaredDifference", BinaryOp, c_squared_difference, T); \
  TRIB_REGISTER_CWISE("DivNoNan", BinaryOp, c_div_no_nan, T);                  \
  TRIB_REGISTER_CWISE("MulNoNan", BinaryOp, c_mul_no_nan, T);                  \
  TRIB_REGISTER_CWISE("Xdivy", BinaryOp, c_xdivy, T);                          \
  TRIB_REGISTER_CWISE("Xlogy", BinaryOp, c_xlogy, T);                          \
  TRIB_REGISTER_CWISE("Xlog1py", BinaryOp, c_xlog1py, T);                      \
  TRIB_REGISTER_CWISE("Equal", BinaryOp, equal_to, T);                         \
  TRIB_REGISTER_CWISE("NotEqual", BinaryOp, not_equal_to, T);

REGISTER_COMPLEX_BINARY(complex64)
REGISTER_COMPLEX_BINARY(complex128)
#undef REGISTER_COMPLEX_BINARY

}  // namespace tributary
