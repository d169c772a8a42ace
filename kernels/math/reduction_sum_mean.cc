// Sum, Mean.
#include "kernels/math/reduction_ops.h"

namespace tributary {

#define REGISTER(T)                                       \
  TRIB_REGISTER_REDUCTION("Sum", SumReduction, T);        \
  TRIB_REGISTER_REDUCTION("Mean", MeanReduction, T);
REGISTER(float)
REGISTER(double)
REGISTER(int32_t)
REGISTER(int64_t)
REGISTER(Eigen::half)
REGISTER(Eigen::bfloat16)
#undef REGISTER

}  // namespace tributary
