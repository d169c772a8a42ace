#include "common/runtime/executor/executor_state.h"

#include <chrono>
#include <utility>

#include "absl/base/optimization.h"
#include "absl/time/clock.h"
#include "common/device/device.h"
#include "common/framework/flush_denormal.h"
#include "common/framework/logging.h"
#include "common/framework/status.h"
#include "common/kernel/op_kernel.h"
#include "common/op/node_def_util.h"
#include "common/runtime/executor/call_frame.h"
#include "common/runtime/executor/frame_propagator.h"
#include "common/runtime/executor/simple_propagator.h"
#include "common/runtime/executor/step_stats_collector.h"
#include "common/rendezvous/rendezvous.h"

namespace tributary {

namespace {

int64_t NowNanos() { return absl::GetCurrentTimeNanos(); }

uint64_t MonotonicNanos() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// What a Merge (or a transfer node running dead) sees for an input with no
// value: an empty tensor of dtype DT_INVALID, which no real value has.
// OpKernelContext has no has_input() yet, so kernels test
// `ctx->input(i).dtype() == DT_INVALID`. Shared and never written: no
// kernel can forward it (no output has dtype DT_INVALID).
Tensor* NoValueTensor() {
  static Tensor* const t = new Tensor(DT_INVALID);
  return t;
}

// What a RunLoop publishes to its thread while it runs, so an async kernel
// whose callback fires synchronously inside ComputeAsync (a _Recv whose
// value is already in the rendezvous) hands the nodes it made ready to that
// loop instead of hopping them to the runner. Type-erased because the two
// ExecutorState instantiations share the thread.
struct InlineContext {
  const void* state;  // the ExecutorState whose loop this is
  void* queue;        // its TaggedNodeReadyQueue
  bool keep_expensive;
};
thread_local InlineContext* current_inline_context = nullptr;

// Publishes a loop's context for the duration of the loop (nesting allowed:
// an inline runner may start a loop inside a loop).
class InlineScope {
 public:
  explicit InlineScope(InlineContext* ctx) : prev_(current_inline_context) {
    current_inline_context = ctx;
  }
  ~InlineScope() { current_inline_context = prev_; }
  InlineScope(const InlineScope&) = delete;
  InlineScope& operator=(const InlineScope&) = delete;

 private:
  InlineContext* const prev_;
};

// The loop this thread is running for `state`, or null.
InlineContext* CurrentInlineContext(const void* state) {
  InlineContext* ctx = current_inline_context;
  return ctx != nullptr && ctx->state == state ? ctx : nullptr;
}

}  // namespace

template <class P>
ExecutorState<P>::ExecutorState(const Executor::Args& args,
                                 ExecutorImpl* impl)
    : impl_(impl),
      step_id_(args.step_id),
      rendezvous_(args.rendezvous),
      call_frame_(args.call_frame),
      cancellation_manager_(args.cancellation_manager),
      resource_mgr_(args.resource_mgr),
      stats_collector_(args.stats_collector),
      runner_(args.runner),
      sync_on_finish_(args.sync_on_finish),
      run_all_kernels_inline_(args.run_all_kernels_inline || !args.runner),
      propagator_(impl) {
  // Kernels may offload work through ctx->runner(); without a pool that
  // work runs on the calling thread.
  if (!runner_) runner_ = [](std::function<void()> fn) { fn(); };
}

template <class P>
ExecutorState<P>::~ExecutorState() = default;

template <class P>
void ExecutorState<P>::RunAsync(Executor::DoneCallback done) {
  TaggedNodeSeq ready;
  propagator_.ActivateRoots(&ready);
  if (ready.empty()) {
    delete this;
    done(absl::OkStatus());
    return;
  }
  num_outstanding_ops_.store(static_cast<int64_t>(ready.size()),
                             std::memory_order_relaxed);
  done_cb_ = std::move(done);
  if (cancellation_manager_ != nullptr) {
    cancel_handle_ = std::make_shared<CancelHandle>();
    {
      absl::MutexLock l(&cancel_handle_->mu);
      cancel_handle_->state = this;
    }
    cancel_token_ = cancellation_manager_->get_cancellation_token();
    if (!cancellation_manager_->RegisterCallback(
            cancel_token_,
            [handle = cancel_handle_] { OnCancel(handle); })) {
      // Cancelled before the step started: run nothing.
      cancel_token_ = CancellationManager::kInvalidToken;
      Executor::DoneCallback cb = std::move(done_cb_);
      const int64_t step_id = step_id_;
      delete this;
      cb(errors::Cancelled("Step ", step_id,
                           " was cancelled before it started"));
      return;
    }
  }
  // Inexpensive roots (_Arg, Const, a _Recv of a fed value, ...) and the
  // inexpensive nodes they make ready run here, on the caller's thread:
  // handing them to the pool would cost a thread hop each for microseconds
  // of work. Expensive ones go to the runner, so the caller gets its thread
  // back after the cheap work and several partitions start side by side (a
  // caller that wants to lend its thread to the step keeps the first task
  // its runner is given, as the local session does). Everything runs here
  // when the step runs inline.
  const int64_t scheduled_nsec = stats_collector_ != nullptr ? NowNanos() : 0;
  TaggedNodeReadyQueue inline_ready;
  KernelStats* const kernel_stats = impl_->kernel_stats();
  for (const TaggedNode& n : ready) {
    if (run_all_kernels_inline_ || n.is_dead() ||
        !kernel_stats->IsExpensive(*n.node_item)) {
      inline_ready.push_back(n);
    } else {
      RunTask([this, n, scheduled_nsec]() { Process(n, scheduled_nsec); });
    }
  }
  // May finish the step (and delete `this`): nothing may follow.
  if (!inline_ready.empty()) {
    RunLoop(&inline_ready, scheduled_nsec, /*keep_expensive=*/false);
  }
}

template <class P>
void ExecutorState<P>::Process(TaggedNode tagged_node,
                               int64_t scheduled_nsec) {
  TaggedNodeReadyQueue inline_ready;
  inline_ready.push_back(tagged_node);
  RunLoop(&inline_ready, scheduled_nsec);
}

template <class P>
void ExecutorState<P>::RunLoop(TaggedNodeReadyQueue* inline_ready,
                               int64_t scheduled_nsec, bool keep_expensive) {
  InlineContext context{this, inline_ready, keep_expensive};
  InlineScope scope(&context);
  // Kernels run with denormals flushed, as TensorFlow's executor runs them;
  // restored when the loop returns (it may run on a caller's thread).
  ScopedFlushDenormal flush_denormals;
  // Reused for every node this loop runs: no allocation per node.
  TaggedNodeSeq ready;
  absl::InlinedVector<TensorValue, 4> inputs;
  EntryVector outputs;
  OpKernelContext::Params params;
  params.step_id = step_id_;
  params.device = impl_->device();
  params.rendezvous = rendezvous_;
  params.cancellation_manager = cancellation_manager_;
  params.resource_manager = resource_mgr_;
  params.memory_budget = impl_->memory_budget();
  params.file_access = impl_->file_access();
  params.stats_collector = stats_collector_;
  params.runner = &runner_;
  Device* const device = impl_->device();
  KernelStats* const kernel_stats = impl_->kernel_stats();

  while (!inline_ready->empty()) {
    const TaggedNode tagged_node = inline_ready->pop_front();
    const NodeItem& item = *tagged_node.node_item;
    Entry* const first_input = propagator_.GetInputTensors(tagged_node);
    NodeExecStatsInterface* stats = nullptr;
    absl::Status s;
    bool launched_asynchronously = false;

    if (ABSL_PREDICT_FALSE(aborted_.load(std::memory_order_relaxed))) {
      // The step already failed: retire the node without running it. The
      // status only marks it failed (the step keeps its first error).
      ClearInputs(first_input, item.num_inputs);
      s = absl::CancelledError();
    } else {
      if (stats_collector_ != nullptr) {
        stats = stats_collector_->CreateNodeExecStats(&item.kernel->def());
        stats->SetScheduled(scheduled_nsec);
        stats->RecordExecutorStarted();
      }
      if (item.is_noop) {
        // Nothing to compute (NoOp has control inputs only).
        ClearInputs(first_input, item.num_inputs);
      } else if (tagged_node.is_dead() && !item.is_transfer_node) {
        // A dead node does not run; all its outputs are dead.
        ClearInputs(first_input, item.num_inputs);
        outputs.resize(item.num_outputs);
      } else if (ABSL_PREDICT_FALSE(item.is_arg || item.is_retval)) {
        s = ProcessArgOrRetval(item, first_input, &outputs);
        ClearInputs(first_input, item.num_inputs);
      } else {
        bool is_input_dead = false;
        s = PrepareInputs(item, first_input, &inputs, &is_input_dead);
        if (s.ok()) {
          params.op_kernel = item.kernel;
          params.inputs = absl::MakeConstSpan(inputs);
          params.is_input_dead = is_input_dead;
          params.frame_iter = propagator_.GetFrameAndIter(tagged_node);
          if (item.kernel_is_async) {
            launched_asynchronously = true;
            ProcessAsync(item, params, tagged_node, first_input, stats);
          } else {
            OpKernelContext ctx(&params, item.num_outputs);
            if (stats != nullptr) stats->RecordComputeStarted();
            if (item.expensive_marker) {
              // Only kernels that claim to be expensive are timed, to
              // learn whether they really are.
              const uint64_t start = MonotonicNanos();
              device->Compute(item.kernel, &ctx);
              kernel_stats->UpdateCostEstimate(item, MonotonicNanos() - start);
            } else {
              device->Compute(item.kernel, &ctx);
            }
            if (stats != nullptr) stats->RecordComputeEnded();
            s = ProcessOutputs(item, &ctx, &outputs, stats);
          }
        }
        if (!launched_asynchronously) {
          ClearInputs(first_input, item.num_inputs);
        }
      }
    }

    if (!launched_asynchronously) {
      if (s.ok()) {
        propagator_.PropagateOutputs(tagged_node, outputs.data(), &ready);
      }
      outputs.clear();
      if (stats != nullptr) stats->RecordExecutorEnded();
      if (NodeDone(s, &ready, stats, inline_ready, keep_expensive)) {
        // Every node is done, so nothing is left in inline_ready.
        Finish();
        return;
      }
    }
  }
}

template <class P>
absl::Status ExecutorState<P>::PrepareInputs(
    const NodeItem& item, Entry* first_input,
    absl::InlinedVector<TensorValue, 4>* inputs, bool* is_input_dead) {
  inputs->resize(item.num_inputs);
  for (int32_t i = 0; i < item.num_inputs; ++i) {
    Entry* entry = first_input + i;
    TensorValue& inp = (*inputs)[i];
    switch (entry->state()) {
      case Entry::State::kHasValue:
        inp = TensorValue(entry->val());
        break;
      case Entry::State::kNoValue:
        // Only a Merge (inputs that did not arrive) and a transfer node
        // running dead (it forwards the deadness) get here.
        if (!item.is_merge && !item.is_transfer_node) {
          return AttachDef(errors::Internal("Input ", i,
                                            " has no value but the node "
                                            "is not dead"),
                           item);
        }
        if (!item.is_merge) *is_input_dead = true;
        inp = TensorValue(NoValueTensor());
        break;
      case Entry::State::kHasRef: {
        absl::Mutex* mu = entry->ref_mu();
        const bool expect_ref = IsRefType(item.input_types[i]);
        {
          absl::ReaderMutexLock l(mu);
          if (!item.is_initialization_op &&
              !entry->ref()->IsInitialized()) {
            return AttachDef(
                errors::FailedPrecondition(
                    "Attempting to use uninitialized value ",
                    item.kernel->requested_input(i)),
                item);
          }
          // A consumer that wants the value gets a snapshot sharing the
          // variable's buffer, taken under the variable's lock.
          if (!expect_ref) entry->CacheRefValue();
        }
        inp = expect_ref ? TensorValue(mu, entry->ref())
                         : TensorValue(entry->val());
        break;
      }
    }
  }
  return absl::OkStatus();
}

template <class P>
absl::Status ExecutorState<P>::ProcessOutputs(const NodeItem& item,
                                              OpKernelContext* ctx,
                                              EntryVector* outputs,
                                              NodeExecStatsInterface* stats) {
  absl::Status s = ctx->status();
  if (ABSL_PREDICT_FALSE(!s.ok())) return AttachDef(s, item);
  outputs->resize(item.num_outputs);
  for (int32_t i = 0; i < item.num_outputs; ++i) {
    const TensorValue val = ctx->release_output(i);
    if (val.tensor == nullptr) {
      if (!item.outputs_required[i]) continue;
      if (!item.is_recv_or_switch) {
        s.Update(AttachDef(
            errors::Internal("Missing ", i, "-th output from node '",
                             item.kernel->name(), "' (op '",
                             item.kernel->type_string(), "')"),
            item));
      } else if (!P::kTracksDeadness) {
        s.Update(AttachDef(
            errors::Internal("Node '", item.kernel->name(),
                             "' produced a dead tensor, but the graph was "
                             "prepared without control-flow support"),
            item));
      }
      continue;  // a dead output of a Switch / _Recv
    }
    Entry& out = (*outputs)[i];
    const DataType dtype = val.dtype();
    if (val.is_ref()) {
      out.SetRef(val.mutex_if_ref, val.tensor);
    } else {
      out.SetVal(std::move(*val.tensor));
      delete val.tensor;
    }
    if (ABSL_PREDICT_FALSE(dtype != item.output_types[i])) {
      s.Update(AttachDef(
          errors::Internal("Output ", i, " of type ", DataTypeString(dtype),
                           " does not match declared output type ",
                           DataTypeString(item.output_types[i])),
          item));
    }
    if (stats != nullptr) {
      stats->SetOutput(i, out.state() == Entry::State::kHasRef ? out.ref()
                                                              : out.val());
    }
  }
  return s;
}

template <class P>
absl::Status ExecutorState<P>::ProcessArgOrRetval(const NodeItem& item,
                                                  Entry* first_input,
                                                  EntryVector* outputs) {
  if (call_frame_ == nullptr) {
    return AttachDef(errors::Internal("No call frame for ",
                                      item.kernel->type_string(),
                                      " node: the step was started without "
                                      "Executor::Args::call_frame"),
                     item);
  }
  const int index = item.arg_index;
  if (item.is_arg) {
    outputs->resize(1);
    Tensor value;
    if (call_frame_->CanConsumeArg(index)) {
      call_frame_->ConsumeArg(index, &value);
    } else {
      const Tensor* arg = nullptr;
      absl::Status s = call_frame_->GetArg(index, &arg);
      if (!s.ok()) return AttachDef(s, item);
      value = *arg;
    }
    if (value.dtype() != item.arg_dtype) {
      return AttachDef(errors::InvalidArgument(
                           "Type mismatch: actual ",
                           DataTypeString(value.dtype()), " vs. expect ",
                           DataTypeString(item.arg_dtype)),
                       item);
    }
    (*outputs)[0].SetVal(std::move(value));
    return absl::OkStatus();
  }
  // _Retval: store the (dereferenced) input as return value `index`.
  Entry* entry = first_input;
  Tensor value;
  if (entry->state() == Entry::State::kHasRef) {
    absl::ReaderMutexLock l(entry->ref_mu());
    // A fetched variable that was never assigned has no buffer: the same
    // error as any other consumer of it gets (PrepareInputs), rather than
    // an empty tensor the caller would have to recognise.
    if (!entry->ref()->IsInitialized()) {
      return AttachDef(errors::FailedPrecondition(
                           "Attempting to use uninitialized value ",
                           item.kernel->requested_input(0)),
                       item);
    }
    value = *entry->ref();
  } else if (entry->state() == Entry::State::kHasValue) {
    value = *entry->val();
  } else {
    return AttachDef(errors::Internal("_Retval input has no value"), item);
  }
  if (value.dtype() != item.arg_dtype) {
    return AttachDef(
        errors::InvalidArgument("Type mismatch: actual ",
                                DataTypeString(value.dtype()), " vs. expect ",
                                DataTypeString(item.arg_dtype)),
        item);
  }
  absl::Status s = call_frame_->SetRetval(index, value);
  return s.ok() ? s : AttachDef(s, item);
}

// Everything an async kernel needs after ComputeAsync returned: the context
// and the inputs it points at.
template <class P>
struct ExecutorState<P>::AsyncState {
  AsyncState(const OpKernelContext::Params& p, const TaggedNode& t,
             const NodeItem* item, Entry* first_input,
             NodeExecStatsInterface* stats)
      : saved_inputs(p.inputs.begin(), p.inputs.end()),
        params(p),
        tagged_node(t),
        item(item),
        first_input(first_input),
        ctx(ParamsWithSavedInputs(), item->num_outputs),
        stats(stats) {}

  absl::InlinedVector<TensorValue, 4> saved_inputs;
  OpKernelContext::Params params;
  const TaggedNode tagged_node;
  const NodeItem* const item;
  Entry* const first_input;
  OpKernelContext ctx;
  NodeExecStatsInterface* const stats;

 private:
  OpKernelContext::Params* ParamsWithSavedInputs() {
    params.inputs = absl::MakeConstSpan(saved_inputs);
    return &params;
  }
};

template <class P>
void ExecutorState<P>::ProcessAsync(const NodeItem& item,
                                    const OpKernelContext::Params& params,
                                    const TaggedNode& tagged_node,
                                    Entry* first_input,
                                    NodeExecStatsInterface* stats) {
  AsyncOpKernel* async = item.kernel->AsAsync();
  DCHECK(async != nullptr);
  auto* state = new AsyncState(params, tagged_node, &item, first_input, stats);
  auto done = [this, state]() {
    NodeExecStatsInterface* stats = state->stats;
    if (stats != nullptr) stats->RecordComputeEnded();
    EntryVector outputs;
    const absl::Status s =
        ProcessOutputs(*state->item, &state->ctx, &outputs, stats);
    ClearInputs(state->first_input, state->item->num_inputs);
    TaggedNodeSeq ready;
    if (s.ok()) {
      propagator_.PropagateOutputs(state->tagged_node, outputs.data(), &ready);
    }
    outputs.clear();
    if (stats != nullptr) stats->RecordExecutorEnded();
    // A completion arriving later on a rendezvous or RPC thread hands what
    // became ready to the runner, so that thread returns at once; one that
    // fires synchronously inside ComputeAsync feeds this thread's running
    // loop instead (no thread hop for a value that was already there).
    InlineContext* const context = CurrentInlineContext(this);
    const bool completed =
        context != nullptr
            ? NodeDone(s, &ready, stats,
                       static_cast<TaggedNodeReadyQueue*>(context->queue),
                       context->keep_expensive)
            : NodeDone(s, &ready, stats, nullptr);
    delete state;
    if (completed) Finish();
  };
  if (stats != nullptr) stats->RecordComputeStarted();
  impl_->device()->ComputeAsync(async, &state->ctx, std::move(done));
}

template <class P>
void ExecutorState<P>::ClearInputs(Entry* first, int32_t n) {
  for (int32_t i = 0; i < n; ++i) {
    if (first[i].state() != Entry::State::kNoValue || first[i].val_is_set()) {
      first[i].Clear();
    }
  }
}

template <class P>
bool ExecutorState<P>::NodeDone(const absl::Status& s, TaggedNodeSeq* ready,
                                NodeExecStatsInterface* stats,
                                TaggedNodeReadyQueue* inline_ready,
                                bool keep_expensive) {
  if (stats != nullptr) stats->Done(impl_->device_name());
  if (ABSL_PREDICT_FALSE(!s.ok())) Abort(s);

  bool completed = false;
  const size_t ready_size = ready->size();
  if (ready_size == 0 || !s.ok()) {
    completed =
        num_outstanding_ops_.fetch_sub(1, std::memory_order_acq_rel) == 1;
  } else if (ready_size > 1) {
    // This node's own count passes to the first ready node.
    num_outstanding_ops_.fetch_add(static_cast<int64_t>(ready_size) - 1,
                                   std::memory_order_relaxed);
  }
  if (s.ok()) {
    ScheduleReady(ready, inline_ready, keep_expensive);
  } else {
    ready->clear();
  }
  return completed;
}

template <class P>
void ExecutorState<P>::ScheduleReady(TaggedNodeSeq* ready,
                                     TaggedNodeReadyQueue* inline_ready,
                                     bool keep_expensive) {
  if (ready->empty()) return;
  const int64_t scheduled_nsec =
      stats_collector_ != nullptr ? NowNanos() : 0;

  if (run_all_kernels_inline_) {
    if (inline_ready == nullptr) {
      // One closure for all of them: they run in order on one thread.
      RunTask([this, nodes = *ready, scheduled_nsec]() {
        TaggedNodeReadyQueue queue;
        for (const TaggedNode& n : nodes) queue.push_back(n);
        RunLoop(&queue, scheduled_nsec);
      });
    } else {
      for (const TaggedNode& n : *ready) inline_ready->push_back(n);
    }
    ready->clear();
    return;
  }

  if (inline_ready == nullptr) {
    for (const TaggedNode& n : *ready) {
      RunTask([this, n, scheduled_nsec]() { Process(n, scheduled_nsec); });
    }
    ready->clear();
    return;
  }

  KernelStats* const kernel_stats = impl_->kernel_stats();
  const TaggedNode* curr_expensive_node = nullptr;
  for (const TaggedNode& n : *ready) {
    if (n.is_dead() || !kernel_stats->IsExpensive(*n.node_item)) {
      inline_ready->push_back(n);
    } else {
      // More than one expensive node: all but the last go to other
      // threads.
      if (curr_expensive_node != nullptr) {
        const TaggedNode other = *curr_expensive_node;
        RunTask(
            [this, other, scheduled_nsec]() { Process(other, scheduled_nsec); });
      }
      curr_expensive_node = &n;
    }
  }
  if (curr_expensive_node != nullptr) {
    if (keep_expensive && inline_ready->empty()) {
      // Nothing else to do here: keep it, saving a thread hop.
      inline_ready->push_back(*curr_expensive_node);
    } else {
      const TaggedNode other = *curr_expensive_node;
      RunTask(
          [this, other, scheduled_nsec]() { Process(other, scheduled_nsec); });
    }
  }
  ready->clear();
}

template <class P>
void ExecutorState<P>::RunTask(std::function<void()> fn) {
  runner_(std::move(fn));
}

template <class P>
void ExecutorState<P>::Abort(const absl::Status& s) {
  {
    absl::MutexLock l(&mu_);
    if (!status_.ok()) return;  // keep the first error
    status_ = s;
  }
  aborted_.store(true, std::memory_order_release);
  // Wake everything that waits on the step's behalf: receivers in the
  // rendezvous (here and, through the shared rendezvous, in the other
  // partitions) and kernels registered with the cancellation manager.
  if (rendezvous_ != nullptr) rendezvous_->StartAbort(s);
  if (cancellation_manager_ != nullptr) cancellation_manager_->StartCancel();
}

template <class P>
bool ExecutorState<P>::TryRef() {
  int64_t n = num_outstanding_ops_.load(std::memory_order_acquire);
  do {
    if (n == 0) return false;  // Finish() is running or about to
  } while (!num_outstanding_ops_.compare_exchange_weak(
      n, n + 1, std::memory_order_acq_rel, std::memory_order_acquire));
  return true;
}

template <class P>
void ExecutorState<P>::OnCancel(const std::shared_ptr<CancelHandle>& handle) {
  ExecutorState* state;
  {
    absl::MutexLock l(&handle->mu);
    state = handle->state;
    // The reference keeps the step alive once the handle lock is released.
    if (state == nullptr || !state->TryRef()) return;
  }
  state->Abort(errors::Cancelled("Step ", state->step_id_, " was cancelled"));
  if (state->num_outstanding_ops_.fetch_sub(1, std::memory_order_acq_rel) ==
      1) {
    state->Finish();
  }
}

template <class P>
void ExecutorState<P>::Finish() {
  // The loop that may still be running on this thread (it returns without
  // touching the step) must not hand a later step at this address its queue.
  if (InlineContext* ctx = CurrentInlineContext(this)) ctx->state = nullptr;
  absl::Status status;
  {
    absl::MutexLock l(&mu_);
    status = status_;
  }
  if (cancel_handle_ != nullptr) {
    {
      absl::MutexLock l(&cancel_handle_->mu);
      cancel_handle_->state = nullptr;
    }
    // Never waits: a callback already taken out by a running StartCancel()
    // finds the handle empty.
    cancellation_manager_->TryDeregisterCallback(cancel_token_);
  }
  if (sync_on_finish_ && status.ok()) status = impl_->device()->Sync();
  if (!status.ok()) propagator_.MarkFailed();
  Executor::DoneCallback done = std::move(done_cb_);
  delete this;
  done(status);
}

template <class P>
absl::Status ExecutorState<P>::AttachDef(const absl::Status& s,
                                         const NodeItem& item) {
  return errors::AppendToMessage(s, " [[", SummarizeNodeDef(item.kernel->def()),
                                 "]]");
}

template class ExecutorState<SimplePropagatorState>;
template class ExecutorState<FramePropagatorState>;

}  // namespace tributary
