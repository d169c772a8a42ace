#include "devices/gpu/gpu_device.h"

#include <utility>

#include "common/framework/status.h"
#include "common/framework/tensor.h"
#include "common/kernel/op_kernel.h"
#include "common/kernel/op_kernel_context.h"
#include "protos/tensor.pb.h"

namespace tributary {

GpuDevice::GpuDevice(tensorflow::DeviceAttributes attributes, GpuContext* gpu,
                     std::shared_ptr<CpuThreadPool> host_pool)
    : Device(std::move(attributes)),
      gpu_(gpu),
      host_pool_(std::move(host_pool)),
      device_context_(gpu, name()) {
  set_eigen_cpu_device(host_pool_->eigen_device());
}

GpuDevice::~GpuDevice() = default;

Allocator* GpuDevice::GetAllocator(AllocatorAttributes attr) {
  if (attr.on_host()) return gpu_->host_allocator();
  return gpu_->device_allocator();
}

void GpuDevice::Compute(OpKernel* op_kernel, OpKernelContext* context) {
  absl::Status active = gpu_->Activate();
  if (!active.ok()) {
    context->SetStatus(active);
    return;
  }
  op_kernel->Compute(context);
}

void GpuDevice::ComputeAsync(AsyncOpKernel* op_kernel, OpKernelContext* context,
                             std::function<void()> done) {
  absl::Status active = gpu_->Activate();
  if (!active.ok()) {
    context->SetStatus(active);
    done();
    return;
  }
  op_kernel->ComputeAsync(context, std::move(done));
}

absl::Status GpuDevice::Sync() {
  TRIB_RETURN_IF_ERROR(gpu_->Activate());
  return gpu_->SynchronizeStream(gpu_->compute_stream());
}

absl::Status GpuDevice::MakeTensorFromProto(
    const tensorflow::TensorProto& proto, AllocatorAttributes attr,
    Tensor* tensor) {
  AllocatorAttributes host_attr;
  host_attr.set_on_host(true);
  Tensor host;
  TRIB_RETURN_IF_ERROR(Device::MakeTensorFromProto(proto, host_attr, &host));
  if (attr.on_host()) {
    *tensor = std::move(host);
    return absl::OkStatus();
  }
  return device_context_.CopyHostToDeviceSync(host, tensor);
}

GpuDevice* GpuDevice::FromDeviceBase(DeviceBase* device) {
  return dynamic_cast<GpuDevice*>(device);
}

}  // namespace tributary
