#include "devices/gpu/gpu_device_context.h"

#include <algorithm>
#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/framework/allocator.h"
#include "common/framework/status.h"
#include "common/framework/tensor.h"
#include "common/framework/types.h"

namespace tributary {
namespace {

absl::Status CheckCopyable(const Tensor& tensor, const std::string& device) {
  if (!DataTypeCanUseMemcpy(tensor.dtype())) {
    return errors::InvalidArgument(
        "a ", DataTypeString(tensor.dtype()),
        " tensor cannot be copied to or from ", device,
        ": only plain numeric types live in GPU memory");
  }
  return absl::OkStatus();
}

absl::Status AllocateLike(const Tensor& like, BFCAllocator* allocator,
                          const std::string& where, Tensor* out) {
  Tensor tensor(allocator, like.dtype(), like.shape());
  if (!tensor.IsInitialized()) {
    return errors::ResourceExhausted(
        "out of memory on ", where, " allocating ", like.TotalBytes(),
        " bytes for a ", DataTypeString(like.dtype()), " tensor of shape ",
        like.shape().DebugString(), " by allocator ", allocator->Name(), ": ",
        allocator->StateDebugString());
  }
  *out = std::move(tensor);
  return absl::OkStatus();
}

// Whether `ptr` is page-locked memory the driver knows (our pinned host
// allocator's, or any other cuMemHostAlloc'd buffer).
bool IsPinned(const CudaDriver& cu, const void* ptr) {
  unsigned int type = 0;
  return cu.cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
                                  reinterpret_cast<CUdeviceptr>(ptr)) ==
             CUDA_SUCCESS &&
         type == CU_MEMORYTYPE_HOST;
}

// Pageable sources larger than one chunk go through two pinned staging
// buffers in turn, so the host's memcpy into one overlaps the DMA out of
// the other: the driver's own path from pageable memory runs at about a
// seventh of the bus' speed (docs/benchmarks.md, "GPU").
constexpr size_t kStagingChunk = size_t{8} << 20;

absl::Status CopyInThroughStaging(GpuContext* gpu, const void* src,
                                  CUdeviceptr dst, size_t bytes,
                                  CUstream stream, bool* staged) {
  *staged = false;
  BFCAllocator* pinned = gpu->host_allocator();
  void* buffers[2] = {pinned->AllocateRaw(kAllocatorAlignment, kStagingChunk),
                      pinned->AllocateRaw(kAllocatorAlignment, kStagingChunk)};
  const CudaDriver& cu = gpu->driver();
  CUevent copied[2] = {nullptr, nullptr};
  absl::Status status;
  if (buffers[0] != nullptr && buffers[1] != nullptr) {
    for (CUevent& event : copied) {
      if (status.ok()) {
        status = CudaCall(cu, cu.cuEventCreate(&event, CU_EVENT_DISABLE_TIMING),
                          "cuEventCreate");
      }
    }
    for (size_t offset = 0, i = 0; status.ok() && offset < bytes;
         offset += kStagingChunk, ++i) {
      const int b = static_cast<int>(i % 2);
      const size_t n = std::min(kStagingChunk, bytes - offset);
      // The buffer's previous chunk must have left before it is refilled.
      if (i >= 2) {
        status = CudaCall(cu, cu.cuEventSynchronize(copied[b]),
                          "waiting for a staging buffer");
        if (!status.ok()) break;
      }
      std::memcpy(buffers[b], static_cast<const char*>(src) + offset, n);
      status = CudaCall(
          cu, cu.cuMemcpyHtoDAsync(dst + offset, buffers[b], n, stream),
          "copying a staged chunk to the GPU");
      if (status.ok()) {
        status =
            CudaCall(cu, cu.cuEventRecord(copied[b], stream), "cuEventRecord");
      }
    }
    if (status.ok()) status = gpu->SynchronizeStream(stream);
    *staged = true;
  }
  for (CUevent event : copied) {
    if (event != nullptr) cu.cuEventDestroy(event);
  }
  // Freed only after the stream has drained (or failed): a queued copy
  // may still read them otherwise.
  if (!status.ok()) gpu->SynchronizeStream(stream).IgnoreError();
  for (void* buffer : buffers) pinned->DeallocateRaw(buffer);
  return status;
}

}  // namespace

GpuDeviceContext::GpuDeviceContext(GpuContext* gpu, std::string device_name)
    : gpu_(gpu), device_name_(std::move(device_name)) {}

absl::Status GpuDeviceContext::CopyHostToDeviceSync(const Tensor& host,
                                                    Tensor* device_out) {
  TRIB_RETURN_IF_ERROR(CheckCopyable(host, device_name_));
  Tensor out;
  TRIB_RETURN_IF_ERROR(
      AllocateLike(host, gpu_->device_allocator(), device_name_, &out));
  const size_t bytes = host.TotalBytes();
  if (bytes > 0) {
    const CudaDriver& cu = gpu_->driver();
    CUstream stream = gpu_->host_to_device_stream();
    TRIB_RETURN_IF_ERROR(gpu_->Activate());
    TRIB_RETURN_IF_ERROR(
        gpu_->StreamWaitStream(stream, gpu_->compute_stream()));
    const CUdeviceptr dst = reinterpret_cast<CUdeviceptr>(out.data());
    bool staged = false;
    if (bytes > kStagingChunk && !IsPinned(cu, host.data())) {
      TRIB_RETURN_IF_ERROR(
          CopyInThroughStaging(gpu_, host.data(), dst, bytes, stream, &staged));
    }
    if (!staged) {
      TRIB_RETURN_IF_ERROR(CudaCall(
          cu, cu.cuMemcpyHtoDAsync(dst, host.data(), bytes, stream),
          absl::StrCat("copying ", bytes, " bytes to ", device_name_)));
      TRIB_RETURN_IF_ERROR(gpu_->SynchronizeStream(stream));
    }
  }
  *device_out = std::move(out);
  return absl::OkStatus();
}

absl::Status GpuDeviceContext::CopyDeviceToHostSync(const Tensor& device,
                                                    Tensor* host_out) {
  TRIB_RETURN_IF_ERROR(CheckCopyable(device, device_name_));
  Tensor out;
  TRIB_RETURN_IF_ERROR(AllocateLike(device, gpu_->host_allocator(),
                                    "the host (pinned memory)", &out));
  const size_t bytes = device.TotalBytes();
  if (bytes > 0) {
    const CudaDriver& cu = gpu_->driver();
    CUstream stream = gpu_->device_to_host_stream();
    TRIB_RETURN_IF_ERROR(gpu_->Activate());
    TRIB_RETURN_IF_ERROR(
        gpu_->StreamWaitStream(stream, gpu_->compute_stream()));
    TRIB_RETURN_IF_ERROR(CudaCall(
        cu,
        cu.cuMemcpyDtoHAsync(out.data(),
                             reinterpret_cast<CUdeviceptr>(device.data()),
                             bytes, stream),
        absl::StrCat("copying ", bytes, " bytes from ", device_name_)));
    TRIB_RETURN_IF_ERROR(gpu_->SynchronizeStream(stream));
  }
  *host_out = std::move(out);
  return absl::OkStatus();
}

void GpuDeviceContext::CopyHostToDevice(const Tensor& host, Tensor* device_out,
                                        StatusCallback done) {
  done(CopyHostToDeviceSync(host, device_out));
}

void GpuDeviceContext::CopyDeviceToHost(const Tensor& device, Tensor* host_out,
                                        StatusCallback done) {
  done(CopyDeviceToHostSync(device, host_out));
}

}  // namespace tributary
