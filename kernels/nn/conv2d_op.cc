// Conv2D: attribute and shape validation in TensorFlow's order and wording
// (conv_ops.cc), then the im2col + GEMM engine of conv2d_im2col.h.
//
// Like TensorFlow's CPU kernel it computes NHWC only (NCHW is accepted by the
// op so GPU-tuned graphs validate, and fails here with Unimplemented once a
// non-empty result is actually needed), supports SAME / VALID / EXPLICIT
// padding, strides, dilations and grouped convolution.

#include <cstdint>
#include <string>
#include <vector>

#include "common/framework/tensor.h"
#include "common/framework/tensor_shape.h"
#include "common/kernel/kernel_registry.h"
#include "common/kernel/op_kernel.h"
#include "kernels/nn/conv2d_launch.h"
#include "kernels/nn/window_util.h"
#include "unsupported/Eigen/CXX11/Tensor"

namespace tributary {
namespace {

using nn::FormatDimIndex;
using nn::Padding;
using nn::TensorFormat;

template <typename T>
class Conv2DOp : public OpKernel {
 public:
  explicit Conv2DOp(OpKernelConstruction* context) : OpKernel(context) {
    OP_REQUIRES_OK(context, context->GetAttr("dilations", &dilations_));
    OP_REQUIRES_OK(context, context->GetAttr("strides", &strides_));
    std::string padding;
    OP_REQUIRES_OK(context, context->GetAttr("padding", &padding));
    OP_REQUIRES_OK(context, nn::ParsePadding(padding, &padding_));
    OP_REQUIRES_OK(context,
                   context->GetAttr("explicit_paddings", &explicit_paddings_));
    std::string data_format;
    OP_REQUIRES_OK(context, context->GetAttr("data_format", &data_format));
    OP_REQUIRES_OK(context, nn::ParseTensorFormat(data_format, &format_));

    OP_REQUIRES(context, dilations_.size() == 4,
                errors::InvalidArgument("Sliding window dilations field must "
                                        "specify 4 dimensions"));
    OP_REQUIRES(context, strides_.size() == 4,
                errors::InvalidArgument("Sliding window strides field must "
                                        "specify 4 dimensions"));
    OP_REQUIRES(context, Dim(strides_, 'N') == 1 && Dim(strides_, 'C') == 1,
                errors::Unimplemented(
                    "Current implementation does not yet support strides in "
                    "the batch and depth dimensions."));
    OP_REQUIRES(context, Dim(strides_, 'H') > 0 && Dim(strides_, 'W') > 0,
                errors::InvalidArgument(
                    "Row and column strides should be larger than 0."));
    OP_REQUIRES(context, Dim(dilations_, 'N') == 1 && Dim(dilations_, 'C') == 1,
                errors::Unimplemented(
                    "Current implementation does not yet support dilations in "
                    "the batch and depth dimensions."));
    OP_REQUIRES(
        context, Dim(dilations_, 'H') > 0 && Dim(dilations_, 'W') > 0,
        errors::InvalidArgument("Dilated rates should be larger than 0."));
    OP_REQUIRES_OK(context, nn::CheckValidPadding(padding_, explicit_paddings_,
                                                  /*num_dims=*/4, format_));
  }

  void Compute(OpKernelContext* context) override {
    const Tensor& input = context->input(0);
    const Tensor& filter = context->input(1);
    OP_REQUIRES(
        context, input.dims() == 4,
        errors::InvalidArgument("convolution input must be 4-dimensional: ",
                                input.shape().DebugString()));
    OP_REQUIRES(
        context, filter.dims() == 4,
        errors::InvalidArgument("convolution filter must be 4-dimensional: ",
                                filter.shape().DebugString()));

    nn::Conv2DGeometry g;
    g.in_depth = input.dim_size(FormatDimIndex(format_, 'C'));
    g.patch_depth = filter.dim_size(2);
    OP_REQUIRES(
        context, g.patch_depth > 0,
        errors::InvalidArgument("filter depth must be stricly positive, got ",
                                g.patch_depth));
    OP_REQUIRES(context, g.in_depth % g.patch_depth == 0,
                errors::InvalidArgument(
                    "input depth must be evenly divisible by filter depth: ",
                    g.in_depth, " vs ", g.patch_depth));
    g.out_depth = filter.dim_size(3);
    g.in_rows = input.dim_size(FormatDimIndex(format_, 'H'));
    g.in_cols = input.dim_size(FormatDimIndex(format_, 'W'));
    g.filter_rows = filter.dim_size(0);
    g.filter_cols = filter.dim_size(1);
    g.batch = input.dim_size(FormatDimIndex(format_, 'N'));
    g.stride_rows = Dim(strides_, 'H');
    g.stride_cols = Dim(strides_, 'W');
    g.dilation_rows = Dim(dilations_, 'H');
    g.dilation_cols = Dim(dilations_, 'W');
    if (padding_ == Padding::kExplicit) {
      nn::GetExplicitPadding(explicit_paddings_, format_, 'H', &g.pad_top,
                             &g.pad_bottom);
      nn::GetExplicitPadding(explicit_paddings_, format_, 'W', &g.pad_left,
                             &g.pad_right);
    }
    OP_REQUIRES_OK(context,
                   nn::GetWindowedOutputSize(
                       g.in_rows, g.filter_rows, g.dilation_rows, g.stride_rows,
                       padding_, &g.out_rows, &g.pad_top, &g.pad_bottom));
    OP_REQUIRES_OK(context,
                   nn::GetWindowedOutputSize(
                       g.in_cols, g.filter_cols, g.dilation_cols, g.stride_cols,
                       padding_, &g.out_cols, &g.pad_left, &g.pad_right));

    TensorShape out_shape =
        format_ == TensorFormat::kNHWC
            ? TensorShape({g.batch, g.out_rows, g.out_cols, g.out_depth})
            : TensorShape({g.batch, g.out_depth, g.out_rows, g.out_cols});
    Tensor* output = nullptr;
    OP_REQUIRES_OK(context, context->allocate_output(0, out_shape, &output));
    if (out_shape.num_elements() == 0) return;
    if (input.NumElements() == 0) {
      // Only padding reaches the output.
      output->flat<T>().device(context->eigen_cpu_device()) =
          output->flat<T>().constant(T(0));
      return;
    }

    // From here on TensorFlow's CPU launcher: checks that only matter when
    // there is something to compute.
    OP_REQUIRES(context, format_ == TensorFormat::kNHWC,
                errors::Unimplemented(
                    "The Conv2D op currently only supports the NHWC tensor "
                    "format on the CPU. The op was given the format: NCHW"));
    OP_REQUIRES(context, filter.NumElements() > 0,
                errors::InvalidArgument(
                    "filter must not have zero elements (i.e. all dimensions "
                    "must be non-zero)"));
    const int64_t groups = g.groups();
    OP_REQUIRES(context, g.out_depth % groups == 0 && g.out_depth >= groups,
                errors::InvalidArgument(
                    "output depth must be evenly divisible by number of "
                    "groups: ",
                    g.out_depth, " vs ", groups));
    OP_REQUIRES_OK(context, nn::LaunchConv2DAnyType<T>(context, g, input,
                                                       filter, output,
                                                       &weights_cache_));
  }

 private:
  int64_t Dim(const std::vector<int64_t>& attr, char dim) const {
    return attr[FormatDimIndex(format_, dim)];
  }

  std::vector<int64_t> strides_;
  std::vector<int64_t> dilations_;
  std::vector<int64_t> explicit_paddings_;
  Padding padding_ = Padding::kValid;
  TensorFormat format_ = TensorFormat::kNHWC;
  // float32 on oneDNN: a constant filter's reordered copy (onednn_conv.h).
  nn::OneDnnWeightsCache weights_cache_;
};

#define REGISTER_CONV2D_KERNEL(T) \
  REGISTER_KERNEL_BUILDER(        \
      Name("Conv2D").Device(DEVICE_CPU).TypeConstraint<T>("T"), Conv2DOp<T>)

REGISTER_CONV2D_KERNEL(float);
REGISTER_CONV2D_KERNEL(double);
REGISTER_CONV2D_KERNEL(int32_t);
REGISTER_CONV2D_KERNEL(Eigen::half);  // Keras mixed precision
REGISTER_CONV2D_KERNEL(Eigen::bfloat16);

#undef REGISTER_CONV2D_KERNEL

}  // namespace
}  // namespace tributary
