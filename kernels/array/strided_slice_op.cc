// StridedSlice: Python's extended slicing (`x[1:-1:2, ..., tf.newaxis, 3]`)
// as one op. strided_slice_spec.h plans it; here the plan becomes either a
// shared buffer (identity, or a contiguous range of dim 0) or a strided copy
// (any strides, negative ones walk backwards).

#include <cstdint>

#include "absl/container/inlined_vector.h"
#include "common/kernel/kernel_registry.h"
#include "common/kernel/op_kernel.h"
#include "kernels/array/array_util.h"
#include "kernels/array/strided_copy.h"
#include "kernels/array/strided_slice_masks.h"
#include "kernels/array/strided_slice_spec.h"

namespace tributary {
namespace {

class StridedSliceOp : public OpKernel {
 public:
  explicit StridedSliceOp(OpKernelConstruction* context) : OpKernel(context) {
    OP_REQUIRES_OK(context, array_ops::GetStridedSliceMasks(context, &masks_));
  }

  void Compute(OpKernelContext* context) override {
    const Tensor& input = context->input(0);
    array_ops::StridedSlicePlan plan;
    OP_REQUIRES_OK(
        context, array_ops::PlanStridedSlice(input.shape(), context->input(1),
                                             context->input(2),
                                             context->input(3), masks_, &plan));

    if (plan.is_identity) {
      Tensor output(input.dtype());
      OP_REQUIRES(context, output.CopyFrom(input, plan.final_shape),
                  errors::Internal("StridedSlice could not reshape"));
      context->set_output(0, std::move(output));
      return;
    }
    if (plan.slice_dim0) {
      // begin > end along dim 0 is an empty slice.
      const int64_t lo = std::min(plan.begin[0], plan.end[0]);
      Tensor output(input.dtype());
      OP_REQUIRES(
          context,
          output.CopyFrom(input.Slice(lo, plan.end[0]), plan.final_shape),
          errors::Internal("StridedSlice could not share its input"));
      context->set_output(0, std::move(output));
      return;
    }

    Tensor* out = nullptr;
    OP_REQUIRES_OK(context,
                   context->allocate_output(0, plan.final_shape, &out));
    if (out->NumElements() == 0) return;
    // Walk the processing shape (one dim per input dim; shrunk dims have
    // size 1 and new axes add nothing, so the element order is the
    // output's).
    const auto in_strides = array_ops::RowMajorStrides(input.shape());
    const int rank = input.dims();
    absl::InlinedVector<int64_t, 8> strides(rank);
    int64_t offset = 0;
    for (int d = 0; d < rank; ++d) {
      offset += plan.begin[d] * in_strides[d];
      strides[d] = plan.strides[d] * in_strides[d];
    }
    OP_REQUIRES_OK(context,
                   array_ops::StridedCopy(context, input.dtype(),
                                          array_ops::ElementAt(input, offset),
                                          plan.processing_shape.dim_sizes(),
                                          strides, out->data()));
  }

 private:
  array_ops::StridedSliceMasks masks_;
};

REGISTER_KERNEL_BUILDER(Name("StridedSlice")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("T", array_ops::kAllTypes),
                        StridedSliceOp);

}  // namespace
}  // namespace tributary
