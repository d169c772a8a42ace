#ifndef TRIBUTARY_KERNELS_MATH_CWISE_GPU_BROADCAST_H_
#define TRIBUTARY_KERNELS_MATH_CWISE_GPU_BROADCAST_H_

// The broadcast geometry a binary GPU kernel receives by value: shared by
// the CUDA kernels (cwise_kernels.cu, compiled by nvcc) and their host code
// (cwise_ops_gpu.cc, compiled by the C++ compiler), so both agree on the
// layout cuLaunchKernel copies. Plain C++ only: no CUDA or Tributary header.
//
// Output element `i` (row-major over out_dims[0..rank)) reads x at
// sum_d coord_d * x_strides[d] and y likewise; a stride is 0 on a dimension
// the input is broadcast along.

#include <cstdint>

namespace tributary {

// More than BCast's merged ranks ever need for the 5 the kernels accept.
constexpr int kCwiseGpuMaxDims = 8;

struct CwiseGpuBroadcast {
  int64_t rank;
  int64_t out_dims[kCwiseGpuMaxDims];
  int64_t x_strides[kCwiseGpuMaxDims];  // in elements
  int64_t y_strides[kCwiseGpuMaxDims];
};

}  // namespace tributary

#endif  // TRIBUTARY_KERNELS_MATH_CWISE_GPU_BROADCAST_H_
