// DepthwiseConv2dNativeBackpropInput and DepthwiseConv2dNativeBackpropFilter:
// the gradients of DepthwiseConv2dNative, with the checks and messages of
// TensorFlow's reference CPU kernels (depthwise_conv_grad_op.cc), which
// share their attributes and shape checks (DepthwiseBackpropBase here).
//
// As TensorFlow's CPU kernels: NHWC only (Unimplemented otherwise, once a
// non-empty result is needed), equal row and column strides, SAME / VALID /
// EXPLICIT padding; the dilations attr is accepted and ignored, as there.
//
// Both are computed as gathers, so no two work items write the same element:
//  * input gradient, one input pixel per item: pixel (y, x) receives from
//    every output pixel whose window covers it,
//    dx[c] = sum_{taps, q} dy[c * M + q] * filter[tap, c, q];
//  * filter gradient, one filter tap per item:
//    dfilter[tap, c, q] = sum_{b, output pixels} dy[c * M + q] * x[c] with x
//    the input pixel under that tap (padding contributes nothing).
// The window geometry is window_util.h's, the same as the forward pass.

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "common/framework/tensor.h"
#include "common/framework/tensor_shape.h"
#include "common/kernel/kernel_registry.h"
#include "common/kernel/op_kernel.h"
#include "kernels/nn/conv2d_im2col.h"
#include "kernels/nn/depthwise_attrs.h"
#include "kernels/nn/window_util.h"
#include "unsupported/Eigen/CXX11/Tensor"

namespace tributary {
namespace {

using nn::FormatDimIndex;
using nn::Padding;
using nn::TensorFormat;

// Attributes and shape checks of both gradients; `label` prefixes messages.
class DepthwiseBackpropBase : public OpKernel {
 protected:
  DepthwiseBackpropBase(OpKernelConstruction* context, const char* label)
      : OpKernel(context), label_(label) {
    OP_REQUIRES_OK(context, nn::ReadDepthwiseAttrs(context, &attrs_));
  }

  // A shape from the 1-D int32 sizes input `name` ("input_sizes").
  absl::Status ShapeFromSizes(const Tensor& sizes, const char* name,
                              TensorShape* shape) const {
    if (sizes.dims() != 1) {
      return errors::InvalidArgument(
          label_, ": ", name, " input must be 1-dim, not ", sizes.dims());
    }
    const auto v = sizes.flat<int32_t>();
    for (int64_t i = 0; i < v.size(); ++i) {
      if (v(i) < 0) {
        return errors::InvalidArgument("Dimension ", i, " of ", name,
                                       " must be >= 0");
      }
      shape->AddDim(v(i));
    }
    return absl::OkStatus();
  }

  // The forward geometry from the three shapes, each checked against the
  // others in TensorFlow's order.
  absl::Status ComputeGeometry(const TensorShape& input,
                               const TensorShape& filter,
                               const TensorShape& out_backprop,
                               nn::Conv2DGeometry* g) const {
    if (input.dims() != 4) {
      return errors::InvalidArgument(label_, ": input must be 4-dimensional");
    }
    if (filter.dims() != 4) {
      return errors::InvalidArgument(label_, ": filter must be 4-dimensional");
    }
    if (out_backprop.dims() != 4) {
      return errors::InvalidArgument(label_,
                                     ": out_backprop must be 4-dimensional");
    }
    auto dim = [this](const TensorShape& s, char d) {
      return s.dim_size(FormatDimIndex(attrs_.format, d));
    };
    g->batch = dim(input, 'N');
    if (g->batch != dim(out_backprop, 'N')) {
      return errors::InvalidArgument(
          label_, ": input and out_backprop must have the same batch size");
    }
    g->in_rows = dim(input, 'H');
    g->in_cols = dim(input, 'W');
    g->filter_rows = filter.dim_size(0);
    g->filter_cols = filter.dim_size(1);
    g->stride_rows = g->stride_cols = attrs_.stride();
    if (attrs_.padding == Padding::kExplicit) {
      nn::GetExplicitPadding(attrs_.explicit_paddings, attrs_.format, 'H',
                             &g->pad_top, &g->pad_bottom);
      nn::GetExplicitPadding(attrs_.explicit_paddings, attrs_.format, 'W',
                             &g->pad_left, &g->pad_right);
    }
    TRIB_RETURN_IF_ERROR(nn::GetWindowedOutputSize(
        g->in_rows, g->filter_rows, /*dilation=*/1, g->stride_rows,
        attrs_.padding, &g->out_rows, &g->pad_top, &g->pad_bottom));
    if (dim(out_backprop, 'H') != g->out_rows) {
      return errors::InvalidArgument(
          label_, ": Number of rows of out_backprop doesn't match computed: ",
          "actual = ", dim(out_backprop, 'H'), ", computed = ", g->out_rows);
    }
    TRIB_RETURN_IF_ERROR(nn::GetWindowedOutputSize(
        g->in_cols, g->filter_cols, /*dilation=*/1, g->stride_cols,
        attrs_.padding, &g->out_cols, &g->pad_left, &g->pad_right));
    if (dim(out_backprop, 'W') != g->out_cols) {
      return errors::InvalidArgument(
          label_, ": Number of cols of out_backprop doesn't match computed: ",
          "actual = ", dim(out_backprop, 'W'), ", computed = ", g->out_cols);
    }
    g->in_depth = dim(input, 'C');
    if (g->in_depth != filter.dim_size(2)) {
      return errors::InvalidArgument(
          label_, ": input and filter must have the same in_depth");
    }
    g->patch_depth = 1;
    g->out_depth = g->in_depth * filter.dim_size(3);
    if (g->out_depth != dim(out_backprop, 'C')) {
      return errors::InvalidArgument(
          label_, ": depth_multiplier * in_depth not equal to out_depth");
    }
    return absl::OkStatus();
  }

  const char* label_;
  nn::DepthwiseAttrs attrs_;
};

template <typename T>
class DepthwiseConv2dNativeBackpropInputOp : public DepthwiseBackpropBase {
 public:
  explicit DepthwiseConv2dNativeBackpropInputOp(OpKernelConstruction* context)
      : DepthwiseBackpropBase(context, "DepthwiseConv2DBackpropInput") {}

  void Compute(OpKernelContext* context) override {
    const Tensor& input_sizes = context->input(0);
    const Tensor& filter = context->input(1);
    const Tensor& out_backprop = context->input(2);
    TensorShape input_shape;
    OP_REQUIRES_OK(context,
                   ShapeFromSizes(input_sizes, "input_sizes", &input_shape));
    nn::Conv2DGeometry g;
    OP_REQUIRES_OK(context, ComputeGeometry(input_shape, filter.shape(),
                                            out_backprop.shape(), &g));
    Tensor* in_backprop = nullptr;
    OP_REQUIRES_OK(context,
                   context->allocate_output(0, input_shape, &in_backprop));
    if (input_shape.num_elements() == 0) return;
    OP_REQUIRES(context, attrs_.format == TensorFormat::kNHWC,
                errors::Unimplemented("Depthwise convolution on CPU is only "
                                      "supported for NHWC format"));
    Gather(context, g, filter.flat<T>().data(), out_backprop.flat<T>().data(),
           in_backprop->flat<T>().data());
  }

 private:
  // dx for every input pixel, pixels split over the thread pool.
  static void Gather(OpKernelContext* context, const nn::Conv2DGeometry& g,
                     const T* filter, const T* dy, T* dx) {
    const int64_t depth = g.in_depth;
    const int64_t mult = g.out_depth / std::max<int64_t>(depth, 1);
    const auto pixel = [&](int64_t p) {
      const int64_t x = p % g.in_cols;
      const int64_t y = (p / g.in_cols) % g.in_rows;
      const int64_t b = p / (g.in_cols * g.in_rows);
      T* out = dx + p * depth;
      std::fill(out, out + depth, T(0));
      // Output rows oy with oy * stride - pad_top + i == y for a tap i.
      for (int64_t i = 0; i < g.filter_rows; ++i) {
        const int64_t ty = y + g.pad_top - i;
        if (ty < 0 || ty % g.stride_rows != 0) continue;
        const int64_t oy = ty / g.stride_rows;
        if (oy >= g.out_rows) continue;
        for (int64_t j = 0; j < g.filter_cols; ++j) {
          const int64_t tx = x + g.pad_left - j;
          if (tx < 0 || tx % g.stride_cols != 0) continue;
          const int64_t ox = tx / g.stride_cols;
          if (ox >= g.out_cols) continue;
          const T* grad =
              dy + ((b * g.out_rows + oy) * g.out_cols + ox) * g.out_depth;
          const T* f = filter + (i * g.filter_cols + j) * g.out_depth;
          for (int64_t c = 0; c < depth; ++c) {
            T acc(0);
            for (int64_t q = 0; q < mult; ++q) {
              acc += grad[c * mult + q] * f[c * mult + q];
            }
            out[c] += acc;
          }
        }
      }
    };
    const int64_t pixels = g.batch * g.in_rows * g.in_cols;
    const double cost =
        static_cast<double>(g.filter_rows * g.filter_cols * g.out_depth);
    context->eigen_cpu_device().parallelFor(
        pixels, Eigen::TensorOpCost(cost * sizeof(T), depth * sizeof(T), cost),
        [&pixel](Eigen::Index first, Eigen::Index last) {
          for (Eigen::Index p = first; p < last; ++p) pixel(p);
        });
  }
};

template <typename T>
class DepthwiseConv2dNativeBackpropFilterOp : public DepthwiseBackpropBase {
 public:
  explicit DepthwiseConv2dNativeBackpropFilterOp(OpKernelConstruction* context)
      : DepthwiseBackpropBase(context, "DepthwiseConv2DBackpropFilter") {}

  void Compute(OpKernelContext* context) override {
    const Tensor& input = context->input(0);
    const Tensor& filter_sizes = context->input(1);
    const Tensor& out_backprop = context->input(2);
    TensorShape filter_shape;
    OP_REQUIRES_OK(context,
                   ShapeFromSizes(filter_sizes, "filter_sizes", &filter_shape));
    nn::Conv2DGeometry g;
    OP_REQUIRES_OK(context, ComputeGeometry(input.shape(), filter_shape,
                                            out_backprop.shape(), &g));
    Tensor* filter_backprop = nullptr;
    OP_REQUIRES_OK(context,
                   context->allocate_output(0, filter_shape, &filter_backprop));
    if (filter_shape.num_elements() == 0) return;
    OP_REQUIRES(context, attrs_.format == TensorFormat::kNHWC,
                errors::Unimplemented("Depthwise convolution on CPU is only "
                                      "supported for NHWC format"));
    Gather(context, g, input.flat<T>().data(), out_backprop.flat<T>().data(),
           filter_backprop->flat<T>().data());
  }

 private:
  // dfilter for every tap, taps split over the thread pool.
  static void Gather(OpKernelContext* context, const nn::Conv2DGeometry& g,
                     const T* x, const T* dy, T* dfilter) {
    const int64_t depth = g.in_depth;
    const int64_t mult = g.out_depth / std::max<int64_t>(depth, 1);
    const auto tap = [&](int64_t t) {
      const int64_t i = t / g.filter_cols;
      const int64_t j = t % g.filter_cols;
      T* out = dfilter + t * g.out_depth;
      std::fill(out, out + g.out_depth, T(0));
      for (int64_t b = 0; b < g.batch; ++b) {
        for (int64_t oy = 0; oy < g.out_rows; ++oy) {
          const int64_t y = oy * g.stride_rows - g.pad_top + i;
          if (y < 0 || y >= g.in_rows) continue;
          for (int64_t ox = 0; ox < g.out_cols; ++ox) {
            const int64_t xx = ox * g.stride_cols - g.pad_left + j;
            if (xx < 0 || xx >= g.in_cols) continue;
            const T* in = x + ((b * g.in_rows + y) * g.in_cols + xx) * depth;
            const T* grad =
                dy + ((b * g.out_rows + oy) * g.out_cols + ox) * g.out_depth;
            for (int64_t c = 0; c < depth; ++c) {
              for (int64_t q = 0; q < mult; ++q) {
                out[c * mult + q] += grad[c * mult + q] * in[c];
              }
            }
          }
        }
      }
    };
    const double cost =
        static_cast<double>(g.batch * g.out_rows * g.out_cols * g.out_depth);
    context->eigen_cpu_device().parallelFor(
        g.filter_rows * g.filter_cols,
        Eigen::TensorOpCost(cost * 2 * sizeof(T), g.out_depth * sizeof(T),
                            cost),
        [&tap](Eigen::Index first, Eigen::Index last) {
          for (Eigen::Index t = first; t < last; ++t) tap(t);
        });
  }
};

#define REGISTER_DEPTHWISE_GRAD_KERNEL(T)                             \
  REGISTER_KERNEL_BUILDER(Name("DepthwiseConv2dNativeBackpropInput")  \
                              .Device(DEVICE_CPU)                     \
                              .TypeConstraint<T>("T"),                \
                          DepthwiseConv2dNativeBackpropInputOp<T>);   \
  REGISTER_KERNEL_BUILDER(Name("DepthwiseConv2dNativeBackpropFilter") \
                              .Device(DEVICE_CPU)                     \
                              .TypeConstraint<T>("T"),                \
                          DepthwiseConv2dNativeBackpropFilterOp<T>)

REGISTER_DEPTHWISE_GRAD_KERNEL(float);
REGISTER_DEPTHWISE_GRAD_KERNEL(double);

#undef REGISTER_DEPTHWISE_GRAD_KERNEL

}  // namespace
}  // namespace tributary
