// StridedSliceAssign (TF1 reference variables) and ResourceStridedSliceAssign
// (resource variables): `v[1:3, ::-1].assign(value)` writes value, broadcast
// to the slice's shape, into the variable in place (strided_slice_write.h).
// The variable's lock is held for the write (TensorFlow holds it too:
// these ops have no use_locking attr); a resource variable's buffer is made
// private first, so a snapshot read earlier keeps its values. The ref form
// outputs the variable's reference.

#include "common/framework/status.h"
#include "common/kernel/kernel_registry.h"
#include "common/kernel/op_kernel.h"
#include "kernels/array/array_util.h"
#include "kernels/array/strided_slice_masks.h"
#include "kernels/array/strided_slice_spec.h"
#include "kernels/array/strided_slice_write.h"
#include "kernels/state/variable_exists.h"
#include "kernels/training/training_op_helpers.h"

namespace tributary {
namespace {

class StridedSliceAssignOp : public OpKernel {
 public:
  explicit StridedSliceAssignOp(OpKernelConstruction* context)
      : OpKernel(context) {
    OP_REQUIRES_OK(context, array_ops::GetStridedSliceMasks(context, &masks_));
  }

  void Compute(OpKernelContext* context) override {
    OP_REQUIRES_OK(context, CheckVariableExists(context, 0));
    VariableInputs vars(context, /*use_locking=*/true);
    OP_REQUIRES_OK(context, vars.Acquire({0}));
    const Tensor& value = context->input(4);
    Tensor target;
    OP_REQUIRES_OK(context, vars.GetTensor(0, value.dtype(), &target));
    array_ops::StridedSlicePlan plan;
    OP_REQUIRES_OK(context, array_ops::PlanStridedSlice(
                                target.shape(), context->input(1),
                                context->input(2), context->input(3), masks_,
                                &plan));
    OP_REQUIRES_OK(context,
                   array_ops::WriteStridedSlice(context, plan, value, &target));
    vars.MaybeForwardRefInputToRefOutput(0, 0);
  }

 private:
  array_ops::StridedSliceMasks masks_;
};

REGISTER_KERNEL_BUILDER(Name("StridedSliceAssign")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("T", array_ops::kAllTypes),
                        StridedSliceAssignOp);
REGISTER_KERNEL_BUILDER(Name("ResourceStridedSliceAssign")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("T", array_ops::kAllTypes),
                        StridedSliceAssignOp);

}  // namespace
}  // namespace tributary
