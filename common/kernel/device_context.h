#ifndef TRIBUTARY_COMMON_KERNEL_DEVICE_CONTEXT_H_
#define TRIBUTARY_COMMON_KERNEL_DEVICE_CONTEXT_H_

// How a device with memory of its own (a GPU) moves tensors between that
// memory and the host's. A CPU device has none (DeviceBase::device_context()
// is null): host memory needs no copy. The same-process rendezvous copy
// (common/rendezvous/intra_process_rendezvous.h) and the worker's
// RecvTensor use it, with the context of the device that owns the device
// memory, and the kernels that send and receive put it in the rendezvous'
// Args (TensorFlow's DeviceContext plays the same part).
//
// Ordering: a copy out of device memory starts after all the work the
// device had queued when the copy was asked for (the producer of the
// tensor included); a copy into device memory is complete before any work
// the device queues after `done` has run. Both may block the calling thread
// until the transfer is done.

#include <functional>
#include <string>

#include "absl/status/status.h"

namespace tributary {

class Tensor;

class DeviceContext {
 public:
  using StatusCallback = std::function<void(const absl::Status&)>;

  virtual ~DeviceContext();

  // Fills *device_out with a new tensor in the device's memory holding a
  // copy of `host` (same dtype and shape), then calls `done` exactly once.
  // RESOURCE_EXHAUSTED when the device is out of memory; INVALID_ARGUMENT
  // for a dtype that cannot be copied byte for byte (strings, variants).
  virtual void CopyHostToDevice(const Tensor& host, Tensor* device_out,
                                StatusCallback done) = 0;

  // Fills *host_out with a new tensor in host memory holding a copy of
  // `device` (which lives in this device's memory), then calls `done`
  // exactly once.
  virtual void CopyDeviceToHost(const Tensor& device, Tensor* host_out,
                                StatusCallback done) = 0;

  // The device's full name, for error messages.
  virtual const std::string& device_name() const = 0;
};

}  // namespace tributary

#endif  // TRIBUTARY_COMMON_KERNEL_DEVICE_CONTEXT_H_
