// All and Any: logical reductions of a bool tensor (an empty reduction is
// true for All, false for Any, as in TensorFlow).
#include "kernels/math/reduction_ops.h"

namespace tributary {
namespace functor {

struct AllReduction {
  using Reducer = Eigen::internal::AndReducer;
  static constexpr bool kMean = false;
  static bool Identity() { return true; }
};

struct AnyReduction {
  using Reducer = Eigen::internal::OrReducer;
  static constexpr bool kMean = false;
  static bool Identity() { return false; }
};

}  // namespace functor

#define REGISTER_LOGICAL(OP, SPEC)                                        \
  REGISTER_KERNEL_BUILDER(                                                \
      Name(OP)                                                            \
          .Device(DEVICE_CPU)                                             \
          .TypeConstraint("Tidx", {tensorflow::DT_INT32,                  \
                                   tensorflow::DT_INT64})                 \
          .HostMemory("reduction_indices"),                               \
      ReductionOp<bool, functor::SPEC>)
REGISTER_LOGICAL("All", AllReduction);
REGISTER_LOGICAL("Any", AnyReduction);
#undef REGISTER_LOGICAL

}  // namespace tributary
