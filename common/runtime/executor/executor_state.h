#ifndef TRIBUTARY_COMMON_RUNTIME_EXECUTOR_EXECUTOR_STATE_H_
#define TRIBUTARY_COMMON_RUNTIME_EXECUTOR_EXECUTOR_STATE_H_

// One step of an ExecutorImpl (TensorFlow's ExecutorState): the ready
// queue, running kernels, the step status, and finishing exactly once.
//
// Parameterised by the propagator (how outputs reach consumers):
// SimplePropagatorState for graphs without control flow,
// FramePropagatorState for TF1 control flow. Created by
// ExecutorImpl::RunAsync; deletes itself when the step is done.
//
// Completion: num_outstanding_ops_ counts nodes that are ready or running.
// A node that finishes adds the nodes it made ready and subtracts itself;
// the thread that brings the count to zero finishes the step. After the
// first error no new node runs (nodes that become ready are retired without
// running), so the count drains quickly.

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>

#include "absl/base/thread_annotations.h"
#include "absl/container/inlined_vector.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "common/kernel/cancellation.h"
#include "common/kernel/op_kernel_context.h"
#include "common/kernel/tensor_value.h"
#include "common/runtime/executor/entry.h"
#include "common/runtime/executor/executor.h"
#include "common/runtime/executor/executor_impl.h"

namespace tributary {

class NodeExecStatsInterface;

template <class PropagatorStateType>
class ExecutorState {
 public:
  ExecutorState(const Executor::Args& args, ExecutorImpl* impl);
  ~ExecutorState();

  ExecutorState(const ExecutorState&) = delete;
  ExecutorState& operator=(const ExecutorState&) = delete;

  // Starts the step; `this` is deleted before `done` runs.
  void RunAsync(Executor::DoneCallback done);

 private:
  using TaggedNode = typename PropagatorStateType::TaggedNode;
  using TaggedNodeSeq = typename PropagatorStateType::TaggedNodeSeq;
  using EntryVector = absl::InlinedVector<Entry, 4>;
  struct AsyncState;

  // Ready nodes this thread will run itself, FIFO.
  class TaggedNodeReadyQueue {
   public:
    void push_back(const TaggedNode& node) { nodes_.push_back(node); }
    TaggedNode pop_front() {
      TaggedNode node = nodes_[front_++];
      if (front_ == nodes_.size()) {
        nodes_.clear();
        front_ = 0;
      }
      return node;
    }
    bool empty() const { return nodes_.empty(); }

   private:
    absl::InlinedVector<TaggedNode, 16> nodes_;
    size_t front_ = 0;
  };

  // Runs `tagged_node` and then, inline, every inexpensive node it makes
  // ready.
  void Process(TaggedNode tagged_node, int64_t scheduled_nsec);
  // Runs the nodes of `inline_ready` and those they make ready. With
  // `keep_expensive` false every expensive node that becomes ready goes to
  // the runner (RunAsync's loop on the caller's thread: the caller gets its
  // thread back after the cheap work).
  void RunLoop(TaggedNodeReadyQueue* inline_ready, int64_t scheduled_nsec,
               bool keep_expensive = true);
  // Starts an async kernel; its callback finishes the node.
  void ProcessAsync(const NodeItem& item, const OpKernelContext::Params& params,
                    const TaggedNode& tagged_node, Entry* first_input,
                    NodeExecStatsInterface* stats);
  // _Arg / _Retval against the call frame, without their kernels.
  absl::Status ProcessArgOrRetval(const NodeItem& item, Entry* first_input,
                                  EntryVector* outputs);

  // Fills `inputs` from the node's input slots (dereferencing refs the
  // kernel wants as values). Error when a ref input is uninitialised.
  absl::Status PrepareInputs(const NodeItem& item, Entry* first_input,
                             absl::InlinedVector<TensorValue, 4>* inputs,
                             bool* is_input_dead);
  // Moves the kernel's outputs into `outputs`.
  absl::Status ProcessOutputs(const NodeItem& item, OpKernelContext* ctx,
                              EntryVector* outputs,
                              NodeExecStatsInterface* stats);
  void ClearInputs(Entry* first, int32_t n);

  // Accounts for a finished node: records the first error (and aborts the
  // step), counts the newly ready nodes in and schedules them. True when
  // this was the last outstanding node.
  bool NodeDone(const absl::Status& s, TaggedNodeSeq* ready,
                NodeExecStatsInterface* stats,
                TaggedNodeReadyQueue* inline_ready,
                bool keep_expensive = true);
  // Inexpensive nodes go to `inline_ready` (when given); expensive ones to
  // the runner, keeping one for this thread when it has nothing else (and
  // `keep_expensive`).
  void ScheduleReady(TaggedNodeSeq* ready, TaggedNodeReadyQueue* inline_ready,
                     bool keep_expensive = true);
  void RunTask(std::function<void()> fn);

  // Records `s` as the step status if it is the first error; then cancels
  // the step and aborts the rendezvous so blocked ops wake up.
  void Abort(const absl::Status& s);
  // What the step's cancellation manager calls. The manager may run a
  // callback after it was deregistered (it takes callbacks out before
  // running them), so the callback reaches the step only through this
  // handle, which Finish() clears before the step is deleted.
  struct CancelHandle {
    absl::Mutex mu;
    ExecutorState* state ABSL_GUARDED_BY(mu) = nullptr;
  };
  static void OnCancel(const std::shared_ptr<CancelHandle>& handle);
  // Takes an outstanding-op reference unless the step is finishing.
  bool TryRef();

  void Finish();

  // The node named in an error: "<msg>\n\t [[{{node n}} = Op[...](...)]]".
  static absl::Status AttachDef(const absl::Status& s, const NodeItem& item);

  ExecutorImpl* const impl_;
  const int64_t step_id_;
  RendezvousInterface* const rendezvous_;
  CallFrameInterface* const call_frame_;
  CancellationManager* const cancellation_manager_;
  ResourceMgr* const resource_mgr_;
  StepStatsCollectorInterface* const stats_collector_;
  Executor::Runner runner_;
  const bool sync_on_finish_;
  const bool run_all_kernels_inline_;

  PropagatorStateType propagator_;

  Executor::DoneCallback done_cb_;
  std::atomic<int64_t> num_outstanding_ops_{0};
  // Set with the first error; nodes that become ready afterwards are
  // retired without running.
  std::atomic<bool> aborted_{false};
  CancellationToken cancel_token_ = CancellationManager::kInvalidToken;
  std::shared_ptr<CancelHandle> cancel_handle_;

  absl::Mutex mu_;
  absl::Status status_ ABSL_GUARDED_BY(mu_);
};

}  // namespace tributary

#endif  // TRIBUTARY_COMMON_RUNTIME_EXECUTOR_EXECUTOR_STATE_H_
