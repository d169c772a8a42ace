// Sum, Mean (complex included).
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
// An empty Mean is complex 0, not NaN, as in TensorFlow.
REGISTER(complex64)
REGISTER(complex128)
#undef REGISTER

}  // namespace tributary
