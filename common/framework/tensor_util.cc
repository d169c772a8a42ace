#include "common/framework/tensor_util.h"

#include <cstring>

namespace tributary {
// Installed by variant.cc (see tensor.cc).
namespace variant_hooks {
extern void (*copy)(const void* from, void* to, int64_t n);
}  // namespace variant_hooks

namespace tensor {
namespace {

// Strings, handles and variants are C++ objects owning heap memory: copied
// element by element, never with memcpy.
template <typename T>
void CopyElements(const Tensor& from, Tensor* to) {
  const T* src = static_cast<const T*>(from.data());
  T* dst = static_cast<T*>(to->data());
  for (int64_t i = 0; i < from.NumElements(); ++i) dst[i] = src[i];
}

}  // namespace

Tensor DeepCopy(const Tensor& other, Allocator* allocator) {
  if (!other.IsInitialized()) return Tensor(other.dtype());
  Tensor copy(allocator, other.dtype(), other.shape());
  if (!copy.IsInitialized() || other.NumElements() == 0) return copy;
  if (other.dtype() == DT_STRING) {
    CopyElements<std::string>(other, &copy);
  } else if (other.dtype() == DT_RESOURCE) {
    CopyElements<ResourceHandle>(other, &copy);
  } else if (other.dtype() == DT_VARIANT) {
    variant_hooks::copy(other.data(), copy.data(), other.NumElements());
  } else {
    const absl::string_view bytes = other.tensor_data();
    std::memcpy(copy.data(), bytes.data(), bytes.size());
  }
  return copy;
}

}  // namespace tensor
}  // namespace tributary
