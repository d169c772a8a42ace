#ifndef TRIBUTARY_COMMON_RESOURCE_RESOURCE_LOOKUP_H_
#define TRIBUTARY_COMMON_RESOURCE_RESOURCE_LOOKUP_H_

// Kernel-side access to resources through a DT_RESOURCE handle input:
// the handle is checked against the kernel's device and the expected C++
// type, then resolved in the context's ResourceMgr (TensorFlow's
// LookupResource / LookupOrCreateResource / DeleteResource).

#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/framework/status.h"
#include "common/kernel/op_kernel.h"
#include "common/resource/resource_base.h"
#include "common/resource/resource_handle.h"
#include "common/resource/resource_mgr.h"

namespace tributary {

// The handle carried by resource input `input`. InvalidArgument for an
// empty or non-resource input.
absl::StatusOr<const ResourceHandle*> HandleFromInput(OpKernelContext* ctx,
                                                      int input);

// The context's ResourceMgr; FailedPrecondition naming the node when the
// runtime supplied none (a kernel run outside a session).
absl::StatusOr<ResourceMgr*> GetResourceManager(OpKernelContext* ctx);

// InvalidArgument when `handle` names another device than the kernel's:
// each device has its own ResourceMgr, so the resource could not be there.
absl::Status ValidateDevice(OpKernelContext* ctx, const ResourceHandle& handle);

// Full name of the kernel's device ("" without one); handles made by
// kernels record it.
const std::string& DeviceNameForHandles(const DeviceBase* device);

// A handle of type T on the kernel's device.
template <typename T>
ResourceHandle MakeResourceHandle(
    OpKernelContext* ctx, const std::string& container,
    const std::string& name,
    const std::vector<DtypeAndPartialTensorShape>& dtypes_and_shapes = {}) {
  return MakeResourceHandle<T>(DeviceNameForHandles(ctx->device()), container,
                               name, dtypes_and_shapes);
}

// *value gets a new reference to the resource `handle` names.
template <typename T>
absl::Status LookupResource(OpKernelContext* ctx, const ResourceHandle& handle,
                            RefCountPtr<T>* value) {
  TRIB_RETURN_IF_ERROR(ValidateDevice(ctx, handle));
  TRIB_RETURN_IF_ERROR(ValidateResourceType<T>(handle));
  TRIB_ASSIGN_OR_RETURN(ResourceMgr * rm, GetResourceManager(ctx));
  return rm->Lookup<T>(handle.container(), handle.name(), value);
}

// Lookup, or create with `creator` (which runs under the manager's lock and
// must not use it).
template <typename T>
absl::Status LookupOrCreateResource(
    OpKernelContext* ctx, const ResourceHandle& handle, RefCountPtr<T>* value,
    const std::function<absl::Status(T**)>& creator) {
  TRIB_RETURN_IF_ERROR(ValidateDevice(ctx, handle));
  TRIB_RETURN_IF_ERROR(ValidateResourceType<T>(handle));
  TRIB_ASSIGN_OR_RETURN(ResourceMgr * rm, GetResourceManager(ctx));
  T* raw = nullptr;
  TRIB_RETURN_IF_ERROR(
      rm->LookupOrCreate<T>(handle.container(), handle.name(), &raw, creator));
  value->reset(raw);
  return absl::OkStatus();
}

// Stores `value` (taking over the caller's reference, even on error) under
// `handle`.
template <typename T>
absl::Status CreateResource(OpKernelContext* ctx, const ResourceHandle& handle,
                            T* value) {
  absl::Status status = ValidateDevice(ctx, handle);
  if (status.ok()) status = ValidateResourceType<T>(handle);
  absl::StatusOr<ResourceMgr*> rm = GetResourceManager(ctx);
  if (status.ok()) status = rm.status();
  if (!status.ok()) {
    value->Unref();
    return status;
  }
  return (*rm)->Create<T>(handle.container(), handle.name(), value);
}

// Removes the resource `handle` names, whatever its type.
absl::Status DeleteResource(OpKernelContext* ctx, const ResourceHandle& handle);

}  // namespace tributary

#endif  // TRIBUTARY_COMMON_RESOURCE_RESOURCE_LOOKUP_H_
