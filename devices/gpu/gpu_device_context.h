#ifndef TRIBUTARY_DEVICES_GPU_GPU_DEVICE_CONTEXT_H_
#define TRIBUTARY_DEVICES_GPU_GPU_DEVICE_CONTEXT_H_

// Copies between a GPU's memory and the host's (DeviceContext, see
// common/kernel/device_context.h) on the GPU's copy streams:
//  * host to device: the host-to-device stream first waits for the compute
//    stream (the buffer it writes may have just been freed by a kernel still
//    queued there), copies, and the call returns when the copy is done, so
//    the source may go away and any kernel queued afterwards sees the data.
//    A large source in pageable memory (a fed tensor) is staged through two
//    8 MiB pinned buffers, memcpy into one overlapping the DMA of the other;
//  * device to host: the device-to-host stream waits for the compute stream
//    (the tensor's producer is queued there), copies into pinned host
//    memory from the GPU's host allocator, and returns when it is done.
// Both block the calling thread for the transfer and then call `done`
// inline. Strings, variants and resources cannot be copied byte for byte:
// InvalidArgument. Out of memory on either side: ResourceExhausted naming
// the size and the allocator's state.

#include <string>

#include "common/kernel/device_context.h"
#include "devices/gpu/gpu_context.h"

namespace tributary {

class GpuDeviceContext : public DeviceContext {
 public:
  // `gpu` must outlive this object (GpuContexts live for the process).
  GpuDeviceContext(GpuContext* gpu, std::string device_name);

  void CopyHostToDevice(const Tensor& host, Tensor* device_out,
                        StatusCallback done) override;
  void CopyDeviceToHost(const Tensor& device, Tensor* host_out,
                        StatusCallback done) override;
  const std::string& device_name() const override { return device_name_; }

  // The same two copies, returning their status (what the callbacks get).
  absl::Status CopyHostToDeviceSync(const Tensor& host, Tensor* device_out);
  absl::Status CopyDeviceToHostSync(const Tensor& device, Tensor* host_out);

 private:
  GpuContext* const gpu_;
  const std::string device_name_;
};

}  // namespace tributary

#endif  // TRIBUTARY_DEVICES_GPU_GPU_DEVICE_CONTEXT_H_
