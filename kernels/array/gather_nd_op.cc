// GatherNd: for indices of shape [i1..ik, n] (n <= rank(params)), the output
// of shape [i1..ik] + params.shape[n:], where output[i1..ik] is the slice
// params[indices[i1..ik, 0], ..., indices[i1..ik, n-1]] (a contiguous run of
// the trailing params dims, copied as a block). Feature columns read the
// non-empty values of a dense string feature with it (to_sparse_input).
// An index out of range is INVALID_ARGUMENT (TensorFlow's default policy).
// The work is array_ops::GatherNdToOutput, shared with ResourceGatherNd.

#include <cstdint>
#include <string>

#include "common/kernel/kernel_registry.h"
#include "common/kernel/op_kernel.h"
#include "kernels/array/array_util.h"
#include "kernels/array/gather_functor.h"

namespace tributary {
namespace {

class GatherNdOp : public OpKernel {
 public:
  explicit GatherNdOp(OpKernelConstruction* context) : OpKernel(context) {
    std::string policy;
    OP_REQUIRES_OK(context, context->GetAttr("bad_indices_policy", &policy));
    OP_REQUIRES(context, policy.empty() || policy == "DEFAULT" ||
                             policy == "ERROR",
                errors::InvalidArgument(
                    "bad_indices_policy '", policy,
                    "' is not supported here (only the default: an error)"));
  }

  void Compute(OpKernelContext* context) override {
    const Tensor& params = context->input(0);
    const Tensor& indices = context->input(1);
    OP_REQUIRES(context, params.dims() >= 1,
                errors::InvalidArgument("params must be at least a vector"));
    OP_REQUIRES(context, indices.dims() >= 1,
                errors::InvalidArgument("index must be at least a vector"));
    OP_REQUIRES_OK(context, array_ops::GatherNdToOutput(context, params,
                                                       indices, 0, "GatherNd"));
  }
};

constexpr DataType kGatherNdIndexTypes[] = {DT_INT16, DT_INT32, DT_INT64};

REGISTER_KERNEL_BUILDER(
    Name("GatherNd")
        .Device(DEVICE_CPU)
        .TypeConstraint("Tparams", array_ops::kAllTypes)
        .TypeConstraint("Tindices", kGatherNdIndexTypes),
    GatherNdOp);

}  // namespace
}  // namespace tributary
