// Neg, Abs, Square (numbers) and Sqrt, Rsqrt, Reciprocal, Exp, Log, Log1p,
// Expm1, Tanh, Sigmoid, Erf, Erfc (floating point; Reciprocal has no integer
// kernels here).
#include "kernels/math/cwise_ops.h"

namespace tributary {

#define REGISTER_NUMERIC(T)                    \
  TRIB_REGISTER_CWISE("Neg", UnaryOp, neg, T); \
  TRIB_REGISTER_CWISE("Abs", UnaryOp, abs, T); \
  TRIB_REGISTER_CWISE("Square", UnaryOp, square, T);

#define REGISTER_FLOAT(T)                                    \
  TRIB_REGISTER_CWISE("Sqrt", UnaryOp, sqrt, T);             \
  TRIB_REGISTER_CWISE("Rsqrt", UnaryOp, rsqrt, T);           \
  TRIB_REGISTER_CWISE("Reciprocal", UnaryOp, reciprocal, T); \
  TRIB_REGISTER_CWISE("Exp", UnaryOp, exp, T);               \
  TRIB_REGISTER_CWISE("Log", UnaryOp, log, T);               \
  TRIB_REGISTER_CWISE("Log1p", UnaryOp, log1p, T);           \
  TRIB_REGISTER_CWISE("Expm1", UnaryOp, expm1, T);           \
  TRIB_REGISTER_CWISE("Tanh", UnaryOp, tanh, T);             \
  TRIB_REGISTER_CWISE("Sigmoid", UnaryOp, sigmoid, T);       \
  TRIB_REGISTER_CWISE("Erf", UnaryOp, erf, T);               \
  TRIB_REGISTER_CWISE("Erfc", UnaryOp, erfc, T);

REGISTER_NUMERIC(float)
REGISTER_NUMERIC(double)
REGISTER_NUMERIC(int32_t)
REGISTER_NUMERIC(int64_t)
REGISTER_FLOAT(float)
REGISTER_FLOAT(double)
// Keras mixed precision computes in these.
REGISTER_NUMERIC(Eigen::half)
REGISTER_NUMERIC(Eigen::bfloat16)
REGISTER_FLOAT(Eigen::half)
REGISTER_FLOAT(Eigen::bfloat16)
#undef REGISTER_NUMERIC
#undef REGISTER_FLOAT

}  // namespace tributary
