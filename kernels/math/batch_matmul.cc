// BatchMatMulV2: [..., m, k] x [..., k, n] with the batch dimensions
// ([...]) broadcast NumPy-style; adj_x / adj_y take the adjoint (transpose,
// and for complex types conjugate).
#include <algorithm>
#include <complex>
#include <type_traits>
#include <vector>

#include "common/framework/status.h"
#include "common/framework/tensor.h"
#include "common/framework/types.h"
#include "common/kernel/kernel_registry.h"
#include "common/kernel/op_kernel.h"
#include "kernels/math/batch_matmul_shape.h"
#include "kernels/math/matmul_functor.h"

namespace tributary {
namespace {

template <typename T>
constexpr bool kIsComplex =
    std::is_same_v<T, complex64> || std::is_same_v<T, complex128>;

template <typename T>
class BatchMatMulV2Op : public OpKernel {
 public:
  explicit BatchMatMulV2Op(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("adj_x", &adj_x_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("adj_y", &adj_y_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    const Tensor& y = ctx->input(1);
    absl::StatusOr<BatchMatMulShape> shape =
        ComputeBatchMatMulShape(x, y, adj_x_, adj_y_);
    OP_REQUIRES_OK(ctx, shape.status());
    const int64_t x_rows = shape->x_rows, x_cols = shape->x_cols;
    const int64_t y_rows = shape->y_rows, y_cols = shape->y_cols;
    const int64_t m = shape->m, k = shape->k, n = shape->n;

    OP_REQUIRES_OK(ctx, functor::MatMulBackendStatus<T>());
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape->out, &out));
    if (out->NumElements() == 0) return;
    if (k == 0) {
      out->flat<T>().setZero();
      return;
    }

    const int64_t batches = out->NumElements() / (m * n);
    const bool broadcast = shape->broadcast;
    const std::vector<int64_t>& x_index = shape->x_index;
    const std::vector<int64_t>& y_index = shape->y_index;
    const T* x_data = x.flat<T>().data();
    const T* y_data = y.flat<T>().data();
    // The adjoint of a complex matrix: conjugate a copy, then transpose it
    // in the product as for real types.
    Tensor x_conj, y_conj;
    if constexpr (kIsComplex<T>) {
      const Eigen::ThreadPoolDevice& d =
          ctx->eigen_device<Eigen::ThreadPoolDevice>();
      if (adj_x_) {
        OP_REQUIRES_OK(ctx, ctx->allocate_temp(x.dtype(), x.shape(), &x_conj));
        x_conj.flat<T>().device(d) = x.flat<T>().conjugate();
        x_data = x_conj.flat<T>().data();
      }
      if (adj_y_) {
        OP_REQUIRES_OK(ctx, ctx->allocate_temp(y.dtype(), y.shape(), &y_conj));
        y_conj.flat<T>().device(d) = y.flat<T>().conjugate();
        y_data = y_conj.flat<T>().data();
      }
    }
    T* out_data = out->flat<T>().data();
    const bool adj_x = adj_x_, adj_y = adj_y_;
    auto one = [&](int64_t b, const Eigen::ThreadPoolDevice* d) {
      const int64_t xb = broadcast ? x_index[b] : b;
      const int64_t yb = broadcast ? y_index[b] : b;
      typename TTypes<T>::ConstMatrix xm(x_data + xb * x_rows * x_cols,
                                         x_rows, x_cols);
      typename TTypes<T>::ConstMatrix ym(y_data + yb * y_rows * y_cols,
                                         y_rows, y_cols);
      typename TTypes<T>::Matrix om(out_data + b * m * n, m, n);
      if (d != nullptr) {
        functor::MatMul<T>(*d, om, xm, ym, adj_x, adj_y);
      } else {
        functor::MatMulSingleThread<T>(om, xm, ym, adj_x, adj_y);
      }
    };

    const Eigen::ThreadPoolDevice& d =
        ctx->eigen_device<Eigen::ThreadPoolDevice>();
    const double flops_per_batch = 2.0 * m * n * k;
    // Many or small products: one whole product per thread (no per-product
    // synchronisation). Few large ones: Eigen parallelises each product.
    if (batches > 1 &&
        (batches >= d.numThreads() || flops_per_batch < (1 << 20))) {
      d.parallelFor(batches,
                    Eigen::TensorOpCost(sizeof(T) * (m * k + k * n),
                                        sizeof(T) * m * n, flops_per_batch),
                    [&one](Eigen::Index start, Eigen::Index end) {
                      for (Eigen::Index b = start; b < end; ++b) {
                        one(b, nullptr);
                      }
                    });
    } else {
      for (int64_t b = 0; b < batches; ++b) one(b, &d);
    }
  }

 private:
  bool adj_x_ = false;
  bool adj_y_ = false;
};

#define REGISTER_BATCH_MATMUL(T)                                        \
  REGISTER_KERNEL_BUILDER(                                              \
      Name("BatchMatMulV2").Device(DEVICE_CPU).TypeConstraint<T>("T"),  \
      BatchMatMulV2Op<T>)
REGISTER_BATCH_MATMUL(float);
REGISTER_BATCH_MATMUL(double);
REGISTER_BATCH_MATMUL(int32_t);
REGISTER_BATCH_MATMUL(int64_t);
REGISTER_BATCH_MATMUL(Eigen::half);
REGISTER_BATCH_MATMUL(Eigen::bfloat16);
REGISTER_BATCH_MATMUL(complex64);
REGISTER_BATCH_MATMUL(complex128);
#undef REGISTER_BATCH_MATMUL

}  // namespace
}  // namespace tributary
