#ifndef TRIBUTARY_COMMON_DEVICE_DEVICE_FACTORY_H_
#define TRIBUTARY_COMMON_DEVICE_DEVICE_FACTORY_H_

// The device factory registry: one factory per device type ("CPU", later
// "GPU"), registered at static-initialisation time, asked by a session or a
// worker to create the devices of this process.
//
//   std::vector<std::unique_ptr<Device>> devices;
//   TRIB_RETURN_IF_ERROR(DeviceFactory::AddDevices(
//       config, "/job:localhost/replica:0/task:0", &devices));
//
// ConfigProto.device_count {key: "CPU" value: N} asks for N CPU devices
// (default 1), named <prefix>/device:CPU:0 .. N-1;
// intra_op_parallelism_threads sizes the thread pool their kernels use.
// New device types register a factory with REGISTER_LOCAL_DEVICE_FACTORY and
// are picked up by AddDevices without changes here.

#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/device/device.h"
#include "protos/config.pb.h"

namespace tributary {

class DeviceFactory {
 public:
  virtual ~DeviceFactory();

  // Appends this factory's devices for `config` to *devices, named under
  // `name_prefix` ("/job:<job>/replica:<r>/task:<t>"). Creating none (e.g.
  // device_count {"GPU": 0}) is fine. InvalidArgument for a bad config.
  virtual absl::Status CreateDevices(
      const tensorflow::ConfigProto& config, const std::string& name_prefix,
      std::vector<std::unique_ptr<Device>>* devices) = 0;

  // Registers `factory` for `device_type`. Of two registrations for one
  // type the higher priority wins; an equal priority is a programming error
  // (CHECK), as in TensorFlow.
  static void Register(const std::string& device_type,
                       std::unique_ptr<DeviceFactory> factory, int priority);

  // The factory for `device_type`, or null.
  static DeviceFactory* GetFactory(const std::string& device_type);

  // Registered device types, "CPU" first, then "GPU", then the rest sorted.
  static std::vector<std::string> GetDeviceTypes();

  // Creates the devices of every registered type, CPU first, then GPU, then
  // the rest (so device lists and placement preferences are stable).
  // InvalidArgument when `name_prefix` is not "/job:<j>/replica:<r>/task:<t>";
  // NotFound when no CPU device results (device_count {"CPU": 0}, or no CPU
  // factory linked in): the host device is required for host-side work.
  static absl::Status AddDevices(const tensorflow::ConfigProto& config,
                                 const std::string& name_prefix,
                                 std::vector<std::unique_ptr<Device>>* devices);

  // One device of `device_type` (device_count forced to 1); NotFound when no
  // factory is registered for the type.
  static absl::StatusOr<std::unique_ptr<Device>> NewDevice(
      const std::string& device_type, const tensorflow::ConfigProto& config,
      const std::string& name_prefix);
};

namespace dfactory {

// Static registration helper behind REGISTER_LOCAL_DEVICE_FACTORY.
template <class Factory>
class Registrar {
 public:
  explicit Registrar(const std::string& device_type, int priority = 0) {
    DeviceFactory::Register(device_type, std::make_unique<Factory>(),
                            priority);
  }
};

}  // namespace dfactory
}  // namespace tributary

// Registers `device_factory` (a DeviceFactory subclass with a default
// constructor) for `device_type`; an optional third argument is the
// priority. Targets using it need alwayslink = 1: nothing references the
// registrar, so the linker would otherwise drop it.
#define REGISTER_LOCAL_DEVICE_FACTORY(device_type, device_factory, ...) \
  TRIB_INTERNAL_REGISTER_DEVICE_FACTORY(device_type, device_factory,    \
                                        __COUNTER__, ##__VA_ARGS__)
#define TRIB_INTERNAL_REGISTER_DEVICE_FACTORY(device_type, device_factory, \
                                              ctr, ...)                    \
  TRIB_INTERNAL_REGISTER_DEVICE_FACTORY_UNIQ(device_type, device_factory, \
                                             ctr, ##__VA_ARGS__)
#define TRIB_INTERNAL_REGISTER_DEVICE_FACTORY_UNIQ(device_type,           \
                                                   device_factory, ctr,   \
                                                   ...)                   \
  static ::tributary::dfactory::Registrar<device_factory>                 \
      trib_device_factory_registrar_##ctr(device_type, ##__VA_ARGS__)

#endif  // TRIBUTARY_COMMON_DEVICE_DEVICE_FACTORY_H_
