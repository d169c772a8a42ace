// The complex-number ops: Complex (real, imag -> complex, broadcasting),
// Real, Imag, Angle, ComplexAbs (complex -> its real type) and Conj, for
// complex64 (float parts) and complex128 (double parts), as TensorFlow's CPU
// kernels: std::complex's own functions, element by element.
#include <complex>

#include "kernels/math/cwise_ops.h"

namespace tributary {
namespace functor {

template <typename T>
struct MakeComplexF {
  std::complex<T> operator()(const T& re, const T& im) const {
    return std::complex<T>(re, im);
  }
};
template <typename T>
struct RealPartF {
  T operator()(const std::complex<T>& x) const { return x.real(); }
};
template <typename T>
struct ImagPartF {
  T operator()(const std::complex<T>& x) const { return x.imag(); }
};
// atan2(imag, real).
template <typename T>
struct AngleF {
  T operator()(const std::complex<T>& x) const { return std::arg(x); }
};
// hypot(real, imag), without intermediate overflow.
template <typename T>
struct ComplexAbsF {
  T operator()(const std::complex<T>& x) const { return std::abs(x); }
};
template <typename T>
struct ConjF {
  std::complex<T> operator()(const std::complex<T>& x) const {
    return std::conj(x);
  }
};

// T is the part type (float or double).
template <typename T>
struct make_complex : Spec<T, MakeComplexF<T>, std::complex<T>> {};
template <typename T>
struct real_part : Spec<std::complex<T>, RealPartF<T>, T> {};
template <typename T>
struct imag_part : Spec<std::complex<T>, ImagPartF<T>, T> {};
template <typename T>
struct angle : Spec<std::complex<T>, AngleF<T>, T> {};
template <typename T>
struct complex_abs : Spec<std::complex<T>, ComplexAbsF<T>, T> {};
template <typename T>
struct conj : Spec<std::complex<T>, ConjF<T>> {};

}  // namespace functor

// Complex is constrained on both T and Tout, Real/Imag/Angle on both T and
// Tout, ComplexAbs on T only (as TensorFlow: a mismatched Tout fails the
// kernel's signature check).
#define REGISTER_COMPLEX(R, C)                                      \
  REGISTER_KERNEL_BUILDER(Name("Complex")                           \
                              .Device(DEVICE_CPU)                   \
                              .TypeConstraint<R>("T")               \
                              .TypeConstraint<C>("Tout"),           \
                          BinaryOp<functor::make_complex<R>>);      \
  REGISTER_KERNEL_BUILDER(Name("Real")                              \
                              .Device(DEVICE_CPU)                   \
                              .TypeConstraint<C>("T")               \
                              .TypeConstraint<R>("Tout"),           \
                          UnaryOp<functor::real_part<R>>);          \
  REGISTER_KERNEL_BUILDER(Name("Imag")                              \
                              .Device(DEVICE_CPU)                   \
                              .TypeConstraint<C>("T")               \
                              .TypeConstraint<R>("Tout"),           \
                          UnaryOp<functor::imag_part<R>>);          \
  REGISTER_KERNEL_BUILDER(Name("Angle")                             \
                              .Device(DEVICE_CPU)                   \
                              .TypeConstraint<C>("T")               \
                              .TypeConstraint<R>("Tout"),           \
                          UnaryOp<functor::angle<R>>);              \
  REGISTER_KERNEL_BUILDER(                                          \
      Name("ComplexAbs").Device(DEVICE_CPU).TypeConstraint<C>("T"), \
      UnaryOp<functor::complex_abs<R>>);                            \
  REGISTER_KERNEL_BUILDER(                                          \
      Name("Conj").Device(DEVICE_CPU).TypeConstraint<C>("T"),       \
      UnaryOp<functor::conj<R>>);

REGISTER_COMPLEX(float, complex64)
REGISTER_COMPLEX(double, complex128)
#undef REGISTER_COMPLEX

}  // namespace tributary
