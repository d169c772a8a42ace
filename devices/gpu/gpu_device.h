#ifndef TRIBUTARY_DEVICES_GPU_GPU_DEVICE_H_
#define TRIBUTARY_DEVICES_GPU_GPU_DEVICE_H_

// /device:GPU:N: a Device whose kernels enqueue work on one GPU's compute
// stream (GpuContext) instead of doing it on the calling thread.
//
//  * Compute makes the GPU's context current on the executor's thread and
//    runs the kernel, which enqueues and returns; the kernel's outputs are
//    ready for other GPU kernels at once (same stream) and for the host or
//    another device once a copy through device_context() has waited for the
//    stream.
//  * GetAllocator: device memory (the GPU's BFC allocator), or pinned host
//    memory for arguments the kernel keeps on the host (on_host()).
//  * Const values are decoded on the host and copied in
//    (MakeTensorFromProto).
//  * Host-side work a GPU kernel does (shape arithmetic) may use the Eigen
//    CPU device of the small pool the factory hands it.

#include <memory>
#include <string>

#include "common/device/device.h"
#include "devices/cpu/cpu_device.h"
#include "devices/gpu/gpu_context.h"
#include "devices/gpu/gpu_device_context.h"

namespace tributary {

class GpuDevice : public Device {
 public:
  GpuDevice(tensorflow::DeviceAttributes attributes, GpuContext* gpu,
            std::shared_ptr<CpuThreadPool> host_pool);
  ~GpuDevice() override;

  Allocator* GetAllocator(AllocatorAttributes attr) override;
  void Compute(OpKernel* op_kernel, OpKernelContext* context) override;
  void ComputeAsync(AsyncOpKernel* op_kernel, OpKernelContext* context,
                    std::function<void()> done) override;
  // Waits for the compute stream; the error a kernel hit, if any.
  absl::Status Sync() override;
  absl::Status MakeTensorFromProto(const tensorflow::TensorProto& proto,
                                   AllocatorAttributes attr,
                                   Tensor* tensor) override;
  DeviceContext* device_context() override { return &device_context_; }

  GpuContext* gpu() const { return gpu_; }
  GpuDeviceContext* gpu_device_context() { return &device_context_; }

  // The GpuDevice behind a kernel's device, or null when the kernel runs
  // elsewhere (a GPU kernel's registration makes that a programming error).
  static GpuDevice* FromDeviceBase(DeviceBase* device);

 private:
  GpuContext* const gpu_;
  const std::shared_ptr<CpuThreadPool> host_pool_;
  GpuDeviceContext device_context_;
};

}  // namespace tributary

#endif  // TRIBUTARY_DEVICES_GPU_GPU_DEVICE_H_
