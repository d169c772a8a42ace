#ifndef TRIBUTARY_KERNELS_NN_CONV2D_BACKPROP_IM2COL_H_
#define TRIBUTARY_KERNELS_NN_CONV2D_BACKPROP_IM2COL_H_

// The CPU engines behind Conv2DBackpropInput and Conv2DBackpropFilter (NHWC
// input, HWIO filter, no groups, unit dilation: what TensorFlow's CPU kernels
// support), built on the forward engine's im2col rows and GEMM
// (conv2d_im2col.h). With P the patches matrix [pixels, KH*KW*C] of the
// forward pass, W the filter [KH*KW*C, O] and dY the output gradient
// [pixels, O]:
//  * filter gradient  dW = P^T * dY: each worker builds the patches of its
//    blocks of output pixels and accumulates P_block^T * dY_block into its
//    own partial dW; the partials are summed at the end;
//  * input gradient   dP = dY * W^T, then col2im: every row of dP is added
//    back onto the input pixels its receptive field came from (padding taps
//    are dropped). Receptive fields of one image overlap, so col2im is split
//    by image: with an image per thread, each task does one image's GEMMs
//    and col2im block by block; with fewer images, the GEMM of a large chunk
//    of rows is tiled over the pool first, then col2im runs image-parallel.
// Callers have validated the geometry and allocated non-empty outputs.

#include <algorithm>
#include <atomic>
#include <cstdint>

#include "common/framework/tensor.h"
#include "common/framework/types.h"
#include "common/kernel/op_kernel.h"
#include "kernels/nn/conv2d_im2col.h"
#include "unsupported/Eigen/CXX11/Tensor"

namespace tributary {
namespace nn {
namespace conv_internal {

// Rows of output pixels per block: the patches of one block stay within
// kBlockPatchBytes (about half an L2), never fewer than kMinBlockRows.
template <typename T>
int64_t BackpropBlockRows(const Conv2DGeometry& g) {
  return std::max<int64_t>(
      kMinBlockRows,
      kBlockPatchBytes / std::max<int64_t>(1, g.patch_size() * sizeof(T)));
}

// Adds rows [row_begin, row_end) of dP (`patches`, one receptive field per
// row) onto the input gradient `in_grad`: the inverse of Im2ColRows.
template <typename T>
void Col2ImRows(const Conv2DGeometry& g, const T* patches, int64_t row_begin,
                int64_t row_end, T* in_grad) {
  const int64_t depth = g.in_depth;
  const int64_t patch_size = g.patch_size();
  for (int64_t row = row_begin; row < row_end; ++row) {
    const int64_t n = row / (g.out_rows * g.out_cols);
    const int64_t pixel = row % (g.out_rows * g.out_cols);
    const int64_t ih0 = (pixel / g.out_cols) * g.stride_rows - g.pad_top;
    const int64_t iw0 = (pixel % g.out_cols) * g.stride_cols - g.pad_left;
    const T* src = patches + (row - row_begin) * patch_size;
    for (int64_t kh = 0; kh < g.filter_rows; ++kh) {
      const int64_t ih = ih0 + kh * g.dilation_rows;
      if (ih < 0 || ih >= g.in_rows) continue;
      for (int64_t kw = 0; kw < g.filter_cols; ++kw) {
        const int64_t iw = iw0 + kw * g.dilation_cols;
        if (iw < 0 || iw >= g.in_cols) continue;
        const T* s = src + (kh * g.filter_cols + kw) * depth;
        T* d = in_grad + ((n * g.in_rows + ih) * g.in_cols + iw) * depth;
        for (int64_t c = 0; c < depth; ++c) d[c] += s[c];
      }
    }
  }
}

}  // namespace conv_internal

namespace conv_internal {

// Input gradient, one image per task (enough images for every thread): each
// worker builds dP for blocks of its image's rows in its own buffer and adds
// them back with col2im, block after block.
template <typename T>
absl::Status BackpropInputByImage(OpKernelContext* context,
                                  const Conv2DGeometry& g, const T* dy,
                                  const T* w, T* dx) {
  const auto& device = context->eigen_cpu_device();
  const int64_t k = g.patch_size();
  const int64_t o = g.out_depth;
  const int64_t image_pixels = g.out_rows * g.out_cols;
  const int64_t block_rows =
      std::min(std::max<int64_t>(1, image_pixels), BackpropBlockRows<T>(g));
  const int64_t workers =
      std::min<int64_t>(g.batch, std::max(1, device.numThreads()));
  Tensor patches;
  TRIB_RETURN_IF_ERROR(
      context->allocate_temp(DataTypeToEnum<T>::value,
                             TensorShape({workers, block_rows * k}), &patches));
  T* patch_base = patches.flat<T>().data();
  using Matrix =
      Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  const Eigen::Map<const Matrix> w_mat(w, k, o);
  std::atomic<int64_t> next_image{0};
  auto work = [&](Eigen::Index worker) {
    T* buffer = patch_base + worker * block_rows * k;
    for (int64_t n = next_image.fetch_add(1); n < g.batch;
         n = next_image.fetch_add(1)) {
      for (int64_t begin = n * image_pixels; begin < (n + 1) * image_pixels;
           begin += block_rows) {
        const int64_t rows =
            std::min(block_rows, (n + 1) * image_pixels - begin);
        const Eigen::Map<const Matrix> dy_mat(dy + begin * o, rows, o);
        Eigen::Map<Matrix> dp(buffer, rows, k);
        dp.noalias() = dy_mat * w_mat.transpose();
        Col2ImRows<T>(g, buffer, begin, begin + rows, dx);
      }
    }
  };
  // One task per worker; images are pulled from a shared counter.
  const Eigen::TensorOpCost worker_cost(1e9, 1e9, 1e9);
  device.parallelFor(workers, worker_cost,
                     [&work](Eigen::Index first, Eigen::Index last) {
                       for (Eigen::Index i = first; i < last; ++i) work(i);
                     });
  return absl::OkStatus();
}

// Input gradient for fewer images than threads: dP for a large chunk of rows
// at once, the GEMM tiled over the whole pool (ParallelMatMul on a
// transposed copy of the small filter), then col2im with one task per image
// of the chunk (images never share input pixels).
template <typename T>
absl::Status BackpropInputChunked(OpKernelContext* context,
                                  const Conv2DGeometry& g, const T* dy,
                                  const T* w, T* dx) {
  const auto& device = context->eigen_cpu_device();
  const int64_t k = g.patch_size();
  const int64_t o = g.out_depth;
  const int64_t m = g.out_pixels();
  const int64_t image_pixels = g.out_rows * g.out_cols;
  const int64_t chunk_rows = std::max<int64_t>(
      1, std::min<int64_t>(
             m, kMaxPatchBytes / std::max<int64_t>(1, k * sizeof(T))));
  Tensor patches, filter_t;
  TRIB_RETURN_IF_ERROR(context->allocate_temp(
      DataTypeToEnum<T>::value, TensorShape({chunk_rows, k}), &patches));
  TRIB_RETURN_IF_ERROR(context->allocate_temp(DataTypeToEnum<T>::value,
                                              TensorShape({o, k}), &filter_t));
  T* dp = patches.flat<T>().data();
  T* wt = filter_t.flat<T>().data();
  using Matrix =
      Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  Eigen::Map<Matrix>(wt, o, k) = Eigen::Map<const Matrix>(w, k, o).transpose();
  for (int64_t begin = 0; begin < m; begin += chunk_rows) {
    const int64_t rows = std::min(chunk_rows, m - begin);
    ParallelMatMul<T>(device, dy + begin * o, o, wt, k, dp, k, rows, o, k);
    // Images (or parts of images) in this chunk: [first_image, last_image].
    const int64_t first_image = begin / image_pixels;
    const int64_t last_image = (begin + rows - 1) / image_pixels;
    const Eigen::TensorOpCost image_cost(image_pixels * k * sizeof(T),
                                         image_pixels * k * sizeof(T),
                                         image_pixels * k);
    device.parallelFor(last_image - first_image + 1, image_cost,
                       [&](Eigen::Index first, Eigen::Index last) {
                         for (Eigen::Index i = first; i < last; ++i) {
                           const int64_t n = first_image + i;
                           const int64_t lo = std::max(begin, n * image_pixels);
                           const int64_t hi =
                               std::min(begin + rows, (n + 1) * image_pixels);
                           Col2ImRows<T>(g, dp + (lo - begin) * k, lo, hi, dx);
                         }
                       });
  }
  return absl::OkStatus();
}

}  // namespace conv_internal

// in_grad [batch, in_rows, in_cols, in_depth] from out_grad and filter. The
// path follows the forward engine's switch (SetConv2DPathForTesting forces
// either): by image when every thread gets an image, chunked otherwise.
template <typename T>
absl::Status LaunchConv2DBackpropInput(OpKernelContext* context,
                                       const Conv2DGeometry& g,
                                       const Tensor& out_grad,
                                       const Tensor& filter, Tensor* in_grad) {
  const T* dy = out_grad.flat<T>().data();
  const T* w = filter.flat<T>().data();
  T* dx = in_grad->flat<T>().data();
  // col2im accumulates, so the gradient starts at zero.
  in_grad->flat<T>().device(context->eigen_cpu_device()) =
      in_grad->flat<T>().constant(T(0));
  Conv2DPath path = conv_internal::forced_path.load(std::memory_order_relaxed);
  if (path == Conv2DPath::kAuto) {
    const int64_t threads =
        std::max(1, context->eigen_cpu_device().numThreads());
    path = g.batch >= threads ? Conv2DPath::kBlocked : Conv2DPath::kChunked;
  }
  if (path == Conv2DPath::kBlocked) {
    return conv_internal::BackpropInputByImage<T>(context, g, dy, w, dx);
  }
  return conv_internal::BackpropInputChunked<T>(context, g, dy, w, dx);
}

// filter_grad [filter_rows, filter_cols, in_depth, out_depth] from input
// and out_grad.
template <typename T>
absl::Status LaunchConv2DBackpropFilter(OpKernelContext* context,
                                        const Conv2DGeometry& g,
                                        const Tensor& input,
                                        const Tensor& out_grad,
                                        Tensor* filter_grad) {
  const auto& device = context->eigen_cpu_device();
  const int64_t k = g.patch_size();
  const int64_t o = g.out_depth;
  const int64_t m = g.out_pixels();
  T* dw = filter_grad->flat<T>().data();
  std::fill(dw, dw + k * o, T(0));
  if (m == 0) return absl::OkStatus();
  const int64_t block_rows =
      std::min(m, conv_internal::BackpropBlockRows<T>(g));
  const int64_t blocks = (m + block_rows - 1) / block_rows;
  const int64_t workers =
      std::min<int64_t>(blocks, std::max(1, device.numThreads()));
  Tensor patches, partials;
  TRIB_RETURN_IF_ERROR(
      context->allocate_temp(DataTypeToEnum<T>::value,
                             TensorShape({workers, block_rows * k}), &patches));
  TRIB_RETURN_IF_ERROR(context->allocate_temp(
      DataTypeToEnum<T>::value, TensorShape({workers, k * o}), &partials));
  const T* in = input.flat<T>().data();
  const T* dy = out_grad.flat<T>().data();
  T* patch_base = patches.flat<T>().data();
  T* partial_base = partials.flat<T>().data();
  using Matrix =
      Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  std::atomic<int64_t> next_block{0};
  auto work = [&](Eigen::Index worker) {
    T* buffer = patch_base + worker * block_rows * k;
    Eigen::Map<Matrix> partial(partial_base + worker * k * o, k, o);
    partial.setZero();
    for (int64_t block = next_block.fetch_add(1); block < blocks;
         block = next_block.fetch_add(1)) {
      const int64_t begin = block * block_rows;
      const int64_t rows = std::min(block_rows, m - begin);
      conv_internal::Im2ColRows<T>(g, in, /*channel_offset=*/0, begin,
                                   begin + rows, buffer);
      const Eigen::Map<const Matrix> p(buffer, rows, k);
      const Eigen::Map<const Matrix> dy_mat(dy + begin * o, rows, o);
      partial.noalias() += p.transpose() * dy_mat;
    }
  };
  const Eigen::TensorOpCost worker_cost(1e9, 1e9, 1e9);
  device.parallelFor(workers, worker_cost,
                     [&work](Eigen::Index first, Eigen::Index last) {
                       for (Eigen::Index i = first; i < last; ++i) work(i);
                     });
  // Workers that found no block left contributed zeros.
  Eigen::Map<Matrix> total(dw, k, o);
  for (int64_t worker = 0; worker < workers; ++worker) {
    total += Eigen::Map<const Matrix>(partial_base + worker * k * o, k, o);
  }
  return absl::OkStatus();
}

}  // namespace nn
}  // namespace tributary

#endif  // TRIBUTARY_KERNELS_NN_CONV2D_BACKPROP_IM2COL_H_
