#include "common/device/device_factory.h"

#include <algorithm>
#include <map>
#include <utility>

#include "absl/synchronization/mutex.h"
#include "common/device/device_name_utils.h"
#include "common/framework/logging.h"
#include "common/framework/status.h"

namespace tributary {
namespace {

struct FactoryItem {
  std::unique_ptr<DeviceFactory> factory;
  int priority = 0;
};

// Registrations happen during static initialisation, in no fixed order
// across files: function-local statics are constructed on first use.
absl::Mutex* FactoryLock() {
  static absl::Mutex* const mu = new absl::Mutex();
  return mu;
}

// std::map: device types in a stable order for "the rest".
std::map<std::string, FactoryItem>& Factories() {
  static auto* const factories = new std::map<std::string, FactoryItem>();
  return *factories;
}

// "CPU", "GPU", then the other types alphabetically.
std::vector<std::string> OrderedTypesLocked() {
  std::vector<std::string> types;
  for (const char* first : {"CPU", "GPU"}) {
    if (Factories().count(first) != 0) types.push_back(first);
  }
  for (const auto& entry : Factories()) {
    if (entry.first != "CPU" && entry.first != "GPU") {
      types.push_back(entry.first);
    }
  }
  return types;
}

// "/job:<j>/replica:<r>/task:<t>" and nothing else.
absl::Status ValidateNamePrefix(const std::string& name_prefix) {
  DeviceNameUtils::ParsedName parsed;
  if (!DeviceNameUtils::ParseFullName(name_prefix, &parsed) ||
      !parsed.has_job || !parsed.has_replica || !parsed.has_task ||
      parsed.has_type || parsed.has_id) {
    return errors::InvalidArgument(
        "Device name prefix '", name_prefix,
        "' is not of the form /job:<job>/replica:<replica>/task:<task>");
  }
  return absl::OkStatus();
}

}  // namespace

DeviceFactory::~DeviceFactory() = default;

void DeviceFactory::Register(const std::string& device_type,
                             std::unique_ptr<DeviceFactory> factory,
                             int priority) {
  absl::MutexLock lock(FactoryLock());
  auto it = Factories().find(device_type);
  if (it == Factories().end()) {
    Factories()[device_type] = {std::move(factory), priority};
    return;
  }
  CHECK(it->second.priority != priority)
      << "Duplicate registration of device factory for type " << device_type
      << " with the same priority " << priority;
  if (it->second.priority < priority) {
    it->second = {std::move(factory), priority};
  }
}

DeviceFactory* DeviceFactory::GetFactory(const std::string& device_type) {
  absl::MutexLock lock(FactoryLock());
  auto it = Factories().find(device_type);
  return it == Factories().end() ? nullptr : it->second.factory.get();
}

std::vector<std::string> DeviceFactory::GetDeviceTypes() {
  absl::MutexLock lock(FactoryLock());
  return OrderedTypesLocked();
}

absl::Status DeviceFactory::AddDevices(
    const tensorflow::ConfigProto& config, const std::string& name_prefix,
    std::vector<std::unique_ptr<Device>>* devices) {
  TRIB_RETURN_IF_ERROR(ValidateNamePrefix(name_prefix));
  // Factories are never unregistered, so the pointers stay valid after the
  // lock is released; CreateDevices runs unlocked (it may be slow).
  std::vector<std::pair<std::string, DeviceFactory*>> factories;
  {
    absl::MutexLock lock(FactoryLock());
    for (const std::string& type : OrderedTypesLocked()) {
      factories.emplace_back(type, Factories()[type].factory.get());
    }
  }
  std::vector<std::unique_ptr<Device>> created;
  for (const auto& entry : factories) {
    absl::Status s = entry.second->CreateDevices(config, name_prefix, &created);
    if (!s.ok()) {
      return errors::AppendToMessage(s, "while creating ", entry.first,
                                     " devices");
    }
  }
  const bool has_cpu = std::any_of(
      created.begin(), created.end(),
      [](const std::unique_ptr<Device>& d) { return d->device_type() == "CPU"; });
  if (!has_cpu) {
    return errors::NotFound(
        GetFactory("CPU") == nullptr
            ? "No CPU device factory is linked into this binary"
            : "No CPU devices are available in this process "
              "(ConfigProto.device_count asks for none)");
  }
  for (auto& device : created) devices->push_back(std::move(device));
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<Device>> DeviceFactory::NewDevice(
    const std::string& device_type, const tensorflow::ConfigProto& config,
    const std::string& name_prefix) {
  TRIB_RETURN_IF_ERROR(ValidateNamePrefix(name_prefix));
  DeviceFactory* factory = GetFactory(device_type);
  if (factory == nullptr) {
    return errors::NotFound("No device factory registered for device type '",
                            device_type, "'");
  }
  tensorflow::ConfigProto one = config;
  (*one.mutable_device_count())[device_type] = 1;
  std::vector<std::unique_ptr<Device>> devices;
  TRIB_RETURN_IF_ERROR(factory->CreateDevices(one, name_prefix, &devices));
  if (devices.size() != 1) {
    return errors::Internal("The ", device_type, " device factory created ",
                            devices.size(), " devices, expected 1");
  }
  return std::move(devices[0]);
}

}  // namespace tributary
