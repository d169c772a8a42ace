// Transpose: output dim i is input dim perm[i]. Implemented as a strided
// copy whose source strides are the input's row-major strides permuted
// (strided_copy.h does the cache blocking and threading).

#include <cstdint>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "common/kernel/kernel_registry.h"
#include "common/kernel/op_kernel.h"
#include "kernels/array/array_util.h"
#include "kernels/array/strided_copy.h"
#include "kernels/array/transpose_plan.h"

namespace tributary {
namespace {

class TransposeOp : public OpKernel {
 public:
  explicit TransposeOp(OpKernelConstruction* context) : OpKernel(context) {}

  void Compute(OpKernelContext* context) override {
    const Tensor& input = context->input(0);
    absl::StatusOr<TransposePlan> plan =
        PlanTranspose(input, context->input(1));
    OP_REQUIRES_OK(context, plan.status());
    // Nothing moves: share the buffer, or reshape it.
    bool done = false;
    OP_REQUIRES_OK(context,
                   TransposeWithoutMoving(context, input, *plan, &done));
    if (done) return;
    const std::vector<int>& perm = plan->perm;
    const TensorShape& shape = plan->shape;
    const int rank = input.dims();
    Tensor* out = nullptr;
    OP_REQUIRES_OK(context, context->allocate_output(0, shape, &out));
    if (out->NumElements() == 0) return;
    const absl::InlinedVector<int64_t, 8> in_strides =
        array_ops::RowMajorStrides(input.shape());
    absl::InlinedVector<int64_t, 8> strides(rank);
    for (int i = 0; i < rank; ++i) strides[i] = in_strides[perm[i]];
    OP_REQUIRES_OK(context, array_ops::StridedCopy(
                                context, input.dtype(), input.data(),
                                shape.dim_sizes(), strides, out->data()));
  }
};

REGISTER_KERNEL_BUILDER(Name("Transpose")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("T", array_ops::kAllTypes)
                            .TypeConstraint("Tperm", array_ops::kIndexTypes),
                        TransposeOp);

}  // namespace
}  // namespace tributary
