#include "common/resource/resource_lookup.h"

#include "common/kernel/device_base.h"

namespace tributary {

absl::StatusOr<const ResourceHandle*> HandleFromInput(OpKernelContext* ctx,
                                                      int input) {
  if (ctx->input_dtype(input) != DT_RESOURCE) {
    return errors::InvalidArgument("input ", input, " of node '",
                                   ctx->op_kernel().name(),
                                   "' is not a resource handle but ",
                                   DataTypeString(ctx->input_dtype(input)));
  }
  return HandleFromTensor(ctx->input(input));
}

absl::StatusOr<ResourceMgr*> GetResourceManager(OpKernelContext* ctx) {
  if (ctx->resource_manager() == nullptr) {
    return errors::FailedPrecondition(
        "node '", ctx->op_kernel().name(), "' (op '",
        ctx->op_kernel().type_string(),
        "') needs a resource manager, but the runtime provided none");
  }
  return ctx->resource_manager();
}

const std::string& DeviceNameForHandles(const DeviceBase* device) {
  static const std::string* const kNoDevice = new std::string();
  return device == nullptr ? *kNoDevice : device->name();
}

absl::Status ValidateDevice(OpKernelContext* ctx,
                            const ResourceHandle& handle) {
  const std::string& here = DeviceNameForHandles(ctx->device());
  if (here != handle.device()) {
    return errors::InvalidArgument("Trying to access resource ", handle.name(),
                                   " located in device ", handle.device(),
                                   " from device ", here);
  }
  return absl::OkStatus();
}

absl::Status DeleteResource(OpKernelContext* ctx,
                            const ResourceHandle& handle) {
  TRIB_RETURN_IF_ERROR(ValidateDevice(ctx, handle));
  TRIB_ASSIGN_OR_RETURN(ResourceMgr * rm, GetResourceManager(ctx));
  return rm->Delete(handle);
}

}  // namespace tributary
