// Registers the CPU device factory: ConfigProto.device_count {"CPU": N}
// CPU devices (default 1), sharing one intra-op thread pool of
// intra_op_parallelism_threads threads (0: one per core).

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/framework/status.h"
#include "devices/cpu/cpu_device.h"
#include "common/device/device_factory.h"

namespace tributary {
namespace {

class CpuDeviceFactory : public DeviceFactory {
 public:
  absl::Status CreateDevices(
      const tensorflow::ConfigProto& config, const std::string& name_prefix,
      std::vector<std::unique_ptr<Device>>* devices) override {
    int n = 1;
    auto it = config.device_count().find("CPU");
    if (it != config.device_count().end()) n = it->second;
    if (n < 0) {
      return errors::InvalidArgument("ConfigProto.device_count[\"CPU\"] is ",
                                     n, "; it must be >= 0");
    }
    if (n == 0) return absl::OkStatus();
    // One pool for all of them: they share the machine's cores. A negative
    // value is treated like 0 (the default), as TensorFlow does.
    auto pool = std::make_shared<CpuThreadPool>(
        std::max(0, config.intra_op_parallelism_threads()));
    for (int i = 0; i < n; ++i) {
      devices->push_back(
          CpuDevice::Create(absl::StrCat(name_prefix, "/device:CPU:", i), pool));
    }
    return absl::OkStatus();
  }
};

REGISTER_LOCAL_DEVICE_FACTORY("CPU", CpuDeviceFactory);

}  // namespace
}  // namespace tributary
