#include "common/device/device_mgr.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/device/device_name_utils.h"
#include "common/framework/status.h"

namespace tributary {

absl::StatusOr<std::unique_ptr<DeviceMgr>> DeviceMgr::Create(
    std::vector<std::unique_ptr<Device>> devices) {
  std::unique_ptr<DeviceMgr> mgr(new DeviceMgr());
  for (auto& device : devices) {
    if (device == nullptr) {
      return errors::InvalidArgument("DeviceMgr::Create given a null device");
    }
    Device* d = device.get();
    std::vector<std::string> names =
        DeviceNameUtils::GetNamesForDeviceMappings(d->parsed_name());
    if (mgr->device_map_.contains(d->name()) ||
        (!names.empty() && mgr->device_map_.contains(names[0]))) {
      return errors::InvalidArgument("Two devices are named ", d->name());
    }
    // Full and legacy full names first; local names may be shadowed when
    // devices of several tasks share a manager (the first keeps them).
    for (const std::string& name : names) mgr->device_map_[name] = d;
    mgr->device_map_[d->name()] = d;
    for (const std::string& name :
         DeviceNameUtils::GetLocalNamesForDeviceMappings(d->parsed_name())) {
      mgr->device_map_.try_emplace(name, d);
    }
    ++mgr->device_type_counts_[d->device_type()];
    mgr->incarnations_.insert(d->incarnation());
    if (mgr->host_cpu_ == nullptr && d->device_type() == "CPU" &&
        d->parsed_name().id == 0) {
      mgr->host_cpu_ = d;
    }
    mgr->device_list_.push_back(d);
    mgr->devices_.push_back(std::move(device));
  }
  return mgr;
}

std::unique_ptr<DeviceMgr> DeviceMgr::CreateWithDevice(
    std::unique_ptr<Device> device) {
  std::vector<std::unique_ptr<Device>> devices;
  devices.push_back(std::move(device));
  // One device cannot collide with itself.
  return std::move(Create(std::move(devices))).value();
}

DeviceMgr::~DeviceMgr() = default;

std::vector<tensorflow::DeviceAttributes> DeviceMgr::ListDeviceAttributes()
    const {
  std::vector<tensorflow::DeviceAttributes> attributes;
  attributes.reserve(device_list_.size());
  for (const Device* d : device_list_) attributes.push_back(d->attributes());
  return attributes;
}

absl::Status DeviceMgr::LookupDevice(absl::string_view name,
                                     Device** device) const {
  auto it = device_map_.find(name);
  if (it != device_map_.end()) {
    *device = it->second;
    return absl::OkStatus();
  }
  DeviceNameUtils::ParsedName spec;
  if (name.empty() || !DeviceNameUtils::ParseFullOrLocalName(name, &spec)) {
    return errors::InvalidArgument("'", name, "' is not a device name");
  }
  std::vector<Device*> matches;
  for (Device* d : device_list_) {
    if (DeviceNameUtils::IsSpecification(spec, d->parsed_name())) {
      matches.push_back(d);
    }
  }
  if (matches.size() == 1) {
    *device = matches[0];
    return absl::OkStatus();
  }
  auto names = [](const std::vector<Device*>& list) {
    return absl::StrJoin(list, ", ", [](std::string* out, const Device* d) {
      absl::StrAppend(out, d->name());
    });
  };
  if (matches.empty()) {
    return errors::NotFound("Unknown device '", name,
                            "'; known devices: ", names(device_list_));
  }
  return errors::InvalidArgument("Device name '", name, "' matches ",
                                 matches.size(), " devices: ", names(matches),
                                 "; name one of them");
}

absl::StatusOr<Device*> DeviceMgr::LookupDevice(absl::string_view name) const {
  Device* device = nullptr;
  TRIB_RETURN_IF_ERROR(LookupDevice(name, &device));
  return device;
}

bool DeviceMgr::ContainsDevice(uint64_t incarnation) const {
  return incarnations_.contains(incarnation);
}

int DeviceMgr::NumDeviceType(absl::string_view type) const {
  auto it = device_type_counts_.find(type);
  return it == device_type_counts_.end() ? 0 : it->second;
}

std::string DeviceMgr::DebugString() const {
  std::string out;
  for (const Device* d : device_list_) absl::StrAppend(&out, d->name(), "\n");
  return out;
}

std::string DeviceMgr::DeviceMappingString() const {
  std::string out;
  for (const Device* d : device_list_) {
    if (!d->attributes().physical_device_desc().empty()) {
      absl::StrAppend(&out, d->name(), " -> ",
                      d->attributes().physical_device_desc(), "\n");
    }
  }
  return out;
}

}  // namespace tributary
