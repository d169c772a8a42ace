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
#include "common/kernel/op_kernel.h"
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

inline absl::Status ReadDepthwiseAttrs(OpKernelConstruction* context,
                                       DepthwiseAttrs* attrs) {
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
  TRIB_RETURN_IF_ERROR(
      context->GetAttr("explicit_paddings", &attrs->explicit_paddings));
  return CheckValidPadding(attrs->padding, attrs->explicit_paddings,
                           /*num_dims=*/4, attrs->format);
}

}  // namespace nn
}  // namespace tributary

#endif  // TRIBUTARY_KERNELS_NN_DEPTHWISE_ATTRS_H_
