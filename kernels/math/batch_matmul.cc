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
#include "kernels/math/bcast.h"
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

    OP_REQUIRES_OK(ctx, functor::MatMulBackendStatus<T>());
    TensorShape out_shape(absl::Span<const int64_t>(bcast.output_shape()));
    OP_REQUIRES_OK(ctx, out_shape.AddDimWithStatus(m));
    OP_REQUIRES_OK(ctx, out_shape.AddDimWithStatus(n));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    if (out->NumElements() == 0) return;
    if (k == 0) {
      out->flat<T>().setZero();
      return;
    }

    const int64_t batches = out->NumElements() / (m * n);
    const bool broadcast = !bcast.IsIdentity(0) || !bcast.IsIdentity(1);
    std::vector<int64_t> x_index, y_index;
    if (broadcast) {
      x_index = BroadcastBatchIndices(bcast.result_shape(), bcast.x_reshape());
      y_index = BroadcastBatchIndices(bcast.result_shape(), bcast.y_reshape());
    }
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
