// ApplyFtrl / ApplyFtrlV2 and their ResourceApply* forms. V2 adds the
// l2_shrinkage input before lr_power. Like TensorFlow's dense CPU kernel,
// only the hyperparameters' shapes are checked, not their ranges: a negative
// lr or l1 or a positive lr_power updates as the formula says (TensorFlow
// 2.21 accepts them here; only the optimizer's Python constructor rejects
// them).

#include "common/framework/status.h"
#include "common/framework/tensor_shape.h"
#include "common/kernel/kernel_registry.h"
#include "common/kernel/op_kernel.h"
#include "kernels/training/ftrl_functor.h"
#include "kernels/training/register_apply.h"
#include "kernels/training/training_op_helpers.h"
#include "kernels/training/training_op_util.h"

namespace tributary {
namespace {

// InvalidArgument "<what>: <shape>" for a non-scalar. TensorFlow's wording
// differs per input (lr_power's lacks the colon), so callers pass the
// prefix including any separator.
absl::Status CheckFtrlScalar(const Tensor& t, const char* what) {
  if (TensorShapeUtils::IsScalar(t.shape())) return absl::OkStatus();
  return errors::InvalidArgument(what, t.shape().DebugString());
}

template <typename T, bool kV2>
class ApplyFtrlOp : public OpKernel {
 public:
  explicit ApplyFtrlOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("use_locking", &use_exclusive_lock_));
    OP_REQUIRES_OK(
        ctx, ctx->GetAttr("multiply_linear_by_lr", &multiply_linear_by_lr_));
  }

  void Compute(OpKernelContext* ctx) override {
    const DataType dtype = DataTypeToEnum<T>::v();
    VariableInputs vars(ctx, use_exclusive_lock_);
    OP_REQUIRES_OK(ctx, vars.Acquire({0, 1, 2}));
    Tensor var, accum, linear;
    OP_REQUIRES_OK(ctx, vars.GetTensor(0, dtype, &var));
    OP_REQUIRES_OK(ctx, vars.GetTensor(1, dtype, &accum));
    OP_REQUIRES_OK(ctx, vars.GetTensor(2, dtype, &linear));
    const Tensor& grad = ctx->input(3);
    OP_REQUIRES_OK(ctx, CheckSameShape(var, "var", accum, "accum"));
    OP_REQUIRES_OK(ctx, CheckSameShape(var, "var", linear, "linear"));
    OP_REQUIRES_OK(ctx, CheckSameShape(var, "var", grad, "grad"));

    const Tensor& lr = ctx->input(4);
    OP_REQUIRES_OK(ctx, CheckFtrlScalar(lr, "lr is not a scalar: "));
    const Tensor& l1 = ctx->input(5);
    OP_REQUIRES_OK(
        ctx,
        CheckFtrlScalar(l1, "l1 regularization strength is not a scalar: "));
    const Tensor& l2 = ctx->input(6);
    OP_REQUIRES_OK(
        ctx,
        CheckFtrlScalar(l2, "l2 regularization strength is not a scalar: "));
    typename functor::ApplyFtrl<T>::Params p;
    p.l2_shrinkage = nullptr;
    if (kV2) {
      const Tensor& l2_shrinkage = ctx->input(7);
      OP_REQUIRES_OK(
          ctx, CheckFtrlScalar(
                   l2_shrinkage,
                   "l2 shrinkage regularization strength is not a scalar: "));
      p.l2_shrinkage = &l2_shrinkage.scalar<T>()();
    }
    const Tensor& lr_power = ctx->input(kV2 ? 8 : 7);
    OP_REQUIRES_OK(ctx, CheckFtrlScalar(lr_power, "lr_power is not a scalar"));

    p.lr = lr.scalar<T>()();
    p.l1 = l1.scalar<T>()();
    p.l2 = l2.scalar<T>()();
    p.lr_power = lr_power.scalar<T>()();
    p.multiply_linear_by_lr = multiply_linear_by_lr_;
    functor::ApplyFtrl<T>()(ctx->eigen_cpu_device(), var.flat<T>(),
                            accum.flat<T>(), linear.flat<T>(), grad.flat<T>(),
                            p);
    vars.MaybeForwardRefInputToRefOutput(0, 0);
  }

 private:
  bool use_exclusive_lock_ = false;
  bool multiply_linear_by_lr_ = false;
};

#define TRIB_REGISTER_KERNELS(T)                              \
  TRIB_REGISTER_APPLY_PAIR("Ftrl", T, ApplyFtrlOp<T, false>); \
  TRIB_REGISTER_APPLY_PAIR("FtrlV2", T, ApplyFtrlOp<T, true>)

// TensorFlow registers the CPU kernels for half and bfloat16 too.
TRIB_FOR_APPLY_TYPES(TRIB_REGISTER_KERNELS);
#undef TRIB_REGISTER_KERNELS

}  // namespace
}  // namespace tributary
