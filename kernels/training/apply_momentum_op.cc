// ApplyMomentum / ResourceApplyMomentum, classic or Nesterov.

#include "common/kernel/kernel_registry.h"
#include "common/kernel/op_kernel.h"
#include "kernels/training/register_apply.h"
#include "kernels/training/training_functors.h"
#include "kernels/training/training_op_helpers.h"
#include "kernels/training/training_op_util.h"

namespace tributary {
namespace {

template <typename T>
class ApplyMomentumOp : public OpKernel {
 public:
  explicit ApplyMomentumOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("use_locking", &use_exclusive_lock_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("use_nesterov", &use_nesterov_));
  }

  void Compute(OpKernelContext* ctx) override {
    const DataType dtype = DataTypeToEnum<T>::v();
    VariableInputs vars(ctx, use_exclusive_lock_);
    OP_REQUIRES_OK(ctx, vars.Acquire({0, 1}));
    Tensor var;
    OP_REQUIRES_OK(ctx, vars.GetTensor(0, dtype, &var));
    Tensor accum;
    OP_REQUIRES_OK(ctx, vars.GetTensor(1, dtype, &accum));
    const Tensor& lr = ctx->input(2);
    OP_REQUIRES_OK(ctx, CheckScalar(lr, "lr"));
    const Tensor& grad = ctx->input(3);
    OP_REQUIRES_OK(ctx, CheckSameShape(var, "var", accum, "accum"));
    OP_REQUIRES_OK(ctx, CheckSameShape(var, "var", grad, "grad"));
    const Tensor& momentum = ctx->input(4);
    OP_REQUIRES_OK(ctx, CheckScalar(momentum, "momentum"));

    functor::ApplyMomentum<T>()(ctx->eigen_cpu_device(), var.flat<T>(),
                                accum.flat<T>(), lr.scalar<T>(), grad.flat<T>(),
                                momentum.scalar<T>(), use_nesterov_);
    vars.MaybeForwardRefInputToRefOutput(0, 0);
  }

 private:
  bool use_exclusive_lock_ = false;
  bool use_nesterov_ = false;
};

#define TRIB_REGISTER_KERNELS(T) \
  TRIB_REGISTER_APPLY_PAIR("Momentum", T, ApplyMomentumOp<T>)

// TensorFlow registers the CPU kernels for half and bfloat16 too.
TRIB_FOR_APPLY_TYPES(TRIB_REGISTER_KERNELS);
#undef TRIB_REGISTER_KERNELS

}  // namespace
}  // namespace tributary
