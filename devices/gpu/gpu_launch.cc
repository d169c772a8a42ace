#include "devices/gpu/gpu_launch.h"

#include <algorithm>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/framework/status.h"

namespace tributary {

GpuLaunchConfig GpuLaunchConfigFor(const GpuDevice* gpu, int64_t n) {
  GpuLaunchConfig config;
  const int64_t wanted =
      (std::max<int64_t>(n, 1) + config.threads_per_block - 1) /
      config.threads_per_block;
  const int64_t full =
      std::max(1, gpu->gpu()->properties().multiprocessors) * int64_t{32};
  config.blocks = static_cast<unsigned int>(std::min(wanted, full));
  return config;
}

absl::Status LaunchGpuKernel(GpuDevice* gpu, const GpuKernelImage& image,
                             const char* kernel, const GpuLaunchConfig& config,
                             std::initializer_list<void*> args) {
  GpuContext* context = gpu->gpu();
  TRIB_ASSIGN_OR_RETURN(CUfunction function, context->GetKernel(image, kernel));
  std::vector<void*> params(args);
  const CudaDriver& cu = context->driver();
  return CudaCall(
      cu,
      cu.cuLaunchKernel(function, config.blocks, 1, 1, config.threads_per_block,
                        1, 1, config.shared_bytes, context->compute_stream(),
                        params.data(), nullptr),
      absl::StrCat("launching GPU kernel ", kernel, " on ", gpu->name()));
}

}  // namespace tributary
