// MaxPoolGrad and AvgPoolGrad on NHWC tensors (TensorFlow's CPU kernels
// support only NHWC too), with TensorFlow's checks (maxpooling_op.cc,
// avgpooling_op.cc).
//
// Both scatter each output pixel's gradient back over its window, so two
// output pixels of one image may write the same input pixel: images are the
// unit of parallelism (each thread owns whole images of the result).
// MaxPoolGrad re-derives the argmax from orig_input as TensorFlow's CPU kernel
// does (orig_output is only checked for shape): the window is scanned row by
// row and a later tap wins only if strictly greater, so among ties the first
// max in the window receives the whole gradient. AvgPoolGrad spreads each
// gradient evenly over the window's in-image taps, the count the forward
// AvgPool divided by.

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

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
using nn::Window;

// Runs `image(n)` for every image of the batch on the device's thread pool.
template <typename ImageFn>
void ForEachImage(OpKernelContext* context, const PoolGeometry& g,
                  ImageFn image) {
  const double window = static_cast<double>(g.window_rows * g.window_cols);
  const double pixels = static_cast<double>(g.out_rows * g.out_cols * g.depth);
  const Eigen::TensorOpCost cost(pixels * window * 4, pixels * 4,
                                 pixels * window);
  context->eigen_cpu_device().parallelFor(
      g.batch, cost, [&image](Eigen::Index first, Eigen::Index last) {
        for (Eigen::Index n = first; n < last; ++n) image(n);
      });
}

template <typename T>
class MaxPoolGradOp : public OpKernel {
 public:
  explicit MaxPoolGradOp(OpKernelConstruction* context) : OpKernel(context) {
    OP_REQUIRES_OK(context,
                   nn::ReadPoolAttrs(context, "MaxPoolingGradOp",
                                     /*check_ksize_positive=*/false, &attrs_));
    OP_REQUIRES(context, attrs_.ksize[3] == 1 && attrs_.strides[3] == 1,
                errors::Unimplemented(
                    "MaxPoolingGrad is not yet supported on the depth "
                    "dimension."));
  }

  void Compute(OpKernelContext* context) override {
    const Tensor& tensor_in = context->input(0);
    const Tensor& tensor_out = context->input(1);
    const Tensor& out_backprop = context->input(2);
    OP_REQUIRES(context, tensor_in.dims() == 4,
                errors::InvalidArgument("tensor_in must be 4-dimensional"));
    OP_REQUIRES(context, tensor_out.dims() == 4,
                errors::InvalidArgument("tensor_out must be 4-dimensional"));
    OP_REQUIRES(context, out_backprop.dims() == 4,
                errors::InvalidArgument("out_backprop must be 4-dimensional"));
    PoolGeometry g;
    OP_REQUIRES_OK(context, ComputePoolGeometry(attrs_, tensor_in.shape(), &g));
    const TensorShape expected({g.batch, g.out_rows, g.out_cols, g.depth});
    OP_REQUIRES(context, tensor_out.shape() == expected,
                errors::InvalidArgument("Expected orig_output shape to be ",
                                        expected.DebugString(), ", but got ",
                                        tensor_out.shape().DebugString()));
    OP_REQUIRES(context, out_backprop.shape() == expected,
                errors::InvalidArgument("Expected grad shape to be ",
                                        expected.DebugString(), ", but got ",
                                        out_backprop.shape().DebugString()));
    Tensor* output = nullptr;
    OP_REQUIRES_OK(context,
                   context->allocate_output(0, tensor_in.shape(), &output));
    if (output->NumElements() == 0) return;
    const T* in = tensor_in.flat<T>().data();
    const T* grad = out_backprop.flat<T>().data();
    T* out = output->flat<T>().data();
    const int64_t depth = g.depth;
    ForEachImage(context, g, [&](int64_t n) {
      const int64_t image_size = g.in_rows * g.in_cols * depth;
      std::fill(out + n * image_size, out + (n + 1) * image_size, T(0));
      // Per channel: the best value so far and the flat input index of it.
      std::vector<T> best(depth);
      std::vector<int64_t> where(depth);
      for (int64_t oh = 0; oh < g.out_rows; ++oh) {
        for (int64_t ow = 0; ow < g.out_cols; ++ow) {
          const Window win = ClipWindow(g, oh, ow);
          std::fill(best.begin(), best.end(), std::numeric_limits<T>::lowest());
          std::fill(where.begin(), where.end(), int64_t{-1});
          for (int64_t h = win.h0; h < win.h1; ++h) {
            for (int64_t w = win.w0; w < win.w1; ++w) {
              const int64_t base =
                  ((n * g.in_rows + h) * g.in_cols + w) * depth;
              for (int64_t c = 0; c < depth; ++c) {
                // Strictly greater (or the first tap): ties keep the first.
                if (where[c] < 0 || in[base + c] > best[c]) {
                  best[c] = in[base + c];
                  where[c] = base + c;
                }
              }
            }
          }
          const T* gp =
              grad + ((n * g.out_rows + oh) * g.out_cols + ow) * depth;
          for (int64_t c = 0; c < depth; ++c) {
            if (where[c] >= 0) out[where[c]] += gp[c];
          }
        }
      }
    });
  }

 private:
  PoolAttrs attrs_;
};

template <typename T>
class AvgPoolGradOp : public OpKernel {
 public:
  explicit AvgPoolGradOp(OpKernelConstruction* context) : OpKernel(context) {
    OP_REQUIRES_OK(context,
                   nn::ReadPoolAttrs(context, "AvgPoolingGradOp",
                                     /*check_ksize_positive=*/false, &attrs_));
  }

  void Compute(OpKernelContext* context) override {
    const Tensor& shape_tensor = context->input(0);
    const Tensor& out_backprop = context->input(1);
    OP_REQUIRES(
        context, shape_tensor.dims() == 1 && shape_tensor.NumElements() == 4,
        // TensorFlow's wording names the wrong input; kept so messages match.
        errors::InvalidArgument("out_backprop must be 1-dimensional and 4 "
                                "elements"));
    OP_REQUIRES(context, out_backprop.dims() == 4,
                errors::InvalidArgument("out_backprop must be 4-dimensional"));
    for (int64_t k : attrs_.ksize) {
      OP_REQUIRES(context, k > 0,
                  errors::InvalidArgument(
                      "ksize must be a positive int32 value, got:", k));
    }
    TensorShape in_shape;
    const auto dims = shape_tensor.flat<int32_t>();
    for (int i = 0; i < 4; ++i) {
      OP_REQUIRES(context, dims(i) >= 0,
                  errors::InvalidArgument("Expected a non-negative size, got ",
                                          dims(i)));
      in_shape.AddDim(dims(i));
    }
    PoolGeometry g;
    OP_REQUIRES_OK(context, ComputePoolGeometry(attrs_, in_shape, &g));
    OP_REQUIRES(
        context, g.depth_window == 1,
        errors::Unimplemented(
            "Non-spatial pooling is not yet supported. Volunteers? :)"));
    const TensorShape expected({g.batch, g.out_rows, g.out_cols, g.depth});
    OP_REQUIRES(context, out_backprop.shape() == expected,
                errors::InvalidArgument("Expected grad shape to be ",
                                        expected.DebugString(), ", but got ",
                                        out_backprop.shape().DebugString()));
    Tensor* output = nullptr;
    OP_REQUIRES_OK(context, context->allocate_output(0, in_shape, &output));
    if (output->NumElements() == 0) return;
    const T* grad = out_backprop.flat<T>().data();
    T* out = output->flat<T>().data();
    const int64_t depth = g.depth;
    ForEachImage(context, g, [&](int64_t n) {
      const int64_t image_size = g.in_rows * g.in_cols * depth;
      std::fill(out + n * image_size, out + (n + 1) * image_size, T(0));
      for (int64_t oh = 0; oh < g.out_rows; ++oh) {
        for (int64_t ow = 0; ow < g.out_cols; ++ow) {
          const Window win = ClipWindow(g, oh, ow);
          const T count = static_cast<T>((win.h1 - win.h0) * (win.w1 - win.w0));
          const T* gp =
              grad + ((n * g.out_rows + oh) * g.out_cols + ow) * depth;
          for (int64_t h = win.h0; h < win.h1; ++h) {
            for (int64_t w = win.w0; w < win.w1; ++w) {
              T* o = out + ((n * g.in_rows + h) * g.in_cols + w) * depth;
              for (int64_t c = 0; c < depth; ++c) o[c] += gp[c] / count;
            }
          }
        }
      }
    });
  }

 private:
  PoolAttrs attrs_;
};

#define REGISTER_MAX_POOL_GRAD_KERNEL(T)                             \
  REGISTER_KERNEL_BUILDER(                                           \
      Name("MaxPoolGrad").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
      MaxPoolGradOp<T>)
#define REGISTER_AVG_POOL_GRAD_KERNEL(T)                             \
  REGISTER_KERNEL_BUILDER(                                           \
      Name("AvgPoolGrad").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
      AvgPoolGradOp<T>)

REGISTER_MAX_POOL_GRAD_KERNEL(float);
REGISTER_MAX_POOL_GRAD_KERNEL(double);
REGISTER_MAX_POOL_GRAD_KERNEL(int32_t);
REGISTER_MAX_POOL_GRAD_KERNEL(int64_t);
// The other integer types TensorFlow's CPU kernel has: only a comparison and
// an addition each, so they cost nothing to carry.
REGISTER_MAX_POOL_GRAD_KERNEL(int8_t);
REGISTER_MAX_POOL_GRAD_KERNEL(uint8_t);
REGISTER_MAX_POOL_GRAD_KERNEL(int16_t);
REGISTER_MAX_POOL_GRAD_KERNEL(uint16_t);
REGISTER_MAX_POOL_GRAD_KERNEL(uint32_t);
REGISTER_MAX_POOL_GRAD_KERNEL(uint64_t);
REGISTER_AVG_POOL_GRAD_KERNEL(float);
REGISTER_AVG_POOL_GRAD_KERNEL(double);

#undef REGISTER_MAX_POOL_GRAD_KERNEL
#undef REGISTER_AVG_POOL_GRAD_KERNEL

}  // namespace
}  // namespace tributary
