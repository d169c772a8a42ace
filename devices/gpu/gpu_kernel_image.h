#ifndef TRIBUTARY_DEVICES_GPU_GPU_KERNEL_IMAGE_H_
#define TRIBUTARY_DEVICES_GPU_GPU_KERNEL_IMAGE_H_

// A compiled CUDA module (a fatbin: SASS for sm_90 and PTX for later chips)
// embedded in the binary by the cuda_fatbin Bazel macro
// (third_party/cuda/cuda_fatbin.bzl). A GPU device loads each image once,
// on first use, with cuModuleLoadData and looks kernels up by their
// extern "C" names (GpuDevice::GetKernel). Plain data with no CUDA types,
// so kernels' host code and the generated libraries need no CUDA header.

#include <cstddef>

namespace tributary {

struct GpuKernelImage {
  const char* name;           // the .cu file's stem, for error messages
  const unsigned char* data;  // the fatbin, 64-byte aligned
  size_t size;
};

}  // namespace tributary

#endif  // TRIBUTARY_DEVICES_GPU_GPU_KERNEL_IMAGE_H_
