// NoOp: a join point for control edges (SavedModel's `init`, a training
// step's `train_op` group). Running it does nothing; its only effect is
// that the executor waited for its control inputs.

#include "common/kernel/kernel_registry.h"
#include "common/kernel/op_kernel.h"

namespace tributary {
namespace {

class NoOp : public OpKernel {
 public:
  explicit NoOp(OpKernelConstruction* context) : OpKernel(context) {
    expensive_ = false;
  }
  void Compute(OpKernelContext* /*context*/) override {}
  bool IsExpensive() override { return false; }
};

REGISTER_KERNEL_BUILDER(Name("NoOp").Device(DEVICE_CPU), NoOp);
REGISTER_KERNEL_BUILDER(Name("NoOp").Device(DEVICE_GPU), NoOp);

}  // namespace
}  // namespace tributary
