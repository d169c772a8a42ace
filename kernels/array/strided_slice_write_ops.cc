// StridedSliceGrad and TensorStridedSliceUpdate: the functional writes into
// a strided slice (see strided_slice_write.h for the element rule).
//
//  * StridedSliceGrad(shape, begin, end, strides, dy): zeros of `shape` with
//    dy at the positions StridedSlice read; dy must have the slice's shape
//    exactly ("shape of dy was [..] instead of [..]").
//  * TensorStridedSliceUpdate(input, begin, end, strides, value): a copy of
//    input with value (broadcast to the slice's shape) written into the
//    slice; the input's buffer is reused when no one else holds it.

#include <cstdint>
#include <cstring>

#include "common/kernel/kernel_registry.h"
#include "common/kernel/op_kernel.h"
#include "kernels/array/array_util.h"
#include "kernels/array/strided_copy.h"
#include "kernels/array/strided_slice_masks.h"
#include "kernels/array/strided_slice_spec.h"
#include "kernels/array/strided_slice_write.h"

namespace tributary {
namespace {

class StridedSliceGradOp : public OpKernel {
 public:
  explicit StridedSliceGradOp(OpKernelConstruction* context)
      : OpKernel(context) {
    OP_REQUIRES_OK(context, array_ops::GetStridedSliceMasks(context, &masks_));
  }

  void Compute(OpKernelContext* context) override {
    const Tensor& shape_tensor = context->input(0);
    OP_REQUIRES(context, shape_tensor.dims() == 1,
                errors::InvalidArgument("shape must be 1-D, got shape ",
                                        shape_tensor.shape().DebugString()));
    TensorShape input_shape;
    OP_REQUIRES_OK(context, array_ops::MakeShapeFromShapeTensor(
                                shape_tensor, &input_shape));
    array_ops::StridedSlicePlan plan;
    OP_REQUIRES_OK(context, array_ops::PlanStridedSlice(
                                input_shape, context->input(1),
                                context->input(2), context->input(3), masks_,
                                &plan));
    const Tensor& dy = context->input(4);
    OP_REQUIRES(context, dy.shape() == plan.final_shape,
                errors::InvalidArgument(
                    "shape of dy was ", dy.shape().DebugString(),
                    " instead of ", plan.final_shape.DebugString()));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(context, context->allocate_output(0, input_shape, &out));
    if (out->NumElements() == 0) return;
    // Strings start empty (TensorFlow's zero); every other dtype's zero is
    // all bits clear.
    if (out->dtype() != DT_STRING) std::memset(out->data(), 0, out->TotalBytes());
    OP_REQUIRES_OK(context,
                   array_ops::WriteStridedSlice(context, plan, dy, out));
  }

 private:
  array_ops::StridedSliceMasks masks_;
};

class TensorStridedSliceUpdateOp : public OpKernel {
 public:
  explicit TensorStridedSliceUpdateOp(OpKernelConstruction* context)
      : OpKernel(context) {
    OP_REQUIRES_OK(context, array_ops::GetStridedSliceMasks(context, &masks_));
  }

  void Compute(OpKernelContext* context) override {
    const Tensor& input = context->input(0);
    array_ops::StridedSlicePlan plan;
    OP_REQUIRES_OK(context, array_ops::PlanStridedSlice(
                                input.shape(), context->input(1),
                                context->input(2), context->input(3), masks_,
                                &plan));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(context, context->forward_input_or_allocate_output(
                                {0}, 0, input.shape(), &out));
    const int64_t n = input.NumElements();
    if (out->data() != input.data() && n > 0) {
      OP_REQUIRES_OK(context,
                     array_ops::StridedCopy(context, input.dtype(),
                                            input.data(), {n}, {1},
                                            out->data()));
    }
    OP_REQUIRES_OK(context, array_ops::WriteStridedSlice(
                                context, plan, context->input(4), out));
  }

 private:
  array_ops::StridedSliceMasks masks_;
};

REGISTER_KERNEL_BUILDER(Name("StridedSliceGrad")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("T", array_ops::kAllTypes),
                        StridedSliceGradOp);
REGISTER_KERNEL_BUILDER(Name("TensorStridedSliceUpdate")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("T", array_ops::kAllTypes),
                        TensorStridedSliceUpdateOp);

}  // namespace
}  // namespace tributary
