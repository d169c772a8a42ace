#ifndef TRIBUTARY_COMMON_RESOURCE_RESOURCE_HANDLE_H_
#define TRIBUTARY_COMMON_RESOURCE_RESOURCE_HANDLE_H_

// Resource handles: the value of a DT_RESOURCE tensor element
// (tributary::ResourceHandle, i.e. tensorflow::ResourceHandleProto, see
// common/framework/types.h). A handle names a resource (device, container,
// name) and the C++ type it must have, so a kernel on the right device can
// find it in that device's ResourceMgr. Handles are plain values: holding
// one keeps nothing alive.
//
// This header adds what the wire message lacks: type identities, building
// a handle for a resource type, checking a handle against the type a kernel
// expects, and scalar DT_RESOURCE tensors.

#include <cstdint>
#include <string>
#include <typeinfo>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/framework/tensor.h"
#include "common/framework/tensor_shape.h"
#include "common/framework/types.h"
#include "protos/resource_handle.pb.h"

namespace tributary {

// Identifies a resource's C++ type within this process (TensorFlow's
// TypeIndex): part of the ResourceMgr key, so a Var and a LegacyVar may share
// a name without being confused, and a handle can be checked before a cast.
class ResourceTypeIndex {
 public:
  template <typename T>
  static ResourceTypeIndex Make() {
    return ResourceTypeIndex(static_cast<uint64_t>(typeid(T).hash_code()),
                             typeid(T).name());
  }

  uint64_t hash_code() const { return hash_code_; }
  // The mangled name, as TensorFlow puts it in handles and messages
  // ("N9tributary3VarE").
  const char* name() const { return name_; }

 private:
  ResourceTypeIndex(uint64_t hash_code, const char* name)
      : hash_code_(hash_code), name_(name) {}

  uint64_t hash_code_;
  const char* name_;
};

// "tributary::Var" for a mangled type name; the input when it does not
// demangle.
std::string DemangleTypeName(const std::string& mangled);

// One (dtype, shape) a resource holds, e.g. a variable's declared type.
struct DtypeAndPartialTensorShape {
  DataType dtype = DT_INVALID;
  PartialTensorShape shape;
};

// A handle for a resource of C++ type `type` named container/name on
// `device_name`.
ResourceHandle MakeResourceHandle(
    const std::string& device_name, const std::string& container,
    const std::string& name, const ResourceTypeIndex& type,
    const std::vector<DtypeAndPartialTensorShape>& dtypes_and_shapes = {});

template <typename T>
ResourceHandle MakeResourceHandle(
    const std::string& device_name, const std::string& container,
    const std::string& name,
    const std::vector<DtypeAndPartialTensorShape>& dtypes_and_shapes = {}) {
  return MakeResourceHandle(device_name, container, name,
                            ResourceTypeIndex::Make<T>(), dtypes_and_shapes);
}

// InvalidArgument (TensorFlow's message) unless `handle` was made for
// resources of `type`.
absl::Status ValidateResourceType(const ResourceHandle& handle,
                                  const ResourceTypeIndex& type);
template <typename T>
absl::Status ValidateResourceType(const ResourceHandle& handle) {
  return ValidateResourceType(handle, ResourceTypeIndex::Make<T>());
}

// "ResourceHandle(name=\"w\", device=\"...\", container=\"localhost\",
// type=\"tributary::Var\")".
std::string ResourceHandleDebugString(const ResourceHandle& handle);

// A scalar DT_RESOURCE tensor holding `handle` (host memory: handles are
// metadata, never device data).
Tensor MakeResourceHandleTensor(const ResourceHandle& handle);

// The first handle of a DT_RESOURCE tensor (kernels' resource inputs are
// scalars). InvalidArgument for another dtype or an empty tensor.
absl::StatusOr<const ResourceHandle*> HandleFromTensor(const Tensor& tensor);

}  // namespace tributary

#endif  // TRIBUTARY_COMMON_RESOURCE_RESOURCE_HANDLE_H_
