// ResizeBilinear, ResizeNearestNeighbor and their gradients on NHWC images,
// with TensorFlow's coordinate mapping (image_resizer_state.h there):
//   scale = (align_corners && out > 1) ? (in - 1) / (out - 1) : in / out,
// computed in float, like every source coordinate:
//   bilinear   src = half_pixel_centers ? (dst + 0.5) * scale - 0.5 : dst *
//   scale
//              the two taps floor(src) and ceil(src) clamped to [0, in - 1],
//              weight src - floor(src); lerp across x, then across y, in float.
//   nearest    src = half_pixel_centers ? (dst + 0.5) * scale : dst * scale,
//              then round (align_corners) or floor, clamped to [0, in - 1].
// Bilinear always outputs float (any input T); nearest keeps T. The
// gradients scatter the output gradient back with the same taps and weights;
// ResizeBilinearGrad sums its float terms in T (double for float64), as
// TensorFlow does.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "common/framework/status.h"
#include "common/framework/tensor.h"
#include "common/framework/types.h"
#include "common/kernel/kernel_registry.h"
#include "common/kernel/op_kernel.h"

namespace tributary {
namespace {

float ResizeScale(int64_t in, int64_t out, bool align_corners) {
  return (align_corners && out > 1)
             ? static_cast<float>(in - 1) / static_cast<float>(out - 1)
             : static_cast<float>(in) / static_cast<float>(out);
}

struct ResizeAttrs {
  bool align_corners = false;
  bool half_pixel_centers = false;
};

void ReadResizeAttrs(OpKernelConstruction* ctx, ResizeAttrs* attrs) {
  OP_REQUIRES_OK(ctx, ctx->GetAttr("align_corners", &attrs->align_corners));
  OP_REQUIRES_OK(
      ctx, ctx->GetAttr("half_pixel_centers", &attrs->half_pixel_centers));
  OP_REQUIRES(
      ctx, !(attrs->align_corners && attrs->half_pixel_centers),
      errors::InvalidArgument(
          "If half_pixel_centers is True, align_corners must be False."));
}

// The [height, width] in a `size` input: 1-D int32 with two positive values.
absl::Status ReadSize(const Tensor& size, int64_t* height, int64_t* width) {
  if (size.dims() != 1) {
    return errors::InvalidArgument("shape_t must be 1-dimensional",
                                   size.shape().DebugString());
  }
  if (size.NumElements() != 2) {
    return errors::InvalidArgument("shape_t must have two elements",
                                   size.shape().DebugString());
  }
  auto v = size.vec<int32_t>();
  *height = v(0);
  *width = v(1);
  if (*height <= 0 || *width <= 0) {
    return errors::InvalidArgument("output dimensions must be positive");
  }
  return absl::OkStatus();
}

absl::Status CheckImages(const Tensor& images) {
  if (images.dims() != 4) {
    return errors::InvalidArgument("input must be 4-dimensional",
                                   images.shape().DebugString());
  }
  if (images.dim_size(1) > INT32_MAX || images.dim_size(2) > INT32_MAX) {
    return errors::InvalidArgument(
        "input sizes must be between 0 and max int32");
  }
  return absl::OkStatus();
}

// One bilinear axis: for each destination index its two source taps and the
// weight of the upper one.
struct Taps {
  std::vector<int64_t> lower, upper;
  std::vector<float> lerp;
};

Taps BilinearTaps(int64_t in, int64_t out, float scale, bool half_pixel) {
  Taps t;
  t.lower.resize(out);
  t.upper.resize(out);
  t.lerp.resize(out);
  for (int64_t i = 0; i < out; ++i) {
    const float src = half_pixel ? (static_cast<float>(i) + 0.5f) * scale - 0.5f
                                 : static_cast<float>(i) * scale;
    const float floor_src = std::floor(src);
    t.lower[i] = std::max(static_cast<int64_t>(floor_src), int64_t{0});
    t.upper[i] = std::min(static_cast<int64_t>(std::ceil(src)), in - 1);
    t.lerp[i] = src - floor_src;
  }
  return t;
}

std::vector<int64_t> NearestTaps(int64_t in, int64_t out, float scale,
                                 const ResizeAttrs& a) {
  std::vector<int64_t> taps(out);
  for (int64_t i = 0; i < out; ++i) {
    const float src = a.half_pixel_centers
                          ? (static_cast<float>(i) + 0.5f) * scale
                          : static_cast<float>(i) * scale;
    int64_t j = a.align_corners ? static_cast<int64_t>(std::round(src))
                                : static_cast<int64_t>(std::floor(src));
    j = std::min(j, in - 1);
    if (a.half_pixel_centers) j = std::max(j, int64_t{0});
    taps[i] = j;
  }
  return taps;
}

template <typename T>
class ResizeBilinearOp : public OpKernel {
 public:
  explicit ResizeBilinearOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ReadResizeAttrs(ctx, &attrs_);
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& images = ctx->input(0);
    OP_REQUIRES_OK(ctx, CheckImages(images));
    int64_t out_h = 0, out_w = 0;
    OP_REQUIRES_OK(ctx, ReadSize(ctx->input(1), &out_h, &out_w));
    const int64_t batch = images.dim_size(0), in_h = images.dim_size(1),
                  in_w = images.dim_size(2), channels = images.dim_size(3);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx,
                   ctx->allocate_output(
                       0, TensorShape({batch, out_h, out_w, channels}), &out));
    if (out->NumElements() == 0) return;
    OP_REQUIRES(
        ctx, in_h > 0 && in_w > 0,
        errors::InvalidArgument("input image must be of non-zero size"));
    const Taps ys = BilinearTaps(in_h, out_h,
                                 ResizeScale(in_h, out_h, attrs_.align_corners),
                                 attrs_.half_pixel_centers);
    const Taps xs = BilinearTaps(in_w, out_w,
                                 ResizeScale(in_w, out_w, attrs_.align_corners),
                                 attrs_.half_pixel_centers);
    const T* in = images.flat<T>().data();
    float* o = out->flat<float>().data();
    for (int64_t b = 0; b < batch; ++b) {
      const T* image = in + b * in_h * in_w * channels;
      for (int64_t y = 0; y < out_h; ++y) {
        const T* top = image + ys.lower[y] * in_w * channels;
        const T* bottom = image + ys.upper[y] * in_w * channels;
        const float y_lerp = ys.lerp[y];
        for (int64_t x = 0; x < out_w; ++x) {
          const int64_t l = xs.lower[x] * channels, r = xs.upper[x] * channels;
          const float x_lerp = xs.lerp[x];
          for (int64_t c = 0; c < channels; ++c) {
            const float tl = static_cast<float>(top[l + c]);
            const float tr = static_cast<float>(top[r + c]);
            const float bl = static_cast<float>(bottom[l + c]);
            const float br = static_cast<float>(bottom[r + c]);
            const float t = tl + (tr - tl) * x_lerp;
            const float bo = bl + (br - bl) * x_lerp;
            *o++ = t + (bo - t) * y_lerp;
          }
        }
      }
    }
  }

 private:
  ResizeAttrs attrs_;
};

template <typename T>
class ResizeNearestNeighborOp : public OpKernel {
 public:
  explicit ResizeNearestNeighborOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ReadResizeAttrs(ctx, &attrs_);
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& images = ctx->input(0);
    OP_REQUIRES_OK(ctx, CheckImages(images));
    int64_t out_h = 0, out_w = 0;
    OP_REQUIRES_OK(ctx, ReadSize(ctx->input(1), &out_h, &out_w));
    const int64_t batch = images.dim_size(0), in_h = images.dim_size(1),
                  in_w = images.dim_size(2), channels = images.dim_size(3);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx,
                   ctx->allocate_output(
                       0, TensorShape({batch, out_h, out_w, channels}), &out));
    if (out->NumElements() == 0) return;
    OP_REQUIRES(
        ctx, in_h > 0 && in_w > 0,
        errors::InvalidArgument("input image must be of non-zero size"));
    const std::vector<int64_t> ys = NearestTaps(
        in_h, out_h, ResizeScale(in_h, out_h, attrs_.align_corners), attrs_);
    const std::vector<int64_t> xs = NearestTaps(
        in_w, out_w, ResizeScale(in_w, out_w, attrs_.align_corners), attrs_);
    const T* in = images.flat<T>().data();
    T* o = out->flat<T>().data();
    for (int64_t b = 0; b < batch; ++b) {
      const T* image = in + b * in_h * in_w * channels;
      for (int64_t y = 0; y < out_h; ++y) {
        const T* row = image + ys[y] * in_w * channels;
        for (int64_t x = 0; x < out_w; ++x) {
          o = std::copy(row + xs[x] * channels, row + (xs[x] + 1) * channels,
                        o);
        }
      }
    }
  }

 private:
  ResizeAttrs attrs_;
};

// grads [b, h, w, c] (float) -> output shaped like original_image.
template <typename T>
class ResizeBilinearGradOp : public OpKernel {
 public:
  explicit ResizeBilinearGradOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ReadResizeAttrs(ctx, &attrs_);
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& grads = ctx->input(0);
    const Tensor& original = ctx->input(1);
    OP_REQUIRES(ctx, grads.dims() == 4,
                errors::InvalidArgument("input_grad must be 4-dimensional",
                                        grads.shape().DebugString()));
    OP_REQUIRES(ctx, original.dims() == 4,
                errors::InvalidArgument("original_image must be 4-dimensional",
                                        original.shape().DebugString()));
    const int64_t batch = grads.dim_size(0), out_h = grads.dim_size(1),
                  out_w = grads.dim_size(2), channels = grads.dim_size(3);
    const int64_t in_h = original.dim_size(1), in_w = original.dim_size(2);
    OP_REQUIRES(
        ctx, original.dim_size(0) == batch && original.dim_size(3) == channels,
        errors::InvalidArgument(
            "original_image and input_grad must have the same batch "
            "size and depth: ",
            original.shape().DebugString(), " vs. ",
            grads.shape().DebugString()));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, original.shape(), &out));
    const int64_t size = out->NumElements();
    if (size == 0) return;
    // As TensorFlow's CPU kernel: each term is computed in float
    // (grad * y weight * x weight) and added to the output in T, so float64
    // gradients accumulate in double (and half/bfloat16 in their own type).
    T* acc = out->flat<T>().data();
    std::fill(acc, acc + size, T(0));
    if (grads.NumElements() > 0) {
      const Taps ys = BilinearTaps(
          in_h, out_h, ResizeScale(in_h, out_h, attrs_.align_corners),
          attrs_.half_pixel_centers);
      const Taps xs = BilinearTaps(
          in_w, out_w, ResizeScale(in_w, out_w, attrs_.align_corners),
          attrs_.half_pixel_centers);
      const float* g = grads.flat<float>().data();
      for (int64_t b = 0; b < batch; ++b) {
        T* image = acc + b * in_h * in_w * channels;
        for (int64_t y = 0; y < out_h; ++y) {
          T* top = image + ys.lower[y] * in_w * channels;
          T* bottom = image + ys.upper[y] * in_w * channels;
          const float yl = ys.lerp[y], iyl = 1.0f - yl;
          for (int64_t x = 0; x < out_w; ++x) {
            const int64_t l = xs.lower[x] * channels,
                          r = xs.upper[x] * channels;
            const float xl = xs.lerp[x], ixl = 1.0f - xl;
            for (int64_t c = 0; c < channels; ++c, ++g) {
              top[l + c] += static_cast<T>(*g * iyl * ixl);
              top[r + c] += static_cast<T>(*g * iyl * xl);
              bottom[l + c] += static_cast<T>(*g * yl * ixl);
              bottom[r + c] += static_cast<T>(*g * yl * xl);
            }
          }
        }
      }
    }
  }

 private:
  ResizeAttrs attrs_;
};

// grads [b, h, w, c] -> [b, size[0], size[1], c]: each gradient added to the
// original pixel the forward copied it from (the forward's NearestTaps from
// the original size to the resized one). Sums run in T, as in TensorFlow.
// align_corners together with half_pixel_centers is not rejected here:
// TensorFlow's gradient accepts it too.
template <typename T>
class ResizeNearestNeighborGradOp : public OpKernel {
 public:
  explicit ResizeNearestNeighborGradOp(OpKernelConstruction* ctx)
      : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("align_corners", &attrs_.align_corners));
    OP_REQUIRES_OK(
        ctx, ctx->GetAttr("half_pixel_centers", &attrs_.half_pixel_centers));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& grads = ctx->input(0);
    OP_REQUIRES(ctx, grads.dims() == 4,
                errors::InvalidArgument("input must be 4-dimensional",
                                        grads.shape().DebugString()));
    const Tensor& size = ctx->input(1);
    OP_REQUIRES(ctx, size.dims() == 1,
                errors::InvalidArgument("shape_t must be 1-dimensional",
                                        size.shape().DebugString()));
    OP_REQUIRES(ctx, size.NumElements() == 2,
                errors::InvalidArgument("shape_t must have two elements",
                                        size.shape().DebugString()));
    const int64_t orig_h = size.vec<int32_t>()(0);
    const int64_t orig_w = size.vec<int32_t>()(1);
    OP_REQUIRES(ctx, orig_h > 0 && orig_w > 0,
                errors::InvalidArgument("shape_t's elements must be positive"));
    const int64_t batch = grads.dim_size(0), in_h = grads.dim_size(1),
                  in_w = grads.dim_size(2), channels = grads.dim_size(3);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(
                            0, TensorShape({batch, orig_h, orig_w, channels}),
                            &out));
    T* o = out->flat<T>().data();
    const int64_t size_out = out->NumElements();
    std::fill(o, o + size_out, T(0));
    if (grads.NumElements() == 0 || size_out == 0) return;
    const std::vector<int64_t> ys = NearestTaps(
        orig_h, in_h, ResizeScale(orig_h, in_h, attrs_.align_corners), attrs_);
    const std::vector<int64_t> xs = NearestTaps(
        orig_w, in_w, ResizeScale(orig_w, in_w, attrs_.align_corners), attrs_);
    const T* g = grads.flat<T>().data();
    for (int64_t b = 0; b < batch; ++b) {
      T* image = o + b * orig_h * orig_w * channels;
      for (int64_t y = 0; y < in_h; ++y) {
        T* row = image + ys[y] * orig_w * channels;
        for (int64_t x = 0; x < in_w; ++x) {
          T* pixel = row + xs[x] * channels;
          for (int64_t c = 0; c < channels; ++c, ++g) pixel[c] += *g;
        }
      }
    }
  }

 private:
  ResizeAttrs attrs_;
};

#define REGISTER_RESIZE(T)                                                     \
  REGISTER_KERNEL_BUILDER(                                                     \
      Name("ResizeBilinear").Device(DEVICE_CPU).TypeConstraint<T>("T"),        \
      ResizeBilinearOp<T>);                                                    \
  REGISTER_KERNEL_BUILDER(                                                     \
      Name("ResizeNearestNeighbor").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
      ResizeNearestNeighborOp<T>)
REGISTER_RESIZE(float);
REGISTER_RESIZE(double);
REGISTER_RESIZE(half);
REGISTER_RESIZE(bfloat16);
REGISTER_RESIZE(int8_t);
REGISTER_RESIZE(uint8_t);
REGISTER_RESIZE(int16_t);
REGISTER_RESIZE(uint16_t);
REGISTER_RESIZE(int32_t);
REGISTER_RESIZE(int64_t);
#undef REGISTER_RESIZE

#define REGISTER_RESIZE_BILINEAR_GRAD(T)                                    \
  REGISTER_KERNEL_BUILDER(                                                  \
      Name("ResizeBilinearGrad").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
      ResizeBilinearGradOp<T>)
REGISTER_RESIZE_BILINEAR_GRAD(float);
REGISTER_RESIZE_BILINEAR_GRAD(double);
REGISTER_RESIZE_BILINEAR_GRAD(half);
REGISTER_RESIZE_BILINEAR_GRAD(bfloat16);
#undef REGISTER_RESIZE_BILINEAR_GRAD

#define REGISTER_RESIZE_NEAREST_GRAD(T)                          \
  REGISTER_KERNEL_BUILDER(Name("ResizeNearestNeighborGrad")      \
                              .Device(DEVICE_CPU)                \
                              .TypeConstraint<T>("T"),           \
                          ResizeNearestNeighborGradOp<T>)
REGISTER_RESIZE_NEAREST_GRAD(float);
REGISTER_RESIZE_NEAREST_GRAD(double);
REGISTER_RESIZE_NEAREST_GRAD(half);
REGISTER_RESIZE_NEAREST_GRAD(bfloat16);
REGISTER_RESIZE_NEAREST_GRAD(int8_t);
REGISTER_RESIZE_NEAREST_GRAD(uint8_t);
REGISTER_RESIZE_NEAREST_GRAD(int32_t);
#undef REGISTER_RESIZE_NEAREST_GRAD

}  // namespace
}  // namespace tributary
