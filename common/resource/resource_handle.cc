#include "common/resource/resource_handle.h"

#include <cxxabi.h>

#include <cstdlib>

#include "absl/strings/str_cat.h"
#include "common/framework/status.h"

namespace tributary {

std::string DemangleTypeName(const std::string& mangled) {
  int status = 0;
  char* demangled =
      abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status);
  if (status != 0 || demangled == nullptr) {
    std::free(demangled);
    return mangled;
  }
  std::string result(demangled);
  std::free(demangled);
  return result;
}

ResourceHandle MakeResourceHandle(
    const std::string& device_name, const std::string& container,
    const std::string& name, const ResourceTypeIndex& type,
    const std::vector<DtypeAndPartialTensorShape>& dtypes_and_shapes) {
  ResourceHandle handle;
  handle.set_device(device_name);
  handle.set_container(container);
  handle.set_name(name);
  handle.set_hash_code(type.hash_code());
  handle.set_maybe_type_name(type.name());
  for (const DtypeAndPartialTensorShape& ds : dtypes_and_shapes) {
    auto* entry = handle.add_dtypes_and_shapes();
    entry->set_dtype(ds.dtype);
    ds.shape.AsProto(entry->mutable_shape());
  }
  return handle;
}

absl::Status ValidateResourceType(const ResourceHandle& handle,
                                  const ResourceTypeIndex& type) {
  if (type.hash_code() == handle.hash_code()) return absl::OkStatus();
  return errors::InvalidArgument(
      "Trying to access a handle's resource using the wrong type. The handle "
      "points to a resource (name '",
      handle.name(), "') of type '", DemangleTypeName(handle.maybe_type_name()),
      "' (hash code ", handle.hash_code(),
      ") but you tried to access the resource as type '",
      DemangleTypeName(type.name()), "' (hash code ", type.hash_code(), ")");
}

std::string ResourceHandleDebugString(const ResourceHandle& handle) {
  return absl::StrCat("ResourceHandle(name=\"", handle.name(), "\", device=\"",
                      handle.device(), "\", container=\"", handle.container(),
                      "\", type=\"", DemangleTypeName(handle.maybe_type_name()),
                      "\")");
}

Tensor MakeResourceHandleTensor(const ResourceHandle& handle) {
  Tensor tensor(DT_RESOURCE, TensorShape());
  tensor.scalar<ResourceHandle>()() = handle;
  return tensor;
}

absl::StatusOr<const ResourceHandle*> HandleFromTensor(const Tensor& tensor) {
  if (tensor.dtype() != DT_RESOURCE) {
    return errors::InvalidArgument("expected a resource handle, got a ",
                                   DataTypeString(tensor.dtype()), " tensor");
  }
  if (tensor.NumElements() == 0 || tensor.data() == nullptr) {
    return errors::InvalidArgument("Empty resource handle");
  }
  return &tensor.flat<ResourceHandle>()(0);
}

}  // namespace tributary
