// Max, Min (NaN-propagating), Prod.
#include "kernels/math/reduction_ops.h"

namespace tributary {

#define REGISTER(T)                                       \
  TRIB_REGISTER_REDUCTION("Max", MaxReduction, T);        \
  TRIB_REGISTER_REDUCTION("Min", MinReduction, T);        \
  TRIB_REGISTER_REDUCTION("Prod", ProdReduction, T);
REGISTER(float)
REGISTER(double)
REGISTER(int32_t)
REGISTER(int64_t)
REGISTER(Eigen::half)
REGISTER(Eigen::bfloat16)
#undef REGISTER
// Complex numbers have no order: Prod only.
TRIB_REGISTER_REDUCTION("Prod", ProdReduction, complex64);
TRIB_REGISTER_REDUCTION("Prod", ProdReduction, complex128);

}  // namespace tributary
