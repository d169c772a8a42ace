// IsFinite/IsNan/IsInf (bool per element; mixed-precision loss scaling),
// Cumsum (exclusive, reverse; along any axis) and TopKV2 (the k largest of
// each last-dimension row; ties keep the lower index first, as TensorFlow's
// stable selection does).

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <vector>

#include "common/framework/tensor.h"
#include "common/framework/types.h"
#include "common/kernel/kernel_registry.h"
#include "common/kernel/op_kernel.h"
#include "unsupported/Eigen/CXX11/Tensor"

namespace tributary {
namespace {

// ---- IsFinite / IsNan / IsInf -------------------------------------------------

struct IsFiniteF {
  template <typename T>
  bool operator()(const T& x) const {
    return Eigen::numext::isfinite(x);
  }
};
struct IsNanF {
  template <typename T>
  bool operator()(const T& x) const {
    return Eigen::numext::isnan(x);
  }
};
struct IsInfF {
  template <typename T>
  bool operator()(const T& x) const {
    return Eigen::numext::isinf(x);
  }
};

template <typename T, typename F>
class ClassifyOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    Tensor* y = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &y));
    if (y->NumElements() == 0) return;
    y->flat<bool>().device(ctx->eigen_cpu_device()) =
        x.flat<T>().unaryExpr([](const T& v) { return F()(v); });
  }
};

#define REGISTER_CLASSIFY(T)                                              \
  REGISTER_KERNEL_BUILDER(                                                \
      Name("IsFinite").Device(DEVICE_CPU).TypeConstraint<T>("T"),         \
      ClassifyOp<T, IsFiniteF>);                                          \
  REGISTER_KERNEL_BUILDER(                                                \
      Name("IsNan").Device(DEVICE_CPU).TypeConstraint<T>("T"),            \
      ClassifyOp<T, IsNanF>);                                             \
  REGISTER_KERNEL_BUILDER(                                                \
      Name("IsInf").Device(DEVICE_CPU).TypeConstraint<T>("T"),            \
      ClassifyOp<T, IsInfF>)
REGISTER_CLASSIFY(float);
REGISTER_CLASSIFY(double);
REGISTER_CLASSIFY(Eigen::half);
REGISTER_CLASSIFY(Eigen::bfloat16);
#undef REGISTER_CLASSIFY

// ---- Cumsum -------------------------------------------------------------------

template <typename T, typename Tidx>
class CumsumOp : public OpKernel {
 public:
  explicit CumsumOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("exclusive", &exclusive_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("reverse", &reverse_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    const Tensor& axis_t = ctx->input(1);
    OP_REQUIRES(ctx, TensorShapeUtils::IsScalar(axis_t.shape()),
                errors::InvalidArgument("ScanOp: axis must be a scalar, not ",
                                        axis_t.shape().DebugString()));
    const int64_t raw_axis = static_cast<int64_t>(axis_t.scalar<Tidx>()());
    const int64_t dims = x.dims();
    const int64_t axis = raw_axis < 0 ? raw_axis + dims : raw_axis;
    OP_REQUIRES(ctx, axis >= 0 && axis < dims,
                errors::InvalidArgument(
                    "ScanOp: Expected scan axis in the range [", -dims, ", ",
                    dims, "), but got ", raw_axis));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &out));
    if (x.NumElements() == 0) return;
    int64_t outer = 1, inner = 1;
    for (int64_t d = 0; d < axis; ++d) outer *= x.dim_size(d);
    for (int64_t d = axis + 1; d < dims; ++d) inner *= x.dim_size(d);
    const int64_t n = x.dim_size(axis);
    const T* in = x.flat<T>().data();
    T* o = out->flat<T>().data();
    for (int64_t b = 0; b < outer; ++b) {
      const T* ib = in + b * n * inner;
      T* ob = o + b * n * inner;
      for (int64_t c = 0; c < inner; ++c) {
        T sum = T(0);
        for (int64_t s = 0; s < n; ++s) {
          const int64_t i = (reverse_ ? n - 1 - s : s) * inner + c;
          if (exclusive_) {
            ob[i] = sum;
            sum += ib[i];
          } else {
            sum += ib[i];
            ob[i] = sum;
          }
        }
      }
    }
  }

 private:
  bool exclusive_ = false;
  bool reverse_ = false;
};

#define REGISTER_CUMSUM_IDX(T, Tidx)                                    \
  REGISTER_KERNEL_BUILDER(Name("Cumsum")                                \
                              .Device(DEVICE_CPU)                       \
                              .TypeConstraint<T>("T")                   \
                              .TypeConstraint<Tidx>("Tidx"),            \
                          CumsumOp<T, Tidx>)
#define REGISTER_CUMSUM(T)           \
  REGISTER_CUMSUM_IDX(T, int32_t);   \
  REGISTER_CUMSUM_IDX(T, int64_t)
REGISTER_CUMSUM(float);
REGISTER_CUMSUM(double);
REGISTER_CUMSUM(int32_t);
REGISTER_CUMSUM(int64_t);
REGISTER_CUMSUM(Eigen::half);
REGISTER_CUMSUM(Eigen::bfloat16);
#undef REGISTER_CUMSUM
#undef REGISTER_CUMSUM_IDX

// ---- TopKV2 -------------------------------------------------------------------

template <typename T, typename Tk>
class TopKOp : public OpKernel {
 public:
  explicit TopKOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("sorted", &sorted_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& k_in = ctx->input(1);
    OP_REQUIRES(ctx, TensorShapeUtils::IsScalar(k_in.shape()),
                errors::InvalidArgument("k must be scalar, got shape ",
                                        k_in.shape().DebugString()));
    const int64_t k = static_cast<int64_t>(k_in.scalar<Tk>()());
    OP_REQUIRES(ctx, k >= 0,
                errors::InvalidArgument("Need k >= 0, got ", k));
    const Tensor& input = ctx->input(0);
    OP_REQUIRES(ctx, input.dims() >= 1,
                errors::InvalidArgument("input must be >= 1-D, got shape ",
                                        input.shape().DebugString()));
    const int64_t n = input.dim_size(input.dims() - 1);
    OP_REQUIRES(ctx, n >= k,
                errors::InvalidArgument("input must have at least k columns. "
                                        "Had ",
                                        n, ", needed ", k));
    TensorShape out_shape = input.shape();
    out_shape.set_dim(input.dims() - 1, k);
    Tensor* values = nullptr;
    Tensor* indices = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &values));
    OP_REQUIRES_OK(ctx, ctx->allocate_output(1, out_shape, &indices));
    if (k == 0 || input.NumElements() == 0) return;
    const int64_t rows = input.NumElements() / n;
    const T* in = input.flat<T>().data();
    T* v = values->flat<T>().data();
    int32_t* idx = indices->flat<int32_t>().data();
    std::vector<int32_t> order(n);
    // Larger first; among equals the lower index. NaN compares false both
    // ways, so it stays where a stable order leaves it.
    for (int64_t r = 0; r < rows; ++r) {
      const T* row = in + r * n;
      std::iota(order.begin(), order.end(), 0);
      auto greater = [row](int32_t a, int32_t b) {
        if (row[a] > row[b]) return true;
        if (row[b] > row[a]) return false;
        return a < b;
      };
      if (k == 1) {
        int32_t best = 0;
        for (int32_t i = 1; i < n; ++i) {
          if (row[i] > row[best]) best = i;
        }
        order[0] = best;
      } else {
        std::partial_sort(order.begin(), order.begin() + k, order.end(),
                          greater);
        // sorted=false: TensorFlow still returns the k largest in decreasing
        // order on CPU, and so do we.
      }
      for (int64_t i = 0; i < k; ++i) {
        v[r * k + i] = row[order[i]];
        idx[r * k + i] = order[i];
      }
    }
  }

 private:
  bool sorted_ = true;
};

#define REGISTER_TOPK_K(T, Tk)                                             \
  REGISTER_KERNEL_BUILDER(Name("TopKV2")                                   \
                              .Device(DEVICE_CPU)                          \
                              .TypeConstraint<T>("T")                      \
                              .TypeConstraint<Tk>("Tk")                    \
                              .TypeConstraint<int32_t>("index_type"),      \
                          TopKOp<T, Tk>)
#define REGISTER_TOPK(T)          \
  REGISTER_TOPK_K(T, int32_t);    \
  REGISTER_TOPK_K(T, int64_t)
REGISTER_TOPK(float);
REGISTER_TOPK(double);
REGISTER_TOPK(int32_t);
REGISTER_TOPK(int64_t);
REGISTER_TOPK(Eigen::half);
REGISTER_TOPK(Eigen::bfloat16);
#undef REGISTER_TOPK
#undef REGISTER_TOPK_K

}  // namespace
}  // namespace tributary
