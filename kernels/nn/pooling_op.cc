// MaxPool and AvgPool on NHWC tensors (TensorFlow's CPU kernels support only
// NHWC too), with TensorFlow's checks and messages (pooling_ops_common.cc).
//
// Each output row (one image row of output pixels) is independent, so rows
// are split across the device's thread pool; within a pixel the inner loop
// runs over the contiguous channels, which the compiler vectorises.
// Padding never contributes: max ignores out-of-image taps and the average
// divides by the number of in-image taps only, as TensorFlow does.

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "absl/strings/str_join.h"
#include "common/framework/tensor.h"
#include "common/framework/tensor_shape.h"
#include "common/kernel/kernel_registry.h"
#include "common/kernel/op_kernel.h"
#include "kernels/nn/pool_geometry.h"
#include "kernels/nn/window_util.h"
#include "unsupported/Eigen/CXX11/Tensor"

namespace tributary {
namespace {

using nn::ClipWindow;
using nn::ComputePoolGeometry;
using nn::PoolAttrs;
using nn::PoolGeometry;
using nn::ReadPoolAttrs;
using nn::Window;

// Runs `pixel(n, oh, ow, out)` for every output pixel, one output row per
// work item on the device's thread pool.
template <typename T, typename PixelFn>
void ForEachOutputPixel(OpKernelContext* context, const PoolGeometry& g, T* out,
                        PixelFn pixel) {
  const double window = static_cast<double>(g.window_rows * g.window_cols);
  const Eigen::TensorOpCost row_cost(g.out_cols * window * g.depth * sizeof(T),
                                     g.out_cols * g.out_depth * sizeof(T),
                                     g.out_cols * window * g.depth);
  context->eigen_cpu_device().parallelFor(
      g.batch * g.out_rows, row_cost,
      [&g, out, &pixel](Eigen::Index first, Eigen::Index last) {
        for (Eigen::Index row = first; row < last; ++row) {
          const int64_t n = row / g.out_rows;
          const int64_t oh = row % g.out_rows;
          for (int64_t ow = 0; ow < g.out_cols; ++ow) {
            pixel(n, oh, ow,
                  out + ((n * g.out_rows + oh) * g.out_cols + ow) * g.depth);
          }
        }
      });
}

template <typename T>
class MaxPoolOp : public OpKernel {
 public:
  explicit MaxPoolOp(OpKernelConstruction* context) : OpKernel(context) {
    OP_REQUIRES_OK(context,
                   ReadPoolAttrs(context, "MaxPoolingOp",
                                 /*check_ksize_positive=*/true, &attrs_));
  }

  void Compute(OpKernelContext* context) override {
    const Tensor& input = context->input(0);
    PoolGeometry g;
    OP_REQUIRES_OK(context, ComputePoolGeometry(attrs_, input.shape(), &g));
    Tensor* output = nullptr;
    OP_REQUIRES_OK(
        context,
        context->allocate_output(
            0, {g.batch, g.out_rows, g.out_cols, g.out_depth}, &output));
    if (output->NumElements() == 0) return;
    const T* in = input.flat<T>().data();
    T* out = output->flat<T>().data();
    if (g.depth_window != 1) {
      DepthwiseMax(context, g, in, out);
      return;
    }
    const int64_t depth = g.depth;
    ForEachOutputPixel<T>(
        context, g, out,
        [&g, in, depth](int64_t n, int64_t oh, int64_t ow, T* o) {
          std::fill(o, o + depth, std::numeric_limits<T>::lowest());
          const Window win = ClipWindow(g, oh, ow);
          for (int64_t h = win.h0; h < win.h1; ++h) {
            for (int64_t w = win.w0; w < win.w1; ++w) {
              const T* i = in + ((n * g.in_rows + h) * g.in_cols + w) * depth;
              // `o < i ? i : o` is std::max: a NaN input never wins, as in
              // TensorFlow's cwiseMax accumulation.
              for (int64_t c = 0; c < depth; ++c) {
                o[c] = o[c] < i[c] ? i[c] : o[c];
              }
            }
          }
        });
  }

 private:
  static void DepthwiseMax(OpKernelContext* context, const PoolGeometry& g,
                           const T* in, T* out) {
    const int64_t window = g.depth_window;
    const int64_t outputs = g.batch * g.in_rows * g.in_cols * g.out_depth;
    const Eigen::TensorOpCost cost(window * sizeof(T), sizeof(T), window);
    context->eigen_cpu_device().parallelFor(
        outputs, cost,
        [in, out, window](Eigen::Index first, Eigen::Index last) {
          for (Eigen::Index i = first; i < last; ++i) {
            T m = std::numeric_limits<T>::lowest();
            const T* src = in + i * window;
            for (int64_t k = 0; k < window; ++k) m = m < src[k] ? src[k] : m;
            out[i] = m;
          }
        });
  }

  PoolAttrs attrs_;
};

template <typename T>
class AvgPoolOp : public OpKernel {
 public:
  explicit AvgPoolOp(OpKernelConstruction* context) : OpKernel(context) {
    OP_REQUIRES_OK(context,
                   ReadPoolAttrs(context, "AvgPoolingOp",
                                 /*check_ksize_positive=*/false, &attrs_));
  }

  void Compute(OpKernelContext* context) override {
    const Tensor& input = context->input(0);
    for (int64_t k : attrs_.ksize) {
      OP_REQUIRES(context, k > 0,
                  errors::InvalidArgument(
                      "ksize must be a positive int32 value, got:", k));
    }
    PoolGeometry g;
    OP_REQUIRES_OK(context, ComputePoolGeometry(attrs_, input.shape(), &g));
    OP_REQUIRES(
        context, g.depth_window == 1,
        errors::Unimplemented(
            "Non-spatial pooling is not yet supported. Volunteers? :)"));
    Tensor* output = nullptr;
    OP_REQUIRES_OK(
        context,
        context->allocate_output(
            0, {g.batch, g.out_rows, g.out_cols, g.out_depth}, &output));
    if (output->NumElements() == 0) return;
    const T* in = input.flat<T>().data();
    const int64_t depth = g.depth;
    ForEachOutputPixel<T>(
        context, g, output->flat<T>().data(),
        [&g, in, depth](int64_t n, int64_t oh, int64_t ow, T* o) {
          std::fill(o, o + depth, T(0));
          const Window win = ClipWindow(g, oh, ow);
          for (int64_t h = win.h0; h < win.h1; ++h) {
            for (int64_t w = win.w0; w < win.w1; ++w) {
              const T* i = in + ((n * g.in_rows + h) * g.in_cols + w) * depth;
              for (int64_t c = 0; c < depth; ++c) o[c] += i[c];
            }
          }
          // Padding is not counted: the mean of the in-image taps.
          const T count = static_cast<T>((win.h1 - win.h0) * (win.w1 - win.w0));
          for (int64_t c = 0; c < depth; ++c) o[c] /= count;
        });
  }

 private:
  PoolAttrs attrs_;
};

#define REGISTER_MAX_POOL_KERNEL(T) \
  REGISTER_KERNEL_BUILDER(          \
      Name("MaxPool").Device(DEVICE_CPU).TypeConstraint<T>("T"), MaxPoolOp<T>)
#define REGISTER_AVG_POOL_KERNEL(T) \
  REGISTER_KERNEL_BUILDER(          \
      Name("AvgPool").Device(DEVICE_CPU).TypeConstraint<T>("T"), AvgPoolOp<T>)

REGISTER_MAX_POOL_KERNEL(float);
REGISTER_MAX_POOL_KERNEL(double);
REGISTER_MAX_POOL_KERNEL(int32_t);
REGISTER_MAX_POOL_KERNEL(int64_t);
REGISTER_AVG_POOL_KERNEL(float);
REGISTER_AVG_POOL_KERNEL(double);
REGISTER_MAX_POOL_KERNEL(Eigen::half);  // Keras mixed precision
REGISTER_MAX_POOL_KERNEL(Eigen::bfloat16);
REGISTER_AVG_POOL_KERNEL(Eigen::half);
REGISTER_AVG_POOL_KERNEL(Eigen::bfloat16);

#undef REGISTER_MAX_POOL_KERNEL
#undef REGISTER_AVG_POOL_KERNEL

}  // namespace
}  // namespace tributary
