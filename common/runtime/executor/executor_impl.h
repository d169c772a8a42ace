#ifndef TRIBUTARY_COMMON_RUNTIME_EXECUTOR_EXECUTOR_IMPL_H_
#define TRIBUTARY_COMMON_RUNTIME_EXECUTOR_EXECUTOR_IMPL_H_

// The local executor's immutable half (TensorFlow's ImmutableExecutorState):
// one NodeItem per node in flat arrays, the frames of TF1 loops, the root
// nodes, kernel cost estimates, and a pool of per-step buffers so that a
// steady stream of steps allocates nothing per node.
//
// Internal to common/runtime/executor; users see executor.h.

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "common/runtime/executor/entry.h"
#include "common/runtime/executor/executor.h"
#include "common/runtime/executor/graph_view.h"
#include "common/runtime/executor/kernel_stats.h"
#include "common/runtime/executor/node_item.h"

namespace tributary {

class ExecutorImpl : public Executor {
 public:
  explicit ExecutorImpl(const LocalExecutorParams& params);
  ~ExecutorImpl() override;

  ExecutorImpl(const ExecutorImpl&) = delete;
  ExecutorImpl& operator=(const ExecutorImpl&) = delete;

  // Builds kernels and items from `view`. Called once, before any step.
  absl::Status Initialize(const GraphView& view);

  void RunAsync(const Args& args, DoneCallback done) override;

  // ---- For the per-step state ----
  Device* device() const { return params_.device; }
  MemoryBudget* memory_budget() const { return params_.memory_budget; }
  const FileAccessPolicy* file_access() const { return params_.file_access; }
  const std::string& device_name() const { return device_name_; }
  const NodeItem& item(int32_t id) const { return items_[id]; }
  int32_t num_items() const { return static_cast<int32_t>(items_.size()); }
  const FrameInfo& frame(int32_t index) const { return frames_[index]; }
  const std::vector<int32_t>& root_nodes() const { return root_nodes_; }
  bool requires_control_flow() const { return requires_control_flow_; }
  KernelStats* kernel_stats() const { return &kernel_stats_; }

  // Pending counters and input slots of one step of a graph without
  // control flow (the root frame only). Reused across steps: acquiring
  // resets the counters; the step must leave every Entry cleared (a failed
  // step calls ClearInputs() first).
  struct SimpleStepBuffers {
    std::unique_ptr<std::atomic<int32_t>[]> pending;
    std::unique_ptr<Entry[]> inputs;
    void ClearInputs(int32_t n) {
      for (int32_t i = 0; i < n; ++i) inputs[i].Clear();
    }
  };
  std::unique_ptr<SimpleStepBuffers> AcquireSimpleBuffers();
  void ReleaseSimpleBuffers(std::unique_ptr<SimpleStepBuffers> buffers);

 private:
  // Creates the kernels; fills the per-node fields that come from them.
  absl::Status CreateKernels(const GraphView& view);
  // Frames, pending counts, input slots, edges.
  absl::Status BuildItems(const GraphView& view);

  LocalExecutorParams params_;
  std::string device_name_;
  bool requires_control_flow_ = false;

  std::vector<NodeItem> items_;
  // Backing storage the items point into; sized before being filled, so
  // the pointers stay valid.
  std::vector<EdgeInfo> edges_;
  std::vector<int32_t> control_edges_;
  std::vector<DataType> types_;
  std::unique_ptr<bool[]> outputs_required_;

  std::vector<FrameInfo> frames_;  // [0] is the root frame
  std::vector<int32_t> root_nodes_;
  mutable KernelStats kernel_stats_;

  absl::Mutex pool_mu_;
  std::vector<std::unique_ptr<SimpleStepBuffers>> buffer_pool_
      ABSL_GUARDED_BY(pool_mu_);
};

}  // namespace tributary

#endif  // TRIBUTARY_COMMON_RUNTIME_EXECUTOR_EXECUTOR_IMPL_H_
