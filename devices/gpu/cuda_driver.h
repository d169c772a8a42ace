#ifndef TRIBUTARY_DEVICES_GPU_CUDA_DRIVER_H_
#define TRIBUTARY_DEVICES_GPU_CUDA_DRIVER_H_

// The CUDA driver API, opened at run time. Tributary links no CUDA library:
// CudaDriver::Get() dlopens libcuda.so.1 (the driver's own library, present
// wherever an NVIDIA driver is installed), resolves the functions below and
// calls cuInit. On a host without a driver or without a GPU it returns an
// error and the GPU device factory creates no devices, so one binary serves
// hosts with and without GPUs (TensorFlow's stream executor does the same).
//
//   TRIB_ASSIGN_OR_RETURN(const CudaDriver* cu, CudaDriver::Get());
//   TRIB_RETURN_IF_ERROR(
//       CudaCall(*cu, cu->cuCtxSetCurrent(ctx), "cuCtxSetCurrent"));
//
// Each member is the function of the same name in <cuda.h>. cuda.h maps
// some names to versioned symbols (cuMemAlloc is cuMemAlloc_v2); the member
// and the symbol looked up follow the same mapping, so callers write the
// plain name and get the current ABI.

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "cuda.h"

namespace tributary {

// X-macro of the driver functions we use. Adding one here is all it takes.
#define TRIB_CUDA_DRIVER_FUNCTIONS(X) \
  X(cuInit)                           \
  X(cuDriverGetVersion)               \
  X(cuGetErrorName)                   \
  X(cuGetErrorString)                 \
  X(cuDeviceGetCount)                 \
  X(cuDeviceGet)                      \
  X(cuDeviceGetName)                  \
  X(cuDeviceTotalMem)                 \
  X(cuDeviceGetAttribute)             \
  X(cuDeviceGetPCIBusId)              \
  X(cuDevicePrimaryCtxRetain)         \
  X(cuDevicePrimaryCtxRelease)        \
  X(cuCtxSetCurrent)                  \
  X(cuMemGetInfo)                     \
  X(cuMemAlloc)                       \
  X(cuMemFree)                        \
  X(cuMemHostAlloc)                   \
  X(cuMemFreeHost)                    \
  X(cuMemcpyHtoDAsync)                \
  X(cuMemcpyDtoHAsync)                \
  X(cuMemcpyDtoDAsync)                \
  X(cuMemsetD8Async)                  \
  X(cuPointerGetAttribute)            \
  X(cuStreamCreate)                   \
  X(cuStreamDestroy)                  \
  X(cuStreamSynchronize)              \
  X(cuStreamWaitEvent)                \
  X(cuEventCreate)                    \
  X(cuEventDestroy)                   \
  X(cuEventRecord)                    \
  X(cuEventSynchronize)               \
  X(cuEventQuery)                     \
  X(cuEventElapsedTime)               \
  X(cuModuleLoadData)                 \
  X(cuModuleUnload)                   \
  X(cuModuleGetFunction)              \
  X(cuLaunchKernel)

class CudaDriver {
 public:
  // The process-wide driver, loaded and initialised on the first call and
  // kept for the life of the process. FailedPrecondition when libcuda.so.1
  // cannot be opened or lacks a function we need; the error cuInit returns
  // otherwise (CUDA_ERROR_NO_DEVICE on a host with a driver and no GPU).
  // The result of the first call is remembered.
  static absl::StatusOr<const CudaDriver*> Get();

#define TRIB_CUDA_DRIVER_MEMBER(fn) decltype(&::fn) fn = nullptr;
  TRIB_CUDA_DRIVER_FUNCTIONS(TRIB_CUDA_DRIVER_MEMBER)
#undef TRIB_CUDA_DRIVER_MEMBER

  // The driver's CUDA version, e.g. 13000 for 13.0.
  int version() const { return version_; }

 private:
  CudaDriver() = default;
  int version_ = 0;
};

// OK for CUDA_SUCCESS; otherwise a Status whose code follows the error
// (out of memory -> RESOURCE_EXHAUSTED, no device or driver ->
// FAILED_PRECONDITION, invalid arguments -> INVALID_ARGUMENT, the rest
// INTERNAL) and whose message names `what` and the driver's own name and
// text for the error: "cuMemAlloc(1024 bytes): CUDA_ERROR_OUT_OF_MEMORY
// (out of memory)".
absl::Status CudaCall(const CudaDriver& driver, CUresult result,
                      absl::string_view what);

}  // namespace tributary

#endif  // TRIBUTARY_DEVICES_GPU_CUDA_DRIVER_H_
