#include "common/runtime/session/local_session.h"

#include <utility>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "common/framework/status.h"
#include "common/runtime/executor/call_frame.h"
#include "common/runtime/executor/step_stats_collector.h"
#include "common/rendezvous/intra_process_rendezvous.h"
#include "common/rendezvous/rendezvous.h"
#include "common/resource/step_container.h"
#include "common/runtime/executor/executor_barrier.h"
#include "common/device/device_factory.h"

namespace tributary {
namespace {

// Shared by every session in the process, as TensorFlow's counter is, so a
// step id also identifies a step across sessions (rendezvous tables, logs).
std::atomic<int64_t> next_step_id{1};


// While Run starts a step's executors, the task their runner is first given
// on Run's own thread (see RunStep). Only that thread reads or writes it
// then: launching_step is thread-local.
struct StepLauncher {
  std::function<void()> first_task;
};
thread_local StepLauncher* launching_step = nullptr;

// Everything a step's executors may still touch when Run's frame has gone:
// executors report to the barrier from pool threads, and the last report
// can come after Run has been woken.
struct RunState {
  RunState(CancellationManager* session_cm, DataTypeSlice feed_types,
           DataTypeSlice fetch_types)
      : cancellation_manager(session_cm), call_frame(feed_types, fetch_types) {}

  IntraProcessRendezvous rendezvous;
  // A child of the session's: Close() cancels every step.
  CancellationManager cancellation_manager;
  FunctionCallFrame call_frame;
  std::unique_ptr<ExecutorBarrier> barrier;
  StepLauncher launcher;
  absl::Notification executors_done;
  absl::Status status;  // Written before executors_done is notified.
};

// Rendezvous convention: offers each feed under its client-terminated key
// before the step starts (Send never blocks), as a worker's RunGraph does
// with the request's `send` tensors.
absl::Status SendFeeds(const NamedTensorList& inputs,
                       const ExecutorsAndKeys& executors,
                       RendezvousInterface* rendezvous) {
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Tensor& value = inputs[i].second;
    if (value.dtype() != executors.feed_types[i]) {
      return errors::InvalidArgument("Expects arg[", i, "] to be ",
                                     DataTypeString(executors.feed_types[i]),
                                     " but ", DataTypeString(value.dtype()),
                                     " is provided");
    }
    TRIB_RETURN_IF_ERROR(rendezvous->Send(executors.feed_keys[i],
                                          RendezvousInterface::Args(), value,
                                          /*is_dead=*/false));
  }
  return absl::OkStatus();
}

// Rendezvous convention: after a successful step every fetch's _Send has
// run, so each receive completes at once, on this thread; one that does not
// is a bug, reported rather than waited for.
absl::Status ReceiveFetches(const ExecutorsAndKeys& executors,
                            RendezvousInterface* rendezvous,
                            std::vector<Tensor>* outputs) {
  outputs->resize(executors.fetch_keys.size());
  for (size_t j = 0; j < executors.fetch_keys.size(); ++j) {
    bool done = false;
    absl::Status status;
    bool is_dead = false;
    Tensor* out = &(*outputs)[j];
    rendezvous->RecvAsync(
        executors.fetch_keys[j], RendezvousInterface::Args(),
        [&](const absl::Status& s, const RendezvousInterface::Args&,
            const RendezvousInterface::Args&, const Tensor& value, bool dead) {
          status = s;
          is_dead = dead;
          if (s.ok() && !dead) *out = value;
          done = true;
        });
    if (!done) {
      // Aborting runs the pending callback now, while what it writes to
      // still exists.
      const absl::Status missing = errors::Internal(
          "Fetch ", executors.fetch_names[j], " was not produced by the step");
      rendezvous->StartAbort(missing);
      return missing;
    }
    TRIB_RETURN_IF_ERROR(status);
    if (is_dead) {
      return errors::InvalidArgument("The tensor returned for ",
                                     executors.fetch_names[j],
                                     " was not valid.");
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::unique_ptr<LocalSession>> LocalSession::New(
    const tensorflow::ConfigProto& config, const LocalSessionOptions& options) {
  std::vector<std::unique_ptr<Device>> devices;
  TRIB_RETURN_IF_ERROR(
      DeviceFactory::AddDevices(config, kDevicePrefix, &devices));
  TRIB_ASSIGN_OR_RETURN(std::unique_ptr<DeviceMgr> device_mgr,
                        DeviceMgr::Create(std::move(devices)));
  std::unique_ptr<LocalSession> session(
      new LocalSession(config, options, std::move(device_mgr)));
  TRIB_RETURN_IF_ERROR(session->Init());
  return session;
}

LocalSession::LocalSession(const tensorflow::ConfigProto& config,
                           const LocalSessionOptions& options,
                           std::unique_ptr<DeviceMgr> device_mgr)
    : config_(config),
      options_(options),
      device_mgr_(std::move(device_mgr)),
      new_name_(MakeNodeNameGenerator()) {}

absl::Status LocalSession::Init() {
  // The first device (CPU:0: AddDevices lists CPUs first) is the client
  // device, where feeds enter and fetches leave.
  TRIB_RETURN_IF_ERROR(device_set_.AddDevices(device_mgr_->ListDevices()));
  const int inter_op = config_.inter_op_parallelism_threads();
  if (config_.session_inter_op_thread_pool_size() > 0) {
    for (const auto& pool : config_.session_inter_op_thread_pool()) {
      const int n = pool.num_threads() != 0 ? pool.num_threads() : inter_op;
      thread_pools_.push_back(n < 0 ? nullptr
                                    : std::make_unique<InterOpThreadPool>(n));
    }
  } else {
    // Negative: every step runs on the thread that called Run.
    thread_pools_.push_back(
        inter_op < 0 ? nullptr : std::make_unique<InterOpThreadPool>(inter_op));
  }
  return absl::OkStatus();
}

LocalSession::~LocalSession() {
  Close().IgnoreError();
  // Joins pool threads that may still be returning from a step's last
  // callback before the devices they ran on go away.
  thread_pools_.clear();
}

absl::Status LocalSession::Create(const tensorflow::GraphDef& graph) {
  if (graph.node_size() == 0) return absl::OkStatus();
  absl::MutexLock gl(&graph_mu_);
  {
    absl::MutexLock l(&mu_);
    if (closed_) return errors::Cancelled("Session has been closed.");
    if (execution_state_ != nullptr) {
      return errors::AlreadyExists(
          "A Graph has already been created for this session.");
    }
  }
  return ExtendLocked(graph);
}

absl::Status LocalSession::Extend(const tensorflow::GraphDef& graph) {
  absl::MutexLock gl(&graph_mu_);
  {
    absl::MutexLock l(&mu_);
    if (closed_) return errors::Cancelled("Session has been closed.");
  }
  return ExtendLocked(graph);
}

absl::Status LocalSession::ExtendLocked(const tensorflow::GraphDef& graph) {
  std::shared_ptr<const GraphExecutionState> current;
  {
    absl::MutexLock l(&mu_);
    current = execution_state_;
  }
  std::unique_ptr<GraphExecutionState> next;
  if (current == nullptr) {
    GraphExecutionStateOptions options;
    options.devices = &device_set_;
    options.placer_options.allow_soft_placement =
        config_.allow_soft_placement();
    options.placer_options.default_device = device_set_.client_device()->name();
    options.place_pruned_graph = config_.graph_options().place_pruned_graph();
    options.optimizer = std::make_shared<const GraphOptimizer>(
        config_.graph_options().rewrite_options());
    TRIB_ASSIGN_OR_RETURN(next, GraphExecutionState::Create(graph, options));
  } else {
    TRIB_ASSIGN_OR_RETURN(next, current->Extend(graph));
  }
  // Executors already built stay valid: Extend only adds nodes, and stateful
  // nodes keep their devices.
  absl::MutexLock l(&mu_);
  execution_state_ = std::move(next);
  return absl::OkStatus();
}

absl::StatusOr<std::vector<tensorflow::DeviceAttributes>>
LocalSession::ListDevices() {
  {
    absl::MutexLock l(&mu_);
    if (closed_) return errors::Cancelled("Session has been closed.");
  }
  return device_mgr_->ListDeviceAttributes();
}

absl::Status LocalSession::Close() {
  {
    absl::MutexLock l(&mu_);
    if (closed_) return absl::OkStatus();
    closed_ = true;
  }
  // Wakes every running step (blocked receives, kernels that honour
  // cancellation); their Runs then return and the count drops to zero.
  cancellation_manager_.StartCancel();
  absl::flat_hash_map<std::string, std::shared_ptr<ExecutorsAndKeys>> dead;
  {
    absl::MutexLock l(&mu_);
    mu_.Await(absl::Condition(
        +[](int* n) { return *n == 0; }, &in_flight_runs_));
    dead.swap(executors_);
    execution_state_.reset();
  }
  dead.clear();  // Kernels go before the resources they may reference.
  resource_mgr_.Clear();
  return absl::OkStatus();
}

void LocalSession::EndRun() {
  absl::MutexLock l(&mu_);
  --in_flight_runs_;
}

absl::StatusOr<std::shared_ptr<ExecutorsAndKeys>>
LocalSession::GetOrCreateExecutors(
    const std::shared_ptr<const GraphExecutionState>& state,
    const StepSignature& signature) {
  const std::string key = SignatureKey(signature);
  {
    absl::MutexLock l(&mu_);
    auto it = executors_.find(key);
    if (it != executors_.end()) return it->second;
  }
  absl::MutexLock bl(&build_mu_);
  {
    absl::MutexLock l(&mu_);
    auto it = executors_.find(key);
    if (it != executors_.end()) return it->second;
  }
  BuildExecutorsOptions options;
  options.state = state.get();
  options.device_mgr = device_mgr_.get();
  options.device_set = &device_set_;
  options.resource_mgr = &resource_mgr_;
  options.new_name = new_name_;
  options.use_call_frame = !options_.feed_fetch_through_rendezvous;
  TRIB_ASSIGN_OR_RETURN(std::unique_ptr<ExecutorsAndKeys> built,
                        BuildExecutorsAndKeys(options, signature));
  num_executor_builds_.fetch_add(1, std::memory_order_relaxed);
  std::shared_ptr<ExecutorsAndKeys> shared = std::move(built);
  absl::MutexLock l(&mu_);
  executors_.emplace(key, shared);
  return shared;
}

absl::Status LocalSession::Run(
    const tensorflow::RunOptions& run_options, const NamedTensorList& inputs,
    const std::vector<std::string>& output_tensor_names,
    const std::vector<std::string>& target_node_names,
    std::vector<Tensor>* outputs, tensorflow::RunMetadata* run_metadata) {
  std::shared_ptr<const GraphExecutionState> state;
  {
    absl::MutexLock l(&mu_);
    if (closed_) return errors::Cancelled("Session has been closed.");
    if (execution_state_ == nullptr) {
      return errors::InvalidArgument(
          "Session was not created with a graph before Run()!");
    }
    state = execution_state_;
    ++in_flight_runs_;
  }
  absl::Cleanup end_run = [this] { EndRun(); };

  StepSignature signature;
  signature.feeds.reserve(inputs.size());
  for (const auto& [name, value] : inputs) signature.feeds.push_back(name);
  signature.fetches = output_tensor_names;
  signature.targets = target_node_names;
  TRIB_ASSIGN_OR_RETURN(std::shared_ptr<ExecutorsAndKeys> executors,
                        GetOrCreateExecutors(state, signature));
  return RunStep(run_options, inputs, executors.get(), outputs, run_metadata);
}

absl::Status LocalSession::RunStep(const tensorflow::RunOptions& run_options,
                                   const NamedTensorList& inputs,
                                   ExecutorsAndKeys* executors,
                                   std::vector<Tensor>* outputs,
                                   tensorflow::RunMetadata* run_metadata) {
  const int pool_index = run_options.inter_op_thread_pool();
  if (pool_index < -1 || pool_index >= static_cast<int>(thread_pools_.size())) {
    return errors::InvalidArgument("Invalid inter_op_thread_pool: ",
                                   pool_index);
  }
  InterOpThreadPool* pool =
      pool_index < 0 ? nullptr : thread_pools_[pool_index].get();
  executors->step_count.fetch_add(1, std::memory_order_relaxed);

  auto run_state = std::make_shared<RunState>(
      &cancellation_manager_, executors->feed_types, executors->fetch_types);
  if (executors->use_call_frame) {
    std::vector<Tensor> feed_values;
    feed_values.reserve(inputs.size());
    for (const auto& [name, value] : inputs) feed_values.push_back(value);
    absl::Status s = run_state->call_frame.SetArgs(feed_values);
    if (!s.ok()) return errors::InvalidArgument(s.message());
  } else {
    TRIB_RETURN_IF_ERROR(SendFeeds(inputs, *executors, &run_state->rendezvous));
  }

  std::unique_ptr<StepStatsCollector> collector;
  if (run_options.trace_level() > tensorflow::RunOptions::NO_TRACE &&
      run_metadata != nullptr) {
    collector = std::make_unique<StepStatsCollector>(
        run_metadata->mutable_step_stats());
  }

  const int64_t timeout_ms = run_options.timeout_in_ms() > 0
                                 ? run_options.timeout_in_ms()
                                 : config_.operation_timeout_in_ms();
  const absl::Time deadline = timeout_ms > 0
                                  ? absl::Now() + absl::Milliseconds(timeout_ms)
                                  : absl::InfiniteFuture();
  // Without a timeout this thread takes part in the step (see
  // StepLauncher); with one it must stay free to watch the clock.
  StepLauncher* launcher =
      pool != nullptr && timeout_ms <= 0 ? &run_state->launcher : nullptr;

  Executor::Args args;
  args.step_id = next_step_id.fetch_add(1, std::memory_order_relaxed);
  // The step's own resources (TensorArrays, stacks), dropped when Run
  // returns, which is after every partition has finished.
  ScopedStepContainer step_container(args.step_id, &resource_mgr_);
  args.step_container = &step_container;
  args.rendezvous = &run_state->rendezvous;
  args.call_frame =
      executors->use_call_frame ? &run_state->call_frame : nullptr;
  args.cancellation_manager = &run_state->cancellation_manager;
  args.resource_mgr = &resource_mgr_;
  args.stats_collector = collector.get();
  args.sync_on_finish = true;
  if (pool != nullptr) {
    args.runner = [pool, launcher](std::function<void()> fn) {
      if (launcher != nullptr && launching_step == launcher &&
          !launcher->first_task) {
        launcher->first_task = std::move(fn);
        return;
      }
      pool->Schedule(std::move(fn));
    };
  } else {
    args.run_all_kernels_inline = true;
  }

  const size_t n = executors->items.size();
  RunState* rs = run_state.get();
  run_state->barrier = std::make_unique<ExecutorBarrier>(
      static_cast<int>(n), &run_state->rendezvous,
      // Holds the run state until the last partition has reported.
      [run_state](const absl::Status& s) {
        run_state->status = s;
        run_state->executors_done.Notify();
      });
  auto report = [rs](const absl::Status& s) { rs->barrier->Report(s); };
  // Starting an executor only hands its root nodes to the runner, so every
  // partition starts from here. The first task handed over while they start
  // is kept for this thread, which would otherwise only wait: a step with
  // one partition then runs without a thread hop (TensorFlow runs such a
  // step synchronously on the caller's thread for the same reason), and the
  // other partitions' roots are already on the pool when it begins.
  launching_step = launcher;
  for (size_t i = 0; i < n; ++i) {
    executors->items[i].executor->RunAsync(args, report);
  }
  launching_step = nullptr;
  if (n == 0) run_state->barrier->Report(absl::OkStatus());
  if (launcher != nullptr && launcher->first_task) {
    std::function<void()> task = std::move(launcher->first_task);
    task();
  }

  bool timed_out = false;
  if (timeout_ms > 0) {
    if (!run_state->executors_done.WaitForNotificationWithDeadline(deadline)) {
      timed_out = true;
      // Every partition must unwind before the step's state may go: the
      // cancellation wakes cancellable kernels, the abort every _Recv.
      const absl::Status deadline = errors::DeadlineExceeded(
          "Step ", args.step_id, " did not finish within ", timeout_ms,
          " ms (RunOptions.timeout_in_ms / "
          "ConfigProto.operation_timeout_in_ms) and was cancelled");
      run_state->cancellation_manager.StartCancel();
      run_state->rendezvous.StartAbort(deadline);
    }
  }
  run_state->executors_done.WaitForNotification();

  if (collector != nullptr) collector->Finalize();
  if (run_metadata != nullptr && run_options.output_partition_graphs()) {
    for (const PartitionExecutor& item : executors->items) {
      *run_metadata->add_partition_graphs() = item.graph_def;
    }
  }

  absl::Status status = run_state->status;
  if (timed_out && !status.ok()) {
    return errors::DeadlineExceeded(
        "Timed out waiting for the step to finish: ", timeout_ms,
        " ms (RunOptions.timeout_in_ms / ConfigProto.operation_timeout_in_ms) "
        "passed and the step was cancelled");
  }
  if (!status.ok()) {
    if (cancellation_manager_.IsCancelled() ||
        cancellation_manager_.IsCancelling()) {
      return errors::Cancelled("Run call was cancelled: ", status.message());
    }
    return status;
  }

  if (outputs != nullptr) {
    outputs->clear();
    if (executors->use_call_frame) {
      absl::Status s = run_state->call_frame.ConsumeRetvals(
          outputs, /*allow_dead_tensors=*/false);
      if (absl::IsInternal(s)) return errors::InvalidArgument(s.message());
      TRIB_RETURN_IF_ERROR(s);
    } else {
      TRIB_RETURN_IF_ERROR(
          ReceiveFetches(*executors, &run_state->rendezvous, outputs));
    }
    // A fetched reference (a VariableV2's output) that was never assigned
    // has no buffer; TensorFlow refuses to read it, and so do we.
    for (size_t i = 0; i < outputs->size(); ++i) {
      const Tensor& t = (*outputs)[i];
      if (!t.IsInitialized()) {
        return errors::FailedPrecondition(
            "Attempting to use uninitialized value ",
            i < executors->fetch_names.size() ? executors->fetch_names[i]
                                              : absl::StrCat("fetch ", i));
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace tributary
