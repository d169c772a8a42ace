#ifndef TRIBUTARY_KERNELS_MATH_GPU_MORE_GEOMETRY_H_
#define TRIBUTARY_KERNELS_MATH_GPU_MORE_GEOMETRY_H_

// The index geometry the Transpose and reduction GPU kernels receive by
// value: shared by the CUDA kernels (gpu_more_kernels.cu, compiled by nvcc)
// and their host code (gpu_more_ops.cc, compiled by the C++ compiler), so
// both agree on the layout cuLaunchKernel copies. Plain C++ only: no CUDA
// or Tributary header.

#include <cstdint>

namespace tributary {

// Dimensions a geometry describes at most; kernels with more fail on the
// host with Unimplemented before anything is launched.
constexpr int kGpuMoreMaxDims = 8;

// Transpose: output element `i` (row-major over out_dims[0..rank)) reads
// the input at sum_d coord_d * in_strides[d] (in elements).
struct GpuTransposeGeometry {
  int64_t rank;
  int64_t out_dims[kGpuMoreMaxDims];
  int64_t in_strides[kGpuMoreMaxDims];
};

// Reductions: output element `o` (row-major over kept_dims) reduces the
// input elements at base(o) + offset(k) for k in [0, prod(reduced_dims)),
// where base sums the kept coordinates times kept_strides and offset the
// row-major coordinates of k over reduced_dims times reduced_strides.
struct GpuReduceGeometry {
  int64_t kept_rank;
  int64_t kept_dims[kGpuMoreMaxDims];
  int64_t kept_strides[kGpuMoreMaxDims];
  int64_t reduced_rank;
  int64_t reduced_dims[kGpuMoreMaxDims];
  int64_t reduced_strides[kGpuMoreMaxDims];
};

}  // namespace tributary

#endif  // TRIBUTARY_KERNELS_MATH_GPU_MORE_GEOMETRY_H_
