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
    int64_t k = 0;
    absl::StatusOr<TensorShape> shape =
        functor::MatMulOutputShape(a, b, transpose_a_, transpose_b_, &k);
    OP_REQUIRES_OK(ctx, shape.status());
    OP_REQUIRES_OK(ctx, functor::MatMulBackendStatus<T>());
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, *shape, &out));
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
// Plain transposes (no conjugate), as TensorFlow's MatMul.
REGISTER_MATMUL(complex64);
REGISTER_MATMUL(complex128);
#undef REGISTER_MATMUL

}  // namespace
}  // namespace tributary
