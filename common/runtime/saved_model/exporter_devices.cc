#include "common/runtime/saved_model/exporter_devices.h"

#include <string>

#include "common/device/device_name_utils.h"

namespace tributary {
namespace {

void DropExportingProcess(std::string* device) {
  if (device->empty()) return;
  DeviceNameUtils::ParsedName parsed;
  if (!DeviceNameUtils::ParseFullOrLocalName(*device, &parsed) ||
      !parsed.has_job || parsed.job != "localhost") {
    return;
  }
  parsed.has_job = parsed.has_replica = parsed.has_task = false;
  *device = DeviceNameUtils::ParsedNameToString(parsed);
}

}  // namespace

void DropExportingProcessFromDevices(tensorflow::GraphDef* graph) {
  for (tensorflow::NodeDef& node : *graph->mutable_node()) {
    DropExportingProcess(node.mutable_device());
  }
  for (tensorflow::FunctionDef& f :
       *graph->mutable_library()->mutable_function()) {
    for (tensorflow::NodeDef& node : *f.mutable_node_def()) {
      DropExportingProcess(node.mutable_device());
    }
  }
}

}  // namespace tributary
