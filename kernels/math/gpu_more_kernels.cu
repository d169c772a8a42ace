// CUDA kernels for the GPU ops of gpu_more_ops.cc: Cast, Fill / ZerosLike /
// OnesLike, Transpose, the reductions (Sum, Mean, Max, Min, Prod), ArgMax /
// ArgMin, Softmax / LogSoftmax and the two softmax cross entropies.
// Compiled by nvcc into a fatbin (cuda_fatbin in BUILD.bazel) and launched
// by name through the driver API, hence extern "C" and plain parameters.
//
// Contract with the host code (counts are int64_t, pointers device memory;
// suffixes: _f16 half, _f32 float, _f64 double; _u16/_u32/_u64 move
// elements of that width as bits, whatever their dtype):
//
//  Grid-stride kernels (any one-dimensional grid is correct):
//   cast_<s>_to_<d>(const S* x, D* y, int64_t n)   s, d in f16 f32 f64
//   fill_from_<u>(const U* value, U* out, int64_t n)   out[i] = value[0]
//   set_<u>(U bits, U* out, int64_t n)                 out[i] = bits
//   transpose_<u>(const U* in, U* out, int64_t n, GpuTransposeGeometry g)
//   reduce_<op>_thread_<t>(const T* in, T* out, int64_t n_out,
//                          GpuReduceGeometry g, int64_t count)
//       op in sum mean max min prod, t in f32 f64; one thread per output
//       element, looping over its `count` reduced elements.
//   argmax_<t>(const T* in, int64_t* out, int64_t n_out, int64_t axis_size,
//              int64_t inner)   and argmin_<t>: input viewed as
//       [n_out / inner, axis_size, inner]; the first best index wins.
//
//  Block kernels (blockDim.x a power of two <= kBlockThreads; blocks
//  stride over the rows / outputs, so any grid is correct):
//   reduce_<op>_block_<t>(same parameters as the thread variant)
//       one block per output element.
//   softmax_<t>(const T* in, T* out, int64_t rows, int64_t classes)
//   log_softmax_<t>(same)   one block per row of the last dimension.
//   xent_<t>(const T* logits, const T* labels, T* loss, T* backprop,
//            int64_t rows, int64_t classes, int64_t logits_row_stride,
//            int64_t logits_col_stride, int64_t labels_row_stride,
//            int64_t labels_col_stride)
//       strides in elements (0 on a broadcast dimension).
//   sparse_xent_<t>(const T* logits, const int64_t* labels, T* loss,
//                   T* backprop, int64_t rows, int64_t classes)
//       a label outside [0, classes) makes its row's loss and backprop
//       NaN (TensorFlow's GPU kernel does the same: the CPU kernel's
//       InvalidArgument would need the labels on the host).
//
// Results follow the CPU kernels of this repository: Max/Min propagate NaN
// (Eigen's PropagateNaN reducers), Mean is the sum divided by the count in
// T, Cast double -> half rounds through float as Eigen::half does, softmax
// subtracts the row maximum first. Sums are accumulated in T, as on the CPU,
// but in another order, so they agree to rounding only.

#include <cuda_fp16.h>

#include <cstdint>

#include "kernels/math/gpu_more_geometry.h"

using tributary::GpuReduceGeometry;
using tributary::GpuTransposeGeometry;

namespace {

constexpr int kBlockThreads = 256;

__device__ __forceinline__ int64_t FirstIndex() {
  return static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
}
__device__ __forceinline__ int64_t GridStride() {
  return static_cast<int64_t>(blockDim.x) * gridDim.x;
}

// ---- Math in T's precision ------------------------------------------------

__device__ __forceinline__ float Exp(float x) { return expf(x); }
__device__ __forceinline__ double Exp(double x) { return exp(x); }
__device__ __forceinline__ float Log(float x) { return logf(x); }
__device__ __forceinline__ double Log(double x) { return log(x); }
__device__ __forceinline__ bool IsNan(float x) { return isnan(x); }
__device__ __forceinline__ bool IsNan(double x) { return isnan(x); }

template <typename T>
__device__ T Infinity();
template <>
__device__ __forceinline__ float Infinity<float>() {
  return __int_as_float(0x7f800000);
}
template <>
__device__ __forceinline__ double Infinity<double>() {
  return __longlong_as_double(0x7ff0000000000000LL);
}
template <typename T>
__device__ T QuietNan();
template <>
__device__ __forceinline__ float QuietNan<float>() {
  return __int_as_float(0x7fc00000);
}
template <>
__device__ __forceinline__ double QuietNan<double>() {
  return __longlong_as_double(0x7ff8000000000000LL);
}

// ---- Cast -----------------------------------------------------------------

// Conversions as the CPU's static_cast / Eigen::half: round to nearest even;
// double -> half goes through float because Eigen::half(double) does.
template <typename D>
struct Convert;
template <>
struct Convert<float> {
  __device__ static float From(float x) { return x; }
  __device__ static float From(double x) { return static_cast<float>(x); }
  __device__ static float From(__half x) { return __half2float(x); }
};
template <>
struct Convert<double> {
  __device__ static double From(float x) { return x; }
  __device__ static double From(double x) { return x; }
  __device__ static double From(__half x) { return __half2float(x); }
};
template <>
struct Convert<__half> {
  __device__ static __half From(float x) { return __float2half_rn(x); }
  __device__ static __half From(double x) {
    return __float2half_rn(static_cast<float>(x));
  }
  __device__ static __half From(__half x) { return x; }
};

template <typename S, typename D>
__device__ void CastLoop(const S* x, D* y, int64_t n) {
  for (int64_t i = FirstIndex(); i < n; i += GridStride()) {
    y[i] = Convert<D>::From(x[i]);
  }
}

// ---- Fill and Transpose (bit movement) -------------------------------------

template <typename U>
__device__ void FillFromLoop(const U* value, U* out, int64_t n) {
  const U v = value[0];
  for (int64_t i = FirstIndex(); i < n; i += GridStride()) out[i] = v;
}

template <typename U>
__device__ void SetLoop(U bits, U* out, int64_t n) {
  for (int64_t i = FirstIndex(); i < n; i += GridStride()) out[i] = bits;
}

template <typename U>
__device__ void TransposeLoop(const U* in, U* out, int64_t n,
                              const GpuTransposeGeometry& g) {
  const int rank = static_cast<int>(g.rank);
  for (int64_t i = FirstIndex(); i < n; i += GridStride()) {
    // Peel the row-major output coordinates off from the last dimension.
    int64_t rest = i;
    int64_t offset = 0;
    for (int d = rank - 1; d >= 0; --d) {
      const int64_t dim = g.out_dims[d];
      const int64_t next = rest / dim;
      offset += (rest - next * dim) * g.in_strides[d];
      rest = next;
    }
    out[i] = in[offset];
  }
}

// ---- Reductions -------------------------------------------------------------

// Reducer: Identity (the value of an empty reduction), Combine, Finalize
// (applied once to the result; Mean divides by the count).
struct SumR {
  template <typename T>
  __device__ static T Identity() {
    return T(0);
  }
  template <typename T>
  __device__ static T Combine(T a, T b) {
    return a + b;
  }
  template <typename T>
  __device__ static T Finalize(T acc, int64_t) {
    return acc;
  }
};
struct MeanR : SumR {
  template <typename T>
  __device__ static T Finalize(T acc, int64_t count) {
    return acc / static_cast<T>(count);
  }
};
struct ProdR {
  template <typename T>
  __device__ static T Identity() {
    return T(1);
  }
  template <typename T>
  __device__ static T Combine(T a, T b) {
    return a * b;
  }
  template <typename T>
  __device__ static T Finalize(T acc, int64_t) {
    return acc;
  }
};
// Eigen's MaxReducer<T, PropagateNaN>: a NaN anywhere makes the result NaN.
struct MaxR {
  template <typename T>
  __device__ static T Identity() {
    return -Infinity<T>();
  }
  template <typename T>
  __device__ static T Combine(T a, T b) {
    if (IsNan(a)) return a;
    if (IsNan(b)) return b;
    return a < b ? b : a;
  }
  template <typename T>
  __device__ static T Finalize(T acc, int64_t) {
    return acc;
  }
};
struct MinR {
  template <typename T>
  __device__ static T Identity() {
    return Infinity<T>();
  }
  template <typename T>
  __device__ static T Combine(T a, T b) {
    if (IsNan(a)) return a;
    if (IsNan(b)) return b;
    return b < a ? b : a;
  }
  template <typename T>
  __device__ static T Finalize(T acc, int64_t) {
    return acc;
  }
};

// Row-major coordinates of `index` over dims[0..rank) dotted with strides.
__device__ __forceinline__ int64_t StridedOffset(int64_t index, int64_t rank,
                                                 const int64_t* dims,
                                                 const int64_t* strides) {
  int64_t offset = 0;
  for (int64_t d = rank - 1; d >= 0; --d) {
    const int64_t next = index / dims[d];
    offset += (index - next * dims[d]) * strides[d];
    index = next;
  }
  return offset;
}

template <typename T, typename R>
__device__ void ReduceThreadLoop(const T* in, T* out, int64_t n_out,
                                 const GpuReduceGeometry& g, int64_t count) {
  for (int64_t o = FirstIndex(); o < n_out; o += GridStride()) {
    const T* base =
        in + StridedOffset(o, g.kept_rank, g.kept_dims, g.kept_strides);
    T acc = R::template Identity<T>();
    for (int64_t k = 0; k < count; ++k) {
      const int64_t off =
          StridedOffset(k, g.reduced_rank, g.reduced_dims, g.reduced_strides);
      acc = R::Combine(acc, base[off]);
    }
    out[o] = R::Finalize(acc, count);
  }
}

// Combines every thread's `v` with R; all threads get the result. Every
// thread of the block must call it (it synchronizes).
template <typename T, typename R>
__device__ T BlockReduce(T v, T* scratch) {
  scratch[threadIdx.x] = v;
  __syncthreads();
  for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) {
      scratch[threadIdx.x] =
          R::Combine(scratch[threadIdx.x], scratch[threadIdx.x + s]);
    }
    __syncthreads();
  }
  const T result = scratch[0];
  __syncthreads();  // scratch[0] is read before the next call writes
  return result;
}

// Blocks stride over the outputs; every thread of a block takes the same
// outputs, so the synchronization in BlockReduce is uniform.
template <typename T, typename R>
__device__ void ReduceBlockLoop(const T* in, T* out, int64_t n_out,
                                const GpuReduceGeometry& g, int64_t count) {
  __shared__ T scratch[kBlockThreads];
  for (int64_t o = blockIdx.x; o < n_out; o += gridDim.x) {
    const T* base =
        in + StridedOffset(o, g.kept_rank, g.kept_dims, g.kept_strides);
    T acc = R::template Identity<T>();
    for (int64_t k = threadIdx.x; k < count; k += blockDim.x) {
      const int64_t off =
          StridedOffset(k, g.reduced_rank, g.reduced_dims, g.reduced_strides);
      acc = R::Combine(acc, base[off]);
    }
    acc = BlockReduce<T, R>(acc, scratch);
    if (threadIdx.x == 0) out[o] = R::Finalize(acc, count);
  }
}

// ---- ArgMax / ArgMin --------------------------------------------------------

struct Greater {
  template <typename T>
  __device__ bool operator()(T a, T b) const {
    return a > b;
  }
};
struct Less {
  template <typename T>
  __device__ bool operator()(T a, T b) const {
    return a < b;
  }
};

// The CPU kernel's loop (argminmax.cc), one thread per output element: a
// NaN is never better, so it wins only at index 0.
template <typename T, typename Better>
__device__ void ArgLoop(const T* in, int64_t* out, int64_t n_out,
                        int64_t axis_size, int64_t inner) {
  const Better better;
  for (int64_t idx = FirstIndex(); idx < n_out; idx += GridStride()) {
    const int64_t a = idx / inner;
    const int64_t b = idx - a * inner;
    const T* p = in + a * axis_size * inner + b;
    int64_t best = 0;
    T best_value = p[0];
    for (int64_t k = 1; k < axis_size; ++k) {
      const T v = p[k * inner];
      if (better(v, best_value)) {
        best = k;
        best_value = v;
      }
    }
    out[idx] = best;
  }
}

// ---- Softmax and cross entropy -------------------------------------------

// Plain max for the shift (Eigen's maxCoeff): a NaN in a row makes the
// whole row NaN either way, through the sum of exponentials.
struct RowMaxR {
  template <typename T>
  __device__ static T Combine(T a, T b) {
    return a < b ? b : a;
  }
};
struct AddR {
  template <typename T>
  __device__ static T Combine(T a, T b) {
    return a + b;
  }
};

// The maximum of a row of `classes` elements `x[k * stride]`, over the
// block. classes > 0.
template <typename T>
__device__ T BlockRowMax(const T* x, int64_t classes, int64_t stride,
                         T* scratch) {
  T m = -Infinity<T>();
  for (int64_t k = threadIdx.x; k < classes; k += blockDim.x) {
    m = RowMaxR::Combine(m, x[k * stride]);
  }
  return BlockReduce<T, RowMaxR>(m, scratch);
}

// sum_k exp(x[k * stride] - max), over the block.
template <typename T>
__device__ T BlockRowSumExp(const T* x, int64_t classes, int64_t stride, T max,
                            T* scratch) {
  T s = T(0);
  for (int64_t k = threadIdx.x; k < classes; k += blockDim.x) {
    s += Exp(x[k * stride] - max);
  }
  return BlockReduce<T, AddR>(s, scratch);
}

// softmax    = exp(x - max) * (1 / sum(exp(x - max)))
// logsoftmax = (x - max) - log(sum(exp(x - max)))
template <typename T, bool kLog>
__device__ void SoftmaxRows(const T* in, T* out, int64_t rows,
                            int64_t classes) {
  __shared__ T scratch[kBlockThreads];
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const T* x = in + r * classes;
    T* y = out + r * classes;
    const T max = BlockRowMax(x, classes, 1, scratch);
    const T sum = BlockRowSumExp(x, classes, 1, max, scratch);
    if (kLog) {
      const T log_sum = Log(sum);
      for (int64_t k = threadIdx.x; k < classes; k += blockDim.x) {
        y[k] = (x[k] - max) - log_sum;
      }
    } else {
      const T inv = T(1) / sum;
      for (int64_t k = threadIdx.x; k < classes; k += blockDim.x) {
        y[k] = Exp(x[k] - max) * inv;
      }
    }
  }
}

// Per row, with s = logits - max and Z = sum(exp(s)) (xent_op.cc):
//   loss = sum_j labels_j * (log Z - s_j), backprop = exp(s) / Z - labels.
template <typename T>
__device__ void XentRows(const T* logits, const T* labels, T* loss, T* backprop,
                         int64_t rows, int64_t classes, int64_t x_row_stride,
                         int64_t x_col_stride, int64_t y_row_stride,
                         int64_t y_col_stride) {
  __shared__ T scratch[kBlockThreads];
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const T* x = logits + r * x_row_stride;
    const T* y = labels + r * y_row_stride;
    T* b = backprop + r * classes;
    const T max = BlockRowMax(x, classes, x_col_stride, scratch);
    const T sum = BlockRowSumExp(x, classes, x_col_stride, max, scratch);
    const T log_sum = Log(sum);
    T partial = T(0);
    for (int64_t k = threadIdx.x; k < classes; k += blockDim.x) {
      const T s = x[k * x_col_stride] - max;
      const T label = y[k * y_col_stride];
      partial += label * (log_sum - s);
      b[k] = Exp(s) / sum - label;
    }
    const T total = BlockReduce<T, AddR>(partial, scratch);
    if (threadIdx.x == 0) loss[r] = total;
  }
}

// Sparse labels: loss = log Z - s_label, backprop = exp(s) / Z - onehot.
template <typename T>
__device__ void SparseXentRows(const T* logits, const int64_t* labels, T* loss,
                               T* backprop, int64_t rows, int64_t classes) {
  __shared__ T scratch[kBlockThreads];
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const T* x = logits + r * classes;
    T* b = backprop + r * classes;
    const int64_t label = labels[r];
    // Every thread of the block reads the same label: the branch is
    // uniform, so skipping the reductions is safe.
    if (label < 0 || label >= classes) {
      for (int64_t k = threadIdx.x; k < classes; k += blockDim.x) {
        b[k] = QuietNan<T>();
      }
      if (threadIdx.x == 0) loss[r] = QuietNan<T>();
      continue;
    }
    const T max = BlockRowMax(x, classes, 1, scratch);
    const T sum = BlockRowSumExp(x, classes, 1, max, scratch);
    for (int64_t k = threadIdx.x; k < classes; k += blockDim.x) {
      const T p = Exp(x[k] - max) / sum;
      b[k] = k == label ? p - T(1) : p;
    }
    if (threadIdx.x == 0) loss[r] = Log(sum) - (x[label] - max);
  }
}

}  // namespace

// ---- Entry points ---------------------------------------------------------

#define TRIB_CAST_KERNEL(S, SS, D, DS)                             \
  extern "C" __global__ void cast_##SS##_to_##DS(const S* x, D* y, \
                                                 int64_t n) {      \
    CastLoop<S, D>(x, y, n);                                       \
  }
TRIB_CAST_KERNEL(float, f32, double, f64)
TRIB_CAST_KERNEL(float, f32, __half, f16)
TRIB_CAST_KERNEL(double, f64, float, f32)
TRIB_CAST_KERNEL(double, f64, __half, f16)
TRIB_CAST_KERNEL(__half, f16, float, f32)
TRIB_CAST_KERNEL(__half, f16, double, f64)

#define TRIB_MOVE_KERNELS(U, US)                                             \
  extern "C" __global__ void fill_from_##US(const U* value, U* out,          \
                                            int64_t n) {                     \
    FillFromLoop<U>(value, out, n);                                          \
  }                                                                          \
  extern "C" __global__ void set_##US(U bits, U* out, int64_t n) {           \
    SetLoop<U>(bits, out, n);                                                \
  }                                                                          \
  extern "C" __global__ void transpose_##US(const U* in, U* out, int64_t n,  \
                                            GpuTransposeGeometry geometry) { \
    TransposeLoop<U>(in, out, n, geometry);                                  \
  }
TRIB_MOVE_KERNELS(uint16_t, u16)
TRIB_MOVE_KERNELS(uint32_t, u32)
TRIB_MOVE_KERNELS(uint64_t, u64)

#define TRIB_REDUCE_KERNELS(NAME, R, T, SUFFIX)                       \
  extern "C" __global__ void reduce_##NAME##_thread_##SUFFIX(         \
      const T* in, T* out, int64_t n_out, GpuReduceGeometry geometry, \
      int64_t count) {                                                \
    ReduceThreadLoop<T, R>(in, out, n_out, geometry, count);          \
  }                                                                   \
  extern "C" __global__ void reduce_##NAME##_block_##SUFFIX(          \
      const T* in, T* out, int64_t n_out, GpuReduceGeometry geometry, \
      int64_t count) {                                                \
    ReduceBlockLoop<T, R>(in, out, n_out, geometry, count);           \
  }
#define TRIB_REDUCE(NAME, R)               \
  TRIB_REDUCE_KERNELS(NAME, R, float, f32) \
  TRIB_REDUCE_KERNELS(NAME, R, double, f64)
TRIB_REDUCE(sum, SumR)
TRIB_REDUCE(mean, MeanR)
TRIB_REDUCE(prod, ProdR)
TRIB_REDUCE(max, MaxR)
TRIB_REDUCE(min, MinR)

#define TRIB_ROW_KERNELS(T, SUFFIX)                                            \
  extern "C" __global__ void argmax_##SUFFIX(const T* in, int64_t* out,        \
                                             int64_t n_out, int64_t axis_size, \
                                             int64_t inner) {                  \
    ArgLoop<T, Greater>(in, out, n_out, axis_size, inner);                     \
  }                                                                            \
  extern "C" __global__ void argmin_##SUFFIX(const T* in, int64_t* out,        \
                                             int64_t n_out, int64_t axis_size, \
                                             int64_t inner) {                  \
    ArgLoop<T, Less>(in, out, n_out, axis_size, inner);                        \
  }                                                                            \
  extern "C" __global__ void softmax_##SUFFIX(const T* in, T* out,             \
                                              int64_t rows, int64_t classes) { \
    SoftmaxRows<T, false>(in, out, rows, classes);                             \
  }                                                                            \
  extern "C" __global__ void log_softmax_##SUFFIX(                             \
      const T* in, T* out, int64_t rows, int64_t classes) {                    \
    SoftmaxRows<T, true>(in, out, rows, classes);                              \
  }                                                                            \
  extern "C" __global__ void xent_##SUFFIX(                                    \
      const T* logits, const T* labels, T* loss, T* backprop, int64_t rows,    \
      int64_t classes, int64_t logits_row_stride, int64_t logits_col_stride,   \
      int64_t labels_row_stride, int64_t labels_col_stride) {                  \
    XentRows<T>(logits, labels, loss, backprop, rows, classes,                 \
                logits_row_stride, logits_col_stride, labels_row_stride,       \
                labels_col_stride);                                            \
  }                                                                            \
  extern "C" __global__ void sparse_xent_##SUFFIX(                             \
      const T* logits, const int64_t* labels, T* loss, T* backprop,            \
      int64_t rows, int64_t classes) {                                         \
    SparseXentRows<T>(logits, labels, loss, backprop, rows, classes);          \
  }
TRIB_ROW_KERNELS(float, f32)
TRIB_ROW_KERNELS(double, f64)
