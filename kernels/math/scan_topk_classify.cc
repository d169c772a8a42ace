// IsFinite/IsNan/IsInf (bool per element; mixed-precision loss scaling),
// CheckNumerics/CheckNumericsV2, the scans Cumsum, Cumprod and
// CumulativeLogsumexp (exclusive, reverse; along any axis), TopKV2 (the k
// largest of each last-dimension row; ties keep the lower index first, as
// TensorFlow's stable selection does) and InTopKV2.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <string>
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

// ---- CheckNumerics / CheckNumericsV2 ---------------------------------------------

// Passes the input through, or fails with "<message> : Tensor had <what>
// values": V1 says Inf, NaN or "Inf and NaN"; V2 names -Inf, +Inf and NaN
// separately ("-Inf, +Inf, and NaN").
template <typename T, bool kV2>
class CheckNumericsOp : public OpKernel {
 public:
  explicit CheckNumericsOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("message", &message_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    ctx->set_output(0, in);
    bool neg_inf = false, pos_inf = false, nan = false;
    const T* data = in.flat<T>().data();
    for (int64_t i = 0, n = in.NumElements(); i < n; ++i) {
      const T v = data[i];
      if (Eigen::numext::isnan(v)) {
        nan = true;
      } else if (Eigen::numext::isinf(v)) {
        (v < T(0) ? neg_inf : pos_inf) = true;
      }
    }
    if (!neg_inf && !pos_inf && !nan) return;
    std::vector<std::string> found;
    if (kV2) {
      if (neg_inf) found.push_back("-Inf");
      if (pos_inf) found.push_back("+Inf");
    } else if (neg_inf || pos_inf) {
      found.push_back("Inf");
    }
    if (nan) found.push_back("NaN");
    std::string what = found[0];
    if (found.size() == 2) {
      what += " and " + found[1];
    } else if (found.size() == 3) {
      what += ", " + found[1] + ", and " + found[2];
    }
    ctx->SetStatus(errors::InvalidArgument(message_, " : Tensor had ", what,
                                           " values"));
  }

 private:
  std::string message_;
};

#define REGISTER_CHECK_NUMERICS(T)                                          \
  REGISTER_KERNEL_BUILDER(                                                  \
      Name("CheckNumerics").Device(DEVICE_CPU).TypeConstraint<T>("T"),      \
      CheckNumericsOp<T, false>);                                           \
  REGISTER_KERNEL_BUILDER(                                                  \
      Name("CheckNumericsV2").Device(DEVICE_CPU).TypeConstraint<T>("T"),    \
      CheckNumericsOp<T, true>)
REGISTER_CHECK_NUMERICS(float);
REGISTER_CHECK_NUMERICS(double);
REGISTER_CHECK_NUMERICS(Eigen::half);
REGISTER_CHECK_NUMERICS(Eigen::bfloat16);
#undef REGISTER_CHECK_NUMERICS

// ---- Cumsum / Cumprod / CumulativeLogsumexp --------------------------------------

// Each scan folds the running value with the next element, starting from
// the reducer's identity (what an exclusive scan writes first).
template <typename T>
struct SumReducer {
  static T Identity() { return T(0); }
  static T Combine(const T& acc, const T& x) { return acc + x; }
};
template <typename T>
struct ProdReducer {
  static T Identity() { return T(1); }
  static T Combine(const T& acc, const T& x) { return acc * x; }
};
// log(exp(acc) + exp(x)) as TensorFlow's LogSumExp reducer computes it:
// max + log1p(exp(min - max)) from -inf, but max itself when max is below
// the lowest finite value (so -inf with -inf stays -inf, while +inf with
// +inf gives NaN, as there).
template <typename T>
struct LogSumExpReducer {
  static T Identity() { return -Eigen::NumTraits<T>::infinity(); }
  static T Combine(const T& acc, const T& x) {
    const T mi = Eigen::numext::mini(acc, x);
    const T ma = Eigen::numext::maxi(acc, x);
    if (ma < Eigen::NumTraits<T>::lowest()) return ma;
    return T(Eigen::numext::log1p(Eigen::numext::exp(T(mi - ma))) + ma);
  }
};

template <typename T, typename Tidx, typename Reducer>
class ScanOp : public OpKernel {
 public:
  explicit ScanOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
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
    // TensorFlow reports the axis after adding the rank to a negative one.
    OP_REQUIRES(ctx, axis >= 0 && axis < dims,
                errors::InvalidArgument(
                    "ScanOp: Expected scan axis in the range [", -dims, ", ",
                    dims, "), but got ", axis));
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
        T acc = Reducer::Identity();
        for (int64_t s = 0; s < n; ++s) {
          const int64_t i = (reverse_ ? n - 1 - s : s) * inner + c;
          if (exclusive_) {
            ob[i] = acc;
            acc = Reducer::Combine(acc, ib[i]);
          } else {
            acc = Reducer::Combine(acc, ib[i]);
            ob[i] = acc;
          }
        }
      }
    }
  }

 private:
  bool exclusive_ = false;
  bool reverse_ = false;
};

#define REGISTER_SCAN_IDX(NAME, REDUCER, T, Tidx)                       \
  REGISTER_KERNEL_BUILDER(Name(NAME)                                    \
                              .Device(DEVICE_CPU)                       \
                              .TypeConstraint<T>("T")                   \
                              .TypeConstraint<Tidx>("Tidx"),            \
                          ScanOp<T, Tidx, REDUCER<T>>)
#define REGISTER_SCAN(NAME, REDUCER, T)               \
  REGISTER_SCAN_IDX(NAME, REDUCER, T, int32_t);       \
  REGISTER_SCAN_IDX(NAME, REDUCER, T, int64_t)
#define REGISTER_SUM_PROD(T)                     \
  REGISTER_SCAN("Cumsum", SumReducer, T);        \
  REGISTER_SCAN("Cumprod", ProdReducer, T)
REGISTER_SUM_PROD(float);
REGISTER_SUM_PROD(double);
REGISTER_SUM_PROD(int32_t);
REGISTER_SUM_PROD(int64_t);
REGISTER_SUM_PROD(Eigen::half);
REGISTER_SUM_PROD(Eigen::bfloat16);
REGISTER_SUM_PROD(complex64);
REGISTER_SUM_PROD(complex128);
REGISTER_SUM_PROD(int8_t);
REGISTER_SUM_PROD(int16_t);
REGISTER_SUM_PROD(uint8_t);
REGISTER_SUM_PROD(uint16_t);
REGISTER_SUM_PROD(uint32_t);
REGISTER_SUM_PROD(uint64_t);
REGISTER_SCAN("CumulativeLogsumexp", LogSumExpReducer, float);
REGISTER_SCAN("CumulativeLogsumexp", LogSumExpReducer, double);
REGISTER_SCAN("CumulativeLogsumexp", LogSumExpReducer, Eigen::half);
REGISTER_SCAN("CumulativeLogsumexp", LogSumExpReducer, Eigen::bfloat16);
#undef REGISTER_SUM_PROD
#undef REGISTER_SCAN
#undef REGISTER_SCAN_IDX

// ---- TopKV2 -------------------------------------------------------------------

// An integer scalar of type int16, int32 or int64 (TopKV2's k).
int64_t IntegerScalar(const Tensor& t) {
  switch (t.dtype()) {
    case DT_INT16:
      return t.scalar<int16_t>()();
    case DT_INT32:
      return t.scalar<int32_t>()();
    default:
      return t.scalar<int64_t>()();
  }
}

// Writes `order[0..k)` as the output's index type (int16, int32 or int64).
void WriteIndices(const std::vector<int64_t>& order, int64_t k, int64_t at,
                  Tensor* indices) {
  switch (indices->dtype()) {
    case DT_INT16:
      for (int64_t i = 0; i < k; ++i) {
        indices->flat<int16_t>()(at + i) = static_cast<int16_t>(order[i]);
      }
      break;
    case DT_INT32:
      for (int64_t i = 0; i < k; ++i) {
        indices->flat<int32_t>()(at + i) = static_cast<int32_t>(order[i]);
      }
      break;
    default:
      for (int64_t i = 0; i < k; ++i) indices->flat<int64_t>()(at + i) = order[i];
  }
}

// TopKV2 over T; k (Tk) and the indices (index_type) in any of int16, int32
// and int64, read and written by their runtime type.
template <typename T>
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
    const int64_t k = IntegerScalar(k_in);
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
    std::vector<int64_t> order(n);
    // Larger first; among equals the lower index. NaN compares false both
    // ways, so it stays where a stable order leaves it.
    for (int64_t r = 0; r < rows; ++r) {
      const T* row = in + r * n;
      std::iota(order.begin(), order.end(), 0);
      auto greater = [row](int64_t a, int64_t b) {
        if (row[a] > row[b]) return true;
        if (row[b] > row[a]) return false;
        return a < b;
      };
      if (k == 1) {
        int64_t best = 0;
        for (int64_t i = 1; i < n; ++i) {
          if (row[i] > row[best]) best = i;
        }
        order[0] = best;
      } else {
        std::partial_sort(order.begin(), order.begin() + k, order.end(),
                          greater);
        // sorted=false: TensorFlow still returns the k largest in decreasing
        // order on CPU, and so do we.
      }
      for (int64_t i = 0; i < k; ++i) v[r * k + i] = row[order[i]];
      WriteIndices(order, k, r * k, indices);
    }
  }

 private:
  bool sorted_ = true;
};

#define REGISTER_TOPK(T)                                                     \
  REGISTER_KERNEL_BUILDER(                                                   \
      Name("TopKV2")                                                         \
          .Device(DEVICE_CPU)                                                \
          .TypeConstraint<T>("T")                                            \
          .TypeConstraint("Tk", {DT_INT16, DT_INT32, DT_INT64})              \
          .TypeConstraint("index_type", {DT_INT16, DT_INT32, DT_INT64}),     \
      TopKOp<T>)
REGISTER_TOPK(float);
REGISTER_TOPK(double);
REGISTER_TOPK(int8_t);
REGISTER_TOPK(int16_t);
REGISTER_TOPK(int32_t);
REGISTER_TOPK(int64_t);
REGISTER_TOPK(uint8_t);
REGISTER_TOPK(uint16_t);
REGISTER_TOPK(uint32_t);
REGISTER_TOPK(uint64_t);
REGISTER_TOPK(Eigen::half);
REGISTER_TOPK(Eigen::bfloat16);
#undef REGISTER_TOPK

// ---- InTopKV2 -------------------------------------------------------------------

// precision[b]: fewer than k predictions in row b beat the target class's
// (ties do not count against it). False for a target outside [0, classes)
// or a row holding a non-finite prediction where it is looked at.
template <typename Tidx>
class InTopKOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& predictions = ctx->input(0);
    const Tensor& targets = ctx->input(1);
    const Tensor& k_in = ctx->input(2);
    OP_REQUIRES(ctx, TensorShapeUtils::IsScalar(k_in.shape()),
                errors::InvalidArgument("k must be 0-D, got shape ",
                                        k_in.shape().DebugString()));
    OP_REQUIRES(ctx, predictions.dims() == 2,
                errors::InvalidArgument("predictions must be 2-dimensional"));
    OP_REQUIRES(ctx, targets.dims() == 1,
                errors::InvalidArgument("targets must be 1-dimensional"));
    OP_REQUIRES(ctx, predictions.dim_size(0) == targets.dim_size(0),
                errors::InvalidArgument("First dimension of predictions ",
                                        predictions.dim_size(0),
                                        " must match length of targets ",
                                        targets.dim_size(0)));
    const int64_t k = static_cast<int64_t>(k_in.scalar<Tidx>()());
    const int64_t batch = predictions.dim_size(0);
    const int64_t classes = predictions.dim_size(1);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, targets.shape(), &out));
    const float* p = predictions.flat<float>().data();
    const Tidx* t = targets.flat<Tidx>().data();
    bool* o = out->flat<bool>().data();
    for (int64_t b = 0; b < batch; ++b) {
      const float* row = p + b * classes;
      const int64_t target = static_cast<int64_t>(t[b]);
      bool cannot_say = target < 0 || target >= classes ||
                        !std::isfinite(row[target]);
      int64_t more_probable = 0;
      if (!cannot_say) {
        const float target_prediction = row[target];
        for (int64_t c = 0; c < classes; ++c) {
          const float pred = row[c];
          if (!std::isfinite(pred)) {
            cannot_say = true;
            break;
          }
          if (pred > target_prediction && ++more_probable > k) break;
        }
      }
      o[b] = !cannot_say && more_probable < k;
    }
  }
};

REGISTER_KERNEL_BUILDER(
    Name("InTopKV2").Device(DEVICE_CPU).TypeConstraint<int32_t>("T"),
    InTopKOp<int32_t>);
REGISTER_KERNEL_BUILDER(
    Name("InTopKV2").Device(DEVICE_CPU).TypeConstraint<int64_t>("T"),
    InTopKOp<int64_t>);

}  // namespace
}  // namespace tributary
