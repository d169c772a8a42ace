#include "devices/cpu/cpu_device.h"

#include <sched.h>

#include <thread>
#include <utility>

#ifndef EIGEN_USE_THREADS
#define EIGEN_USE_THREADS
#endif
#include "unsupported/Eigen/CXX11/Tensor"

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "common/framework/flush_denormal.h"
#include "common/framework/logging.h"
#include "common/framework/status.h"
#include "common/framework/tensor.h"
#include "protos/tensor.pb.h"

namespace tributary {

// The intra-op pool's threads flush denormals, as TensorFlow's do.
struct CpuThreadPool::Pool {
  explicit Pool(int n) : pool(n) {}
  Eigen::ThreadPoolTempl<
      FlushDenormalThreadEnvironment<Eigen::StlThreadEnvironment>>
      pool;
};

int CpuThreadPool::DefaultNumThreads() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) == 0) {
    const int n = CPU_COUNT(&set);
    if (n > 0) return n;
  }
  const unsigned n = std::thread::hardware_concurrency();
  return n > 0 ? static_cast<int>(n) : 1;
}

CpuThreadPool::CpuThreadPool(int num_threads)
    : num_threads_(num_threads > 0 ? num_threads : DefaultNumThreads()),
      pool_(std::make_unique<Pool>(num_threads_)),
      device_(std::make_unique<Eigen::ThreadPoolDevice>(&pool_->pool,
                                                         num_threads_)) {}

// The Eigen device refers to the pool: destroy it first. Destroying the pool
// joins its threads.
CpuThreadPool::~CpuThreadPool() {
  device_.reset();
  pool_.reset();
}

Eigen::ThreadPoolInterface* CpuThreadPool::pool() const { return &pool_->pool; }

Allocator* CpuDeviceAllocator(const std::string& device_name) {
  static absl::Mutex* const mu = new absl::Mutex();
  // Never destroyed, nor are the allocators (see the header).
  static auto* const allocators =
      new absl::flat_hash_map<std::string, Allocator*>();
  absl::MutexLock lock(mu);
  Allocator*& allocator = (*allocators)[device_name];
  if (allocator == nullptr) allocator = NewCPUAllocator().release();
  return allocator;
}

CpuDevice::CpuDevice(tensorflow::DeviceAttributes attributes,
                     Allocator* allocator,
                     std::shared_ptr<CpuThreadPool> thread_pool)
    : Device(std::move(attributes)),
      allocator_(allocator),
      thread_pool_(std::move(thread_pool)) {
  CHECK(allocator_ != nullptr) << "CPU device " << name() << " needs an allocator";
  CHECK(thread_pool_ != nullptr) << "CPU device " << name()
                                 << " needs a thread pool";
  set_eigen_cpu_device(thread_pool_->eigen_device());
}

CpuDevice::~CpuDevice() = default;

std::unique_ptr<CpuDevice> CpuDevice::Create(
    const std::string& full_name, std::shared_ptr<CpuThreadPool> thread_pool) {
  if (thread_pool == nullptr) {
    thread_pool = std::make_shared<CpuThreadPool>(0);
  }
  return std::make_unique<CpuDevice>(
      BuildDeviceAttributes(full_name, "CPU", kDefaultMemoryLimit,
                            /*physical_device_desc=*/""),
      CpuDeviceAllocator(full_name), std::move(thread_pool));
}

Allocator* CpuDevice::GetAllocator(AllocatorAttributes /*attr*/) {
  return allocator_;
}

absl::Status CpuDevice::MakeTensorFromProto(
    const tensorflow::TensorProto& proto, AllocatorAttributes attr,
    Tensor* tensor) {
  absl::StatusOr<Tensor> parsed = Tensor::FromProto(proto, GetAllocator(attr));
  if (!parsed.ok()) {
    return errors::InvalidArgument("Cannot parse tensor from proto on ",
                                   name(), ": ", parsed.status().message());
  }
  *tensor = std::move(parsed).value();
  return absl::OkStatus();
}

}  // namespace tributary
