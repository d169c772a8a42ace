#include "devices/gpu/gpu_options.h"

#include <algorithm>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "common/framework/status.h"

namespace tributary {

absl::StatusOr<std::vector<int>> VisibleGpuOrdinals(
    const tensorflow::ConfigProto& config, int num_gpus) {
  std::vector<int> ordinals;
  const std::string& list = config.gpu_options().visible_device_list();
  if (absl::StripAsciiWhitespace(list).empty()) {
    for (int i = 0; i < num_gpus; ++i) ordinals.push_back(i);
  } else {
    absl::flat_hash_set<int> seen;
    for (absl::string_view entry : absl::StrSplit(list, ',')) {
      entry = absl::StripAsciiWhitespace(entry);
      int ordinal = -1;
      if (!absl::SimpleAtoi(entry, &ordinal) || ordinal < 0) {
        return errors::InvalidArgument("gpu_options.visible_device_list '",
                                       list, "': '", entry,
                                       "' is not a GPU number");
      }
      if (ordinal >= num_gpus) {
        return errors::InvalidArgument(
            "gpu_options.visible_device_list '", list, "' names GPU ", ordinal,
            ", but this process sees ", num_gpus,
            " GPU(s) (numbered after CUDA_VISIBLE_DEVICES)");
      }
      if (!seen.insert(ordinal).second) {
        return errors::InvalidArgument("gpu_options.visible_device_list '",
                                       list, "' names GPU ", ordinal, " twice");
      }
      ordinals.push_back(ordinal);
    }
  }
  auto count = config.device_count().find("GPU");
  if (count != config.device_count().end()) {
    if (count->second < 0) {
      return errors::InvalidArgument("device_count {\"GPU\": ", count->second,
                                     "} is negative");
    }
    if (static_cast<size_t>(count->second) < ordinals.size()) {
      ordinals.resize(count->second);
    }
  }
  return ordinals;
}

absl::StatusOr<int64_t> GpuMemoryLimit(const tensorflow::GPUOptions& options,
                                       int64_t total_bytes,
                                       int64_t free_bytes) {
  const double fraction = options.per_process_gpu_memory_fraction();
  if (!(fraction >= 0.0 && fraction <= 1.0)) {
    return errors::InvalidArgument(
        "gpu_options.per_process_gpu_memory_fraction is ", fraction,
        "; it must be in [0, 1] (0: all free memory)");
  }
  int64_t limit = 0;
  if (fraction > 0.0) {
    limit = static_cast<int64_t>(fraction * static_cast<double>(total_bytes));
  } else {
    const int64_t reserve = std::max<int64_t>(total_bytes / 20, 64 << 20);
    limit = free_bytes - reserve;
  }
  if (limit < (1 << 20)) {
    return errors::ResourceExhausted(
        "the GPU has ", free_bytes, " bytes free of ", total_bytes,
        ", which leaves no memory to use under the memory options "
        "(per_process_gpu_memory_fraction ",
        fraction, ")");
  }
  return limit;
}

std::string GpuPhysicalDeviceDesc(int gpu_id, absl::string_view name,
                                  absl::string_view pci_bus_id, int cc_major,
                                  int cc_minor) {
  return absl::StrCat("device: ", gpu_id, ", name: ", name,
                      ", pci bus id: ", pci_bus_id,
                      ", compute capability: ", cc_major, ".", cc_minor);
}

}  // namespace tributary
