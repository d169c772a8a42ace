#include "kernels/testing/kernel_runner.h"

#include <algorithm>
#include <functional>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "common/framework/logging.h"
#include "common/framework/status.h"
#include "common/kernel/device_type.h"
#include "common/kernel/kernel_registry.h"

namespace tributary {
namespace test {

// ---- NodeDefBuilder ---------------------------------------------------------

NodeDefBuilder::NodeDefBuilder(absl::string_view name, absl::string_view op) {
  node_def_.set_name(std::string(name));
  node_def_.set_op(std::string(op));
}

NodeDefBuilder& NodeDefBuilder::Input(absl::string_view input) {
  node_def_.add_input(std::string(input));
  return *this;
}

NodeDefBuilder& NodeDefBuilder::Inputs(int n) {
  for (int i = 0; i < n; ++i) node_def_.add_input(absl::StrCat("in", i));
  return *this;
}

NodeDefBuilder& NodeDefBuilder::Device(absl::string_view device) {
  node_def_.set_device(std::string(device));
  return *this;
}

// ---- TestCpuDevice ----------------------------------------------------------

TestCpuDevice::TestCpuDevice(int num_threads)
    : pool_(std::make_unique<FlushingThreadPool>(std::max(1, num_threads))),
      eigen_device_(std::make_unique<Eigen::ThreadPoolDevice>(
          pool_.get(), std::max(1, num_threads))) {
  set_eigen_cpu_device(eigen_device_.get());
}

TestCpuDevice::~TestCpuDevice() {
  set_eigen_cpu_device(nullptr);
  // eigen_device_ must go before the pool it points at.
  eigen_device_.reset();
  pool_.reset();
}

Allocator* TestCpuDevice::GetAllocator(AllocatorAttributes /*attr*/) {
  // The process-wide allocator, not one of our own: tests keep output
  // tensors after the runner (and its device) are gone, and a buffer must
  // never outlive its allocator.
  return cpu_allocator();
}

// ---- KernelRunner -----------------------------------------------------------

KernelRunner::KernelRunner(int num_threads)
    : owned_device_(std::make_unique<TestCpuDevice>(num_threads)),
      device_(owned_device_.get()) {
  InitRunner();
}

KernelRunner::KernelRunner(DeviceBase* device) : device_(device) {
  InitRunner();
}

void KernelRunner::InitRunner() {
  // Async kernels offload work through Params::runner, as under the
  // executor. A pool of our own (not the device's) so a kernel that blocks
  // in a runner closure cannot starve its own Eigen work.
  runner_pool_ = std::make_unique<Eigen::ThreadPool>(2);
  Eigen::ThreadPool* pool = runner_pool_.get();
  runner_fn_ = [pool](std::function<void()> fn) {
    pool->Schedule(std::move(fn));
  };
  params_.runner = &runner_fn_;
}

KernelRunner::~KernelRunner() {
  outputs_.clear();
  kernel_.reset();
  // Joins the runner threads: closures still queued run to completion.
  runner_pool_.reset();
}

absl::Status KernelRunner::Init(const tensorflow::NodeDef& node_def,
                                int graph_def_version) {
  outputs_.clear();
  kernel_.reset();
  TRIB_ASSIGN_OR_RETURN(
      kernel_, CreateOpKernel(DeviceType(DEVICE_CPU), device_,
                              device_->GetAllocator(AllocatorAttributes()),
                              node_def, graph_def_version,
                              params_.resource_manager));
  return absl::OkStatus();
}

void KernelRunner::ClearInputs() {
  inputs_.clear();
  owned_inputs_.clear();
}

void KernelRunner::AddInput(const Tensor& tensor) {
  owned_inputs_.push_back(std::make_unique<Tensor>(tensor));
  inputs_.emplace_back(owned_inputs_.back().get());
}

void KernelRunner::AddRefInput(Tensor* tensor, absl::Mutex* mu) {
  CHECK(mu != nullptr) << "a ref input needs its mutex";
  inputs_.emplace_back(mu, tensor);
}

absl::Status KernelRunner::RunWithCurrentInputs() {
  if (kernel_ == nullptr) {
    return errors::FailedPrecondition("KernelRunner::Init was not called");
  }
  outputs_.clear();
  if (static_cast<int>(inputs_.size()) != kernel_->num_inputs()) {
    return errors::InvalidArgument(
        "node '", kernel_->name(), "' (op '", kernel_->type_string(),
        "') takes ", kernel_->num_inputs(), " inputs, the test gave ",
        inputs_.size());
  }
  params_.op_kernel = kernel_.get();
  params_.device = device_;
  params_.inputs = inputs_;

  // Heap-allocated so a timed-out async kernel can still write into it: we
  // then leak it on purpose rather than free memory a kernel may touch.
  auto ctx = std::make_unique<OpKernelContext>(&params_);
  AsyncOpKernel* async = kernel_->AsAsync();
  if (async == nullptr) {
    // As the executor runs kernels: denormals flushed (flush_denormal.h).
    ScopedFlushDenormal flush_denormals;
    kernel_->Compute(ctx.get());
  } else {
    auto done = std::make_shared<absl::Notification>();
    async->ComputeAsync(ctx.get(), [done] { done->Notify(); });
    if (!done->WaitForNotificationWithTimeout(async_timeout_)) {
      ctx.release();  // See above: the kernel may still use it.
      return errors::DeadlineExceeded(
          "async kernel '", kernel_->name(), "' did not call done within ",
          absl::FormatDuration(async_timeout_));
    }
  }
  absl::Status status = ctx->status();
  if (!status.ok()) return status;

  outputs_.resize(ctx->num_outputs());
  for (int i = 0; i < ctx->num_outputs(); ++i) {
    if (!ctx->has_output(i)) {
      outputs_.clear();
      return errors::Internal("kernel '", kernel_->name(), "' (op '",
                              kernel_->type_string(), "') left output ", i,
                              " unset");
    }
    TensorValue value = ctx->release_output(i);
    if (value.is_ref()) {
      absl::MutexLock lock(value.mutex_if_ref);
      outputs_[i].tensor = *value.tensor;
      outputs_[i].ref_mu = value.mutex_if_ref;
      outputs_[i].ref_tensor = value.tensor;
    } else {
      outputs_[i].tensor = std::move(*value.tensor);
      delete value.tensor;  // release_output hands ownership to us.
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<Tensor>> KernelRunner::Run(
    const std::vector<Tensor>& inputs) {
  ClearInputs();
  for (const Tensor& t : inputs) AddInput(t);
  TRIB_RETURN_IF_ERROR(RunWithCurrentInputs());
  return outputs();
}

std::vector<Tensor> KernelRunner::outputs() const {
  std::vector<Tensor> result;
  result.reserve(outputs_.size());
  for (const Output& o : outputs_) result.push_back(o.tensor);
  return result;
}

absl::StatusOr<std::vector<Tensor>> RunKernel(
    const tensorflow::NodeDef& node_def, const std::vector<Tensor>& inputs) {
  KernelRunner runner;
  TRIB_RETURN_IF_ERROR(runner.Init(node_def));
  return runner.Run(inputs);
}

}  // namespace test
}  // namespace tributary
