// EnsureShape: passes its input through (sharing the buffer) when its shape
// is compatible with the `shape` attr (unknown dims and an unknown rank match
// anything), else InvalidArgument with TensorFlow's message, which names the
// op's argument: "Shape of tensor input [2,3] is not compatible with
// expected shape [?,4]." This is the run-time check tf.ensure_shape and
// tf.function signatures insert.

#include "common/kernel/kernel_registry.h"
#include "common/kernel/op_kernel.h"

namespace tributary {
namespace {

class EnsureShapeOp : public OpKernel {
 public:
  explicit EnsureShapeOp(OpKernelConstruction* context) : OpKernel(context) {
    OP_REQUIRES_OK(context, context->GetAttr("shape", &expected_));
  }

  void Compute(OpKernelContext* context) override {
    const Tensor& input = context->input(0);
    OP_REQUIRES(context, expected_.IsCompatibleWith(input.shape()),
                errors::InvalidArgument(
                    "Shape of tensor input ", input.shape().DebugString(),
                    " is not compatible with expected shape ",
                    expected_.DebugString(), "."));
    context->set_output(0, input);
  }

  bool IsExpensive() override { return false; }

 private:
  PartialTensorShape expected_;
};

REGISTER_KERNEL_BUILDER(Name("EnsureShape").Device(DEVICE_CPU), EnsureShapeOp);

}  // namespace
}  // namespace tributary
