#include "kernels/state/variable_update.h"

#include <cstring>
#include <string>

#include "unsupported/Eigen/CXX11/Tensor"
#include "common/kernel/device_base.h"
#include "common/framework/status.h"
#include "common/framework/types.h"

namespace tributary {
namespace {

// Below this, one memcpy on the calling thread beats waking the pool.
constexpr size_t kParallelCopyBytes = 1 << 20;

template <typename T>
void CopyElements(const Tensor& src, Tensor* dst) {
  auto from = src.flat<T>();
  auto to = dst->flat<T>();
  for (int64_t i = 0; i < from.size(); ++i) to(i) = from(i);
}

}  // namespace

absl::Status CopyTensorElements(OpKernelContext* ctx, const Tensor& src,
                                Tensor* dst) {
  if (src.dtype() != dst->dtype() || src.NumElements() != dst->NumElements()) {
    return errors::Internal("cannot copy ", src.DebugString(0), " into ",
                            dst->DebugString(0));
  }
  if (src.NumElements() == 0) return absl::OkStatus();
  switch (src.dtype()) {
    case DT_STRING:
      CopyElements<std::string>(src, dst);
      return absl::OkStatus();
    case DT_RESOURCE:
      CopyElements<ResourceHandle>(src, dst);
      return absl::OkStatus();
    default:
      break;
  }
  if (!DataTypeCanUseMemcpy(src.dtype())) {
    return errors::Unimplemented("copying ", DataTypeString(src.dtype()),
                                 " tensors");
  }
  const size_t bytes = src.TotalBytes();
  const Eigen::ThreadPoolDevice* device =
      ctx->device() == nullptr ? nullptr : ctx->device()->eigen_cpu_device();
  if (device != nullptr && bytes >= kParallelCopyBytes) {
    // Eigen splits large copies into per-thread blocks.
    device->memcpy(dst->data(), src.data(), bytes);
  } else {
    std::memcpy(dst->data(), src.data(), bytes);
  }
  return absl::OkStatus();
}

absl::Status PrepareToUpdateVariable(OpKernelContext* ctx,
                                     Tensor* var_tensor) {
  if (!var_tensor->IsInitialized() || var_tensor->RefCountIsOne()) {
    return absl::OkStatus();
  }
  Tensor copy;
  TRIB_RETURN_IF_ERROR(
      ctx->allocate_temp(var_tensor->dtype(), var_tensor->shape(), &copy));
  TRIB_RETURN_IF_ERROR(CopyTensorElements(ctx, *var_tensor, &copy));
  *var_tensor = std::move(copy);
  return absl::OkStatus();
}

}  // namespace tributary
