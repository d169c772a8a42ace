#ifndef TRIBUTARY_KERNELS_NN_CONV2D_IM2COL_H_
#define TRIBUTARY_KERNELS_NN_CONV2D_IM2COL_H_

// The CPU engine behind Conv2D (NHWC input, HWIO filter): im2col + GEMM.
//
// Stock Eigen has no SpatialConvolution (TensorFlow carries its own in
// eigen_spatial_convolutions.h), so the convolution is lowered the classic
// way: each output pixel's receptive field is copied into one row of a
// "patches" matrix [pixels, KH*KW*C] (im2col), and one matrix product with
// the filter viewed as [KH*KW*C, O] gives the output pixels [pixels, O].
// Two ways to schedule it, picked by shape:
//  * blocked (most convolutions): each thread-pool work item takes a block
//    of output pixels, builds just their patches in a buffer that stays in
//    L2 and runs a single-threaded GEMM into its output rows; no large
//    patches matrix ever goes through main memory;
//  * chunked (few output pixels, e.g. 7x7 maps with many channels): too few
//    blocks to occupy the threads, so patches for many rows are built at
//    once (bounded by kMaxPatchBytes) and the product is split into tiles
//    of rows and output channels, one GEMM per thread-pool task.
// All GEMMs are Eigen's single-threaded dense product on strided row-major
// maps (one instantiation per dtype); the thread pool only schedules tiles.
// (Eigen's thread-pool tensor contraction would parallelise one GEMM too,
// but it cost 2.5x the build time for no measurable speed; see README.md.)
// float32 convolutions go to oneDNN first when it is the convolution
// backend (onednn_conv.h); this engine runs what it does not take.
// Two shapes skip im2col altogether, as in TensorFlow: a 1x1 filter with
// unit strides and no padding is already a GEMM over the input, and a
// filter covering the whole unpadded image is a GEMM over flattened images.
//
// Grouped convolution (input depth = groups * filter depth) runs the same
// engine once per group on that group's channels, with the group's filter
// and output columns as strided views (no copies).

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "common/framework/tensor.h"
#include "common/framework/types.h"
#include "common/kernel/op_kernel.h"
#include "kernels/nn/conv_geometry.h"
#include "kernels/nn/onednn_conv.h"
#include "unsupported/Eigen/CXX11/Tensor"

namespace tributary {
namespace nn {

// Which engine path runs; kAuto picks by shape (see LaunchConv2D). Tests
// force each path in turn so both are covered on small shapes.
enum class Conv2DPath { kAuto, kBlocked, kChunked };

namespace conv_internal {

inline std::atomic<Conv2DPath> forced_path{Conv2DPath::kAuto};

// Patch block of one work item in the blocked path: about half a typical
// L2. Blocks shorter than kMinBlockRows make poor GEMMs (Eigen's float
// micro-kernel is 48 rows tall with AVX-512): shapes that would need them to
// keep every thread busy take the chunked path instead.
constexpr int64_t kBlockPatchBytes = 512 << 10;
constexpr int64_t kMinBlockRows = 48;

// Bound on the shared im2col buffer of the chunked path: big enough for the
// few-pixel shapes that take it in one go, small enough to stay out of
// memory trouble on any batch.
constexpr int64_t kMaxPatchBytes = 16 << 20;

// c[M, N] = a[M, K] * b[K, N], single-threaded, on row-major matrices whose
// rows are lda/ldb/ldc elements apart (so a group's or a tile's columns can
// be used in place). Every GEMM in the engine goes through this one Eigen
// instantiation per dtype.
template <typename T>
void MatMul(const T* a, int64_t lda, const T* b, int64_t ldb, T* c, int64_t ldc,
            int64_t m, int64_t k, int64_t n) {
  using Matrix =
      Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  using Strided = Eigen::OuterStride<>;
  const Eigen::Map<const Matrix, 0, Strided> lhs(a, m, k, Strided(lda));
  const Eigen::Map<const Matrix, 0, Strided> rhs(b, k, n, Strided(ldb));
  Eigen::Map<Matrix, 0, Strided> out(c, m, n, Strided(ldc));
  out.noalias() = lhs * rhs;
}

// MatMul on the thread pool: split into tiles of rows, and of columns too
// when there are few rows, one single-threaded GEMM per tile. Tiles keep at
// least kMinBlockRows rows and kMinTileCols columns so each GEMM stays
// efficient.
template <typename T>
void ParallelMatMul(const Eigen::ThreadPoolDevice& device, const T* a,
                    int64_t lda, const T* b, int64_t ldb, T* c, int64_t ldc,
                    int64_t m, int64_t k, int64_t n) {
  constexpr int64_t kMinTileCols = 32;
  const int64_t threads = std::max(1, device.numThreads());
  // Up to 4 row tiles per thread (load balance), none below kMinBlockRows.
  const int64_t row_tiles =
      std::max<int64_t>(1, std::min<int64_t>(4 * threads, m / kMinBlockRows));
  // Columns are split only as far as needed to give every thread a tile.
  const int64_t col_tiles = std::max<int64_t>(
      1, std::min<int64_t>((threads + row_tiles - 1) / row_tiles,
                           n / kMinTileCols));
  const int64_t rows_per_tile = (m + row_tiles - 1) / row_tiles;
  const int64_t cols_per_tile = (n + col_tiles - 1) / col_tiles;
  const int64_t tiles = row_tiles * col_tiles;
  const double tile_flops = 2.0 * rows_per_tile * cols_per_tile * k;
  const Eigen::TensorOpCost cost(
      (rows_per_tile + cols_per_tile) * k * sizeof(T),
      rows_per_tile * cols_per_tile * sizeof(T), tile_flops / 16);
  device.parallelFor(tiles, cost, [&](Eigen::Index first, Eigen::Index last) {
    for (Eigen::Index tile = first; tile < last; ++tile) {
      const int64_t r0 = (tile / col_tiles) * rows_per_tile;
      const int64_t c0 = (tile % col_tiles) * cols_per_tile;
      const int64_t rows = std::min(rows_per_tile, m - r0);
      const int64_t cols = std::min(cols_per_tile, n - c0);
      if (rows <= 0 || cols <= 0) continue;
      MatMul<T>(a + r0 * lda, lda, b + c0, ldb, c + r0 * ldc + c0, ldc, rows, k,
                cols);
    }
  });
}

// Fills rows [row_begin, row_end) of the patches matrix (row = output pixel
// in NHWC order) with the receptive fields over channels
// [channel_offset, channel_offset + g.patch_depth). Out-of-image taps (the
// padding) are zeros.
template <typename T>
void Im2ColRows(const Conv2DGeometry& g, const T* input, int64_t channel_offset,
                int64_t row_begin, int64_t row_end, T* patches) {
  const int64_t depth = g.patch_depth;
  const int64_t patch_size = g.patch_size();
  // With unit column dilation and all channels, the in-image taps of one
  // filter row are contiguous in the input: one memcpy per filter row.
  const bool contiguous_row =
      g.dilation_cols == 1 && depth == g.in_depth && channel_offset == 0;
  for (int64_t row = row_begin; row < row_end; ++row) {
    const int64_t n = row / (g.out_rows * g.out_cols);
    const int64_t pixel = row % (g.out_rows * g.out_cols);
    const int64_t oh = pixel / g.out_cols;
    const int64_t ow = pixel % g.out_cols;
    const int64_t ih0 = oh * g.stride_rows - g.pad_top;
    const int64_t iw0 = ow * g.stride_cols - g.pad_left;
    // Filter columns whose taps land inside the image: [kw_lo, kw_hi).
    int64_t kw_lo = 0;
    if (iw0 < 0) {
      kw_lo = std::min<int64_t>(g.filter_cols,
                                (-iw0 + g.dilation_cols - 1) / g.dilation_cols);
    }
    int64_t kw_hi = g.filter_cols;
    const int64_t last_col_span = g.in_cols - 1 - iw0;  // last tap <= this
    if (last_col_span < 0) {
      kw_hi = 0;
    } else {
      kw_hi =
          std::min<int64_t>(g.filter_cols, last_col_span / g.dilation_cols + 1);
    }
    kw_hi = std::max(kw_hi, kw_lo);

    T* dst = patches + (row - row_begin) * patch_size;
    for (int64_t kh = 0; kh < g.filter_rows; ++kh) {
      const int64_t ih = ih0 + kh * g.dilation_rows;
      T* dst_row = dst + kh * g.filter_cols * depth;
      if (ih < 0 || ih >= g.in_rows) {
        std::fill(dst_row, dst_row + g.filter_cols * depth, T(0));
        continue;
      }
      std::fill(dst_row, dst_row + kw_lo * depth, T(0));
      const T* src_row = input +
                         ((n * g.in_rows + ih) * g.in_cols) * g.in_depth +
                         channel_offset;
      if (contiguous_row) {
        const int64_t iw = iw0 + kw_lo;
        std::memcpy(dst_row + kw_lo * depth, src_row + iw * g.in_depth,
                    (kw_hi - kw_lo) * depth * sizeof(T));
      } else {
        for (int64_t kw = kw_lo; kw < kw_hi; ++kw) {
          const int64_t iw = iw0 + kw * g.dilation_cols;
          std::memcpy(dst_row + kw * depth, src_row + iw * g.in_depth,
                      depth * sizeof(T));
        }
      }
      std::fill(dst_row + kw_hi * depth, dst_row + g.filter_cols * depth, T(0));
    }
  }
}

}  // namespace conv_internal

namespace conv_internal {

// Path 1, for many output pixels: every work item takes a block of output
// pixels, builds their patches in its worker's own small buffer (sized to
// stay in the core's L2, where the GEMM's packing reads it right back) and
// runs a single-threaded Eigen GEMM straight into its rows of the output.
// Blocks are independent, so all threads stay busy and the patches never
// travel through main memory. One task per thread pulls blocks from a shared
// counter, which balances uneven blocks (padding rows are cheaper) without
// per-block scheduling. Grouped filters/outputs are strided views, so groups
// need no copies either.
template <typename T>
absl::Status BlockedIm2ColGemm(OpKernelContext* context,
                               const Conv2DGeometry& g, const T* in,
                               const T* filt, T* out, int64_t block_rows) {
  const auto& device = context->eigen_cpu_device();
  const int64_t m = g.out_pixels();
  const int64_t k = g.patch_size();
  const int64_t groups = g.groups();
  const int64_t group_out = g.out_depth / groups;
  const int64_t blocks = (m + block_rows - 1) / block_rows;
  const int64_t workers =
      std::min<int64_t>(blocks, std::max(1, device.numThreads()));
  // Per-worker patch buffers from the device's (accounted) allocator.
  Tensor patches;
  TRIB_RETURN_IF_ERROR(
      context->allocate_temp(DataTypeToEnum<T>::value,
                             TensorShape({workers, block_rows * k}), &patches));
  T* patch_base = patches.flat<T>().data();
  std::atomic<int64_t> next_block{0};
  auto work = [&](Eigen::Index worker) {
    T* buffer = patch_base + worker * block_rows * k;
    for (int64_t block = next_block.fetch_add(1); block < blocks;
         block = next_block.fetch_add(1)) {
      const int64_t begin = block * block_rows;
      const int64_t rows = std::min(block_rows, m - begin);
      for (int64_t group = 0; group < groups; ++group) {
        Im2ColRows<T>(g, in, group * g.patch_depth, begin, begin + rows,
                      buffer);
        MatMul<T>(buffer, k, filt + group * group_out, g.out_depth,
                  out + begin * g.out_depth + group * group_out, g.out_depth,
                  rows, k, group_out);
      }
    }
  };
  // A cost far above parallelFor's sharding threshold: one task per worker.
  const Eigen::TensorOpCost worker_cost(1e9, 1e9, 1e9);
  device.parallelFor(workers, worker_cost,
                     [&work](Eigen::Index first, Eigen::Index last) {
                       for (Eigen::Index w = first; w < last; ++w) work(w);
                     });
  return absl::OkStatus();
}

// Path 2, for few output pixels (small images, big channel counts): too few
// row blocks to occupy the threads, so build the patches of a large chunk
// of rows at once and let ParallelMatMul split the product by columns too.
template <typename T>
absl::Status ChunkedIm2ColGemm(OpKernelContext* context,
                               const Conv2DGeometry& g, const T* in,
                               const T* filt, T* out) {
  const auto& device = context->eigen_cpu_device();
  const int64_t m = g.out_pixels();
  const int64_t k = g.patch_size();
  const int64_t groups = g.groups();
  const int64_t group_out = g.out_depth / groups;
  const int64_t chunk_rows = std::max<int64_t>(
      1, std::min<int64_t>(
             m, kMaxPatchBytes / std::max<int64_t>(1, k * sizeof(T))));
  Tensor patches;
  TRIB_RETURN_IF_ERROR(context->allocate_temp(
      DataTypeToEnum<T>::value, TensorShape({chunk_rows, k}), &patches));
  T* patch_data = patches.flat<T>().data();
  const Eigen::TensorOpCost im2col_cost(k * sizeof(T), k * sizeof(T), k);
  for (int64_t group = 0; group < groups; ++group) {
    for (int64_t begin = 0; begin < m; begin += chunk_rows) {
      const int64_t rows = std::min(chunk_rows, m - begin);
      device.parallelFor(
          rows, im2col_cost, [&](Eigen::Index first, Eigen::Index last) {
            Im2ColRows<T>(g, in, group * g.patch_depth, begin + first,
                          begin + last, patch_data + first * k);
          });
      ParallelMatMul<T>(device, patch_data, k, filt + group * group_out,
                        g.out_depth,
                        out + begin * g.out_depth + group * group_out,
                        g.out_depth, rows, k, group_out);
    }
  }
  return absl::OkStatus();
}

}  // namespace conv_internal

// Process-wide; for tests only.
inline void SetConv2DPathForTesting(Conv2DPath path) {
  conv_internal::forced_path.store(path, std::memory_order_relaxed);
}

// output [batch, out_rows, out_cols, out_depth] = conv(input, filter).
// All shapes already validated; output allocated and non-empty.
// `weights_cache`: the calling kernel's, so oneDNN can keep a constant
// filter's reordered copy between steps (may be null).
template <typename T>
absl::Status LaunchConv2D(OpKernelContext* context, const Conv2DGeometry& g,
                          const Tensor& input, const Tensor& filter,
                          Tensor* output,
                          OneDnnWeightsCache* weights_cache = nullptr) {
  using conv_internal::ParallelMatMul;
  const auto& device = context->eigen_cpu_device();
  const T* in = input.flat<T>().data();
  const T* filt = filter.flat<T>().data();
  T* out = output->flat<T>().data();
  const bool no_padding = g.pad_top == 0 && g.pad_left == 0 &&
                          g.pad_bottom == 0 && g.pad_right == 0;
  Conv2DPath path = conv_internal::forced_path.load(std::memory_order_relaxed);

  // float32 goes to oneDNN when it is the backend (onednn_conv.h), unless a
  // test forces one of the engine's own paths.
  if constexpr (std::is_same_v<T, float>) {
    if (path == Conv2DPath::kAuto && OneDnnConvEnabled() &&
        OneDnnConv2D(g, in, filt, out, device.numThreads(), weights_cache)) {
      return absl::OkStatus();
    }
  }

  if (g.groups() == 1) {
    if (g.filter_rows == 1 && g.filter_cols == 1 && g.stride_rows == 1 &&
        g.stride_cols == 1 && no_padding) {
      // 1x1: every input pixel is its own receptive field.
      ParallelMatMul<T>(device, in, g.in_depth, filt, g.out_depth, out,
                        g.out_depth, g.out_pixels(), g.in_depth, g.out_depth);
      return absl::OkStatus();
    }
    if (g.filter_rows == g.in_rows && g.filter_cols == g.in_cols &&
        g.dilation_rows == 1 && g.dilation_cols == 1 && no_padding) {
      // The filter covers each whole image: one receptive field per image.
      ParallelMatMul<T>(device, in, g.patch_size(), filt, g.out_depth, out,
                        g.out_depth, g.batch, g.patch_size(), g.out_depth);
      return absl::OkStatus();
    }
  }

  // Blocks as large as kBlockPatchBytes allows, but small enough that there
  // are a few per thread, and never below kMinBlockRows. Measured on 16
  // threads (README.md): blocked wins by up to 1.5x wherever it has a block
  // per thread; chunked wins 7x on 7x7x512-like layers, where it does not.
  const int64_t m = g.out_pixels();
  const int64_t threads = std::max(1, device.numThreads());
  const int64_t bytes_rows = conv_internal::kBlockPatchBytes /
                             std::max<int64_t>(1, g.patch_size() * sizeof(T));
  const int64_t parallel_rows = (m + 4 * threads - 1) / (4 * threads);
  const int64_t block_rows = std::max(conv_internal::kMinBlockRows,
                                      std::min(bytes_rows, parallel_rows));
  const int64_t blocks = (m + block_rows - 1) / block_rows;
  if (path == Conv2DPath::kAuto) {
    path = blocks >= threads ? Conv2DPath::kBlocked : Conv2DPath::kChunked;
  }
  if (path == Conv2DPath::kBlocked) {
    return conv_internal::BlockedIm2ColGemm<T>(context, g, in, filt, out,
                                               block_rows);
  }
  return conv_internal::ChunkedIm2ColGemm<T>(context, g, in, filt, out);
}

}  // namespace nn
}  // namespace tributary

#endif  // TRIBUTARY_KERNELS_NN_CONV2D_IM2COL_H_
