// MatMul and BatchMatMulV2 on a GPU, through cuBLAS (devices/gpu/cublas.h)
// on the GPU's compute stream, for float, double, half and bfloat16 as
// TensorFlow registers them. Shapes are checked exactly as the CPU kernels
// check them (the same functions), so both give the same errors.
//
// BatchMatMulV2 runs one strided-batched product when each operand is
// either one matrix for all batches or one per batch (no broadcasting, or
// broadcasting of a single matrix); other broadcasts run one product per
// output batch, with the operands' matrices picked by BroadcastBatchIndices.

#include <cstdint>
#include <vector>

#include "common/framework/status.h"
#include "common/framework/tensor.h"
#include "common/framework/types.h"
#include "common/kernel/kernel_registry.h"
#include "common/kernel/op_kernel.h"
#include "devices/gpu/cublas.h"
#include "devices/gpu/gpu_device.h"
#include "kernels/math/bcast.h"
#include "kernels/math/matmul_functor.h"

namespace tributary {
namespace {

absl::StatusOr<GpuDevice*> GpuFor(OpKernelContext* ctx) {
  GpuDevice* gpu = GpuDevice::FromDeviceBase(ctx->device());
  if (gpu == nullptr) {
    return errors::Internal(ctx->op_kernel().name(),
                            ": a GPU kernel runs on a device that is not a GPU");
  }
  return gpu;
}

// Fills `out` with zeros on the compute stream (an empty inner dimension).
absl::Status ZeroOnGpu(GpuDevice* gpu, Tensor* out) {
  const CudaDriver& cu = gpu->gpu()->driver();
  return CudaCall(cu,
                  cu.cuMemsetD8Async(reinterpret_cast<CUdeviceptr>(out->data()),
                                     0, out->TotalBytes(),
                                     gpu->gpu()->compute_stream()),
                  "cuMemsetD8Async");
}

class MatMulGpuOp : public OpKernel {
 public:
  explicit MatMulGpuOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
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
    absl::StatusOr<GpuDevice*> gpu = GpuFor(ctx);
    OP_REQUIRES_OK(ctx, gpu.status());
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, *shape, &out));
    if (out->NumElements() == 0) return;
    if (k == 0) {
      OP_REQUIRES_OK(ctx, ZeroOnGpu(*gpu, out));
      return;
    }
    absl::StatusOr<Cublas*> cublas = Cublas::For((*gpu)->gpu());
    OP_REQUIRES_OK(ctx, cublas.status());
    GemmArgs args;
    args.dtype = a.dtype();
    args.transpose_a = transpose_a_;
    args.transpose_b = transpose_b_;
    args.m = out->dim_size(0);
    args.n = out->dim_size(1);
    args.k = k;
    args.a = a.data();
    args.b = b.data();
    args.c = out->data();
    OP_REQUIRES_OK(ctx, (*cublas)->Gemm(args));
  }

 private:
  bool transpose_a_ = false;
  bool transpose_b_ = false;
};

class BatchMatMulV2GpuOp : public OpKernel {
 public:
  explicit BatchMatMulV2GpuOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("adj_x", &adj_x_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("adj_y", &adj_y_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    const Tensor& y = ctx->input(1);
    OP_REQUIRES(ctx, x.dims() >= 2,
                errors::InvalidArgument("In[0] ndims must be >= 2: ", x.dims()));
    OP_REQUIRES(ctx, y.dims() >= 2,
                errors::InvalidArgument("In[1] ndims must be >= 2: ", y.dims()));
    BCast::Vec x_batch(x.shape().dim_sizes().begin(),
                       x.shape().dim_sizes().end() - 2);
    BCast::Vec y_batch(y.shape().dim_sizes().begin(),
                       y.shape().dim_sizes().end() - 2);
    BCast bcast(x_batch, y_batch);
    OP_REQUIRES(ctx, bcast.IsValid(),
                errors::InvalidArgument(
                    "In[0] and In[1] must have compatible batch dimensions: ",
                    x.shape().DebugString(), " vs. ", y.shape().DebugString()));
    const int64_t x_rows = x.dim_size(x.dims() - 2);
    const int64_t x_cols = x.dim_size(x.dims() - 1);
    const int64_t y_rows = y.dim_size(y.dims() - 2);
    const int64_t y_cols = y.dim_size(y.dims() - 1);
    const int64_t m = adj_x_ ? x_cols : x_rows;
    const int64_t k = adj_x_ ? x_rows : x_cols;
    const int64_t k2 = adj_y_ ? y_cols : y_rows;
    const int64_t n = adj_y_ ? y_rows : y_cols;
    OP_REQUIRES(ctx, k == k2,
                errors::InvalidArgument(
                    "Matrix size-incompatible: In[0]: ",
                    x.shape().DebugString(), ", In[1]: ",
                    y.shape().DebugString()));
    absl::StatusOr<GpuDevice*> gpu = GpuFor(ctx);
    OP_REQUIRES_OK(ctx, gpu.status());
    TensorShape out_shape(absl::Span<const int64_t>(bcast.output_shape()));
    OP_REQUIRES_OK(ctx, out_shape.AddDimWithStatus(m));
    OP_REQUIRES_OK(ctx, out_shape.AddDimWithStatus(n));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    if (out->NumElements() == 0) return;
    if (k == 0) {
      OP_REQUIRES_OK(ctx, ZeroOnGpu(*gpu, out));
      return;
    }
    absl::StatusOr<Cublas*> cublas = Cublas::For((*gpu)->gpu());
    OP_REQUIRES_OK(ctx, cublas.status());

    const int64_t batches = out->NumElements() / (m * n);
    const int64_t x_batches = x.NumElements() / (x_rows * x_cols);
    const int64_t y_batches = y.NumElements() / (y_rows * y_cols);
    GemmArgs args;
    args.dtype = x.dtype();
    args.transpose_a = adj_x_;  // real types only: adjoint is transpose
    args.transpose_b = adj_y_;
    args.m = m;
    args.n = n;
    args.k = k;
    args.stride_c = m * n;
    // One strided product when each operand is one matrix for all, or one
    // per output batch in order.
    const bool x_simple = x_batches == 1 || x_batches == batches;
    const bool y_simple = y_batches == 1 || y_batches == batches;
    const bool identity_order = bcast.IsIdentity(0) || x_batches == 1;
    const bool identity_order_y = bcast.IsIdentity(1) || y_batches == 1;
    if (x_simple && y_simple && identity_order && identity_order_y) {
      args.a = x.data();
      args.b = y.data();
      args.c = out->data();
      args.batch = batches;
      args.stride_a = x_batches == 1 ? 0 : x_rows * x_cols;
      args.stride_b = y_batches == 1 ? 0 : y_rows * y_cols;
      OP_REQUIRES_OK(ctx, (*cublas)->Gemm(args));
      return;
    }
    const std::vector<int64_t> x_index =
        BroadcastBatchIndices(bcast.result_shape(), bcast.x_reshape());
    const std::vector<int64_t> y_index =
        BroadcastBatchIndices(bcast.result_shape(), bcast.y_reshape());
    const int64_t element = DataTypeSize(x.dtype());
    for (int64_t i = 0; i < batches; ++i) {
      args.a = static_cast<const char*>(x.data()) +
               x_index[i] * x_rows * x_cols * element;
      args.b = static_cast<const char*>(y.data()) +
               y_index[i] * y_rows * y_cols * element;
      args.c = static_cast<char*>(out->data()) + i * m * n * element;
      args.batch = 1;
      OP_REQUIRES_OK(ctx, (*cublas)->Gemm(args));
    }
  }

 private:
  bool adj_x_ = false;
  bool adj_y_ = false;
};

#define REGISTER_GPU(T)                                                    \
  REGISTER_KERNEL_BUILDER(                                                 \
      Name("MatMul").Device(DEVICE_GPU).TypeConstraint<T>("T"),            \
      MatMulGpuOp);                                                        \
  REGISTER_KERNEL_BUILDER(                                                 \
      Name("BatchMatMulV2").Device(DEVICE_GPU).TypeConstraint<T>("T"),     \
      BatchMatMulV2GpuOp)
REGISTER_GPU(float);
REGISTER_GPU(double);
REGISTER_GPU(Eigen::half);
REGISTER_GPU(Eigen::bfloat16);
#undef REGISTER_GPU

}  // namespace
}  // namespace tributary
