// Equal, NotEqual, Less, LessEqual, Greater, GreaterEqual; LogicalAnd,
// LogicalOr, LogicalNot.
#include "kernels/math/cwise_ops.h"

namespace tributary {

#define REGISTER_EQUALITY(T)                                 \
  TRIB_REGISTER_CWISE("Equal", BinaryOp, equal_to, T);       \
  TRIB_REGISTER_CWISE("NotEqual", BinaryOp, not_equal_to, T);

#define REGISTER_ORDER(T)                                         \
  TRIB_REGISTER_CWISE("Less", BinaryOp, less, T);                 \
  TRIB_REGISTER_CWISE("LessEqual", BinaryOp, less_equal, T);      \
  TRIB_REGISTER_CWISE("Greater", BinaryOp, greater, T);           \
  TRIB_REGISTER_CWISE("GreaterEqual", BinaryOp, greater_equal, T);

REGISTER_EQUALITY(float)
REGISTER_EQUALITY(double)
REGISTER_EQUALITY(int32_t)
REGISTER_EQUALITY(int64_t)
REGISTER_EQUALITY(bool)
REGISTER_EQUALITY(Eigen::half)
REGISTER_EQUALITY(Eigen::bfloat16)
REGISTER_ORDER(float)
REGISTER_ORDER(double)
REGISTER_ORDER(int32_t)
REGISTER_ORDER(int64_t)
REGISTER_ORDER(Eigen::half)
REGISTER_ORDER(Eigen::bfloat16)
#undef REGISTER_EQUALITY
#undef REGISTER_ORDER

REGISTER_KERNEL_BUILDER(Name("LogicalAnd").Device(DEVICE_CPU),
                        BinaryOp<functor::logical_and>);
REGISTER_KERNEL_BUILDER(Name("LogicalOr").Device(DEVICE_CPU),
                        BinaryOp<functor::logical_or>);
REGISTER_KERNEL_BUILDER(Name("LogicalNot").Device(DEVICE_CPU),
                        UnaryOp<functor::logical_not>);

}  // namespace tributary
