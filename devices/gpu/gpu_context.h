#ifndef TRIBUTARY_DEVICES_GPU_GPU_CONTEXT_H_
#define TRIBUTARY_DEVICES_GPU_GPU_CONTEXT_H_

// Everything this process holds for one GPU: its CUDA (primary) context,
// its four streams, its memory allocators and its loaded kernel modules.
// One per CUDA ordinal, created on first use and never destroyed, because
// tensors outlive devices (a fetched result, a variable) and free their
// memory through the allocator; sessions and workers that create a
// /device:GPU:N for the same GPU share it, as TensorFlow's GPU devices
// share their streams and allocators (GPUProcessState).
//
// Streams, as the design documents describe:
//  * compute: every kernel of the GPU, in the order the executor runs them,
//    so a kernel sees its inputs without further synchronisation;
//  * host_to_device, device_to_host, device_to_device: copies, each of which
//    first waits (with an event) for the work queued on the compute stream,
//    so a copy out sees its producer, and a copy in never overwrites memory
//    a queued kernel still reads (the allocator reuses freed memory at once).
// The compute stream waits for a copy in before anything queued after it.
//
// Memory: a BFC allocator over cuMemAlloc for device memory, limited by the
// GPU options (gpu_options.h) of the first user; a BFC allocator over
// pinned host memory (cuMemHostAlloc, portable) for staging copies.

#include <cstdint>
#include <memory>
#include <string>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "cuda.h"
#include "devices/gpu/bfc_allocator.h"
#include "devices/gpu/cuda_driver.h"
#include "devices/gpu/gpu_kernel_image.h"
#include "protos/config.pb.h"

namespace tributary {

// What the driver reports about one GPU, read without creating a context.
struct GpuProperties {
  int ordinal = 0;         // CUDA's number, after CUDA_VISIBLE_DEVICES
  std::string name;        // "NVIDIA H100 80GB HBM3"
  std::string pci_bus_id;  // "0000:19:00.0"
  int cc_major = 0;        // compute capability
  int cc_minor = 0;
  int multiprocessors = 0;
  int64_t total_memory = 0;  // bytes
};

absl::StatusOr<GpuProperties> ProbeGpu(const CudaDriver& driver, int ordinal);

class GpuContext {
 public:
  // The context of GPU `ordinal`, created on the first call with `options`
  // (its memory limit and growth policy are then fixed for the process, as
  // in TensorFlow; a later caller's different options are logged and not
  // applied). Errors: the driver's (no such GPU, out of memory).
  static absl::StatusOr<GpuContext*> Get(const CudaDriver* driver, int ordinal,
                                         const tensorflow::GPUOptions& options);

  GpuContext(const GpuContext&) = delete;
  GpuContext& operator=(const GpuContext&) = delete;

  const CudaDriver& driver() const { return *driver_; }
  const GpuProperties& properties() const { return properties_; }
  int64_t memory_limit() const { return memory_limit_; }

  // Makes this GPU's context current on the calling thread. Every thread
  // that calls the driver for this GPU does so first (kernels run on the
  // executor's threads; GpuDevice::Compute calls it for them).
  absl::Status Activate() const;

  CUstream compute_stream() const { return compute_; }
  CUstream host_to_device_stream() const { return host_to_device_; }
  CUstream device_to_host_stream() const { return device_to_host_; }
  CUstream device_to_device_stream() const { return device_to_device_; }

  BFCAllocator* device_allocator() const { return device_allocator_.get(); }
  BFCAllocator* host_allocator() const { return host_allocator_.get(); }

  // Makes `waiter` wait for everything queued on `producer` so far, without
  // blocking the host. The context must be current.
  absl::Status StreamWaitStream(CUstream waiter, CUstream producer) const;

  // Blocks until everything queued on `stream` so far has run; the error a
  // kernel or copy hit, if any. The context must be current.
  absl::Status SynchronizeStream(CUstream stream) const;

  // Kernel `name` of `image`, loading the image into this context on first
  // use. FailedPrecondition when the image has no code for this GPU (an
  // older chip than sm_90), NotFound for an unknown kernel name.
  absl::StatusOr<CUfunction> GetKernel(const GpuKernelImage& image,
                                       const char* name);

 private:
  GpuContext(const CudaDriver* driver, GpuProperties properties);
  absl::Status Initialize(const tensorflow::GPUOptions& options);

  const CudaDriver* const driver_;
  const GpuProperties properties_;
  CUcontext context_ = nullptr;
  CUstream compute_ = nullptr;
  CUstream host_to_device_ = nullptr;
  CUstream device_to_host_ = nullptr;
  CUstream device_to_device_ = nullptr;
  int64_t memory_limit_ = 0;
  std::unique_ptr<BFCAllocator> device_allocator_;
  std::unique_ptr<BFCAllocator> host_allocator_;

  absl::Mutex mu_;
  absl::flat_hash_map<const GpuKernelImage*, CUmodule> modules_
      ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<std::pair<const GpuKernelImage*, std::string>, CUfunction>
      kernels_ ABSL_GUARDED_BY(mu_);
};

}  // namespace tributary

#endif  // TRIBUTARY_DEVICES_GPU_GPU_CONTEXT_H_
