// MatMul: a [m,k] x b [k,n] (transpose_a / transpose_b) on the device's
// thread pool: OpenBLAS gemm or an Eigen contraction (matmul_functor.h).
#include "common/framework/status.h"
#include "common/framework/tensor.h"
#include "common/framework/types.h"
#include "common/kernel/kernel_registry.h"
#include "common/kernel/op_kernel.h"
#include "kernels/math/matmul_functor.h"

namespace tributary {
namespace {

template <typename T>
class MatMulOp : public OpKernel {
 public:
  explicit MatMulOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("transpose_a", &transpose_a_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("transpose_b", &transpose_b_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& a = ctx->input(0);
    const Tensor& b = ctx->input(1);
    // TensorFlow's CPU MatMul is its BatchMatMul kernel in "legacy" mode;
    // same checks, same messages.
    OP_REQUIRES(ctx, a.dims() == b.dims(),
                errors::InvalidArgument("In[0] and In[1] has different ndims: ",
                                        a.shape().DebugString(), " vs. ",
                                        b.shape().DebugString()));
    OP_REQUIRES(ctx, a.dims() == 2,
                errors::InvalidArgument(
                    "In[0] and In[1] ndims must be == 2: ", a.dims()));
    const int64_t m = a.dim_size(transpose_a_ ? 1 : 0);
    const int64_t k = a.dim_size(transpose_a_ ? 0 : 1);
    const int64_t k2 = b.dim_size(transpose_b_ ? 1 : 0);
    const int64_t n = b.dim_size(transpose_b_ ? 0 : 1);
    OP_REQUIRES(ctx, k == k2,
                errors::InvalidArgument(
                    "Matrix size-incompatible: In[0]: ",
                    a.shape().DebugString(), ", In[1]: ",
                    b.shape().DebugString()));
    OP_REQUIRES_OK(ctx, functor::MatMulBackendStatus<T>());
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({m, n}), &out));
    if (out->NumElements() == 0) return;
    if (k == 0) {
      // An empty inner dimension sums nothing.
      out->flat<T>().setZero();
      return;
    }
    functor::MatMul<T>(ctx->eigen_device<Eigen::ThreadPoolDevice>(),
                       out->matrix<T>(), a.matrix<T>(), b.matrix<T>(),
                       transpose_a_, transpose_b_);
  }

 private:
  bool transpose_a_ = false;
  bool transpose_b_ = false;
};

#define REGISTER_MATMUL(T)                                           \
  REGISTER_KERNEL_BUILDER(                                           \
      Name("MatMul").Device(DEVICE_CPU).TypeConstraint<T>("T"),      \
      MatMulOp<T>)
REGISTER_MATMUL(float);
REGISTER_MATMUL(double);
REGISTER_MATMUL(int32_t);
REGISTER_MATMUL(int64_t);
REGISTER_MATMUL(Eigen::half);
REGISTER_MATMUL(Eigen::bfloat16);
#undef REGISTER_MATMUL

}  // namespace
}  // namespace tributary
