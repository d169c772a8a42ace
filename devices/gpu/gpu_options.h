#ifndef TRIBUTARY_DEVICES_GPU_GPU_OPTIONS_H_
#define TRIBUTARY_DEVICES_GPU_GPU_OPTIONS_H_

// The GPU parts of a session's ConfigProto, turned into decisions. Pure
// functions, so they are tested on hosts without a GPU.
//
// Which GPUs: the driver shows the GPUs CUDA_VISIBLE_DEVICES lets it see,
// numbered 0..n-1; gpu_options.visible_device_list ("1,0") then picks and
// orders some of those, and the i-th entry becomes /device:GPU:i, as in
// TensorFlow. device_count {"GPU": k} keeps the first k.
//
// How much memory: per_process_gpu_memory_fraction f in (0, 1] lets this
// process's allocator take f of the GPU's total memory; 0 (the default)
// lets it take what was free when the GPU was first used, less a reserve
// of 5% of the total (at least 64 MiB, for cuBLAS' and cuDNN's own
// workspaces and the driver). allow_growth takes memory from the driver as
// it is needed, up to that limit, instead of all of it at once.

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "protos/config.pb.h"

namespace tributary {

// The CUDA ordinals to create devices for, in /device:GPU:i order.
// `num_gpus` is what the driver reports. InvalidArgument for an entry that
// is not a number, names a GPU the driver does not show, or repeats one,
// and for a negative device_count.
absl::StatusOr<std::vector<int>> VisibleGpuOrdinals(
    const tensorflow::ConfigProto& config, int num_gpus);

// The bytes the allocator of one GPU may take, from the options and what
// the driver reports for that GPU. InvalidArgument for a fraction outside
// [0, 1]; ResourceExhausted when less than 1 MiB would be left to use.
absl::StatusOr<int64_t> GpuMemoryLimit(const tensorflow::GPUOptions& options,
                                       int64_t total_bytes, int64_t free_bytes);

// DeviceAttributes.physical_device_desc in TensorFlow's words:
// "device: 0, name: NVIDIA H100 80GB HBM3, pci bus id: 0000:19:00.0,
// compute capability: 9.0". `gpu_id` is the /device:GPU:<id> number.
std::string GpuPhysicalDeviceDesc(int gpu_id, absl::string_view name,
                                  absl::string_view pci_bus_id, int cc_major,
                                  int cc_minor);

}  // namespace tributary

#endif  // TRIBUTARY_DEVICES_GPU_GPU_OPTIONS_H_
