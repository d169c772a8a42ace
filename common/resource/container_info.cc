#include "common/resource/container_info.h"

#include <atomic>
#include <cstdint>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "common/framework/status.h"
#include "common/op/node_def_util.h"
#include "common/resource/resource_mgr.h"

namespace tributary {

bool IsValidContainerName(const std::string& container) {
  if (container.empty()) return false;
  const char first = container[0];
  if (!absl::ascii_isalnum(first) && first != '.') return false;
  for (size_t i = 1; i < container.size(); ++i) {
    const char c = container[i];
    if (!absl::ascii_isalnum(c) && c != '_' && c != '.' && c != '-' &&
        c != '/') {
      return false;
    }
  }
  return true;
}

absl::Status ContainerInfo::Init(const tensorflow::NodeDef& node_def,
                                 bool use_node_name_as_default) {
  std::string container;
  TRIB_RETURN_IF_ERROR(GetNodeAttr(AttrSlice(node_def), "container",
                                   &container));
  if (!container.empty() && !IsValidContainerName(container)) {
    return errors::InvalidArgument("container contains invalid characters: ",
                                   container, " (node '", node_def.name(),
                                   "')");
  }
  std::string shared_name;
  TRIB_RETURN_IF_ERROR(GetNodeAttr(AttrSlice(node_def), "shared_name",
                                   &shared_name));
  if (!shared_name.empty() && shared_name[0] == '_') {
    return errors::InvalidArgument("shared_name cannot start with '_':",
                                   shared_name, " (node '", node_def.name(),
                                   "')");
  }
  container_ = container;
  resource_is_private_to_kernel_ = false;
  if (!shared_name.empty()) {
    name_ = shared_name;
  } else if (use_node_name_as_default) {
    name_ = node_def.name();
  } else {
    // A name no graph can spell (shared names may not start with '_'), so
    // the resource stays private to this kernel instance.
    static std::atomic<int64_t> counter(0);
    name_ = absl::StrCat("_", counter.fetch_add(1), "_", node_def.name());
    resource_is_private_to_kernel_ = true;
  }
  return absl::OkStatus();
}

const std::string& ContainerInfo::container(const ResourceMgr& rm) const {
  return container_.empty() ? rm.default_container() : container_;
}

std::string ContainerInfo::DebugString() const {
  return absl::StrCat("[", container_.empty() ? "<default>" : container_, ",",
                      name_, ",",
                      resource_is_private_to_kernel_ ? "private" : "public",
                      "]");
}

}  // namespace tributary
