#include "common/kernel/device_base.h"

#include <utility>

#include "common/framework/allocator.h"
#include "common/kernel/device_context.h"
#include "common/framework/tensor.h"
#include "protos/tensor.pb.h"

namespace tributary {

DeviceBase::~DeviceBase() = default;

DeviceContext::~DeviceContext() = default;

Allocator* DeviceBase::GetAllocator(AllocatorAttributes /*attr*/) {
  return cpu_allocator();
}

const std::string& DeviceBase::name() const {
  // A function-local static avoids a global constructor; never destroyed,
  // so references stay valid during shutdown.
  static const std::string* const kEmpty = new std::string();
  return *kEmpty;
}

absl::Status DeviceBase::MakeTensorFromProto(
    const tensorflow::TensorProto& proto, AllocatorAttributes attr,
    Tensor* tensor) {
  absl::StatusOr<Tensor> parsed = Tensor::FromProto(proto, GetAllocator(attr));
  if (!parsed.ok()) return parsed.status();
  *tensor = std::move(parsed).value();
  return absl::OkStatus();
}

}  // namespace tributary
