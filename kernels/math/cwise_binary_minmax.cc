// Maximum, Minimum (NaN-propagating for floating point, like TensorFlow).
#include "kernels/math/cwise_ops.h"

namespace tributary {

#define REGISTER_MINMAX(T)                              \
  TRIB_REGISTER_CWISE("Maximum", BinaryOp, maximum, T); \
  TRIB_REGISTER_CWISE("Minimum", BinaryOp, minimum, T);

REGISTER_MINMAX(float)
REGISTER_MINMAX(double)
REGISTER_MINMAX(int32_t)
REGISTER_MINMAX(int64_t)
REGISTER_MINMAX(Eigen::half)
REGISTER_MINMAX(Eigen::bfloat16)
#undef REGISTER_MINMAX

}  // namespace tributary
