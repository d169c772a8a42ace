// ApplyGradientDescent / ResourceApplyGradientDescent: var -= alpha * delta.

#include "common/kernel/kernel_registry.h"
#include "common/kernel/op_kernel.h"
#include "kernels/training/register_apply.h"
#include "kernels/training/training_functors.h"
#include "kernels/training/training_op_helpers.h"
#include "kernels/training/training_op_util.h"

namespace tributary {
namespace {

template <typename T>
class ApplyGradientDescentOp : public OpKernel {
 public:
  explicit ApplyGradientDescentOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("use_locking", &use_exclusive_lock_));
  }

  void Compute(OpKernelContext* ctx) override {
    VariableInputs vars(ctx, use_exclusive_lock_);
    OP_REQUIRES_OK(ctx, vars.Acquire({0}));
    Tensor var;
    OP_REQUIRES_OK(ctx, vars.GetTensor(0, DataTypeToEnum<T>::v(), &var));
    const Tensor& alpha = ctx->input(1);
    OP_REQUIRES_OK(ctx, CheckScalar(alpha, "alpha"));
    const Tensor& delta = ctx->input(2);
    OP_REQUIRES_OK(ctx, CheckSameShape(var, "var", delta, "delta"));

    functor::ApplyGradientDescent<T>()(ctx->eigen_cpu_device(), var.flat<T>(),
                                       alpha.scalar<T>(), delta.flat<T>());
    vars.MaybeForwardRefInputToRefOutput(0, 0);
  }

 private:
  bool use_exclusive_lock_ = false;
};

#define TRIB_REGISTER_KERNELS(T) \
  TRIB_REGISTER_APPLY_PAIR("GradientDescent", T, ApplyGradientDescentOp<T>)

// TensorFlow registers the CPU kernels for half and bfloat16 too.
TRIB_FOR_APPLY_TYPES(TRIB_REGISTER_KERNELS);
#undef TRIB_REGISTER_KERNELS

}  // namespace
}  // namespace tributary
