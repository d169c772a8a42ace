// ApplyRMSProp / ApplyCenteredRMSProp and their ResourceApply* forms. The
// centered form has one more slot, mg (inputs var, mg, ms, mom), which
// shifts every later input by one.

#include "common/kernel/kernel_registry.h"
#include "common/kernel/op_kernel.h"
#include "kernels/training/adaptive_functors.h"
#include "kernels/training/training_op_helpers.h"
#include "kernels/training/training_op_util.h"

namespace tributary {
namespace {

template <typename T, bool kCentered>
class ApplyRMSPropOp : public OpKernel {
 public:
  explicit ApplyRMSPropOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("use_locking", &use_exclusive_lock_));
  }

  void Compute(OpKernelContext* ctx) override {
    const DataType dtype = DataTypeToEnum<T>::v();
    constexpr int kSlots = kCentered ? 4 : 3;
    VariableInputs vars(ctx, use_exclusive_lock_);
    if (kCentered) {
      OP_REQUIRES_OK(ctx, vars.Acquire({0, 1, 2, 3}));
    } else {
      OP_REQUIRES_OK(ctx, vars.Acquire({0, 1, 2}));
    }
    Tensor var, mg, ms, mom;
    OP_REQUIRES_OK(ctx, vars.GetTensor(0, dtype, &var));
    if (kCentered) OP_REQUIRES_OK(ctx, vars.GetTensor(1, dtype, &mg));
    OP_REQUIRES_OK(ctx, vars.GetTensor(kSlots - 2, dtype, &ms));
    OP_REQUIRES_OK(ctx, vars.GetTensor(kSlots - 1, dtype, &mom));

    const Tensor& lr = ctx->input(kSlots);
    const Tensor& rho = ctx->input(kSlots + 1);
    const Tensor& momentum = ctx->input(kSlots + 2);
    const Tensor& epsilon = ctx->input(kSlots + 3);
    const Tensor& grad = ctx->input(kSlots + 4);
    OP_REQUIRES_OK(ctx, CheckScalar(lr, "lr"));
    OP_REQUIRES_OK(ctx, CheckScalar(rho, "rho"));
    OP_REQUIRES_OK(ctx, CheckScalar(momentum, "momentum"));
    OP_REQUIRES_OK(ctx, CheckScalar(epsilon, "epsilon"));
    if (kCentered) OP_REQUIRES_OK(ctx, CheckSameShape(var, "var", mg, "mg"));
    OP_REQUIRES_OK(ctx, CheckSameShape(var, "var", ms, "ms"));
    OP_REQUIRES_OK(ctx, CheckSameShape(var, "var", mom, "mom"));
    OP_REQUIRES_OK(ctx, CheckSameShape(var, "var", grad, "grad"));

    // A Flat has no empty state; the plain form passes nullptr, so the ms
    // view here is a placeholder that is never read.
    typename TTypes<T>::Flat mg_flat = kCentered ? mg.flat<T>() : ms.flat<T>();
    functor::ApplyRMSProp<T>()(
        ctx->eigen_cpu_device(), var.flat<T>(), kCentered ? &mg_flat : nullptr,
        ms.flat<T>(), mom.flat<T>(), lr.scalar<T>(), rho.scalar<T>(),
        momentum.scalar<T>(), epsilon.scalar<T>(), grad.flat<T>());
    vars.MaybeForwardRefInputToRefOutput(0, 0);
  }

 private:
  bool use_exclusive_lock_ = false;
};

#define TRIB_REGISTER_KERNELS(T)                                              \
  REGISTER_KERNEL_BUILDER(                                                    \
      Name("ApplyRMSProp").Device(DEVICE_CPU).TypeConstraint<T>("T"),         \
      ApplyRMSPropOp<T, false>);                                              \
  REGISTER_KERNEL_BUILDER(                                                    \
      Name("ResourceApplyRMSProp").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
      ApplyRMSPropOp<T, false>);                                              \
  REGISTER_KERNEL_BUILDER(                                                    \
      Name("ApplyCenteredRMSProp").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
      ApplyRMSPropOp<T, true>);                                               \
  REGISTER_KERNEL_BUILDER(Name("ResourceApplyCenteredRMSProp")                \
                              .Device(DEVICE_CPU)                             \
                              .TypeConstraint<T>("T"),                        \
                          ApplyRMSPropOp<T, true>)

// TensorFlow registers the CPU kernels for half and bfloat16 too.
TRIB_REGISTER_KERNELS(half);
TRIB_REGISTER_KERNELS(bfloat16);
TRIB_REGISTER_KERNELS(float);
TRIB_REGISTER_KERNELS(double);
#undef TRIB_REGISTER_KERNELS

}  // namespace
}  // namespace tributary
