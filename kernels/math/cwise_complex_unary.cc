// complex64 and complex128 kernels of the unary elementwise ops TensorFlow
// registers them for (Neg, Square, Sqrt, Rsqrt, Reciprocal/Inv, Exp, Log,
// Log1p, Expm1, the trigonometric and hyperbolic functions and their
// inverses, Tanh, Sigmoid, Sign) and of the gradients SqrtGrad, RsqrtGrad,
// ReciprocalGrad/InvGrad. Eigen's scalar functors as TensorFlow's kernels
// use them (std::complex's functions underneath); Sign is x / |x| (0 at 0).
// Abs is not here: TensorFlow has no complex Abs kernel (tf.abs emits
// ComplexAbs, cwise_complex.cc).
#include <complex>

#include "kernels/math/cwise_ops.h"

namespace tributary {
namespace functor {
namespace {

// TensorFlow's complex gradients through the forward output y use its
// conjugate: SqrtGrad 0.5 * dy / conj(y), RsqrtGrad -0.5 * (dy * conj(y)) *
// conj(y)^2, ReciprocalGrad -conj(y) * conj(y) * dy; 0 where dy == 0.
// Scalar only (the real types' packet paths have no conjugate).
template <typename T>
struct ComplexSqrtGradF {
  T operator()(const T& y, const T& dy) const {
    if (dy == T(0)) return T(0);
    const T c = std::conj(y);
    return T(0.5) * dy / c;
  }
};
template <typename T>
struct ComplexRsqrtGradF {
  T operator()(const T& y, const T& dy) const {
    if (dy == T(0)) return T(0);
    const T c = std::conj(y);
    return T(-0.5) * (dy * c) * (c * c);
  }
};
template <typename T>
struct ComplexInverseGradF {
  T operator()(const T& y, const T& dy) const {
    if (dy == T(0)) return T(0);
    const T c = std::conj(y);
    return -c * c * dy;
  }
};

template <typename T>
struct c_sin : Spec<T, Eigen::internal::scalar_sin_op<T>> {};
template <typename T>
struct c_cos : Spec<T, Eigen::internal::scalar_cos_op<T>> {};
template <typename T>
struct c_sign : Spec<T, Eigen::internal::scalar_sign_op<T>> {};
template <typename T>
struct c_sqrt_grad : Spec<T, ComplexSqrtGradF<T>> {};
template <typename T>
struct c_rsqrt_grad : Spec<T, ComplexRsqrtGradF<T>> {};
template <typename T>
struct c_inverse_grad : Spec<T, ComplexInverseGradF<T>> {};

}  // namespace
}  // namespace functor

#define REGISTER_COMPLEX_UNARY(T)                                           \
  TRIB_REGISTER_CWISE("Neg", UnaryOp, neg, T);                              \
  TRIB_REGISTER_CWISE("Square", UnaryOp, square, T);                        \
  TRIB_REGISTER_CWISE("Sqrt", UnaryOp, sqrt, T);                            \
  TRIB_REGISTER_CWISE("Rsqrt", UnaryOp, rsqrt, T);                          \
  TRIB_REGISTER_CWISE("Reciprocal", UnaryOp, reciprocal, T);                \
  TRIB_REGISTER_CWISE("Inv", UnaryOp, reciprocal, T);                       \
  TRIB_REGISTER_CWISE("Exp", UnaryOp, exp, T);                              \
  TRIB_REGISTER_CWISE("Log", UnaryOp, log, T);                              \
  TRIB_REGISTER_CWISE("Log1p", UnaryOp, log1p, T);                          \
  TRIB_REGISTER_CWISE("Expm1", UnaryOp, expm1, T);                          \
  TRIB_REGISTER_CWISE("Sin", UnaryOp, c_sin, T);                            \
  TRIB_REGISTER_CWISE("Cos", UnaryOp, c_cos, T);                            \
  TRIB_REGISTER_CWISE("Tan", UnaryOp, tan, T);                              \
  TRIB_REGISTER_CWISE("Asin", UnaryOp, asin, T);                            \
  TRIB_REGISTER_CWISE("Acos", UnaryOp, acos, T);                            \
  TRIB_REGISTER_CWISE("Atan", UnaryOp, atan, T);                            \
  TRIB_REGISTER_CWISE("Sinh", UnaryOp, sinh, T);                            \
  TRIB_REGISTER_CWISE("Cosh", UnaryOp, cosh, T);                            \
  TRIB_REGISTER_CWISE("Asinh", UnaryOp, asinh, T);                          \
  TRIB_REGISTER_CWISE("Acosh", UnaryOp, acosh, T);                          \
  TRIB_REGISTER_CWISE("Atanh", UnaryOp, atanh, T);                          \
  TRIB_REGISTER_CWISE("Tanh", UnaryOp, tanh, T);                            \
  TRIB_REGISTER_CWISE("Sigmoid", UnaryOp, sigmoid, T);                      \
  TRIB_REGISTER_CWISE("Sign", UnaryOp, c_sign, T);                          \
  TRIB_REGISTER_CWISE("SqrtGrad", SimpleBinaryOp, c_sqrt_grad, T);          \
  TRIB_REGISTER_CWISE("RsqrtGrad", SimpleBinaryOp, c_rsqrt_grad, T);        \
  TRIB_REGISTER_CWISE("ReciprocalGrad", SimpleBinaryOp, c_inverse_grad, T); \
  TRIB_REGISTER_CWISE("InvGrad", SimpleBinaryOp, c_inverse_grad, T);

REGISTER_COMPLEX_UNARY(complex64)
REGISTER_COMPLEX_UNARY(complex128)
#undef REGISTER_COMPLEX_UNARY

}  // namespace tributary
