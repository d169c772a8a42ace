// Registers the "GPU" device factory: one /device:GPU:i per GPU the options
// make visible (gpu_options.h), after loading the CUDA driver at run time.
// Without a driver or a GPU it creates no devices and says why, once per
// process, in the log; everything else runs on the CPU unchanged.

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/device/device_factory.h"
#include "common/framework/status.h"
#include "devices/cpu/cpu_device.h"
#include "devices/gpu/cuda_driver.h"
#include "devices/gpu/gpu_context.h"
#include "devices/gpu/gpu_device.h"
#include "devices/gpu/gpu_log.h"
#include "devices/gpu/gpu_options.h"

namespace tributary {
namespace {

// Host-side work of GPU kernels is small (shapes, indices); two threads.
constexpr int kHostThreadsPerGpuFactoryCall = 2;

class GpuDeviceFactory : public DeviceFactory {
 public:
  absl::Status CreateDevices(
      const tensorflow::ConfigProto& config, const std::string& name_prefix,
      std::vector<std::unique_ptr<Device>>* devices) override {
    auto count = config.device_count().find("GPU");
    if (count != config.device_count().end() && count->second == 0) {
      return absl::OkStatus();
    }
    absl::StatusOr<const CudaDriver*> driver = CudaDriver::Get();
    if (!driver.ok()) {
      static std::atomic<bool> said{false};
      if (!said.exchange(true)) {
        GpuLog().info("no GPU devices: {}",
                      std::string(driver.status().message()));
      }
      return absl::OkStatus();
    }
    const CudaDriver& cu = **driver;
    int num_gpus = 0;
    TRIB_RETURN_IF_ERROR(
        CudaCall(cu, cu.cuDeviceGetCount(&num_gpus), "cuDeviceGetCount"));
    TRIB_ASSIGN_OR_RETURN(std::vector<int> ordinals,
                          VisibleGpuOrdinals(config, num_gpus));
    if (ordinals.empty()) return absl::OkStatus();
    auto host_pool =
        std::make_shared<CpuThreadPool>(kHostThreadsPerGpuFactoryCall);
    for (size_t i = 0; i < ordinals.size(); ++i) {
      TRIB_ASSIGN_OR_RETURN(
          GpuContext * gpu,
          GpuContext::Get(*driver, ordinals[i], config.gpu_options()));
      const GpuProperties& p = gpu->properties();
      tensorflow::DeviceAttributes attributes = Device::BuildDeviceAttributes(
          absl::StrCat(name_prefix, "/device:GPU:", i), "GPU",
          gpu->memory_limit(),
          GpuPhysicalDeviceDesc(static_cast<int>(i), p.name, p.pci_bus_id,
                                p.cc_major, p.cc_minor));
      devices->push_back(
          std::make_unique<GpuDevice>(std::move(attributes), gpu, host_pool));
    }
    return absl::OkStatus();
  }
};

REGISTER_LOCAL_DEVICE_FACTORY("GPU", GpuDeviceFactory);

}  // namespace
}  // namespace tributary
