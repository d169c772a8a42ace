// CUDA kernels for the elementwise ops that cwise_ops_gpu.cc registers on
// GPU, for float (suffix _f32) and double (_f64). Compiled by nvcc into a
// fatbin (cuda_fatbin in BUILD.bazel) and launched by name through the
// driver API, hence extern "C" and plain parameters only.
//
// Contract with the host code (every count is an int64_t element count,
// every pointer device memory; all kernels use grid-stride loops, so any
// one-dimensional grid is correct):
//   <unary>_<t>(const T* x, T* y, int64_t n)
//       neg abs square sqrt rsqrt reciprocal exp log tanh sigmoid relu relu6
//   <binary>_<t>(const T* a, const T* b, T* out, int64_t n)
//       equal element counts, no broadcasting: add sub mul div maximum
//       minimum squared_difference and the gradients relu_grad(g, features)
//       relu6_grad(g, features) tanh_grad(y, dy) sigmoid_grad(y, dy)
//   <binary>_bcast_<t>(const T* x, const T* y, T* out, int64_t n,
//                      CwiseGpuBroadcast geometry)
//       the same arithmetic binaries with broadcasting
//   bias_add_<t>(const T* x, const T* bias, T* out, int64_t n,
//                int64_t channels, int64_t inner)
//       x viewed as [outer, channels, inner] (inner = 1 for NHWC)
//   bias_add_grad_<t>(const T* in, T* out, int64_t outer, int64_t channels,
//                     int64_t inner)
//       out[c] = sum of `in` over outer and inner; blockDim.x must be a
//       power of two <= kReduceThreads; blocks stride over channels.
//
// Results follow the CPU kernels of this repository (Eigen), which follow
// TensorFlow: Maximum/Minimum propagate NaN; Relu/Relu6 keep NaN; the Relu
// gradients multiply by a 0/1 mask so a NaN gradient stays NaN; float
// Sigmoid returns exp(x) below -9 as Eigen does. Gradient formulas use the
// _rn intrinsics so nvcc cannot fuse them into FMAs: the written order of
// roundings is the one TensorFlow documents.

#include <cstdint>

#include "kernels/math/cwise_gpu_broadcast.h"

using tributary::CwiseGpuBroadcast;

namespace {

constexpr int kReduceThreads = 256;

__device__ __forceinline__ int64_t FirstIndex() {
  return static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
}
__device__ __forceinline__ int64_t GridStride() {
  return static_cast<int64_t>(blockDim.x) * gridDim.x;
}

// ---- Math in T's precision (no implicit float -> double promotion) --------

__device__ __forceinline__ float Sqrt(float x) { return sqrtf(x); }
__device__ __forceinline__ double Sqrt(double x) { return sqrt(x); }
__device__ __forceinline__ float Exp(float x) { return expf(x); }
__device__ __forceinline__ double Exp(double x) { return exp(x); }
__device__ __forceinline__ float Log(float x) { return logf(x); }
__device__ __forceinline__ double Log(double x) { return log(x); }
__device__ __forceinline__ float Tanh(float x) { return tanhf(x); }
__device__ __forceinline__ double Tanh(double x) { return tanh(x); }
__device__ __forceinline__ float Abs(float x) { return fabsf(x); }
__device__ __forceinline__ double Abs(double x) { return fabs(x); }
__device__ __forceinline__ bool IsNan(float x) { return isnan(x); }
__device__ __forceinline__ bool IsNan(double x) { return isnan(x); }
// Products and differences that are never contracted into an FMA.
__device__ __forceinline__ float MulRn(float a, float b) {
  return __fmul_rn(a, b);
}
__device__ __forceinline__ double MulRn(double a, double b) {
  return __dmul_rn(a, b);
}
__device__ __forceinline__ float SubRn(float a, float b) {
  return __fsub_rn(a, b);
}
__device__ __forceinline__ double SubRn(double a, double b) {
  return __dsub_rn(a, b);
}

// Eigen's float logistic switches to exp(x) below -9 (more accurate there,
// and nonzero where 1 + exp(-x) overflows); its double one is the formula.
__device__ __forceinline__ float Sigmoid(float x) {
  if (x < -9.0f) return expf(x);
  return 1.0f / (1.0f + expf(-x));
}
__device__ __forceinline__ double Sigmoid(double x) {
  return 1.0 / (1.0 + exp(-x));
}

// ---- Element functors -------------------------------------------------------

struct NegF {
  template <typename T>
  __device__ T operator()(T x) const {
    return -x;
  }
};
struct AbsF {
  template <typename T>
  __device__ T operator()(T x) const {
    return Abs(x);
  }
};
struct SquareF {
  template <typename T>
  __device__ T operator()(T x) const {
    return x * x;
  }
};
struct SqrtF {
  template <typename T>
  __device__ T operator()(T x) const {
    return Sqrt(x);
  }
};
// 1 / sqrt(x), both correctly rounded (Eigen's scalar rsqrt), not the
// approximate rsqrt instruction.
struct RsqrtF {
  template <typename T>
  __device__ T operator()(T x) const {
    return T(1) / Sqrt(x);
  }
};
struct ReciprocalF {
  template <typename T>
  __device__ T operator()(T x) const {
    return T(1) / x;
  }
};
struct ExpF {
  template <typename T>
  __device__ T operator()(T x) const {
    return Exp(x);
  }
};
struct LogF {
  template <typename T>
  __device__ T operator()(T x) const {
    return Log(x);
  }
};
struct TanhF {
  template <typename T>
  __device__ T operator()(T x) const {
    return Tanh(x);
  }
};
struct SigmoidF {
  template <typename T>
  __device__ T operator()(T x) const {
    return Sigmoid(x);
  }
};
// std::max(x, 0) as the CPU's cwiseMax: NaN and -0 come back unchanged.
struct ReluF {
  template <typename T>
  __device__ T operator()(T x) const {
    return x < T(0) ? T(0) : x;
  }
};
// std::min(std::max(x, 0), 6), NaN kept.
struct Relu6F {
  template <typename T>
  __device__ T operator()(T x) const {
    const T r = x < T(0) ? T(0) : x;
    return T(6) < r ? T(6) : r;
  }
};

struct AddF {
  template <typename T>
  __device__ T operator()(T a, T b) const {
    return a + b;
  }
};
struct SubF {
  template <typename T>
  __device__ T operator()(T a, T b) const {
    return a - b;
  }
};
struct MulF {
  template <typename T>
  __device__ T operator()(T a, T b) const {
    return a * b;
  }
};
struct DivF {
  template <typename T>
  __device__ T operator()(T a, T b) const {
    return a / b;
  }
};
// Eigen's PropagateNaN: a if a is NaN, else b if b is NaN, else
// std::max / std::min (ties, e.g. -0 vs +0, return a).
struct MaximumF {
  template <typename T>
  __device__ T operator()(T a, T b) const {
    if (IsNan(a)) return a;
    if (IsNan(b)) return b;
    return a < b ? b : a;
  }
};
struct MinimumF {
  template <typename T>
  __device__ T operator()(T a, T b) const {
    if (IsNan(a)) return a;
    if (IsNan(b)) return b;
    return b < a ? b : a;
  }
};
struct SquaredDifferenceF {
  template <typename T>
  __device__ T operator()(T a, T b) const {
    const T d = a - b;
    return d * d;
  }
};

// (gradients, features) -> gradients * mask(features).
struct ReluGradF {
  template <typename T>
  __device__ T operator()(T g, T f) const {
    return g * (f > T(0) ? T(1) : T(0));
  }
};
struct Relu6GradF {
  template <typename T>
  __device__ T operator()(T g, T f) const {
    return g * ((f > T(0) && f < T(6)) ? T(1) : T(0));
  }
};
// (y, dy) -> dy * (1 - y * y).
struct TanhGradF {
  template <typename T>
  __device__ T operator()(T y, T dy) const {
    return MulRn(dy, SubRn(T(1), MulRn(y, y)));
  }
};
// (y, dy) -> dy * y * (1 - y).
struct SigmoidGradF {
  template <typename T>
  __device__ T operator()(T y, T dy) const {
    return MulRn(MulRn(dy, y), SubRn(T(1), y));
  }
};

// ---- Loops ----------------------------------------------------------------

template <typename T, typename F>
__device__ void UnaryLoop(const T* x, T* y, int64_t n) {
  const F f{};
  for (int64_t i = FirstIndex(); i < n; i += GridStride()) y[i] = f(x[i]);
}

template <typename T, typename F>
__device__ void BinaryLoop(const T* a, const T* b, T* out, int64_t n) {
  const F f{};
  for (int64_t i = FirstIndex(); i < n; i += GridStride()) {
    out[i] = f(a[i], b[i]);
  }
}

template <typename T, typename F>
__device__ void BroadcastLoop(const T* x, const T* y, T* out, int64_t n,
                              const CwiseGpuBroadcast& g) {
  const F f{};
  const int rank = static_cast<int>(g.rank);
  for (int64_t i = FirstIndex(); i < n; i += GridStride()) {
    // Peel the row-major coordinates off from the last dimension.
    int64_t rest = i;
    int64_t x_offset = 0;
    int64_t y_offset = 0;
    for (int d = rank - 1; d >= 0; --d) {
      const int64_t dim = g.out_dims[d];
      const int64_t next = rest / dim;
      const int64_t coord = rest - next * dim;
      rest = next;
      x_offset += coord * g.x_strides[d];
      y_offset += coord * g.y_strides[d];
    }
    out[i] = f(x[x_offset], y[y_offset]);
  }
}

template <typename T>
__device__ void BiasAddLoop(const T* x, const T* bias, T* out, int64_t n,
                            int64_t channels, int64_t inner) {
  for (int64_t i = FirstIndex(); i < n; i += GridStride()) {
    out[i] = x[i] + bias[(i / inner) % channels];
  }
}

// One block per channel (blocks stride over channels): each thread sums a
// strided share of the channel's outer * inner elements, then the block
// adds the partial sums in shared memory. Every thread of a block takes
// the same channels, so the __syncthreads calls are uniform.
template <typename T>
__device__ void BiasAddGradLoop(const T* in, T* out, int64_t outer,
                                int64_t channels, int64_t inner) {
  __shared__ T partial[kReduceThreads];
  const int64_t count = outer * inner;
  for (int64_t c = blockIdx.x; c < channels; c += gridDim.x) {
    T sum = T(0);
    for (int64_t k = threadIdx.x; k < count; k += blockDim.x) {
      const int64_t o = k / inner;
      const int64_t j = k - o * inner;
      sum += in[(o * channels + c) * inner + j];
    }
    partial[threadIdx.x] = sum;
    __syncthreads();
    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
      if (threadIdx.x < s) partial[threadIdx.x] += partial[threadIdx.x + s];
      __syncthreads();
    }
    if (threadIdx.x == 0) out[c] = partial[0];
    __syncthreads();  // partial[0] is read before the next channel's writes
  }
}

}  // namespace

// ---- Entry points ---------------------------------------------------------

#define TRIB_UNARY_KERNEL(NAME, F, T, SUFFIX)                               \
  extern "C" __global__ void NAME##_##SUFFIX(const T* x, T* y, int64_t n) { \
    UnaryLoop<T, F>(x, y, n);                                               \
  }
#define TRIB_UNARY(NAME, F)              \
  TRIB_UNARY_KERNEL(NAME, F, float, f32) \
  TRIB_UNARY_KERNEL(NAME, F, double, f64)

TRIB_UNARY(neg, NegF)
TRIB_UNARY(abs, AbsF)
TRIB_UNARY(square, SquareF)
TRIB_UNARY(sqrt, SqrtF)
TRIB_UNARY(rsqrt, RsqrtF)
TRIB_UNARY(reciprocal, ReciprocalF)
TRIB_UNARY(exp, ExpF)
TRIB_UNARY(log, LogF)
TRIB_UNARY(tanh, TanhF)
TRIB_UNARY(sigmoid, SigmoidF)
TRIB_UNARY(relu, ReluF)
TRIB_UNARY(relu6, Relu6F)

#define TRIB_SAME_SHAPE_KERNEL(NAME, F, T, SUFFIX)                           \
  extern "C" __global__ void NAME##_##SUFFIX(const T* a, const T* b, T* out, \
                                             int64_t n) {                    \
    BinaryLoop<T, F>(a, b, out, n);                                          \
  }
#define TRIB_SAME_SHAPE(NAME, F)              \
  TRIB_SAME_SHAPE_KERNEL(NAME, F, float, f32) \
  TRIB_SAME_SHAPE_KERNEL(NAME, F, double, f64)

#define TRIB_BCAST_KERNEL(NAME, F, T, SUFFIX)                                  \
  extern "C" __global__ void NAME##_bcast_##SUFFIX(                            \
      const T* x, const T* y, T* out, int64_t n, CwiseGpuBroadcast geometry) { \
    BroadcastLoop<T, F>(x, y, out, n, geometry);                               \
  }
// An arithmetic binary: the equal-shape kernel and the broadcasting one.
#define TRIB_BINARY(NAME, F)             \
  TRIB_SAME_SHAPE(NAME, F)               \
  TRIB_BCAST_KERNEL(NAME, F, float, f32) \
  TRIB_BCAST_KERNEL(NAME, F, double, f64)

TRIB_BINARY(add, AddF)
TRIB_BINARY(sub, SubF)
TRIB_BINARY(mul, MulF)
TRIB_BINARY(div, DivF)
TRIB_BINARY(maximum, MaximumF)
TRIB_BINARY(minimum, MinimumF)
TRIB_BINARY(squared_difference, SquaredDifferenceF)

TRIB_SAME_SHAPE(relu_grad, ReluGradF)
TRIB_SAME_SHAPE(relu6_grad, Relu6GradF)
TRIB_SAME_SHAPE(tanh_grad, TanhGradF)
TRIB_SAME_SHAPE(sigmoid_grad, SigmoidGradF)

#define TRIB_BIAS_KERNELS(T, SUFFIX)                                         \
  extern "C" __global__ void bias_add_##SUFFIX(                              \
      const T* x, const T* bias, T* out, int64_t n, int64_t channels,        \
      int64_t inner) {                                                       \
    BiasAddLoop<T>(x, bias, out, n, channels, inner);                        \
  }                                                                          \
  extern "C" __global__ void bias_add_grad_##SUFFIX(                         \
      const T* in, T* out, int64_t outer, int64_t channels, int64_t inner) { \
    BiasAddGradLoop<T>(in, out, outer, channels, inner);                     \
  }

TRIB_BIAS_KERNELS(float, f32)
TRIB_BIAS_KERNELS(double, f64)
