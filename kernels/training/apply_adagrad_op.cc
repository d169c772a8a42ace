// ApplyAdagrad / ApplyAdagradV2 and their ResourceApply* forms. V2 adds an
// epsilon input (after lr); otherwise the two ops are the same kernel.
// update_slots=false applies the step with the accumulator left as is.

#include "common/kernel/kernel_registry.h"
#include "common/kernel/op_kernel.h"
#include "kernels/training/adaptive_functors.h"
#include "kernels/training/register_apply.h"
#include "kernels/training/training_op_helpers.h"
#include "kernels/training/training_op_util.h"

namespace tributary {
namespace {

template <typename T, bool kHasEpsilon>
class ApplyAdagradOp : public OpKernel {
 public:
  explicit ApplyAdagradOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("use_locking", &use_exclusive_lock_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("update_slots", &update_slots_));
  }

  void Compute(OpKernelContext* ctx) override {
    const DataType dtype = DataTypeToEnum<T>::v();
    VariableInputs vars(ctx, use_exclusive_lock_);
    OP_REQUIRES_OK(ctx, vars.Acquire({0, 1}));
    Tensor var;
    OP_REQUIRES_OK(ctx, vars.GetTensor(0, dtype, &var));
    Tensor accum;
    OP_REQUIRES_OK(ctx, vars.GetTensor(1, dtype, &accum));
    OP_REQUIRES_OK(ctx, CheckSameShape(var, "var", accum, "accum"));
    const Tensor& lr = ctx->input(2);
    OP_REQUIRES_OK(ctx, CheckScalar(lr, "lr"));
    const T* epsilon = nullptr;
    if (kHasEpsilon) {
      const Tensor& eps = ctx->input(3);
      OP_REQUIRES_OK(ctx, CheckScalar(eps, "epsilon"));
      epsilon = &eps.scalar<T>()();
    }
    const Tensor& grad = ctx->input(kHasEpsilon ? 4 : 3);
    OP_REQUIRES_OK(ctx, CheckSameShape(var, "var", grad, "grad"));

    functor::ApplyAdagrad<T>()(ctx->eigen_cpu_device(), var.flat<T>(),
                               accum.flat<T>(), lr.scalar<T>(), epsilon,
                               grad.flat<T>(), update_slots_);
    vars.MaybeForwardRefInputToRefOutput(0, 0);
  }

 private:
  bool use_exclusive_lock_ = false;
  bool update_slots_ = true;
};

#define TRIB_REGISTER_KERNELS(T)                                    \
  TRIB_REGISTER_APPLY_PAIR("Adagrad", T, ApplyAdagradOp<T, false>); \
  TRIB_REGISTER_APPLY_PAIR("AdagradV2", T, ApplyAdagradOp<T, true>)

// TensorFlow registers the CPU kernels for half and bfloat16 too.
TRIB_FOR_APPLY_TYPES(TRIB_REGISTER_KERNELS);
#undef TRIB_REGISTER_KERNELS

}  // namespace
}  // namespace tributary
