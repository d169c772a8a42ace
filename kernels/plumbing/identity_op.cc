#include "kernels/plumbing/identity_op.h"

#include "common/kernel/kernel_registry.h"

namespace tributary {

IdentityOp::IdentityOp(OpKernelConstruction* context) : OpKernel(context) {
  expensive_ = false;
}

void IdentityOp::Compute(OpKernelContext* context) {
  // The signature's input is never a ref type (T: type excludes refs), but
  // an executor may still hand over a variable's ref; reading it under its
  // mutex gives a tensor sharing the variable's buffer, as TensorFlow's
  // executor does when it dereferences refs for non-ref inputs.
  if (context->input_is_ref(0)) {
    context->set_output(0, context->mutable_input(0, /*lock_held=*/false));
  } else {
    context->set_output(0, context->input(0));
  }
}

// No type constraint: forwarding works for every dtype, resource and
// variant handles included (TensorFlow registers these the same way).
REGISTER_KERNEL_BUILDER(Name("Identity").Device(DEVICE_CPU), IdentityOp);
REGISTER_KERNEL_BUILDER(Name("StopGradient").Device(DEVICE_CPU), IdentityOp);
// Forwarding a buffer works in any memory.
REGISTER_KERNEL_BUILDER(Name("Identity").Device(DEVICE_GPU), IdentityOp);
REGISTER_KERNEL_BUILDER(Name("StopGradient").Device(DEVICE_GPU), IdentityOp);
// Forward, an identity; only its gradient is an error.
REGISTER_KERNEL_BUILDER(Name("PreventGradient").Device(DEVICE_CPU), IdentityOp);
REGISTER_KERNEL_BUILDER(Name("PlaceholderWithDefault").Device(DEVICE_CPU),
                        IdentityOp);

namespace {

// IdentityN: output i is input i, for a list of tensors of any types. Used
// to keep several tensors together through one node (e.g. gradient
// overrides).
class IdentityNOp : public OpKernel {
 public:
  explicit IdentityNOp(OpKernelConstruction* context) : OpKernel(context) {
    expensive_ = false;
  }

  void Compute(OpKernelContext* context) override {
    OP_REQUIRES(context, context->num_inputs() == context->num_outputs(),
                errors::InvalidArgument("IdentityN node '", name(), "' has ",
                                        context->num_inputs(), " inputs but ",
                                        context->num_outputs(), " outputs"));
    for (int i = 0; i < context->num_inputs(); ++i) {
      if (context->input_is_ref(i)) {
        context->set_output(i, context->mutable_input(i, false));
      } else {
        context->set_output(i, context->input(i));
      }
    }
  }

  bool IsExpensive() override { return false; }
};

REGISTER_KERNEL_BUILDER(Name("IdentityN").Device(DEVICE_CPU), IdentityNOp);

}  // namespace
}  // namespace tributary
