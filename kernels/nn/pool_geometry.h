#ifndef TRIBUTARY_KERNELS_NN_POOL_GEOMETRY_H_
#define TRIBUTARY_KERNELS_NN_POOL_GEOMETRY_H_

// The attributes and geometry shared by the pooling kernels and their
// gradients (NHWC only, as TensorFlow's CPU kernels): attribute checks and
// TensorFlow's PoolParameters, with its messages (pooling_ops_common.cc), and
// the in-image part of one output pixel's window.

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_join.h"
#include "common/framework/tensor_shape.h"
#include "common/kernel/op_kernel.h"
#include "kernels/nn/window_util.h"

namespace tributary {
namespace nn {

// Attributes common to both ops, read and checked at construction.
struct PoolAttrs {
  std::vector<int64_t> ksize;
  std::vector<int64_t> strides;
  Padding padding = Padding::kValid;
  std::vector<int64_t> explicit_paddings;
};

// The geometry of one pooling call (TensorFlow's PoolParameters).
struct PoolGeometry {
  int64_t batch = 0;
  int64_t in_rows = 0;
  int64_t in_cols = 0;
  int64_t depth = 0;
  int64_t window_rows = 1;
  int64_t window_cols = 1;
  int64_t depth_window = 1;
  int64_t stride_rows = 1;
  int64_t stride_cols = 1;
  int64_t out_rows = 0;
  int64_t out_cols = 0;
  int64_t out_depth = 0;
  int64_t pad_top = 0;
  int64_t pad_bottom = 0;
  int64_t pad_left = 0;
  int64_t pad_right = 0;
};

// The data_format check both CPU kernels make first; `op_class` is
// TensorFlow's class name in the message ("MaxPoolingOp").
inline absl::Status ReadPoolAttrs(OpKernelConstruction* context,
                                  const char* op_class,
                                  bool check_ksize_positive, PoolAttrs* attrs) {
  std::string data_format;
  TRIB_RETURN_IF_ERROR(context->GetAttr("data_format", &data_format));
  if (data_format != "NHWC") {
    return errors::InvalidArgument("Default ", op_class,
                                   " only supports NHWC on device type CPU");
  }
  TRIB_RETURN_IF_ERROR(context->GetAttr("ksize", &attrs->ksize));
  if (attrs->ksize.size() != 4) {
    return errors::InvalidArgument(
        "Sliding window ksize field must specify 4 dimensions");
  }
  if (check_ksize_positive) {
    for (int64_t k : attrs->ksize) {
      if (k <= 0) {
        return errors::InvalidArgument(
            "Sliding window ksize must be positive. The specified or inferred "
            "ksize is: ",
            absl::StrJoin(attrs->ksize, ","));
      }
    }
  }
  TRIB_RETURN_IF_ERROR(context->GetAttr("strides", &attrs->strides));
  if (attrs->strides.size() != 4) {
    return errors::InvalidArgument(
        "Sliding window stride field must specify 4 dimensions");
  }
  std::string padding;
  TRIB_RETURN_IF_ERROR(context->GetAttr("padding", &padding));
  TRIB_RETURN_IF_ERROR(nn::ParsePadding(padding, &attrs->padding));
  if (attrs->padding == Padding::kExplicit) {
    TRIB_RETURN_IF_ERROR(
        context->GetAttr("explicit_paddings", &attrs->explicit_paddings));
    TRIB_RETURN_IF_ERROR(
        nn::CheckValidPadding(attrs->padding, attrs->explicit_paddings,
                              /*num_dims=*/4, nn::TensorFormat::kNHWC));
  }
  if (attrs->ksize[0] != 1 || attrs->strides[0] != 1) {
    return errors::Unimplemented(
        "Pooling is not yet supported on the batch dimension.");
  }
  return absl::OkStatus();
}

inline absl::Status ComputePoolGeometry(const PoolAttrs& attrs,
                                        const TensorShape& input,
                                        PoolGeometry* g) {
  if (input.dims() != 4) {
    return errors::InvalidArgument(
        "tensor_in_shape must have 2 spatial dimensions. ", input.dims(), " ",
        nn::FormatEnumValue(nn::TensorFormat::kNHWC));
  }
  g->batch = input.dim_size(0);
  g->in_rows = input.dim_size(1);
  g->in_cols = input.dim_size(2);
  g->depth = input.dim_size(3);
  g->window_rows = attrs.ksize[1];
  g->window_cols = attrs.ksize[2];
  g->depth_window = attrs.ksize[3];
  g->stride_rows = attrs.strides[1];
  g->stride_cols = attrs.strides[2];
  const int64_t depth_stride = attrs.strides[3];
  if (attrs.padding == Padding::kExplicit) {
    nn::GetExplicitPadding(attrs.explicit_paddings, nn::TensorFormat::kNHWC,
                           'H', &g->pad_top, &g->pad_bottom);
    nn::GetExplicitPadding(attrs.explicit_paddings, nn::TensorFormat::kNHWC,
                           'W', &g->pad_left, &g->pad_right);
    // Otherwise a window could hold padding only, with no value to pool.
    const struct {
      const char* side;
      int64_t pad;
      int64_t window;
    } sides[] = {{"Top", g->pad_top, g->window_rows},
                 {"Bottom", g->pad_bottom, g->window_rows},
                 {"Left", g->pad_left, g->window_cols},
                 {"Right", g->pad_right, g->window_cols}};
    for (const auto& side : sides) {
      if (side.pad >= side.window) {
        return errors::InvalidArgument(side.side, " padding ", side.pad,
                                       " needs to be smaller than the window "
                                       "size ",
                                       side.window);
      }
    }
  }
  if (g->depth_window != 1 && (g->window_rows != 1 || g->window_cols != 1)) {
    return errors::Unimplemented(
        "MaxPooling supports exactly one of pooling across depth or pooling "
        "across width/height.");
  }
  TRIB_RETURN_IF_ERROR(nn::GetWindowedOutputSize(
      g->in_rows, g->window_rows, /*dilation=*/1, g->stride_rows, attrs.padding,
      &g->out_rows, &g->pad_top, &g->pad_bottom));
  TRIB_RETURN_IF_ERROR(nn::GetWindowedOutputSize(
      g->in_cols, g->window_cols, /*dilation=*/1, g->stride_cols, attrs.padding,
      &g->out_cols, &g->pad_left, &g->pad_right));
  if (g->depth_window == 1) {
    g->out_depth = g->depth;
    return absl::OkStatus();
  }
  // Depthwise pooling: non-overlapping channel groups, spatial size kept
  // (TensorFlow ignores the spatial strides here).
  if (g->depth % g->depth_window != 0) {
    return errors::Unimplemented(
        "Depthwise max pooling requires the depth window to evenly divide "
        "the input depth");
  }
  if (depth_stride != g->depth_window) {
    return errors::Unimplemented(
        "Depthwise max pooling requires the depth window to equal the depth "
        "stride");
  }
  g->out_rows = g->in_rows;
  g->out_cols = g->in_cols;
  g->out_depth = g->depth / g->depth_window;
  return absl::OkStatus();
}

// The in-image part of output pixel (oh, ow)'s window: [h0, h1) x [w0, w1).
struct Window {
  int64_t h0, h1, w0, w1;
};

inline Window ClipWindow(const PoolGeometry& g, int64_t oh, int64_t ow) {
  const int64_t h = oh * g.stride_rows - g.pad_top;
  const int64_t w = ow * g.stride_cols - g.pad_left;
  return Window{
      std::max<int64_t>(h, 0), std::min<int64_t>(h + g.window_rows, g.in_rows),
      std::max<int64_t>(w, 0), std::min<int64_t>(w + g.window_cols, g.in_cols)};
}

}  // namespace nn
}  // namespace tributary

#endif  // TRIBUTARY_KERNELS_NN_POOL_GEOMETRY_H_
