#ifndef TRIBUTARY_COMMON_RESOURCE_CONTAINER_INFO_H_
#define TRIBUTARY_COMMON_RESOURCE_CONTAINER_INFO_H_

// Which resource a stateful kernel (VariableV2, ...) owns, from its
// `container` and `shared_name` attrs, with TensorFlow's rules:
//  - container: the attr, or the ResourceMgr's default ("localhost") when
//    empty; a non-empty one must match [A-Za-z0-9.][A-Za-z0-9_.\-/]*;
//  - name: shared_name, which must not start with '_' (reserved for private
//    names); when empty, the node's name (VariableV2) or a process-unique
//    private name "_<n>_<node>" (kernels whose resource is their own).
//
// Parsed once when the kernel is built; the container is resolved against
// the ResourceMgr at run time because the session supplies the manager
// through the OpKernelContext, not at construction.

#include <string>

#include "absl/status/status.h"
#include "protos/node_def.pb.h"

namespace tributary {

class ResourceMgr;

class ContainerInfo {
 public:
  // InvalidArgument (naming the node) for a bad container or shared_name;
  // NotFound/InvalidArgument when the attrs are missing or mistyped.
  absl::Status Init(const tensorflow::NodeDef& node_def,
                    bool use_node_name_as_default);

  // The container to use with `rm`.
  const std::string& container(const ResourceMgr& rm) const;
  // The container attr as written ("" means the manager's default).
  const std::string& container_attr() const { return container_; }
  const std::string& name() const { return name_; }
  bool resource_is_private_to_kernel() const {
    return resource_is_private_to_kernel_;
  }

  // "[container,name,public]" ("" container shown as the default marker).
  std::string DebugString() const;

 private:
  std::string container_;
  std::string name_;
  bool resource_is_private_to_kernel_ = false;
};

// Whether `container` is a valid explicit container name.
bool IsValidContainerName(const std::string& container);

}  // namespace tributary

#endif  // TRIBUTARY_COMMON_RESOURCE_CONTAINER_INFO_H_
