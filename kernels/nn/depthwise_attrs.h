// The attributes DepthwiseConv2dNative and both of its gradients share
// (strides, data_format, padding, explicit_paddings), read and checked once
// with the messages of TensorFlow's reference CPU kernels, in their order.

#ifndef TRIBUTARY_KERNELS_NN_DEPTHWISE_ATTRS_H_
#define TRIBUTARY_KERNELS_NN_DEPTHWISE_ATTRS_H_

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

struct DepthwiseAttrs {
  std::vector<int64_t> strides;
  std::vector<int64_t> explicit_paddings;
  Padding padding = Padding::kValid;
  TensorFormat format = TensorFormat::kNHWC;

  // attr[dim] for a per-dimension attr in this data format ('N','H','W','C').
  int64_t Dim(const std::vector<int64_t>& attr, char dim) const {
    return attr[FormatDimIndex(format, dim)];
  }
  // Row and column strides are equal (checked on reading).
  int64_t stride() const { return Dim(strides, 'H'); }
};

// `has_explicit_paddings`: false for _FusedDepthwiseConv2dNative, which has
// no such attr (and no EXPLICIT padding).
inline absl::Status ReadDepthwiseAttrs(OpKernelConstruction* context,
                                       DepthwiseAttrs* attrs,
                                       bool has_explicit_paddings = true) {
  TRIB_RETURN_IF_ERROR(context->GetAttr("strides", &attrs->strides));
  if (attrs->strides.size() != 4) {
    return errors::InvalidArgument(
        "Sliding window strides field must specify 4 dimensions");
  }
  std::string data_format;
  TRIB_RETURN_IF_ERROR(context->GetAttr("data_format", &data_format));
  TRIB_RETURN_IF_ERROR(ParseTensorFormat(data_format, &attrs->format));
  if (attrs->Dim(attrs->strides, 'H') != attrs->Dim(attrs->strides, 'W')) {
    return errors::InvalidArgument(
        "Current implementation only supports equal length strides in the "
        "row and column dimensions.");
  }
  if (attrs->Dim(attrs->strides, 'N') != 1 ||
      attrs->Dim(attrs->strides, 'C') != 1) {
    return errors::InvalidArgument(
        "Current implementation does not yet support strides in the batch "
        "and depth dimensions.");
  }
  std::string padding;
  TRIB_RETURN_IF_ERROR(context->GetAttr("padding", &padding));
  TRIB_RETURN_IF_ERROR(ParsePadding(padding, &attrs->padding));
  if (has_explicit_paddings) {
    TRIB_RETURN_IF_ERROR(
        context->GetAttr("explicit_paddings", &attrs->explicit_paddings));
  }
  return CheckValidPadding(attrs->padding, attrs->explicit_paddings,
                           /*num_dims=*/4, attrs->format);
}

// DepthwiseConv2dNative's shape checks before the output is allocated, in
// its kernel's order and wording; fills the geometry (a grouped convolution
// with one group per input channel) and the output shape.
inline absl::Status DepthwiseShape(const DepthwiseAttrs& attrs,
                                   const Tensor& input, const Tensor& filter,
                                   Conv2DGeometry* g, TensorShape* out_shape) {
  if (input.dims() != 4) {
    return errors::InvalidArgument("input must be 4-dimensional",
                                   input.shape().DebugString());
  }
  if (filter.dims() != 4) {
    return errors::InvalidArgument("filter must be 4-dimensional: ",
                                   filter.shape().DebugString());
  }
  g->in_depth = input.dim_size(FormatDimIndex(attrs.format, 'C'));
  if (g->in_depth != filter.dim_size(2)) {
    return errors::InvalidArgument(
        "input and filter must have the same depth: ", g->in_depth, " vs ",
        filter.dim_size(2));
  }
  const int64_t multiplier = filter.dim_size(3);
  g->patch_depth = 1;  // one group per input channel
  g->out_depth = g->in_depth * multiplier;
  g->batch = input.dim_size(FormatDimIndex(attrs.format, 'N'));
  g->in_rows = input.dim_size(FormatDimIndex(attrs.format, 'H'));
  g->in_cols = input.dim_size(FormatDimIndex(attrs.format, 'W'));
  g->filter_rows = filter.dim_size(0);
  g->filter_cols = filter.dim_size(1);
  g->stride_rows = g->stride_cols = attrs.stride();
  if (attrs.padding == Padding::kExplicit) {
    GetExplicitPadding(attrs.explicit_paddings, attrs.format, 'H', &g->pad_top,
                       &g->pad_bottom);
    GetExplicitPadding(attrs.explicit_paddings, attrs.format, 'W',
                       &g->pad_left, &g->pad_right);
  }
  TRIB_RETURN_IF_ERROR(GetWindowedOutputSize(
      g->in_rows, g->filter_rows, /*dilation=*/1, g->stride_rows,
      attrs.padding, &g->out_rows, &g->pad_top, &g->pad_bottom));
  TRIB_RETURN_IF_ERROR(GetWindowedOutputSize(
      g->in_cols, g->filter_cols, /*dilation=*/1, g->stride_cols,
      attrs.padding, &g->out_cols, &g->pad_left, &g->pad_right));
  *out_shape =
      attrs.format == TensorFormat::kNHWC
          ? TensorShape({g->batch, g->out_rows, g->out_cols, g->out_depth})
          : TensorShape({g->batch, g->out_depth, g->out_rows, g->out_cols});
  return absl::OkStatus();
}

}  // namespace nn
}  // namespace tributary

#endif  // TRIBUTARY_KERNELS_NN_DEPTHWISE_ATTRS_H_
