// ApplyAdam / ResourceApplyAdam, classic or Nesterov. The caller keeps the
// running powers beta1^t, beta2^t (as TensorFlow's optimizer does), which
// gives bias correction without a step counter in the op.

#include "common/kernel/kernel_registry.h"
#include "common/kernel/op_kernel.h"
#include "kernels/training/training_functors.h"
#include "kernels/training/training_op_helpers.h"
#include "kernels/training/training_op_util.h"

namespace tributary {
namespace {

template <typename T>
class ApplyAdamOp : public OpKernel {
 public:
  explicit ApplyAdamOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("use_locking", &use_exclusive_lock_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("use_nesterov", &use_nesterov_));
  }

  void Compute(OpKernelContext* ctx) override {
    const DataType dtype = DataTypeToEnum<T>::v();
    VariableInputs vars(ctx, use_exclusive_lock_);
    OP_REQUIRES_OK(ctx, vars.Acquire({0, 1, 2}));
    Tensor var;
    OP_REQUIRES_OK(ctx, vars.GetTensor(0, dtype, &var));
    Tensor m;
    OP_REQUIRES_OK(ctx, vars.GetTensor(1, dtype, &m));
    Tensor v;
    OP_REQUIRES_OK(ctx, vars.GetTensor(2, dtype, &v));

    const Tensor& beta1_power = ctx->input(3);
    const Tensor& beta2_power = ctx->input(4);
    const Tensor& lr = ctx->input(5);
    const Tensor& beta1 = ctx->input(6);
    const Tensor& beta2 = ctx->input(7);
    const Tensor& epsilon = ctx->input(8);
    OP_REQUIRES_OK(ctx, CheckScalar(beta1_power, "beta1_power"));
    OP_REQUIRES_OK(ctx, CheckScalar(beta2_power, "beta2_power"));
    OP_REQUIRES_OK(ctx, CheckScalar(lr, "lr"));
    OP_REQUIRES_OK(ctx, CheckScalar(beta1, "beta1"));
    OP_REQUIRES_OK(ctx, CheckScalar(beta2, "beta2"));
    OP_REQUIRES_OK(ctx, CheckScalar(epsilon, "epsilon"));
    const Tensor& grad = ctx->input(9);
    OP_REQUIRES_OK(ctx, CheckSameShape(var, "var", m, "m"));
    OP_REQUIRES_OK(ctx, CheckSameShape(var, "var", v, "v"));
    OP_REQUIRES_OK(ctx, CheckSameShape(var, "var", grad, "grad"));

    functor::ApplyAdam<T>()(
        ctx->eigen_cpu_device(), var.flat<T>(), m.flat<T>(), v.flat<T>(),
        beta1_power.scalar<T>(), beta2_power.scalar<T>(), lr.scalar<T>(),
        beta1.scalar<T>(), beta2.scalar<T>(), epsilon.scalar<T>(),
        grad.flat<T>(), use_nesterov_);
    vars.MaybeForwardRefInputToRefOutput(0, 0);
  }

 private:
  bool use_exclusive_lock_ = false;
  bool use_nesterov_ = false;
};

#define TRIB_REGISTER_KERNELS(T)                                   \
  REGISTER_KERNEL_BUILDER(                                         \
      Name("ApplyAdam").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
      ApplyAdamOp<T>);                                             \
  REGISTER_KERNEL_BUILDER(                                         \
      Name("ResourceApplyAdam").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
      ApplyAdamOp<T>)

// TensorFlow registers the CPU kernels for half and bfloat16 too.
TRIB_REGISTER_KERNELS(half);
TRIB_REGISTER_KERNELS(bfloat16);
TRIB_REGISTER_KERNELS(float);
TRIB_REGISTER_KERNELS(double);
#undef TRIB_REGISTER_KERNELS

}  // namespace
}  // namespace tributary
