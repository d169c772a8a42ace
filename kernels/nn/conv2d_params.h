#ifndef TRIBUTARY_KERNELS_NN_CONV2D_PARAMS_H_
#define TRIBUTARY_KERNELS_NN_CONV2D_PARAMS_H_

// Conv2D's attributes and shape checks, in TensorFlow's order and wording
// (conv_ops.cc), shared by Conv2D and _FusedConv2D.

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "common/framework/status.h"
#include "common/framework/tensor.h"
#include "common/framework/tensor_shape.h"
#include "common/kernel/op_kernel.h"
#include "kernels/nn/conv_geometry.h"
#include "kernels/nn/window_util.h"

namespace tributary {
namespace nn {

struct Conv2DAttrs {
  std::vector<int64_t> strides;
  std::vector<int64_t> dilations;
  std::vector<int64_t> explicit_paddings;
  Padding padding = Padding::kValid;
  TensorFormat format = TensorFormat::kNHWC;

  int64_t Dim(const std::vector<int64_t>& attr, char dim) const {
    return attr[FormatDimIndex(format, dim)];
  }
};

inline absl::Status ReadConv2DAttrs(OpKernelConstruction* context,
                                    Conv2DAttrs* a) {
  TRIB_RETURN_IF_ERROR(context->GetAttr("dilations", &a->dilations));
  TRIB_RETURN_IF_ERROR(context->GetAttr("strides", &a->strides));
  std::string padding;
  TRIB_RETURN_IF_ERROR(context->GetAttr("padding", &padding));
  TRIB_RETURN_IF_ERROR(ParsePadding(padding, &a->padding));
  TRIB_RETURN_IF_ERROR(
      context->GetAttr("explicit_paddings", &a->explicit_paddings));
  std::string data_format;
  TRIB_RETURN_IF_ERROR(context->GetAttr("data_format", &data_format));
  TRIB_RETURN_IF_ERROR(ParseTensorFormat(data_format, &a->format));
  if (a->dilations.size() != 4) {
    return errors::InvalidArgument(
        "Sliding window dilations field must specify 4 dimensions");
  }
  if (a->strides.size() != 4) {
    return errors::InvalidArgument(
        "Sliding window strides field must specify 4 dimensions");
  }
  if (a->Dim(a->strides, 'N') != 1 || a->Dim(a->strides, 'C') != 1) {
    return errors::Unimplemented(
        "Current implementation does not yet support strides in the batch "
        "and depth dimensions.");
  }
  if (a->Dim(a->strides, 'H') <= 0 || a->Dim(a->strides, 'W') <= 0) {
    return errors::InvalidArgument(
        "Row and column strides should be larger than 0.");
  }
  if (a->Dim(a->dilations, 'N') != 1 || a->Dim(a->dilations, 'C') != 1) {
    return errors::Unimplemented(
        "Current implementation does not yet support dilations in the batch "
        "and depth dimensions.");
  }
  if (a->Dim(a->dilations, 'H') <= 0 || a->Dim(a->dilations, 'W') <= 0) {
    return errors::InvalidArgument("Dilated rates should be larger than 0.");
  }
  return CheckValidPadding(a->padding, a->explicit_paddings, /*num_dims=*/4,
                           a->format);
}

// The checks before the output is allocated; fills the geometry and the
// output shape (in the attrs' data format).
inline absl::Status Conv2DShape(const Conv2DAttrs& a, const Tensor& input,
                                const Tensor& filter, Conv2DGeometry* g,
                                TensorShape* out_shape) {
  if (input.dims() != 4) {
    return errors::InvalidArgument("convolution input must be 4-dimensional: ",
                                   input.shape().DebugString());
  }
  if (filter.dims() != 4) {
    return errors::InvalidArgument(
        "convolution filter must be 4-dimensional: ",
        filter.shape().DebugString());
  }
  g->in_depth = input.dim_size(FormatDimIndex(a.format, 'C'));
  g->patch_depth = filter.dim_size(2);
  if (g->patch_depth <= 0) {
    return errors::InvalidArgument(
        "filter depth must be stricly positive, got ", g->patch_depth);
  }
  if (g->in_depth % g->patch_depth != 0) {
    return errors::InvalidArgument(
        "input depth must be evenly divisible by filter depth: ", g->in_depth,
        " vs ", g->patch_depth);
  }
  g->out_depth = filter.dim_size(3);
  g->in_rows = input.dim_size(FormatDimIndex(a.format, 'H'));
  g->in_cols = input.dim_size(FormatDimIndex(a.format, 'W'));
  g->filter_rows = filter.dim_size(0);
  g->filter_cols = filter.dim_size(1);
  g->batch = input.dim_size(FormatDimIndex(a.format, 'N'));
  g->stride_rows = a.Dim(a.strides, 'H');
  g->stride_cols = a.Dim(a.strides, 'W');
  g->dilation_rows = a.Dim(a.dilations, 'H');
  g->dilation_cols = a.Dim(a.dilations, 'W');
  if (a.padding == Padding::kExplicit) {
    GetExplicitPadding(a.explicit_paddings, a.format, 'H', &g->pad_top,
                       &g->pad_bottom);
    GetExplicitPadding(a.explicit_paddings, a.format, 'W', &g->pad_left,
                       &g->pad_right);
  }
  TRIB_RETURN_IF_ERROR(GetWindowedOutputSize(
      g->in_rows, g->filter_rows, g->dilation_rows, g->stride_rows, a.padding,
      &g->out_rows, &g->pad_top, &g->pad_bottom));
  TRIB_RETURN_IF_ERROR(GetWindowedOutputSize(
      g->in_cols, g->filter_cols, g->dilation_cols, g->stride_cols, a.padding,
      &g->out_cols, &g->pad_left, &g->pad_right));
  *out_shape =
      a.format == TensorFormat::kNHWC
          ? TensorShape({g->batch, g->out_rows, g->out_cols, g->out_depth})
          : TensorShape({g->batch, g->out_depth, g->out_rows, g->out_cols});
  return absl::OkStatus();
}

// TensorFlow's CPU launcher's checks: only when there is something to
// compute (non-empty output and input).
inline absl::Status CheckConv2DLaunch(const Conv2DAttrs& a,
                                      const Conv2DGeometry& g,
                                      const Tensor& filter,
                                      const char* op_name = "Conv2D") {
  if (a.format != TensorFormat::kNHWC) {
    return errors::Unimplemented(
        "The ", op_name,
        " op currently only supports the NHWC tensor format on the CPU. The "
        "op was given the format: NCHW");
  }
  if (filter.NumElements() <= 0) {
    return errors::InvalidArgument(
        "filter must not have zero elements (i.e. all dimensions must be "
        "non-zero)");
  }
  const int64_t groups = g.groups();
  if (g.out_depth % groups != 0 || g.out_depth < groups) {
    return errors::InvalidArgument(
        "output depth must be evenly divisible by number of groups: ",
        g.out_depth, " vs ", groups);
  }
  return absl::OkStatus();
}

}  // namespace nn
}  // namespace tributary

#endif  // TRIBUTARY_KERNELS_NN_CONV2D_PARAMS_H_
