#include "devices/gpu/cuda_driver.h"

#include <dlfcn.h>

#include "absl/strings/str_cat.h"
#include "common/framework/status.h"

namespace tributary {
namespace {

// Expands `fn` first, so cuMemAlloc becomes "cuMemAlloc_v2" as cuda.h
// intends, then quotes it.
#define TRIB_CUDA_QUOTE(x) #x
#define TRIB_CUDA_SYMBOL(fn) TRIB_CUDA_QUOTE(fn)

absl::StatusOr<const CudaDriver*> LoadDriver(CudaDriver* driver) {
  // RTLD_LOCAL: the driver's symbols stay out of the global namespace, so
  // nothing else in the process binds to them by accident.
  void* library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) {
    const char* why = dlerror();
    return errors::FailedPrecondition(
        "no CUDA driver: libcuda.so.1 could not be opened (",
        why ? why : "unknown reason", ")");
  }
#define TRIB_CUDA_RESOLVE(fn)                                           \
  driver->fn = reinterpret_cast<decltype(driver->fn)>(                  \
      dlsym(library, TRIB_CUDA_SYMBOL(fn)));                            \
  if (driver->fn == nullptr) {                                          \
    return errors::FailedPrecondition(                                  \
        "the CUDA driver in libcuda.so.1 lacks ", TRIB_CUDA_SYMBOL(fn), \
        ": it is older than CUDA 12; update the NVIDIA driver");        \
  }
  TRIB_CUDA_DRIVER_FUNCTIONS(TRIB_CUDA_RESOLVE)
#undef TRIB_CUDA_RESOLVE
  TRIB_RETURN_IF_ERROR(CudaCall(*driver, driver->cuInit(0), "cuInit"));
  return driver;
}

}  // namespace

absl::StatusOr<const CudaDriver*> CudaDriver::Get() {
  static const absl::StatusOr<const CudaDriver*>* const loaded = [] {
    auto* driver = new CudaDriver();  // never freed: the process's driver
    auto* result = new absl::StatusOr<const CudaDriver*>(LoadDriver(driver));
    if (result->ok()) {
      int version = 0;
      if (driver->cuDriverGetVersion(&version) == CUDA_SUCCESS) {
        driver->version_ = version;
      }
    }
    return result;
  }();
  return *loaded;
}

absl::Status CudaCall(const CudaDriver& driver, CUresult result,
                      absl::string_view what) {
  if (result == CUDA_SUCCESS) return absl::OkStatus();
  const char* name = nullptr;
  const char* text = nullptr;
  if (driver.cuGetErrorName == nullptr ||
      driver.cuGetErrorName(result, &name) != CUDA_SUCCESS) {
    name = nullptr;
  }
  if (driver.cuGetErrorString == nullptr ||
      driver.cuGetErrorString(result, &text) != CUDA_SUCCESS) {
    text = nullptr;
  }
  std::string message =
      absl::StrCat(what, ": ", name ? name : "CUDA error ",
                   name ? "" : absl::StrCat(static_cast<int>(result)),
                   text ? absl::StrCat(" (", text, ")") : "");
  switch (result) {
    case CUDA_ERROR_OUT_OF_MEMORY:
      return absl::ResourceExhaustedError(message);
    case CUDA_ERROR_NO_DEVICE:
    case CUDA_ERROR_NOT_INITIALIZED:
    case CUDA_ERROR_DEINITIALIZED:
    case CUDA_ERROR_NO_BINARY_FOR_GPU:
    case CUDA_ERROR_UNSUPPORTED_PTX_VERSION:
      return absl::FailedPreconditionError(message);
    case CUDA_ERROR_INVALID_VALUE:
    case CUDA_ERROR_INVALID_DEVICE:
      return absl::InvalidArgumentError(message);
    default:
      return absl::InternalError(message);
  }
}

}  // namespace tributary
