// Floor, Ceil, Cos, Sin (floating point) and Sign (numbers): what
// learning-rate schedules (staircase decay floors, cosine decay, cyclic
// polynomial decay ceils) and the orthogonal initializer (the sign of R's
// diagonal) need. Eigen's scalar functors, as TensorFlow's kernels use, so
// results are TensorFlow's (Sign(0) = 0, Sign(NaN) = NaN).
#include "kernels/math/cwise_ops.h"

namespace tributary {
namespace functor {

template <typename T>
struct floor : Spec<T, Eigen::internal::scalar_floor_op<T>> {};
template <typename T>
struct ceil : Spec<T, Eigen::internal::scalar_ceil_op<T>> {};
template <typename T>
struct cos : Spec<T, Eigen::internal::scalar_cos_op<T>> {};
template <typename T>
struct sin : Spec<T, Eigen::internal::scalar_sin_op<T>> {};
template <typename T>
struct sign : Spec<T, Eigen::internal::scalar_sign_op<T>> {};

}  // namespace functor

#define REGISTER_FLOAT(T)                          \
  TRIB_REGISTER_CWISE("Floor", UnaryOp, floor, T); \
  TRIB_REGISTER_CWISE("Ceil", UnaryOp, ceil, T);   \
  TRIB_REGISTER_CWISE("Cos", UnaryOp, cos, T);     \
  TRIB_REGISTER_CWISE("Sin", UnaryOp, sin, T);

REGISTER_FLOAT(float)
REGISTER_FLOAT(double)
TRIB_REGISTER_CWISE("Sign", UnaryOp, sign, float);
TRIB_REGISTER_CWISE("Sign", UnaryOp, sign, double);
TRIB_REGISTER_CWISE("Sign", UnaryOp, sign, int32_t);
TRIB_REGISTER_CWISE("Sign", UnaryOp, sign, int64_t);
#undef REGISTER_FLOAT

}  // namespace tributary
