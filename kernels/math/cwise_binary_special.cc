// TruncateDiv, TruncateMod and Mod (rounding toward zero; integer division
// by zero is an error, INT_MIN / -1 wraps instead of trapping), Atan2, and
// the zero-guarded products Xlogy, Xdivy, Xlog1py, MulNoNan. All broadcast.
#include "kernels/math/cwise_ops.h"

namespace tributary {

#define REGISTER_REAL(T)                                                 \
  TRIB_REGISTER_CWISE("TruncateDiv", BinaryOp, truncate_div_real, T);    \
  TRIB_REGISTER_CWISE("Atan2", BinaryOp, atan2, T);                      \
  TRIB_REGISTER_CWISE("Xlogy", BinaryOp, xlogy, T);                      \
  TRIB_REGISTER_CWISE("Xdivy", BinaryOp, xdivy, T);                      \
  TRIB_REGISTER_CWISE("Xlog1py", BinaryOp, xlog1py, T);                  \
  TRIB_REGISTER_CWISE("MulNoNan", BinaryOp, mul_no_nan, T);

REGISTER_REAL(float)
REGISTER_REAL(double)
REGISTER_REAL(Eigen::half)
REGISTER_REAL(Eigen::bfloat16)
#undef REGISTER_REAL

// fmod for floats (TensorFlow has no half/bfloat16 CPU kernels for these).
TRIB_REGISTER_CWISE("Mod", BinaryOp, fmod, float);
TRIB_REGISTER_CWISE("Mod", BinaryOp, fmod, double);
TRIB_REGISTER_CWISE("TruncateMod", BinaryOp, fmod, float);
TRIB_REGISTER_CWISE("TruncateMod", BinaryOp, fmod, double);

#define REGISTER_INT_MOD(T)                                             \
  TRIB_REGISTER_CWISE("Mod", BinaryOp, safe_mod, T);                    \
  TRIB_REGISTER_CWISE("TruncateMod", BinaryOp, safe_truncate_mod, T);
REGISTER_INT_MOD(int32_t)
REGISTER_INT_MOD(int64_t)
#undef REGISTER_INT_MOD

#define REGISTER_INT_DIV(T) \
  TRIB_REGISTER_CWISE("TruncateDiv", BinaryOp, safe_truncate_div, T);
REGISTER_INT_DIV(int8_t)
REGISTER_INT_DIV(int16_t)
REGISTER_INT_DIV(int32_t)
REGISTER_INT_DIV(int64_t)
REGISTER_INT_DIV(uint8_t)
REGISTER_INT_DIV(uint16_t)
REGISTER_INT_DIV(uint32_t)
REGISTER_INT_DIV(uint64_t)
#undef REGISTER_INT_DIV

}  // namespace tributary
