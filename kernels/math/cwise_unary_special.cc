// Round (half to even) and Rint, the inverse and hyperbolic trigonometric
// functions, Tan, and the special functions Lgamma, Digamma, Erfinv, Ndtri.
// Eigen's scalar functors, as TensorFlow's kernels use, on the dtypes
// TensorFlow registers for the CPU (complex aside).
#include "kernels/math/cwise_ops.h"

namespace tributary {

#define REGISTER_TRIG(T)                           \
  TRIB_REGISTER_CWISE("Round", UnaryOp, round, T); \
  TRIB_REGISTER_CWISE("Tan", UnaryOp, tan, T);     \
  TRIB_REGISTER_CWISE("Asin", UnaryOp, asin, T);   \
  TRIB_REGISTER_CWISE("Acos", UnaryOp, acos, T);   \
  TRIB_REGISTER_CWISE("Atan", UnaryOp, atan, T);   \
  TRIB_REGISTER_CWISE("Sinh", UnaryOp, sinh, T);   \
  TRIB_REGISTER_CWISE("Cosh", UnaryOp, cosh, T);   \
  TRIB_REGISTER_CWISE("Asinh", UnaryOp, asinh, T); \
  TRIB_REGISTER_CWISE("Acosh", UnaryOp, acosh, T); \
  TRIB_REGISTER_CWISE("Atanh", UnaryOp, atanh, T);

REGISTER_TRIG(float)
REGISTER_TRIG(double)
REGISTER_TRIG(Eigen::half)
REGISTER_TRIG(Eigen::bfloat16)
#undef REGISTER_TRIG

// Integers round to themselves.
TRIB_REGISTER_CWISE("Round", UnaryOp, round, int32_t);
TRIB_REGISTER_CWISE("Round", UnaryOp, round, int64_t);

#define REGISTER_SPECIAL(T)                            \
  TRIB_REGISTER_CWISE("Rint", UnaryOp, rint, T);       \
  TRIB_REGISTER_CWISE("Lgamma", UnaryOp, lgamma, T);   \
  TRIB_REGISTER_CWISE("Digamma", UnaryOp, digamma, T); \
  TRIB_REGISTER_CWISE("Erfinv", UnaryOp, erfinv, T);   \
  TRIB_REGISTER_CWISE("Ndtri", UnaryOp, ndtri, T);

REGISTER_SPECIAL(float)
REGISTER_SPECIAL(double)
#undef REGISTER_SPECIAL
TRIB_REGISTER_CWISE("Lgamma", UnaryOp, lgamma, Eigen::half);
TRIB_REGISTER_CWISE("Digamma", UnaryOp, digamma, Eigen::half);

}  // namespace tributary
