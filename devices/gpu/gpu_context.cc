#include "devices/gpu/gpu_context.h"

#include <map>

#include "absl/strings/str_cat.h"
#include "common/framework/status.h"
#include "devices/gpu/gpu_log.h"
#include "devices/gpu/gpu_options.h"

namespace tributary {
namespace {

// Device memory from the driver. cuMemAlloc aligns to 256 bytes at least,
// which is all BFCAllocator asks for.
class DeviceMemorySubAllocator : public SubAllocator {
 public:
  DeviceMemorySubAllocator(const GpuContext* gpu) : gpu_(gpu) {}
  void* Alloc(size_t /*alignment*/, size_t num_bytes) override {
    if (!gpu_->Activate().ok()) return nullptr;
    CUdeviceptr ptr = 0;
    if (gpu_->driver().cuMemAlloc(&ptr, num_bytes) != CUDA_SUCCESS) {
      return nullptr;
    }
    return reinterpret_cast<void*>(ptr);
  }
  void Free(void* ptr, size_t /*num_bytes*/) override {
    if (!gpu_->Activate().ok()) return;
    gpu_->driver().cuMemFree(reinterpret_cast<CUdeviceptr>(ptr));
  }
  std::string Name() const override {
    return absl::StrCat("cuda_device_", gpu_->properties().ordinal);
  }

 private:
  const GpuContext* const gpu_;
};

// Page-locked host memory, usable by every context (PORTABLE), so copies
// to and from it run asynchronously at full speed. Page-aligned.
class PinnedHostSubAllocator : public SubAllocator {
 public:
  PinnedHostSubAllocator(const GpuContext* gpu) : gpu_(gpu) {}
  void* Alloc(size_t /*alignment*/, size_t num_bytes) override {
    if (!gpu_->Activate().ok()) return nullptr;
    void* ptr = nullptr;
    if (gpu_->driver().cuMemHostAlloc(
            &ptr, num_bytes, CU_MEMHOSTALLOC_PORTABLE) != CUDA_SUCCESS) {
      return nullptr;
    }
    return ptr;
  }
  void Free(void* ptr, size_t /*num_bytes*/) override {
    if (!gpu_->Activate().ok()) return;
    gpu_->driver().cuMemFreeHost(ptr);
  }
  std::string Name() const override {
    return absl::StrCat("cuda_host_", gpu_->properties().ordinal);
  }

 private:
  const GpuContext* const gpu_;
};

// Pinned memory locks host pages; TensorFlow caps it at 64 GiB by default.
constexpr size_t kPinnedHostLimit = size_t{64} << 30;

}  // namespace

absl::StatusOr<GpuProperties> ProbeGpu(const CudaDriver& cu, int ordinal) {
  GpuProperties p;
  p.ordinal = ordinal;
  CUdevice device = 0;
  TRIB_RETURN_IF_ERROR(CudaCall(cu, cu.cuDeviceGet(&device, ordinal),
                                absl::StrCat("cuDeviceGet(", ordinal, ")")));
  char name[256] = {0};
  TRIB_RETURN_IF_ERROR(
      CudaCall(cu, cu.cuDeviceGetName(name, sizeof(name) - 1, device),
               "cuDeviceGetName"));
  p.name = name;
  char bus[64] = {0};
  TRIB_RETURN_IF_ERROR(
      CudaCall(cu, cu.cuDeviceGetPCIBusId(bus, sizeof(bus) - 1, device),
               "cuDeviceGetPCIBusId"));
  p.pci_bus_id = bus;
  TRIB_RETURN_IF_ERROR(CudaCall(
      cu,
      cu.cuDeviceGetAttribute(
          &p.cc_major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device),
      "cuDeviceGetAttribute"));
  TRIB_RETURN_IF_ERROR(CudaCall(
      cu,
      cu.cuDeviceGetAttribute(
          &p.cc_minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device),
      "cuDeviceGetAttribute"));
  TRIB_RETURN_IF_ERROR(CudaCall(
      cu,
      cu.cuDeviceGetAttribute(&p.multiprocessors,
                              CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, device),
      "cuDeviceGetAttribute"));
  size_t total = 0;
  TRIB_RETURN_IF_ERROR(
      CudaCall(cu, cu.cuDeviceTotalMem(&total, device), "cuDeviceTotalMem"));
  p.total_memory = static_cast<int64_t>(total);
  return p;
}

absl::StatusOr<GpuContext*> GpuContext::Get(
    const CudaDriver* driver, int ordinal,
    const tensorflow::GPUOptions& options) {
  static absl::Mutex* const mu = new absl::Mutex();
  // Never destroyed: see the header.
  static auto* const contexts = new std::map<int, GpuContext*>();
  absl::MutexLock lock(mu);
  auto it = contexts->find(ordinal);
  if (it != contexts->end()) return it->second;
  TRIB_ASSIGN_OR_RETURN(GpuProperties properties, ProbeGpu(*driver, ordinal));
  auto context = std::unique_ptr<GpuContext>(
      new GpuContext(driver, std::move(properties)));
  TRIB_RETURN_IF_ERROR(context->Initialize(options));
  GpuContext* raw = context.release();
  (*contexts)[ordinal] = raw;
  return raw;
}

GpuContext::GpuContext(const CudaDriver* driver, GpuProperties properties)
    : driver_(driver), properties_(std::move(properties)) {}

absl::Status GpuContext::Initialize(const tensorflow::GPUOptions& options) {
  const CudaDriver& cu = *driver_;
  CUdevice device = 0;
  TRIB_RETURN_IF_ERROR(CudaCall(
      cu, cu.cuDeviceGet(&device, properties_.ordinal), "cuDeviceGet"));
  // The primary context is the one the CUDA runtime (and so cuBLAS and
  // cuDNN) uses, so their work and ours share one address space.
  TRIB_RETURN_IF_ERROR(CudaCall(cu,
                                cu.cuDevicePrimaryCtxRetain(&context_, device),
                                "cuDevicePrimaryCtxRetain"));
  TRIB_RETURN_IF_ERROR(Activate());
  for (CUstream* stream :
       {&compute_, &host_to_device_, &device_to_host_, &device_to_device_}) {
    // Non-blocking: no implicit synchronisation with the legacy default
    // stream, which cuBLAS or other libraries in the process might use.
    TRIB_RETURN_IF_ERROR(
        CudaCall(cu, cu.cuStreamCreate(stream, CU_STREAM_NON_BLOCKING),
                 "cuStreamCreate"));
  }
  size_t free_bytes = 0;
  size_t total_bytes = 0;
  TRIB_RETURN_IF_ERROR(
      CudaCall(cu, cu.cuMemGetInfo(&free_bytes, &total_bytes), "cuMemGetInfo"));
  TRIB_ASSIGN_OR_RETURN(
      memory_limit_, GpuMemoryLimit(options, static_cast<int64_t>(total_bytes),
                                    static_cast<int64_t>(free_bytes)));
  BFCAllocator::Options device_options;
  device_options.memory_limit = static_cast<size_t>(memory_limit_);
  device_options.allow_growth = options.allow_growth();
  device_options.name = absl::StrCat("GPU_", properties_.ordinal, "_bfc");
  device_allocator_ = std::make_unique<BFCAllocator>(
      std::make_unique<DeviceMemorySubAllocator>(this), device_options);
  BFCAllocator::Options host_options;
  host_options.memory_limit = kPinnedHostLimit;
  host_options.allow_growth = true;
  host_options.name = absl::StrCat("GPU_", properties_.ordinal, "_host_bfc");
  host_allocator_ = std::make_unique<BFCAllocator>(
      std::make_unique<PinnedHostSubAllocator>(this), host_options);
  GpuLog().info(
      "GPU {}: {} (compute capability {}.{}, {} multiprocessors, pci bus {}), "
      "{} of {} bytes for tensors ({})",
      properties_.ordinal, properties_.name, properties_.cc_major,
      properties_.cc_minor, properties_.multiprocessors, properties_.pci_bus_id,
      memory_limit_, total_bytes,
      options.allow_growth() ? "taken as needed" : "taken at first use");
  return absl::OkStatus();
}

absl::Status GpuContext::Activate() const {
  return CudaCall(*driver_, driver_->cuCtxSetCurrent(context_),
                  "cuCtxSetCurrent");
}

absl::Status GpuContext::StreamWaitStream(CUstream waiter,
                                          CUstream producer) const {
  if (waiter == producer) return absl::OkStatus();
  const CudaDriver& cu = *driver_;
  CUevent event = nullptr;
  TRIB_RETURN_IF_ERROR(CudaCall(
      cu, cu.cuEventCreate(&event, CU_EVENT_DISABLE_TIMING), "cuEventCreate"));
  absl::Status status =
      CudaCall(cu, cu.cuEventRecord(event, producer), "cuEventRecord");
  if (status.ok()) {
    status = CudaCall(cu, cu.cuStreamWaitEvent(waiter, event, 0),
                      "cuStreamWaitEvent");
  }
  // Destroying a recorded event is safe: the driver frees it once it has
  // fired, and the wait already holds what it needs.
  cu.cuEventDestroy(event);
  return status;
}

absl::Status GpuContext::SynchronizeStream(CUstream stream) const {
  return CudaCall(*driver_, driver_->cuStreamSynchronize(stream),
                  absl::StrCat("GPU ", properties_.ordinal,
                               ": waiting for queued kernels and copies"));
}

absl::StatusOr<CUfunction> GpuContext::GetKernel(const GpuKernelImage& image,
                                                 const char* name) {
  absl::MutexLock lock(&mu_);
  auto found = kernels_.find(std::make_pair(&image, std::string(name)));
  if (found != kernels_.end()) return found->second;
  const CudaDriver& cu = *driver_;
  CUmodule module = nullptr;
  auto loaded = modules_.find(&image);
  if (loaded != modules_.end()) {
    module = loaded->second;
  } else {
    TRIB_RETURN_IF_ERROR(Activate());
    TRIB_RETURN_IF_ERROR(
        CudaCall(cu, cu.cuModuleLoadData(&module, image.data),
                 absl::StrCat("loading GPU kernels '", image.name, "' on GPU ",
                              properties_.ordinal, " (compute capability ",
                              properties_.cc_major, ".", properties_.cc_minor,
                              "; built for 9.0 and later)")));
    modules_[&image] = module;
  }
  CUfunction function = nullptr;
  CUresult result = cu.cuModuleGetFunction(&function, module, name);
  if (result == CUDA_ERROR_NOT_FOUND) {
    return errors::NotFound("no GPU kernel '", name, "' in '", image.name, "'");
  }
  TRIB_RETURN_IF_ERROR(CudaCall(cu, result, "cuModuleGetFunction"));
  kernels_[std::make_pair(&image, std::string(name))] = function;
  return function;
}

}  // namespace tributary
