// BatchMatMulV2: [..., m, k] x [..., k, n] with the batch dimensions
// ([...]) broadcast NumPy-style; adj_x / adj_y take the adjoint (transpose,
// and for complex types conjugate).
// BatchMatMul (V1): the same product, but both inputs must have the same rank
// and equal batch dimensions (no broadcasting), with TensorFlow's messages.
// BatchMatMulV3: V2 with types of its own; an input of another type than
// Tout is cast to Tout first (exact for the pairs registered: uint8/int8 into
// bfloat16 or int32), then multiplied as V2 does.
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

// output = x * y as BatchMatMulV2 computes it (x and y of type T).
template <typename T>
void ComputeBatchMatMul(OpKernelContext* ctx, const Tensor& x, const Tensor& y,
                        bool adj_x, bool adj_y) {
  absl::StatusOr<BatchMatMulShape> shape =
      ComputeBatchMatMulShape(x, y, adj_x, adj_y);
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
    if (adj_x) {
      OP_REQUIRES_OK(ctx, ctx->allocate_temp(x.dtype(), x.shape(), &x_conj));
      x_conj.flat<T>().device(d) = x.flat<T>().conjugate();
      x_data = x_conj.flat<T>().data();
    }
    if (adj_y) {
      OP_REQUIRES_OK(ctx, ctx->allocate_temp(y.dtype(), y.shape(), &y_conj));
      y_conj.flat<T>().device(d) = y.flat<T>().conjugate();
      y_data = y_conj.flat<T>().data();
    }
  }
  T* out_data = out->flat<T>().data();
  auto one = [&](int64_t b, const Eigen::ThreadPoolDevice* d) {
    const int64_t xb = broadcast ? x_index[b] : b;
    const int64_t yb = broadcast ? y_index[b] : b;
    typename TTypes<T>::ConstMatrix xm(x_data + xb * x_rows * x_cols, x_rows,
                                       x_cols);
    typename TTypes<T>::ConstMatrix ym(y_data + yb * y_rows * y_cols, y_rows,
                                       y_cols);
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

// BatchMatMul (V1) accepts only what needs no broadcasting.
absl::Status CheckSameBatchDims(const Tensor& x, const Tensor& y) {
  if (x.dims() != y.dims()) {
    return errors::InvalidArgument(
        "In[0] and In[1] has different ndims: ", x.shape().DebugString(),
        " vs. ", y.shape().DebugString());
  }
  for (int i = 0; i + 2 < x.dims(); ++i) {
    if (x.dim_size(i) != y.dim_size(i)) {
      return errors::InvalidArgument(
          "In[0].dim(", i, ") and In[1].dim(", i,
          ") must be the same: ", x.shape().DebugString(), " vs ",
          y.shape().DebugString());
    }
  }
  return absl::OkStatus();
}

// V1 (kBroadcast false) and V2 (true).
template <typename T, bool kBroadcast>
class BatchMatMulOp : public OpKernel {
 public:
  explicit BatchMatMulOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("adj_x", &adj_x_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("adj_y", &adj_y_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    const Tensor& y = ctx->input(1);
    if constexpr (!kBroadcast) {
      // V2's own checks (rank >= 2, inner dimensions) come first where
      // TensorFlow's V1 has the same ones.
      if (x.dims() >= 2 && y.dims() >= 2) {
        OP_REQUIRES_OK(ctx, CheckSameBatchDims(x, y));
      }
    }
    ComputeBatchMatMul<T>(ctx, x, y, adj_x_, adj_y_);
  }

 private:
  bool adj_x_ = false;
  bool adj_y_ = false;
};

// `in` as a Tout tensor: itself when it already is one, else a cast copy.
template <typename Tin, typename Tout>
absl::StatusOr<Tensor> AsType(OpKernelContext* ctx, const Tensor& in) {
  if constexpr (std::is_same_v<Tin, Tout>) {
    return in;
  } else {
    Tensor out;
    absl::Status s =
        ctx->allocate_temp(DataTypeToEnum<Tout>::value, in.shape(), &out);
    if (!s.ok()) return s;
    out.flat<Tout>().device(ctx->eigen_device<Eigen::ThreadPoolDevice>()) =
        in.flat<Tin>().template cast<Tout>();
    return out;
  }
}

template <typename Ta, typename Tb, typename Tout>
class BatchMatMulV3Op : public OpKernel {
 public:
  explicit BatchMatMulV3Op(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("adj_x", &adj_x_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("adj_y", &adj_y_));
  }

  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<Tensor> x = AsType<Ta, Tout>(ctx, ctx->input(0));
    OP_REQUIRES_OK(ctx, x.status());
    absl::StatusOr<Tensor> y = AsType<Tb, Tout>(ctx, ctx->input(1));
    OP_REQUIRES_OK(ctx, y.status());
    ComputeBatchMatMul<Tout>(ctx, *x, *y, adj_x_, adj_y_);
  }

 private:
  bool adj_x_ = false;
  bool adj_y_ = false;
};

#define REGISTER_BATCH_MATMUL(T)                                       \
  REGISTER_KERNEL_BUILDER(                                             \
      Name("BatchMatMulV2").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
      BatchMatMulOp<T, true>)
REGISTER_BATCH_MATMUL(float);
REGISTER_BATCH_MATMUL(double);
REGISTER_BATCH_MATMUL(int32_t);
REGISTER_BATCH_MATMUL(int64_t);
REGISTER_BATCH_MATMUL(Eigen::half);
REGISTER_BATCH_MATMUL(Eigen::bfloat16);
REGISTER_BATCH_MATMUL(complex64);
REGISTER_BATCH_MATMUL(complex128);
#undef REGISTER_BATCH_MATMUL

// TensorFlow's CPU registrations of the first version (the op's type list).
#define REGISTER_BATCH_MATMUL_V1(T)                                  \
  REGISTER_KERNEL_BUILDER(                                           \
      Name("BatchMatMul").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
      BatchMatMulOp<T, false>)
REGISTER_BATCH_MATMUL_V1(float);
REGISTER_BATCH_MATMUL_V1(double);
REGISTER_BATCH_MATMUL_V1(int32_t);
REGISTER_BATCH_MATMUL_V1(int64_t);
REGISTER_BATCH_MATMUL_V1(Eigen::half);
REGISTER_BATCH_MATMUL_V1(Eigen::bfloat16);
REGISTER_BATCH_MATMUL_V1(complex64);
REGISTER_BATCH_MATMUL_V1(complex128);
#undef REGISTER_BATCH_MATMUL_V1

// TensorFlow's CPU registrations of V3: one type throughout (not half), and
// 8-bit integers into bfloat16 or int32.
#define REGISTER_BATCH_MATMUL_V3(Ta, Tb, Tout)               \
  REGISTER_KERNEL_BUILDER(Name("BatchMatMulV3")              \
                              .Device(DEVICE_CPU)            \
                              .TypeConstraint<Ta>("Ta")      \
                              .TypeConstraint<Tb>("Tb")      \
                              .TypeConstraint<Tout>("Tout"), \
                          BatchMatMulV3Op<Ta, Tb, Tout>)
#define REGISTER_BATCH_MATMUL_V3_SAME(T) REGISTER_BATCH_MATMUL_V3(T, T, T)
REGISTER_BATCH_MATMUL_V3_SAME(float);
REGISTER_BATCH_MATMUL_V3_SAME(double);
REGISTER_BATCH_MATMUL_V3_SAME(int16_t);
REGISTER_BATCH_MATMUL_V3_SAME(int32_t);
REGISTER_BATCH_MATMUL_V3_SAME(int64_t);
REGISTER_BATCH_MATMUL_V3_SAME(Eigen::bfloat16);
REGISTER_BATCH_MATMUL_V3_SAME(complex64);
REGISTER_BATCH_MATMUL_V3_SAME(complex128);
REGISTER_BATCH_MATMUL_V3(uint8_t, Eigen::bfloat16, Eigen::bfloat16);
REGISTER_BATCH_MATMUL_V3(int8_t, Eigen::bfloat16, Eigen::bfloat16);
REGISTER_BATCH_MATMUL_V3(Eigen::bfloat16, uint8_t, Eigen::bfloat16);
REGISTER_BATCH_MATMUL_V3(Eigen::bfloat16, int8_t, Eigen::bfloat16);
REGISTER_BATCH_MATMUL_V3(uint8_t, uint8_t, int32_t);
REGISTER_BATCH_MATMUL_V3(int8_t, uint8_t, int32_t);
REGISTER_BATCH_MATMUL_V3(uint8_t, int8_t, int32_t);
REGISTER_BATCH_MATMUL_V3(int8_t, int8_t, int32_t);
#undef REGISTER_BATCH_MATMUL_V3_SAME
#undef REGISTER_BATCH_MATMUL_V3

}  // namespace
}  // namespace tributary
