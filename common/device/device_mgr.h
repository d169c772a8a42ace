#ifndef TRIBUTARY_COMMON_DEVICE_DEVICE_MGR_H_
#define TRIBUTARY_COMMON_DEVICE_DEVICE_MGR_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/device/device.h"
#include "protos/device_attributes.pb.h"

namespace tributary {

// Owns the devices of one process (or one session) and finds them by name.
// Immutable after creation, so every method is thread-safe without locks.
//
// LookupDevice accepts every spelling TensorFlow's device manager does
//   full         "/job:localhost/replica:0/task:0/device:CPU:1"
//   legacy full  "/job:localhost/replica:0/task:0/cpu:1"
//   local        "/device:CPU:1", "/cpu:1"
//   legacy local "CPU:1"
// and additionally any partial specification that matches exactly one
// device ("/job:localhost/device:CPU:1", "/device:CPU:*" with one CPU).
class DeviceMgr {
 public:
  // InvalidArgument when two devices share a name.
  static absl::StatusOr<std::unique_ptr<DeviceMgr>> Create(
      std::vector<std::unique_ptr<Device>> devices);
  // Convenience for one device.
  static std::unique_ptr<DeviceMgr> CreateWithDevice(
      std::unique_ptr<Device> device);

  ~DeviceMgr();
  DeviceMgr(const DeviceMgr&) = delete;
  DeviceMgr& operator=(const DeviceMgr&) = delete;

  // In the order they were given (AddDevices puts CPUs first).
  const std::vector<Device*>& ListDevices() const { return device_list_; }
  std::vector<tensorflow::DeviceAttributes> ListDeviceAttributes() const;

  // The device `name` denotes (see the class comment). NotFound naming the
  // known devices when no device matches; InvalidArgument when `name` is
  // not a device name or a partial name matches several devices.
  absl::Status LookupDevice(absl::string_view name, Device** device) const;
  absl::StatusOr<Device*> LookupDevice(absl::string_view name) const;

  // Whether a device with this incarnation is managed here (a peer's
  // request naming a stale incarnation came from before a restart).
  bool ContainsDevice(uint64_t incarnation) const;

  int NumDevices() const { return static_cast<int>(device_list_.size()); }
  int NumDeviceType(absl::string_view type) const;

  // CPU:0 of this manager (host-side work), or null when there is none.
  Device* HostCPU() const { return host_cpu_; }

  // One device name per line.
  std::string DebugString() const;
  // "name -> physical_device_desc" lines for devices that have one.
  std::string DeviceMappingString() const;

 private:
  DeviceMgr() = default;

  std::vector<std::unique_ptr<Device>> devices_;
  std::vector<Device*> device_list_;
  // Every exact spelling of every device (see the class comment).
  absl::flat_hash_map<std::string, Device*> device_map_;
  absl::flat_hash_map<std::string, int> device_type_counts_;
  absl::flat_hash_set<uint64_t> incarnations_;
  Device* host_cpu_ = nullptr;
};

}  // namespace tributary

#endif  // TRIBUTARY_COMMON_DEVICE_DEVICE_MGR_H_
