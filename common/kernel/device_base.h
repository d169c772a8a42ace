#ifndef TRIBUTARY_COMMON_KERNEL_DEVICE_BASE_H_
#define TRIBUTARY_COMMON_KERNEL_DEVICE_BASE_H_

#include <string>

#include "absl/status/status.h"
#include "common/kernel/allocator_attributes.h"

// Forward declarations keep this header light: every kernel includes it
// through OpKernelContext, and most kernels never touch Eigen's thread pool
// device or TensorProto.
namespace Eigen {
struct ThreadPoolDevice;
}  // namespace Eigen

namespace tensorflow {
class TensorProto;
}  // namespace tensorflow

namespace tributary {

class Allocator;
class DeviceContext;
class Tensor;

// The part of a device that kernels see (OpKernelContext::device()). Kept
// apart from Device (device.h) as in TensorFlow, so the kernel library can
// depend on it while Device itself may later depend on the kernel library.
class DeviceBase {
 public:
  DeviceBase() = default;
  virtual ~DeviceBase();

  DeviceBase(const DeviceBase&) = delete;
  DeviceBase& operator=(const DeviceBase&) = delete;

  // The allocator that serves memory with `attr`. The base returns
  // cpu_allocator(): host memory satisfies every attribute on a CPU-only
  // device; accelerators override this.
  virtual Allocator* GetAllocator(AllocatorAttributes attr);

  // Same as GetAllocator(AllocatorAttributes()). Non-virtual on purpose:
  // a default argument on a virtual would bind statically and could differ
  // between overrides. Subclasses override the one-argument form.
  Allocator* GetAllocator() { return GetAllocator(AllocatorAttributes()); }

  // The Eigen device kernels evaluate CPU expressions on. Owned by whoever
  // owns the thread pool behind it (the CPU device), not by DeviceBase;
  // null until set.
  void set_eigen_cpu_device(const Eigen::ThreadPoolDevice* device) {
    eigen_cpu_device_ = device;
  }
  virtual const Eigen::ThreadPoolDevice* eigen_cpu_device() const {
    return eigen_cpu_device_;
  }

  // Full device name; empty for a DeviceBase that is not a named Device
  // (e.g. a test harness). Device overrides it with attributes().name().
  virtual const std::string& name() const;

  // Decodes `proto` into `*tensor` in memory this device can use with
  // `attr`. The base decodes into GetAllocator(attr) (host memory); a GPU
  // device overrides it to copy the result to device memory.
  virtual absl::Status MakeTensorFromProto(const tensorflow::TensorProto& proto,
                                           AllocatorAttributes attr,
                                           Tensor* tensor);

  // How tensors move between this device's memory and the host's
  // (device_context.h); null for a device whose memory is host memory (the
  // CPU), which is the base's answer. Owned by the device.
  virtual DeviceContext* device_context() { return nullptr; }

 private:
  const Eigen::ThreadPoolDevice* eigen_cpu_device_ = nullptr;
};

}  // namespace tributary

#endif  // TRIBUTARY_COMMON_KERNEL_DEVICE_BASE_H_
