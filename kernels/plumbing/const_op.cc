// Const: serves the tensor in its `value` attr. The tensor is decoded once,
// when the kernel is built, into memory from the device (so a GPU device
// would place it in device memory), and every run hands out a reference to
// that one buffer: constants cost nothing per step. The buffer is registered
// as constant (constant_buffers.h) for kernels that cache what they derive
// from it.

#include "common/framework/constant_buffers.h"
#include "common/kernel/device_base.h"
#include "common/kernel/kernel_registry.h"
#include "common/kernel/op_kernel.h"

namespace tributary {
namespace {

class ConstantOp : public OpKernel {
 public:
  explicit ConstantOp(OpKernelConstruction* context)
      : OpKernel(context), tensor_(context->output_type(0)) {
    const tensorflow::TensorProto* proto = nullptr;
    OP_REQUIRES_OK(context, context->GetAttr("value", &proto));
    if (context->device() != nullptr) {
      // Host memory where the kernel's output is (int32 and strings on a
      // GPU, everything on a CPU), the device's own memory otherwise.
      AllocatorAttributes attr;
      const MemoryTypeSlice types = context->output_memory_types();
      attr.set_on_host(!types.empty() && types[0] == HOST_MEMORY);
      OP_REQUIRES_OK(context, context->device()->MakeTensorFromProto(
                                  *proto, attr, &tensor_));
    } else {
      absl::StatusOr<Tensor> parsed =
          Tensor::FromProto(*proto, context->allocator());
      OP_REQUIRES_OK(context, parsed.status());
      tensor_ = std::move(parsed).value();
    }
    OP_REQUIRES(
        context, context->output_type(0) == tensor_.dtype(),
        errors::InvalidArgument(
            "Type mismatch between value (", DataTypeString(tensor_.dtype()),
            ") and dtype (", DataTypeString(context->output_type(0)), ")"));
    expensive_ = false;
    if (tensor_.NumElements() > 0) {
      registered_ = tensor_.data();
      RegisterConstantBuffer(registered_);
    }
  }

  ~ConstantOp() override {
    if (registered_ != nullptr) UnregisterConstantBuffer(registered_);
  }

  void Compute(OpKernelContext* context) override {
    context->set_output(0, tensor_);
  }

  bool IsExpensive() override { return false; }

 private:
  // Never written after construction: shared read-only by every step.
  Tensor tensor_;
  const void* registered_ = nullptr;
};

REGISTER_KERNEL_BUILDER(Name("Const").Device(DEVICE_CPU), ConstantOp);
REGISTER_KERNEL_BUILDER(Name("Const").Device(DEVICE_GPU), ConstantOp);

}  // namespace
}  // namespace tributary
