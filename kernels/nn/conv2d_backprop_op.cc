// Conv2DBackpropInput and Conv2DBackpropFilter: TensorFlow's CPU kernels'
// checks, in their order and wording (conv_grad_input_ops.cc,
// conv_grad_filter_ops.cc, conv_grad_shape_utils.cc), then the im2col + GEMM
// engines of conv2d_backprop_im2col.h.
//
// Like TensorFlow's CPU kernels they compute NHWC only (NCHW is rejected at
// construction), unit dilation only, and no grouped convolution; padding may
// be SAME, VALID or EXPLICIT, with any strides. Messages name TensorFlow's
// kernel classes ("Conv2DCustomBackpropInput: ...") so they read the same.

#include <cstdint>
#include <string>
#include <vector>

#include "common/framework/tensor.h"
#include "common/framework/tensor_shape.h"
#include "common/kernel/kernel_registry.h"
#include "common/kernel/op_kernel.h"
#include "kernels/nn/conv2d_backprop_im2col.h"
#include "kernels/nn/conv2d_im2col.h"
#include "kernels/nn/window_util.h"

namespace tributary {
namespace {

using nn::Padding;
using nn::TensorFormat;

// Attributes of both gradients, checked at construction as TensorFlow does.
class Conv2DBackpropBase : public OpKernel {
 protected:
  Conv2DBackpropBase(OpKernelConstruction* context, const char* op_class)
      : OpKernel(context) {
    std::string data_format;
    OP_REQUIRES_OK(context, context->GetAttr("data_format", &data_format));
    TensorFormat format;
    OP_REQUIRES_OK(context, nn::ParseTensorFormat(data_format, &format));
    OP_REQUIRES(context, format == TensorFormat::kNHWC,
                errors::InvalidArgument(op_class, " only supports NHWC."));
    OP_REQUIRES_OK(context, context->GetAttr("strides", &strides_));
    OP_REQUIRES(context, strides_.size() == 4,
                errors::InvalidArgument("Sliding window strides field must "
                                        "specify 4 dimensions"));
    OP_REQUIRES(context, strides_[0] == 1 && strides_[3] == 1,
                errors::Unimplemented(
                    "Current implementation does not yet support strides in "
                    "the batch and depth dimensions."));
    OP_REQUIRES(context, strides_[1] > 0 && strides_[2] > 0,
                errors::InvalidArgument(
                    "Row and column strides should be larger than 0."));
    OP_REQUIRES_OK(context, context->GetAttr("dilations", &dilations_));
    OP_REQUIRES(context, dilations_.size() == 4,
                errors::InvalidArgument("Sliding window dilations field must "
                                        "specify 4 dimensions"));
    OP_REQUIRES(context, dilations_[0] == 1 && dilations_[3] == 1,
                errors::Unimplemented(
                    "Current implementation does not yet support dilations in "
                    "the batch and depth dimensions."));
    OP_REQUIRES(context, dilations_[1] == 1 && dilations_[2] == 1,
                errors::InvalidArgument(
                    "Current CPU implementations do not yet support dilation "
                    "rates larger than 1."));
    std::string padding;
    OP_REQUIRES_OK(context, context->GetAttr("padding", &padding));
    OP_REQUIRES_OK(context, nn::ParsePadding(padding, &padding_));
    OP_REQUIRES_OK(context,
                   context->GetAttr("explicit_paddings", &explicit_paddings_));
    OP_REQUIRES_OK(context,
                   nn::CheckValidPadding(padding_, explicit_paddings_,
                                         /*num_dims=*/4, TensorFormat::kNHWC));
  }

  // TensorFlow's ConvBackpropComputeDimensionsV2: the forward geometry from
  // the three shapes, each checked against the others. `label` prefixes
  // every message.
  absl::Status ComputeGeometry(const char* label, const TensorShape& input,
                               const TensorShape& filter,
                               const TensorShape& out_backprop,
                               nn::Conv2DGeometry* g) const {
    if (input.dims() != 4) {
      return errors::InvalidArgument(label, ": input must be 4-dimensional");
    }
    if (filter.dims() != 4) {
      return errors::InvalidArgument(label, ": filter must be 4-dimensional");
    }
    if (out_backprop.dims() != 4) {
      return errors::InvalidArgument(label,
                                     ": out_backprop must be 4-dimensional");
    }
    g->batch = input.dim_size(0);
    if (g->batch != out_backprop.dim_size(0)) {
      return errors::InvalidArgument(
          label, ": input and out_backprop must have the same batch size. ",
          "Input batch: ", g->batch,
          ", outbackprop batch: ", out_backprop.dim_size(0), ", batch_dim: 0");
    }
    g->in_rows = input.dim_size(1);
    g->in_cols = input.dim_size(2);
    g->filter_rows = filter.dim_size(0);
    g->filter_cols = filter.dim_size(1);
    g->stride_rows = strides_[1];
    g->stride_cols = strides_[2];
    if (padding_ == Padding::kExplicit) {
      nn::GetExplicitPadding(explicit_paddings_, TensorFormat::kNHWC, 'H',
                             &g->pad_top, &g->pad_bottom);
      nn::GetExplicitPadding(explicit_paddings_, TensorFormat::kNHWC, 'W',
                             &g->pad_left, &g->pad_right);
    }
    struct Spatial {
      int dim;
      int64_t in, filter, stride;
      int64_t* out;
      int64_t* before;
      int64_t* after;
    };
    const Spatial spatial[] = {{1, g->in_rows, g->filter_rows, g->stride_rows,
                                &g->out_rows, &g->pad_top, &g->pad_bottom},
                               {2, g->in_cols, g->filter_cols, g->stride_cols,
                                &g->out_cols, &g->pad_left, &g->pad_right}};
    for (const Spatial& s : spatial) {
      TRIB_RETURN_IF_ERROR(
          nn::GetWindowedOutputSize(s.in, s.filter, /*dilation=*/1, s.stride,
                                    padding_, s.out, s.before, s.after));
      const int64_t actual = out_backprop.dim_size(s.dim);
      if (actual != *s.out) {
        return errors::InvalidArgument(
            label, ": Size of out_backprop doesn't match computed: ",
            "actual = ", actual, ", computed = ", *s.out,
            " spatial_dim: ", s.dim, " input: ", s.in, " filter: ", s.filter,
            " output: ", actual, " stride: ", s.stride, " dilation: 1");
      }
    }
    g->in_depth = input.dim_size(3);
    g->patch_depth = filter.dim_size(2);
    if (g->patch_depth <= 0 || g->in_depth % g->patch_depth != 0) {
      return errors::InvalidArgument(
          label, ": input depth must be evenly divisible by filter depth");
    }
    g->out_depth = filter.dim_size(3);
    if (g->out_depth != out_backprop.dim_size(3)) {
      return errors::InvalidArgument(
          label, ": filter and out_backprop must have the same out_depth");
    }
    if (g->in_depth != g->patch_depth) {
      return errors::InvalidArgument(
          "Gradients for grouped convolutions are not supported on CPU. "
          "Please file a feature request if you run into this issue. "
          "Computed input depth ",
          g->in_depth, " doesn't match filter input depth ", g->patch_depth);
    }
    return absl::OkStatus();
  }

  // A shape from a 1-D int32 tensor of sizes; negative sizes fail.
  static absl::Status ShapeFromSizes(const Tensor& sizes, TensorShape* shape) {
    const auto v = sizes.flat<int32_t>();
    for (int64_t i = 0; i < v.size(); ++i) {
      if (v(i) < 0) {
        return errors::InvalidArgument("Dimension ", v(i), " must be >= 0");
      }
      shape->AddDim(v(i));
    }
    return absl::OkStatus();
  }

 private:
  std::vector<int64_t> strides_;
  std::vector<int64_t> dilations_;
  std::vector<int64_t> explicit_paddings_;
  Padding padding_ = Padding::kValid;
};

template <typename T>
class Conv2DBackpropInputOp : public Conv2DBackpropBase {
 public:
  explicit Conv2DBackpropInputOp(OpKernelConstruction* context)
      : Conv2DBackpropBase(context, "Conv2DCustomBackpropInputOp") {}

  void Compute(OpKernelContext* context) override {
    const Tensor& input_sizes = context->input(0);
    const Tensor& filter = context->input(1);
    const Tensor& out_backprop = context->input(2);
    // TensorFlow's Conv2DBackpropComputeInputShape: 4 sizes, or 2 spatial
    // ones with batch and depth taken from out_backprop and filter.
    OP_REQUIRES(context, input_sizes.dims() == 1,
                errors::InvalidArgument(
                    "Conv2DBackpropInput: input_sizes input must be 1-dim, "
                    "not ",
                    input_sizes.dims()));
    OP_REQUIRES(context, out_backprop.dims() == 4,
                errors::InvalidArgument("input_sizes must be 4-dimensional, "
                                        "got: ",
                                        out_backprop.dims()));
    TensorShape input_shape;
    const int64_t count = input_sizes.NumElements();
    if (count == 4) {
      OP_REQUIRES_OK(context, ShapeFromSizes(input_sizes, &input_shape));
    } else if (count == 2) {
      OP_REQUIRES(
          context, filter.dims() == 4,
          errors::InvalidArgument("Conv2DCustomBackpropInput: filter must be "
                                  "4-dimensional"));
      TensorShape spatial;
      OP_REQUIRES_OK(context, ShapeFromSizes(input_sizes, &spatial));
      input_shape = TensorShape({out_backprop.dim_size(0), spatial.dim_size(0),
                                 spatial.dim_size(1), filter.dim_size(2)});
    } else {
      OP_REQUIRES(context, false,
                  errors::InvalidArgument(
                      "Conv2DBackpropInput requires input_sizes to contain 4 "
                      "values or 2 values, but got: ",
                      count));
    }
    nn::Conv2DGeometry g;
    OP_REQUIRES_OK(context,
                   ComputeGeometry("Conv2DCustomBackpropInput", input_shape,
                                   filter.shape(), out_backprop.shape(), &g));
    Tensor* in_backprop = nullptr;
    OP_REQUIRES_OK(context,
                   context->allocate_output(0, input_shape, &in_backprop));
    if (input_shape.num_elements() == 0) return;
    if (filter.NumElements() == 0 || out_backprop.NumElements() == 0) {
      // Nothing flows back (an empty filter or output): all zeros.
      in_backprop->flat<T>().setZero();
      return;
    }
    OP_REQUIRES_OK(context, nn::LaunchConv2DBackpropInput<T>(
                                context, g, out_backprop, filter, in_backprop));
  }
};

template <typename T>
class Conv2DBackpropFilterOp : public Conv2DBackpropBase {
 public:
  explicit Conv2DBackpropFilterOp(OpKernelConstruction* context)
      : Conv2DBackpropBase(context, "Conv2DCustomBackpropFilterOp") {}

  void Compute(OpKernelContext* context) override {
    const Tensor& input = context->input(0);
    const Tensor& filter_sizes = context->input(1);
    const Tensor& out_backprop = context->input(2);
    OP_REQUIRES(context, filter_sizes.dims() == 1,
                errors::InvalidArgument(
                    "Conv2DCustomBackpropFilter: filter_sizes input must be "
                    "1-dim, not ",
                    filter_sizes.dims()));
    TensorShape filter_shape;
    OP_REQUIRES_OK(context, ShapeFromSizes(filter_sizes, &filter_shape));
    nn::Conv2DGeometry g;
    OP_REQUIRES_OK(context,
                   ComputeGeometry("Conv2DCustomBackpropFilter", input.shape(),
                                   filter_shape, out_backprop.shape(), &g));
    Tensor* filter_backprop = nullptr;
    OP_REQUIRES_OK(context,
                   context->allocate_output(0, filter_shape, &filter_backprop));
    if (filter_shape.num_elements() == 0) return;
    if (input.NumElements() == 0 || out_backprop.NumElements() == 0) {
      filter_backprop->flat<T>().setZero();
      return;
    }
    OP_REQUIRES_OK(context,
                   nn::LaunchConv2DBackpropFilter<T>(
                       context, g, input, out_backprop, filter_backprop));
  }
};

#define REGISTER_BACKPROP_INPUT_KERNEL(T)                                    \
  REGISTER_KERNEL_BUILDER(                                                   \
      Name("Conv2DBackpropInput").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
      Conv2DBackpropInputOp<T>)
#define REGISTER_BACKPROP_FILTER_KERNEL(T)                                    \
  REGISTER_KERNEL_BUILDER(                                                    \
      Name("Conv2DBackpropFilter").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
      Conv2DBackpropFilterOp<T>)

REGISTER_BACKPROP_INPUT_KERNEL(float);
REGISTER_BACKPROP_INPUT_KERNEL(double);
REGISTER_BACKPROP_INPUT_KERNEL(int32_t);
REGISTER_BACKPROP_FILTER_KERNEL(float);
REGISTER_BACKPROP_FILTER_KERNEL(double);

#undef REGISTER_BACKPROP_INPUT_KERNEL
#undef REGISTER_BACKPROP_FILTER_KERNEL

}  // namespace
}  // namespace tributary
