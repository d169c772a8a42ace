#ifndef TRIBUTARY_KERNELS_TESTING_KERNEL_RUNNER_H_
#define TRIBUTARY_KERNELS_TESTING_KERNEL_RUNNER_H_

// Runs one kernel in isolation, for kernel unit tests and the TensorFlow
// oracle binary (run_kernel_cases). No executor, no graph: a NodeDef, a CPU
// DeviceBase with a real Eigen::ThreadPoolDevice (so kernels exercise their
// intra-op parallel paths), inputs in signature order, and back come the
// outputs or the kernel's Status.
//
//   test::KernelRunner runner;
//   ASSERT_OK(runner.Init(test::NodeDefBuilder("add", "AddV2")
//                             .Input("x").Input("y")
//                             .Attr("T", DT_FLOAT).Build()));
//   absl::StatusOr<std::vector<Tensor>> out =
//       runner.Run({test::AsTensor<float>({1, 2}), test::AsScalar<float>(3)});
//
// Ref inputs (Assign's `ref: Ref(T)`): AddRefInput(&tensor, &mu) then
// RunWithCurrentInputs(); the kernel sees the caller's tensor and mutex, so
// writes through the ref are visible to the caller afterwards.
//
// Thread-safety: one Run at a time per runner.

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "unsupported/Eigen/CXX11/Tensor"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "common/kernel/device_base.h"
#include "common/framework/allocator.h"
#include "common/framework/flush_denormal.h"
#include "common/framework/tensor.h"
#include "common/kernel/cancellation.h"
#include "common/kernel/op_kernel.h"
#include "common/kernel/tensor_value.h"
#include "common/op/node_def_util.h"
#include "protos/node_def.pb.h"

namespace tributary {
namespace test {

// A small fluent NodeDef builder for tests (attrs take anything
// AddNodeAttr/SetAttrValue accepts).
class NodeDefBuilder {
 public:
  NodeDefBuilder(absl::string_view name, absl::string_view op);

  // One data input named `input` ("x", "x:1"); the runner ignores the
  // names, but the NodeDef must list as many inputs as the signature has.
  NodeDefBuilder& Input(absl::string_view input);
  // `n` inputs named in0..in{n-1}.
  NodeDefBuilder& Inputs(int n);
  template <typename T>
  NodeDefBuilder& Attr(absl::string_view name, T&& value) {
    AddNodeAttr(name, std::forward<T>(value), &node_def_);
    return *this;
  }
  NodeDefBuilder& Attr(absl::string_view name,
                       std::initializer_list<int64_t> value) {
    AddNodeAttr(name, value, &node_def_);
    return *this;
  }
  NodeDefBuilder& Device(absl::string_view device);

  const tensorflow::NodeDef& Build() const { return node_def_; }

 private:
  tensorflow::NodeDef node_def_;
};

// A DeviceBase for tests: host memory from cpu_allocator() and an
// Eigen::ThreadPoolDevice over `num_threads` threads it owns.
class TestCpuDevice : public DeviceBase {
 public:
  explicit TestCpuDevice(int num_threads = 4);
  ~TestCpuDevice() override;

  Allocator* GetAllocator(AllocatorAttributes attr) override;
  const std::string& name() const override { return name_; }
  Eigen::ThreadPoolInterface* thread_pool() const { return pool_.get(); }

 private:
  // Its threads flush denormals, as the runtime's CPU device pool does.
  using FlushingThreadPool = Eigen::ThreadPoolTempl<
      FlushDenormalThreadEnvironment<Eigen::StlThreadEnvironment>>;
  const std::string name_ = "/job:localhost/replica:0/task:0/device:CPU:0";
  std::unique_ptr<FlushingThreadPool> pool_;
  std::unique_ptr<Eigen::ThreadPoolDevice> eigen_device_;
};

class KernelRunner {
 public:
  // Runs kernels on its own TestCpuDevice.
  explicit KernelRunner(int num_threads = 4);
  // Runs kernels on `device` (not owned; must have an Eigen CPU device for
  // kernels that use Eigen).
  explicit KernelRunner(DeviceBase* device);
  ~KernelRunner();

  KernelRunner(const KernelRunner&) = delete;
  KernelRunner& operator=(const KernelRunner&) = delete;

  // Builds the kernel for `node_def` on DEVICE_CPU (op lookup, attr
  // defaults, kernel selection, constructor). Construction errors come back
  // here, exactly as graph setup would see them. May be called again to
  // switch to another node.
  absl::Status Init(const tensorflow::NodeDef& node_def,
                    int graph_def_version = 1);
  OpKernel* kernel() const { return kernel_.get(); }
  DeviceBase* device() const { return device_; }

  // ---- Environment for the next runs (all optional, not owned) ----
  // Set these before Init when the kernel's constructor needs them (the
  // resource manager is passed to construction too).
  void set_step_id(int64_t step_id) { params_.step_id = step_id; }
  void set_rendezvous(RendezvousInterface* r) { params_.rendezvous = r; }
  void set_resource_manager(ResourceMgr* rm) {
    params_.resource_manager = rm;
  }
  void set_cancellation_manager(CancellationManager* cm) {
    params_.cancellation_manager = cm;
  }
  void set_frame_iter(FrameAndIter frame_iter) {
    params_.frame_iter = frame_iter;
  }
  void set_stats_collector(StepStatsCollectorInterface* c) {
    params_.stats_collector = c;
  }
  // The session limits the executor would pass (docs/limits.md).
  void set_memory_budget(MemoryBudget* b) { params_.memory_budget = b; }
  void set_file_access(const FileAccessPolicy* p) { params_.file_access = p; }
  // How long Run waits for an async kernel's done (default 60 s).
  void set_async_timeout(absl::Duration timeout) { async_timeout_ = timeout; }

  // ---- Inputs for RunWithCurrentInputs ----
  void ClearInputs();
  // A non-ref input (the runner keeps a copy sharing the buffer).
  void AddInput(const Tensor& tensor);
  // A ref input: the kernel reads and writes `*tensor` under `*mu`.
  void AddRefInput(Tensor* tensor, absl::Mutex* mu);

  // Runs the kernel once on the current inputs (Compute, or ComputeAsync
  // waited for). Returns the kernel's status; on OK the outputs are
  // available below until the next run.
  absl::Status RunWithCurrentInputs();
  // ClearInputs + AddInput(each) + RunWithCurrentInputs, returning every
  // output (ref outputs as tensors sharing the referenced buffer).
  absl::StatusOr<std::vector<Tensor>> Run(const std::vector<Tensor>& inputs);

  // ---- Outputs of the last successful run ----
  int num_outputs() const { return static_cast<int>(outputs_.size()); }
  // Output `i` (a ref output: the referenced tensor's current value).
  const Tensor& output(int i) const { return outputs_[i].tensor; }
  std::vector<Tensor> outputs() const;
  bool output_is_ref(int i) const { return outputs_[i].ref_mu != nullptr; }
  // For a ref output: the referenced tensor and its mutex, to feed another
  // kernel's ref input (e.g. VariableV2 -> Assign).
  Tensor* output_ref_tensor(int i) const { return outputs_[i].ref_tensor; }
  absl::Mutex* output_ref_mutex(int i) const { return outputs_[i].ref_mu; }

 private:
  struct Output {
    Tensor tensor;
    absl::Mutex* ref_mu = nullptr;
    Tensor* ref_tensor = nullptr;
  };

  void InitRunner();

  std::unique_ptr<TestCpuDevice> owned_device_;
  DeviceBase* device_;
  // Declared after the device: destroyed (joined) before it.
  std::unique_ptr<Eigen::ThreadPool> runner_pool_;
  std::unique_ptr<OpKernel> kernel_;
  OpKernelContext::Params params_;
  OpKernelContext::Runner runner_fn_;
  absl::Duration async_timeout_ = absl::Seconds(60);

  // Non-ref inputs are owned here; the TensorValues point into this deque-
  // like storage (unique_ptr keeps addresses stable as inputs are added).
  std::vector<std::unique_ptr<Tensor>> owned_inputs_;
  std::vector<TensorValue> inputs_;
  std::vector<Output> outputs_;
};

// One-shot: builds `node_def`'s kernel on a fresh runner and runs it.
absl::StatusOr<std::vector<Tensor>> RunKernel(
    const tensorflow::NodeDef& node_def, const std::vector<Tensor>& inputs);

}  // namespace test
}  // namespace tributary

#endif  // TRIBUTARY_KERNELS_TESTING_KERNEL_RUNNER_H_
