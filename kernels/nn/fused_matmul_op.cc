// _FusedMatMul: MatMul (same checks and GEMM backend as kernels/math's
// MatMul: OpenBLAS or Eigen, see matmul_functor.h) followed by the epilogue
// of fused_epilogue.h in one thread-pool pass over the product:
//   product = activation(op(a) * op(b) + bias [+ addend])
// fused_ops: [BiasAdd], [BiasAdd, <act>], [BiasAdd, Add], [BiasAdd, Add,
// <act>]; no FusedBatchNorm (TensorFlow has none for MatMul).

#include <cstdint>

#include "common/framework/status.h"
#include "common/framework/tensor.h"
#include "common/framework/tensor_shape.h"
#include "common/framework/types.h"
#include "common/kernel/kernel_registry.h"
#include "common/kernel/op_kernel.h"
#include "kernels/math/matmul_functor.h"
#include "kernels/nn/fused_epilogue.h"

namespace tributary {
namespace {

template <typename T>
class FusedMatMulOp : public OpKernel {
 public:
  explicit FusedMatMulOp(OpKernelConstruction* context) : OpKernel(context) {
    OP_REQUIRES_OK(context, context->GetAttr("transpose_a", &transpose_a_));
    OP_REQUIRES_OK(context, context->GetAttr("transpose_b", &transpose_b_));
    OP_REQUIRES_OK(context,
                   nn::ReadFusionAttrs(context, "Fused MatMul",
                                       /*allow_batch_norm=*/false, &spec_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& a = ctx->input(0);
    const Tensor& b = ctx->input(1);
    int64_t k = 0;
    absl::StatusOr<TensorShape> shape =
        functor::MatMulOutputShape(a, b, transpose_a_, transpose_b_, &k);
    OP_REQUIRES_OK(ctx, shape.status());
    const TensorShape& out_shape = *shape;
    const int64_t m = out_shape.dim_size(0);
    const int64_t n = out_shape.dim_size(1);
    nn::ChannelAffine<nn::EpilogueType<T>> affine;
    OP_REQUIRES_OK(ctx, nn::PrepareArgs<T>(ctx, spec_, /*first=*/2, out_shape,
                                           &affine));
    OP_REQUIRES_OK(ctx, functor::MatMulBackendStatus<T>());
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    if (out->NumElements() == 0) return;
    if (k == 0) {
      out->flat<T>().setZero();  // an empty inner dimension sums nothing
    } else {
      functor::MatMul<T>(ctx->eigen_device<Eigen::ThreadPoolDevice>(),
                         out->matrix<T>(), a.matrix<T>(), b.matrix<T>(),
                         transpose_a_, transpose_b_);
    }
    const T* addend = spec_.add ? ctx->input(3).flat<T>().data() : nullptr;
    nn::ApplyEpilogue<T>(ctx->eigen_cpu_device(), spec_, affine, m, n,
                         out->flat<T>().data(), addend, out->flat<T>().data());
  }

 private:
  bool transpose_a_ = false;
  bool transpose_b_ = false;
  nn::FusionSpec spec_;
};

#define REGISTER_FUSED_MATMUL(T)                                      \
  REGISTER_KERNEL_BUILDER(                                            \
      Name("_FusedMatMul").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
      FusedMatMulOp<T>)
REGISTER_FUSED_MATMUL(float);
REGISTER_FUSED_MATMUL(Eigen::half);
REGISTER_FUSED_MATMUL(Eigen::bfloat16);
#undef REGISTER_FUSED_MATMUL

}  // namespace
}  // namespace tributary
