#ifndef TRIBUTARY_DEVICES_GPU_GPU_LAUNCH_H_
#define TRIBUTARY_DEVICES_GPU_GPU_LAUNCH_H_

// What a GPU kernel's host code uses to run CUDA code: the GPU it runs on,
// and a launch of an embedded kernel (cuda_fatbin) on its compute stream.
//
//   GpuDevice* gpu = GpuDevice::FromDeviceBase(ctx->device());
//   OP_REQUIRES_OK(ctx, LaunchGpuKernel(gpu, fatbin::cwise_kernels(),
//                                       "add_f32", GpuLaunchConfigFor(n),
//                                       {&a, &b, &out, &n}));
//
// Arguments are passed as the addresses of host variables holding exactly
// the kernel's parameter types (CUdeviceptr or T* for pointers, int64_t for
// counts): cuLaunchKernel copies them at the call.

#include <cstdint>
#include <initializer_list>

#include "absl/status/status.h"
#include "devices/gpu/gpu_device.h"
#include "devices/gpu/gpu_kernel_image.h"

namespace tributary {

struct GpuLaunchConfig {
  unsigned int blocks = 1;
  unsigned int threads_per_block = 256;
  unsigned int shared_bytes = 0;
};

// A one-dimensional launch for `n` elements processed by a grid-stride
// loop: 256 threads per block, at most 32 blocks per multiprocessor (more
// buys nothing once the GPU is full), at least one block.
GpuLaunchConfig GpuLaunchConfigFor(const GpuDevice* gpu, int64_t n);

// Launches `kernel` of `image` on `gpu`'s compute stream. Errors: the
// kernel cannot be loaded (GpuContext::GetKernel) or launched.
absl::Status LaunchGpuKernel(GpuDevice* gpu, const GpuKernelImage& image,
                             const char* kernel, const GpuLaunchConfig& config,
                             std::initializer_list<void*> args);

}  // namespace tributary

#endif  // TRIBUTARY_DEVICES_GPU_GPU_LAUNCH_H_
