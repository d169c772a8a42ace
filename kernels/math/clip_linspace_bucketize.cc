// ClipByValue (bounds of t's shape or scalars), LinSpace and Bucketize.

#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "common/framework/tensor.h"
#include "common/framework/types.h"
#include "common/kernel/kernel_registry.h"
#include "common/kernel/op_kernel.h"
#include "unsupported/Eigen/CXX11/Tensor"

namespace tributary {
namespace {

using CPUDevice = Eigen::ThreadPoolDevice;

// ---- ClipByValue -------------------------------------------------------------

template <typename T>
constexpr bool kIsComplex =
    std::is_same_v<T, complex64> || std::is_same_v<T, complex128>;

// Complex values are clipped part by part, the real part between the bounds'
// real parts and the imaginary part between their imaginary parts, which is
// what TensorFlow's CPU kernel computes (its Eigen min/max act on the parts).
template <typename T>
void ClipComplex(const T* x, const T* lo, bool lo_scalar, const T* hi,
                 bool hi_scalar, int64_t n, T* out) {
  auto clip = [](auto v, auto low, auto high) {
    const auto m = high < v ? high : v;
    return m < low ? low : m;
  };
  for (int64_t i = 0; i < n; ++i) {
    const T l = lo[lo_scalar ? 0 : i];
    const T h = hi[hi_scalar ? 0 : i];
    out[i] = T(clip(x[i].real(), l.real(), h.real()),
               clip(x[i].imag(), l.imag(), h.imag()));
  }
}

// output = max(min(t, clip_value_max), clip_value_min), in that order, as
// TensorFlow computes it: a NaN in t stays NaN, a NaN bound leaves t alone,
// and min > max gives min everywhere.
template <typename T>
class ClipByValueOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& t = ctx->input(0);
    const Tensor& lo = ctx->input(1);
    const Tensor& hi = ctx->input(2);
    const bool lo_scalar = TensorShapeUtils::IsScalar(lo.shape());
    const bool hi_scalar = TensorShapeUtils::IsScalar(hi.shape());
    OP_REQUIRES(
        ctx,
        (t.shape() == lo.shape() || lo_scalar) &&
            (t.shape() == hi.shape() || hi_scalar),
        errors::InvalidArgument(
            "clip_value_min and clip_value_max must be either of the same "
            "shape as input, or a scalar. ",
            "input shape: ", t.shape().DebugString(),
            "clip_value_min shape: ", lo.shape().DebugString(),
            "clip_value_max shape: ", hi.shape().DebugString()));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(
        ctx, ctx->forward_input_or_allocate_output({0}, 0, t.shape(), &out));
    if (out->NumElements() == 0) return;
    const CPUDevice& d = ctx->eigen_device<CPUDevice>();
    auto x = t.flat<T>();
    auto o = out->flat<T>();
    if constexpr (kIsComplex<T>) {
      ClipComplex(x.data(), lo.flat<T>().data(), lo_scalar, hi.flat<T>().data(),
                  hi_scalar, x.size(), o.data());
    } else if (lo_scalar && hi_scalar) {
      // A tensor bound matches t's shape exactly; a scalar one is compared
      // with every element.
      o.device(d) = x.cwiseMin(hi.scalar<T>()()).cwiseMax(lo.scalar<T>()());
    } else if (lo_scalar) {
      o.device(d) = x.cwiseMin(hi.flat<T>()).cwiseMax(lo.scalar<T>()());
    } else if (hi_scalar) {
      o.device(d) = x.cwiseMin(hi.scalar<T>()()).cwiseMax(lo.flat<T>());
    } else {
      o.device(d) = x.cwiseMin(hi.flat<T>()).cwiseMax(lo.flat<T>());
    }
  }
};

#define REGISTER_CLIP(T)                                             \
  REGISTER_KERNEL_BUILDER(                                           \
      Name("ClipByValue").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
      ClipByValueOp<T>)
REGISTER_CLIP(float);
REGISTER_CLIP(double);
REGISTER_CLIP(Eigen::half);
REGISTER_CLIP(Eigen::bfloat16);
REGISTER_CLIP(int8_t);
REGISTER_CLIP(int16_t);
REGISTER_CLIP(int32_t);
REGISTER_CLIP(int64_t);
REGISTER_CLIP(uint8_t);
REGISTER_CLIP(uint16_t);
REGISTER_CLIP(complex64);
REGISTER_CLIP(complex128);
#undef REGISTER_CLIP

// ---- LinSpace ----------------------------------------------------------------

// start + i * step with step = (stop - start) / (num - 1), and the last value
// exactly stop (TensorFlow's sequence; num == 1 gives [start]).
template <typename T, typename Tnum>
class LinSpaceOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& start_in = ctx->input(0);
    const Tensor& stop_in = ctx->input(1);
    const Tensor& num_in = ctx->input(2);
    OP_REQUIRES(ctx, TensorShapeUtils::IsScalar(start_in.shape()),
                errors::InvalidArgument("start must be a scalar, not shape ",
                                        start_in.shape().DebugString()));
    OP_REQUIRES(ctx, TensorShapeUtils::IsScalar(stop_in.shape()),
                errors::InvalidArgument("stop must be a scalar, not shape ",
                                        stop_in.shape().DebugString()));
    OP_REQUIRES(ctx, TensorShapeUtils::IsScalar(num_in.shape()),
                errors::InvalidArgument("num must be a scalar, not shape ",
                                        num_in.shape().DebugString()));
    const T start = start_in.scalar<T>()();
    const T stop = stop_in.scalar<T>()();
    const Tnum num = num_in.scalar<Tnum>()();
    OP_REQUIRES(ctx, num > 0,
                errors::InvalidArgument("Requires num > 0: ", num));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(
                            0, TensorShape({static_cast<int64_t>(num)}), &out));
    T* o = out->flat<T>().data();
    if (num == 1) {
      o[0] = start;
      return;
    }
    const T step = (stop - start) / static_cast<T>(num - 1);
    for (Tnum i = 0; i < num - 1; ++i) o[i] = start + step * static_cast<T>(i);
    o[num - 1] = stop;
  }
};

#define REGISTER_LINSPACE_NUM(T, Tnum)                       \
  REGISTER_KERNEL_BUILDER(Name("LinSpace")                   \
                              .Device(DEVICE_CPU)            \
                              .TypeConstraint<T>("T")        \
                              .TypeConstraint<Tnum>("Tidx"), \
                          LinSpaceOp<T, Tnum>)
REGISTER_LINSPACE_NUM(float, int32_t);
REGISTER_LINSPACE_NUM(float, int64_t);
REGISTER_LINSPACE_NUM(double, int32_t);
REGISTER_LINSPACE_NUM(double, int64_t);
#undef REGISTER_LINSPACE_NUM

// ---- Bucketize ---------------------------------------------------------------

// output[i] = how many boundaries are <= input[i] (std::upper_bound); NaN
// lands past the last boundary.
template <typename T>
class BucketizeOp : public OpKernel {
 public:
  explicit BucketizeOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("boundaries", &boundaries_));
    OP_REQUIRES(ctx, std::is_sorted(boundaries_.begin(), boundaries_.end()),
                errors::InvalidArgument("Expected sorted boundaries"));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in.shape(), &out));
    const T* x = in.flat<T>().data();
    int32_t* o = out->flat<int32_t>().data();
    for (int64_t i = 0, n = in.NumElements(); i < n; ++i) {
      o[i] = static_cast<int32_t>(
          std::upper_bound(boundaries_.begin(), boundaries_.end(), x[i]) -
          boundaries_.begin());
    }
  }

 private:
  std::vector<float> boundaries_;
};

#define REGISTER_BUCKETIZE(T)                                      \
  REGISTER_KERNEL_BUILDER(                                         \
      Name("Bucketize").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
      BucketizeOp<T>)
REGISTER_BUCKETIZE(int32_t);
REGISTER_BUCKETIZE(int64_t);
REGISTER_BUCKETIZE(float);
REGISTER_BUCKETIZE(double);
#undef REGISTER_BUCKETIZE

}  // namespace
}  // namespace tributary
