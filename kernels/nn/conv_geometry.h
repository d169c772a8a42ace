#ifndef TRIBUTARY_KERNELS_NN_CONV_GEOMETRY_H_
#define TRIBUTARY_KERNELS_NN_CONV_GEOMETRY_H_

// The shape of one forward convolution in NHWC terms, shared by the im2col
// engine (conv2d_im2col.h) and the oneDNN backend (onednn_conv.h).

#include <cstdint>

namespace tributary {
namespace nn {

// Everything the engine needs to know about one Conv2D call, in NHWC terms.
struct Conv2DGeometry {
  int64_t batch = 0;
  int64_t in_rows = 0;
  int64_t in_cols = 0;
  int64_t in_depth = 0;
  int64_t filter_rows = 0;
  int64_t filter_cols = 0;
  int64_t patch_depth = 0;  // filter's input depth (in_depth / groups)
  int64_t out_depth = 0;
  int64_t out_rows = 0;
  int64_t out_cols = 0;
  int64_t stride_rows = 1;
  int64_t stride_cols = 1;
  int64_t dilation_rows = 1;
  int64_t dilation_cols = 1;
  int64_t pad_top = 0;
  int64_t pad_left = 0;
  int64_t pad_bottom = 0;
  int64_t pad_right = 0;

  int64_t groups() const { return in_depth / patch_depth; }
  int64_t out_pixels() const { return batch * out_rows * out_cols; }
  // Columns of the patches matrix: one receptive field of one group.
  int64_t patch_size() const { return filter_rows * filter_cols * patch_depth; }
};

}  // namespace nn
}  // namespace tributary

#endif  // TRIBUTARY_KERNELS_NN_CONV_GEOMETRY_H_
