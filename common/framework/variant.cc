#include "common/framework/variant.h"

#include <cstdint>
#include <new>

#include "absl/strings/str_cat.h"

namespace tributary {

std::string Variant::DebugString() const {
  if (value_ == nullptr) return "Variant<empty>";
  return absl::StrCat("Variant<type: ", value_->TypeName(),
                      " value: ", value_->DebugString(), ">");
}

// Defined in tensor.cc: how a Tensor buffer constructs, destroys, copies and
// prints DT_VARIANT elements. Installed once, before main().
namespace variant_hooks {
extern size_t element_size;
extern void (*construct)(void* data, int64_t n);
extern void (*destroy)(void* data, int64_t n);
extern void (*copy)(const void* from, void* to, int64_t n);
extern std::string (*debug_string)(const void* element);
}  // namespace variant_hooks

namespace {

bool InstallTensorHooks() {
  variant_hooks::construct = [](void* data, int64_t n) {
    Variant* v = static_cast<Variant*>(data);
    for (int64_t i = 0; i < n; ++i) new (v + i) Variant();
  };
  variant_hooks::destroy = [](void* data, int64_t n) {
    Variant* v = static_cast<Variant*>(data);
    for (int64_t i = 0; i < n; ++i) v[i].~Variant();
  };
  variant_hooks::copy = [](const void* from, void* to, int64_t n) {
    const Variant* src = static_cast<const Variant*>(from);
    Variant* dst = static_cast<Variant*>(to);
    for (int64_t i = 0; i < n; ++i) dst[i] = src[i];
  };
  variant_hooks::debug_string = [](const void* element) {
    return static_cast<const Variant*>(element)->DebugString();
  };
  // Last: a non-zero size is what lets Tensor allocate DT_VARIANT buffers.
  variant_hooks::element_size = sizeof(Variant);
  return true;
}

const bool kTensorHooksInstalled = InstallTensorHooks();

}  // namespace
}  // namespace tributary
