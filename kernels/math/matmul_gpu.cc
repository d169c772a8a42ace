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

#include "common/framework/status.h"
#include "common/framework/tensor.h"
#include "common/framework/types.h"
#include "common/kernel/kernel_registry.h"
#include "common/kernel/op_kernel.h"
#include "devices/gpu/cublas.h"
#include "devices/gpu/gpu_device.h"
#include "kernels/math/batch_matmul_shape.h"
#include "kernels/math/matmul_functor.h"

namespace tributary {
namespace {

absl::StatusOr<GpuDevice*> GpuFor(OpKernelContext* ctx) {
  GpuDevice* gpu = GpuDevice::FromDeviceBase(ctx->device());
  if (gpu == nullptr) {
    return errors::Internal(
        ctx->op_kernel().name(),
        ": a GPU kernel runs on a device that is not a GPU");
  }
  return gpu;
}

// Fills `out` with zeros on the compute stream (an empty inner dimension).
absl::Status ZeroOnGpu(GpuDevice* gpu, Tensor* out) {
  const CudaDriver& cu = gpu->gpu()->driver();
  return CudaCall(
      cu,
      cu.cuMemsetD8Async(reinterpret_cast<CUdeviceptr>(out->data()), 0,
                         out->TotalBytes(), gpu->gpu()->compute_stream()),
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
    absl::StatusOr<BatchMatMulShape> shape =
        ComputeBatchMatMulShape(x, y, adj_x_, adj_y_);
    OP_REQUIRES_OK(ctx, shape.status());
    absl::StatusOr<GpuDevice*> gpu = GpuFor(ctx);
    OP_REQUIRES_OK(ctx, gpu.status());
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape->out, &out));
    if (out->NumElements() == 0) return;
    if (shape->k == 0) {
      OP_REQUIRES_OK(ctx, ZeroOnGpu(*gpu, out));
      return;
    }
    absl::StatusOr<Cublas*> cublas = Cublas::For((*gpu)->gpu());
    OP_REQUIRES_OK(ctx, cublas.status());

    const int64_t x_matrix = shape->x_rows * shape->x_cols;
    const int64_t y_matrix = shape->y_rows * shape->y_cols;
    const int64_t batches = out->NumElements() / (shape->m * shape->n);
    GemmArgs args;
    args.dtype = x.dtype();
    args.transpose_a = adj_x_;  // real types only: adjoint is transpose
    args.transpose_b = adj_y_;
    args.m = shape->m;
    args.n = shape->n;
    args.k = shape->k;
    args.stride_c = shape->m * shape->n;
    const int64_t x_batches = x.NumElements() / x_matrix;
    const int64_t y_batches = y.NumElements() / y_matrix;
    // One strided product when each operand is one matrix for all batches
    // or one per output batch in order.
    if ((x_batches == 1 || x_batches == batches) &&
        (y_batches == 1 || y_batches == batches)) {
      args.a = x.data();
      args.b = y.data();
      args.c = out->data();
      args.batch = batches;
      args.stride_a = x_batches == 1 ? 0 : x_matrix;
      args.stride_b = y_batches == 1 ? 0 : y_matrix;
      OP_REQUIRES_OK(ctx, (*cublas)->Gemm(args));
      return;
    }
    const int64_t element = DataTypeSize(x.dtype());
    for (int64_t i = 0; i < batches; ++i) {
      args.a = static_cast<const char*>(x.data()) +
               shape->x_index[i] * x_matrix * element;
      args.b = static_cast<const char*>(y.data()) +
               shape->y_index[i] * y_matrix * element;
      args.c = static_cast<char*>(out->data()) +
               i * shape->m * shape->n * element;
      args.batch = 1;
      OP_REQUIRES_OK(ctx, (*cublas)->Gemm(args));
    }
  }

 private:
  bool adj_x_ = false;
  bool adj_y_ = false;
};

#define REGISTER_GPU(T)                                                       \
  REGISTER_KERNEL_BUILDER(                                                    \
      Name("MatMul").Device(DEVICE_GPU).TypeConstraint<T>("T"), MatMulGpuOp); \
  REGISTER_KERNEL_BUILDER(                                                    \
      Name("BatchMatMulV2").Device(DEVICE_GPU).TypeConstraint<T>("T"),        \
      BatchMatMulV2GpuOp)
REGISTER_GPU(float);
REGISTER_GPU(double);
REGISTER_GPU(Eigen::half);
REGISTER_GPU(Eigen::bfloat16);
#undef REGISTER_GPU

}  // namespace
}  // namespace tributary
