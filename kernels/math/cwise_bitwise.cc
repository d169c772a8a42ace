// BitwiseAnd/Or/Xor, LeftShift/RightShift (shift counts clamped to
// [0, bits - 1] as TensorFlow does), Invert and PopulationCount on all eight
// integer types.
#include "kernels/math/cwise_ops.h"

namespace tributary {

#define REGISTER_INT(T)                                                   \
  TRIB_REGISTER_CWISE("BitwiseAnd", BinaryOp, bitwise_and, T);            \
  TRIB_REGISTER_CWISE("BitwiseOr", BinaryOp, bitwise_or, T);              \
  TRIB_REGISTER_CWISE("BitwiseXor", BinaryOp, bitwise_xor, T);            \
  TRIB_REGISTER_CWISE("LeftShift", BinaryOp, left_shift, T);              \
  TRIB_REGISTER_CWISE("RightShift", BinaryOp, right_shift, T);            \
  TRIB_REGISTER_CWISE("Invert", UnaryOp, invert, T);                      \
  TRIB_REGISTER_CWISE("PopulationCount", UnaryOp, population_count, T);

REGISTER_INT(int8_t)
REGISTER_INT(int16_t)
REGISTER_INT(int32_t)
REGISTER_INT(int64_t)
REGISTER_INT(uint8_t)
REGISTER_INT(uint16_t)
REGISTER_INT(uint32_t)
REGISTER_INT(uint64_t)
#undef REGISTER_INT

}  // namespace tributary
