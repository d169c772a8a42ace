// Add, AddV2, Sub, Mul, SquaredDifference.
#include "kernels/math/cwise_ops.h"

namespace tributary {

#define REGISTER_ARITH(T)                             \
  TRIB_REGISTER_CWISE("Add", BinaryOp, add, T);       \
  TRIB_REGISTER_CWISE("AddV2", BinaryOp, add, T);     \
  TRIB_REGISTER_CWISE("Sub", BinaryOp, sub, T);       \
  TRIB_REGISTER_CWISE("Mul", BinaryOp, mul, T);       \
  TRIB_REGISTER_CWISE("SquaredDifference", BinaryOp, squared_difference, T);

REGISTER_ARITH(float)
REGISTER_ARITH(double)
REGISTER_ARITH(int32_t)
REGISTER_ARITH(int64_t)
// Keras mixed precision (mixed_float16 / mixed_bfloat16) computes in these.
REGISTER_ARITH(Eigen::half)
REGISTER_ARITH(Eigen::bfloat16)
#undef REGISTER_ARITH

}  // namespace tributary
