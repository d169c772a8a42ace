#include "worker/worker.h"

#include <algorithm>
#include <atomic>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/synchronization/notification.h"
#include "common/distributed/resource_limits.h"
#include "common/framework/derived_status.h"
#include "common/framework/log_context.h"
#include "common/framework/status.h"
#include "common/rendezvous/rendezvous_key.h"
#include "common/rendezvous/rendezvous_util.h"
#include "common/runtime/executor/step_stats_collector.h"
#include "spdlog/spdlog.h"
#include "worker/worker_metrics.h"

namespace tributary {

struct Worker::StepState {
  StepState(Worker* w, int64_t id, std::shared_ptr<WorkerSession> s,
            std::shared_ptr<const GraphItem> i,
            std::shared_ptr<RpcRemoteRendezvous> r, bool partial)
      : live(w),
        step_id(id),
        is_partial(partial),
        session(std::move(s)),
        item(std::move(i)),
        rendezvous(std::move(r)),
        cancellation_manager(session->cancellation_manager()) {}

  // Declared first, so destroyed last: the worker waits for every step's
  // state to be gone (kernels, sessions, rendezvous) before it goes itself,
  // whichever thread lets go of the last reference.
  struct LiveToken {
    explicit LiveToken(Worker* w) : worker(w) { worker->StepStateCreated(); }
    ~LiveToken() { worker->StepStateDestroyed(); }
    Worker* const worker;
  } live;
  const int64_t step_id;
  const bool is_partial;
  // Declared before the cancellation manager, which is a child of the
  // session's and must go first.
  const std::shared_ptr<WorkerSession> session;
  const std::shared_ptr<const GraphItem> item;
  const std::shared_ptr<RpcRemoteRendezvous> rendezvous;
  CancellationManager cancellation_manager;
  // Filled by `collector` when the step records stats.
  tensorflow::StepStats step_stats;
  std::unique_ptr<StepStatsCollector> collector;

  mutable absl::Mutex mu;
  // Why the step was stopped from outside (deadline, caller's cancellation,
  // CleanupGraph, shutdown); OK when it was not.
  absl::Status abort_status ABSL_GUARDED_BY(mu);
  // Partial runs: the executors' outcome, and the last call waiting for it.
  bool executors_done ABSL_GUARDED_BY(mu) = false;
  absl::Status executors_status ABSL_GUARDED_BY(mu);
  std::function<void(const absl::Status&)> on_executors_done
      ABSL_GUARDED_BY(mu);
};

namespace {

// Offers each RunGraph feed under its key (RunGraphRequest.send), before the
// executors start; Send never blocks.
absl::Status SendFeeds(const NamedTensors& feeds,
                       RendezvousInterface* rendezvous) {
  for (const auto& [key_string, value] : feeds) {
    RendezvousParsedKey key;
    TRIB_RETURN_IF_ERROR(ParseRendezvousKey(key_string, &key));
    TRIB_RETURN_IF_ERROR(rendezvous->Send(key, RendezvousInterface::Args(),
                                          value, /*is_dead=*/false));
  }
  return absl::OkStatus();
}

// A fetched reference that was never assigned (an uninitialised VariableV2)
// arrives without a buffer; TensorFlow refuses to read it, and so do we
// (local_session.cc does the same for its fetches).
absl::Status CheckInitialized(absl::string_view key_string,
                              const Tensor& value) {
  if (value.IsInitialized()) return absl::OkStatus();
  RendezvousParsedKey key;
  absl::string_view name = key_string;
  if (ParseRendezvousKey(key_string, &key).ok()) name = key.edge_name;
  return errors::FailedPrecondition("Attempting to use uninitialized value ",
                                    name);
}

// Answers the recv_keys of a finished step. Every client-terminated _Send has
// run by then, so each value is already in the table; one that is not is
// reported instead of waited for.
absl::Status ReceiveOutputs(
    RendezvousInterface* rendezvous,
    const google::protobuf::RepeatedPtrField<std::string>& keys,
    int64_t step_id, const std::string& task, NamedTensors* out) {
  std::vector<std::string> key_list(keys.begin(), keys.end());
  std::vector<Tensor> received;
  CancellationManager cm;
  RendezvousInterface::Args args;
  args.cancellation_manager = &cm;
  absl::Notification received_all;
  absl::Status status;
  RecvOutputsFromRendezvousAsync(
      rendezvous, key_list, &received,
      [&](const absl::Status& s) {
        status = s;
        received_all.Notify();
      },
      args);
  if (!received_all.HasBeenNotified()) {
    // Withdraws the waiting receives (their callbacks run now).
    cm.StartCancel();
    received_all.WaitForNotification();
    if (absl::IsCancelled(status)) {
      return errors::Internal("Step ", step_id, " finished on ", task,
                              " without producing every recv_key of [",
                              absl::StrJoin(key_list, ", "), "]");
    }
  }
  TRIB_RETURN_IF_ERROR(status);
  out->clear();
  out->reserve(key_list.size());
  for (size_t i = 0; i < key_list.size(); ++i) {
    TRIB_RETURN_IF_ERROR(CheckInitialized(key_list[i], received[i]));
    out->emplace_back(key_list[i], std::move(received[i]));
  }
  return absl::OkStatus();
}

}  // namespace

Worker::Worker(const WorkerEnv* env)
    : env_(env),
      rendezvous_mgr_([env](int64_t step_id) {
        return std::make_shared<RpcRemoteRendezvous>(env, step_id);
      }),
      session_mgr_(env, &cancellation_manager_),
      holds_(env->orphaned_session_grace, [this](const std::string& handle) {
        session_mgr_.DeleteSession(handle).IgnoreError();
      }) {}

Worker::~Worker() {
  AbortAll(
      errors::Unavailable("Worker ", env_->task_name, " is shutting down"));
  WaitUntilIdle(absl::InfiniteFuture());
}

void Worker::BeginCall() {
  absl::MutexLock l(&mu_);
  ++calls_in_flight_;
}

void Worker::EndCall() {
  absl::MutexLock l(&mu_);
  --calls_in_flight_;
}

void Worker::StepStateCreated() {
  absl::MutexLock l(&live_mu_);
  ++live_steps_;
}

void Worker::StepStateDestroyed() {
  absl::MutexLock l(&live_mu_);
  --live_steps_;
}

int Worker::NumCallsInFlight() const {
  absl::MutexLock l(&mu_);
  return calls_in_flight_;
}

bool Worker::WaitUntilIdle(absl::Time deadline) const {
  {
    absl::MutexLock l(&mu_);
    auto idle = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
      return calls_in_flight_ == 0;
    };
    if (!mu_.AwaitWithDeadline(absl::Condition(&idle), deadline)) return false;
  }
  absl::MutexLock l(&live_mu_);
  auto gone = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(live_mu_) {
    return live_steps_ == 0;
  };
  return live_mu_.AwaitWithDeadline(absl::Condition(&gone), deadline);
}

int Worker::NumPartialRuns() const {
  absl::MutexLock l(&mu_);
  return static_cast<int>(partial_runs_.size());
}

void Worker::AbortAll(const absl::Status& status) {
  std::vector<std::shared_ptr<StepState>> steps;
  {
    absl::MutexLock l(&mu_);
    if (shutdown_status_.ok()) shutdown_status_ = status;
    for (auto& [id, list] : active_steps_) {
      steps.insert(steps.end(), list.begin(), list.end());
    }
    for (auto& [id, step] : partial_runs_) steps.push_back(step);
  }
  for (auto& step : steps) AbortStep(step, status);
  cancellation_manager_.StartCancel();
  // Releases RecvTensor calls waiting for steps that never started here.
  rendezvous_mgr_.CleanupAll();
}

// ---- Sessions, graphs, status ---------------------------------------------

void Worker::GetStatusAsync(CallOptions* /*opts*/,
                            const tensorflow::GetStatusRequest* /*request*/,
                            tensorflow::GetStatusResponse* response,
                            StatusCallback done) {
  response->clear_device_attributes();
  for (const auto& attrs : env_->device_mgr->ListDeviceAttributes()) {
    *response->add_device_attributes() = attrs;
  }
  done(absl::OkStatus());
}

void Worker::CreateWorkerSessionAsync(
    CallOptions* /*opts*/,
    const tensorflow::CreateWorkerSessionRequest* request,
    tensorflow::CreateWorkerSessionResponse* /*response*/,
    StatusCallback done) {
  absl::Status s = session_mgr_.CreateSession(*request);
  if (s.ok()) {
    // The master found every task up: peers restarted since a transfer to
    // them failed are reached at once, not after the channel's backoff.
    if (env_->worker_cache != nullptr) {
      env_->worker_cache->RetryFailedConnections();
    }
    spdlog::info("Created worker session {}{}", request->session_handle(),
                 request->isolate_session_state() ? " (isolated state)" : "");
  } else {
    spdlog::warn("CreateWorkerSession {}: {}", request->session_handle(),
                 s.ToString());
  }
  done(s);
}

void Worker::DeleteWorkerSessionAsync(
    CallOptions* /*opts*/,
    const tensorflow::DeleteWorkerSessionRequest* request,
    tensorflow::DeleteWorkerSessionResponse* /*response*/,
    StatusCallback done) {
  spdlog::info("Deleting worker session {}", request->session_handle());
  absl::Status deleted = session_mgr_.DeleteSession(request->session_handle());
  holds_.Released(request->session_handle());
  done(deleted);
}

void Worker::HoldWorkerSessionAsync(
    CallOptions* opts, const tensorflow::DeleteWorkerSessionRequest* request,
    tensorflow::DeleteWorkerSessionResponse* /*response*/,
    StatusCallback done) {
  const std::string& handle = request->session_handle();
  if (handle.empty()) {
    done(errors::InvalidArgument(
        "HoldWorkerSession needs a session handle (the legacy session is "
        "never deleted)"));
    return;
  }
  absl::StatusOr<std::shared_ptr<WorkerSession>> session =
      session_mgr_.Find(handle);
  if (!session.ok()) {
    done(errors::NotFound("No worker session ", handle, " on ", env_->task_name,
                          " to hold"));
    return;
  }
  holds_.Hold(handle, opts, std::move(done));
}

void Worker::ReleaseHolds(const absl::Status& status) {
  holds_.Shutdown(status);
}

void Worker::RegisterGraphAsync(CallOptions* /*opts*/,
                                const tensorflow::RegisterGraphRequest* request,
                                tensorflow::RegisterGraphResponse* response,
                                StatusCallback done) {
  absl::StatusOr<std::shared_ptr<WorkerSession>> session =
      session_mgr_.Find(request->session_handle());
  if (!session.ok()) {
    done(session.status());
    return;
  }
  const std::string what = absl::StrCat("RegisterGraph on ", env_->task_name);
  absl::Status s = CheckGraphBytes(request->graph_def(), env_->max_graph_bytes,
                                   "--max-graph-bytes", what);
  if (s.ok()) {
    s = CheckGraphNodes(CountGraphNodes(request->graph_def()),
                        env_->max_graph_nodes, "--max-graph-nodes", what);
  }
  if (!s.ok()) {
    spdlog::warn("RegisterGraph in session '{}': {}", request->session_handle(),
                 s.ToString());
    done(s);
    return;
  }
  absl::StatusOr<std::string> handle =
      (*session)->graph_mgr()->Register(*request);
  if (!handle.ok()) {
    spdlog::warn("RegisterGraph in session '{}': {}", request->session_handle(),
                 handle.status().ToString());
    done(handle.status());
    return;
  }
  spdlog::debug("Registered graph {} ({} nodes) in session '{}'", *handle,
                request->graph_def().node_size(), request->session_handle());
  response->set_graph_handle(*handle);
  done(absl::OkStatus());
}

void Worker::DeregisterGraphAsync(
    CallOptions* /*opts*/, const tensorflow::DeregisterGraphRequest* request,
    tensorflow::DeregisterGraphResponse* /*response*/, StatusCallback done) {
  absl::StatusOr<std::shared_ptr<WorkerSession>> session =
      session_mgr_.Find(request->session_handle());
  if (!session.ok()) {
    done(session.status());
    return;
  }
  done((*session)->graph_mgr()->Deregister(request->graph_handle()));
}

void Worker::CleanupAllAsync(CallOptions* /*opts*/,
                             const tensorflow::CleanupAllRequest* request,
                             tensorflow::CleanupAllResponse* /*response*/,
                             StatusCallback done) {
  std::vector<ResourceMgr*> managers = {session_mgr_.shared_resource_mgr()};
  for (const auto& session : session_mgr_.AllSessions()) {
    if (session->isolated()) managers.push_back(session->resource_mgr());
  }
  absl::Status status;
  for (ResourceMgr* rm : managers) {
    if (request->container_size() == 0) {
      // TensorFlow's rule: no container named means the default one.
      status.Update(rm->Cleanup(rm->default_container()));
    }
    for (const std::string& container : request->container()) {
      status.Update(rm->Cleanup(container));
    }
  }
  done(status);
}

void Worker::LoggingAsync(CallOptions* /*opts*/,
                          const tensorflow::LoggingRequest* request,
                          tensorflow::LoggingResponse* response,
                          StatusCallback done) {
  if (request->enable_rpc_logging()) step_stats_log_.set_rpc_logging(true);
  if (request->disable_rpc_logging()) step_stats_log_.set_rpc_logging(false);
  if (request->clear()) step_stats_log_.Clear();
  step_stats_log_.Retrieve(request->fetch_step_id(), response);
  done(absl::OkStatus());
}

void Worker::TracingAsync(CallOptions* /*opts*/,
                          const tensorflow::TracingRequest* /*request*/,
                          tensorflow::TracingResponse* /*response*/,
                          StatusCallback done) {
  // TensorFlow's own worker answers Unimplemented too. Saying so beats an
  // OK that collects nothing.
  done(errors::Unimplemented(
      "Tracing is not supported by worker ", env_->task_name,
      ": it has no profiler. Per-node step stats are available through "
      "RunOptions.trace_level (RunGraph exec_opts.record_timeline) and the "
      "Logging service."));
}

// ---- Steps
// -------------------------------------------------------------------

absl::StatusOr<std::shared_ptr<Worker::StepState>> Worker::NewStep(
    const tensorflow::RunGraphRequest& request, bool* created) {
  *created = false;
  TRIB_ASSIGN_OR_RETURN(std::shared_ptr<WorkerSession> session,
                        session_mgr_.Find(request.session_handle()));
  TRIB_ASSIGN_OR_RETURN(std::shared_ptr<const GraphItem> item,
                        session->graph_mgr()->Lookup(request.graph_handle()));
  const int64_t step_id = request.step_id();
  // Under mu_, so a concurrent CleanupGraph either sees this step or is
  // seen by it.
  absl::MutexLock l(&mu_);
  if (!shutdown_status_.ok()) return shutdown_status_;
  if (request.is_partial()) {
    auto it = partial_runs_.find(step_id);
    if (it != partial_runs_.end()) {
      if (it->second->item != item) {
        return errors::InvalidArgument(
            "Partial run of step ", step_id, " on ", env_->task_name,
            " was started with another graph than ", request.graph_handle());
      }
      return it->second;
    }
  }
  if (cleaned_steps_.contains(step_id)) {
    return errors::Aborted("Step ", step_id, " was already cleaned up on ",
                           env_->task_name, " (CleanupGraph)");
  }
  auto rendezvous = std::static_pointer_cast<RpcRemoteRendezvous>(
      rendezvous_mgr_.Find(step_id));
  if (session->worker_cache() != nullptr) {
    rendezvous->SetWorkerCache(session->worker_cache());
  }
  auto step = std::make_shared<StepState>(
      this, step_id, std::move(session), std::move(item), std::move(rendezvous),
      request.is_partial());
  active_steps_[step_id].push_back(step);
  if (request.is_partial()) partial_runs_.emplace(step_id, step);
  *created = true;
  return step;
}

void Worker::EndStep(const std::shared_ptr<StepState>& step) {
  absl::MutexLock l(&mu_);
  auto it = active_steps_.find(step->step_id);
  if (it == active_steps_.end()) return;
  auto& list = it->second;
  list.erase(std::remove(list.begin(), list.end(), step), list.end());
  if (list.empty()) active_steps_.erase(it);
}

void Worker::AbortStep(const std::shared_ptr<StepState>& step,
                       const absl::Status& status) {
  {
    absl::MutexLock l(&step->mu);
    if (step->abort_status.ok()) step->abort_status = status;
  }
  // The rendezvous first, so waiting _Recvs (here and, through RecvTensor,
  // on peers) report the cause rather than a bare "cancelled".
  step->rendezvous->StartAbort(status);
  step->cancellation_manager.StartCancel();
}

DeadlineTimer::Id Worker::ArmCall(CallOptions* opts,
                                  const std::shared_ptr<StepState>& step,
                                  const char* what) {
  if (opts == nullptr) return DeadlineTimer::kNoTimer;
  const std::string task = env_->task_name;
  const int64_t step_id = step->step_id;
  opts->SetCancelCallback([this, step, what, task, step_id] {
    AbortStep(step, errors::Cancelled(what, " of step ", step_id, " on ", task,
                                      " was cancelled by its caller"));
  });
  const absl::Time deadline = opts->deadline();
  return timer_.Schedule(deadline, [this, step, what, task, step_id, deadline] {
    AbortStep(step, errors::DeadlineExceeded(
                        what, " of step ", step_id, " on ", task,
                        " did not finish before its deadline (",
                        absl::FormatTime(deadline), ") and was cancelled"));
  });
}

void Worker::DisarmCall(CallOptions* opts, DeadlineTimer::Id timer) {
  timer_.Cancel(timer);
  if (opts != nullptr) opts->ClearCancelCallback();
}

absl::Status Worker::StepStatus(const StepState& step,
                                const absl::Status& executors) const {
  if (executors.ok()) return executors;
  absl::Status abort_status;
  {
    absl::MutexLock l(&step.mu);
    abort_status = step.abort_status;
  }
  // A stop from outside shows up in the executors as Cancelled/Aborted
  // echoes or as the abort status itself; a kernel's own error that came
  // first is kept.
  if (!abort_status.ok() && (errors::IsFallout(executors) ||
                             executors.code() == abort_status.code())) {
    return abort_status;
  }
  return executors;
}

void Worker::ReportStats(StepState* step,
                         const tensorflow::ExecutorOpts& exec_opts,
                         tensorflow::RunGraphResponse* response) {
  if (step->collector != nullptr) {
    step->collector->Finalize();
    tensorflow::StepStats transfers = step->rendezvous->TakeTransferStats();
    step->step_stats.MergeFrom(transfers);
    if (exec_opts.record_timeline() || exec_opts.record_costs()) {
      *response->mutable_step_stats() = step->step_stats;
    }
    step_stats_log_.Record(step->step_id, step->step_stats);
  }
  if (exec_opts.record_partition_graphs()) {
    for (const GraphUnit& unit : step->item->units) {
      *response->add_partition_graph() = unit.graph_def;
    }
  }
}

bool Worker::WasCleanedUp(int64_t step_id) const {
  absl::MutexLock l(&mu_);
  return cleaned_steps_.contains(step_id);
}

void Worker::RunGraphAsync(CallOptions* opts, const RunGraphRequestMsg* request,
                           RunGraphResponseMsg* response, StatusCallback done) {
  BeginCall();
  // TensorFlow's store_errors_in_response_body: the error travels in the
  // response and the call succeeds (its transport cannot carry details).
  const tensorflow::RunGraphRequest& proto = request->proto;
  ScopedLogContext log(proto.session_handle(), proto.step_id());
  spdlog::debug("RunGraph {} started{}", proto.graph_handle(),
                proto.is_partial() ? " (partial run)" : "");
  auto finish = [this, request, response,
                 started = WorkerMetrics::Get().run_graphs.Start(),
                 done = std::move(done)](const absl::Status& s) {
    WorkerMetrics::Get().run_graphs.End(started, s.code());
    {
      ScopedLogContext log(request->proto.session_handle(),
                           request->proto.step_id());
      spdlog::debug("RunGraph {} ended: {}", request->proto.graph_handle(),
                    s.ok() ? "OK" : s.ToString());
    }
    if (!s.ok() && request->proto.store_errors_in_response_body()) {
      response->proto.set_status_code(ToErrorCode(s.code()));
      response->proto.set_status_error_message(std::string(s.message()));
      done(absl::OkStatus());
    } else {
      done(s);
    }
    EndCall();
  };
  if (request->proto.is_partial()) {
    DoPartialRunGraph(opts, request, response, std::move(finish));
  } else {
    DoRunGraph(opts, request, response, std::move(finish));
  }
}

void Worker::DoRunGraph(CallOptions* opts, const RunGraphRequestMsg* request,
                        RunGraphResponseMsg* response, StatusCallback done) {
  const tensorflow::RunGraphRequest& req = request->proto;
  bool created = false;
  absl::StatusOr<std::shared_ptr<StepState>> new_step = NewStep(req, &created);
  if (!new_step.ok()) {
    done(new_step.status());
    return;
  }
  std::shared_ptr<StepState> step = *std::move(new_step);
  const bool rpc_logging = step_stats_log_.rpc_logging();
  if (req.exec_opts().record_timeline() || req.exec_opts().record_costs() ||
      rpc_logging) {
    step->collector = std::make_unique<StepStatsCollector>(&step->step_stats);
    // A timeline shows each RecvTensor call too (its duration is the
    // transfer as the receiver sees it).
    step->rendezvous->set_record_transfers(rpc_logging ||
                                           req.exec_opts().record_timeline());
  }
  if (opts != nullptr) step->rendezvous->SetDeadline(opts->deadline());
  absl::Status s = SendFeeds(request->send, step->rendezvous.get());
  if (!s.ok()) {
    EndStep(step);
    done(s);
    return;
  }
  const DeadlineTimer::Id timer = ArmCall(opts, step, "RunGraph");
  GraphMgr::StepOptions options;
  options.step_id = step->step_id;
  options.rendezvous = step->rendezvous.get();
  options.cancellation_manager = &step->cancellation_manager;
  options.stats_collector = step->collector.get();
  step->session->graph_mgr()->ExecuteAsync(
      step->item, options,
      [this, opts, request, response, step, timer,
       done = std::move(done)](const absl::Status& executors) mutable {
        DisarmCall(opts, timer);
        absl::Status s = StepStatus(*step, executors);
        ReportStats(step.get(), request->proto.exec_opts(), &response->proto);
        if (s.ok()) {
          s = ReceiveOutputs(step->rendezvous.get(), request->proto.recv_key(),
                             step->step_id, env_->task_name, &response->recv);
        }
        EndStep(step);
        if (!step->item->has_remote_sends) {
          // No peer can ask for this step's values any more: drop its
          // rendezvous now; the master sends no CleanupGraph for it after
          // a successful step.
          rendezvous_mgr_.Cleanup(step->step_id);
        }
        // Before `done`: the caller may tear things down once it has run.
        step.reset();
        done(s);
      });
}

void Worker::DoPartialRunGraph(CallOptions* opts,
                               const RunGraphRequestMsg* request,
                               RunGraphResponseMsg* response,
                               StatusCallback done) {
  const tensorflow::RunGraphRequest& req = request->proto;
  bool created = false;
  absl::StatusOr<std::shared_ptr<StepState>> found = NewStep(req, &created);
  if (!found.ok()) {
    done(found.status());
    return;
  }
  std::shared_ptr<StepState> step = *std::move(found);
  // Remote receives started from now on are bounded by this call's
  // deadline (the latest call of a partial run is the one waiting).
  if (opts != nullptr) step->rendezvous->SetDeadline(opts->deadline());
  absl::Status s = SendFeeds(request->send, step->rendezvous.get());
  if (!s.ok()) {
    if (created) {
      // The executors never started: nothing else will end this step.
      {
        absl::MutexLock l(&mu_);
        partial_runs_.erase(step->step_id);
      }
      EndStep(step);
    }
    done(StepStatus(*step, s));
    return;
  }
  // This call's deadline and cancellation stop the whole partial run, as in
  // TensorFlow (a later call cannot resume a step whose feeds it lost).
  const DeadlineTimer::Id timer = ArmCall(opts, step, "RunGraph (partial run)");
  if (created) {
    const bool rpc_logging = step_stats_log_.rpc_logging();
    if (req.exec_opts().record_timeline() || req.exec_opts().record_costs() ||
        rpc_logging) {
      step->collector = std::make_unique<StepStatsCollector>(&step->step_stats);
      step->rendezvous->set_record_transfers(rpc_logging ||
                                             req.exec_opts().record_timeline());
    }
    GraphMgr::StepOptions options;
    options.step_id = step->step_id;
    options.rendezvous = step->rendezvous.get();
    options.cancellation_manager = &step->cancellation_manager;
    options.stats_collector = step->collector.get();
    step->session->graph_mgr()->ExecuteAsync(
        step->item, options,
        [this, step](const absl::Status& executors) mutable {
          std::function<void(const absl::Status&)> waiter;
          {
            absl::MutexLock l(&step->mu);
            step->executors_done = true;
            step->executors_status = executors;
            waiter = std::move(step->on_executors_done);
          }
          // The executors are done; the partial-run state stays until the
          // last call or CleanupGraph.
          EndStep(step);
          step.reset();
          if (waiter) waiter(executors);
        });
  }

  // Only this call's fetches; the executors keep running after it returns.
  auto received = std::make_shared<std::vector<Tensor>>();
  std::vector<std::string> keys(req.recv_key().begin(), req.recv_key().end());
  RecvOutputsFromRendezvousAsync(
      step->rendezvous.get(), keys, received.get(),
      [this, opts, request, response, step, timer, received, keys,
       done = std::move(done)](const absl::Status& recv_status) mutable {
        absl::Status s = recv_status;
        if (s.ok()) {
          response->recv.clear();
          for (size_t i = 0; i < keys.size() && s.ok(); ++i) {
            s = CheckInitialized(keys[i], (*received)[i]);
            if (s.ok()) response->recv.emplace_back(keys[i], (*received)[i]);
          }
        }
        if (!s.ok() || !request->proto.is_last_partial_run()) {
          DisarmCall(opts, timer);
          s = StepStatus(*step, s);
          step.reset();
          done(s);
          return;
        }
        // The last call: wait for the executors (without a thread).
        auto finish_last = [this, opts, request, response, step, timer,
                            done = std::move(done)](
                               const absl::Status& executors) mutable {
          DisarmCall(opts, timer);
          absl::Status status = StepStatus(*step, executors);
          ReportStats(step.get(), request->proto.exec_opts(), &response->proto);
          {
            absl::MutexLock l(&mu_);
            auto it = partial_runs_.find(step->step_id);
            if (it != partial_runs_.end() && it->second == step) {
              partial_runs_.erase(it);
            }
          }
          step.reset();
          done(status);
        };
        absl::Status executors;
        bool ready = false;
        {
          absl::MutexLock l(&step->mu);
          ready = step->executors_done;
          if (ready) {
            executors = step->executors_status;
          } else {
            step->on_executors_done = std::move(finish_last);
          }
        }
        step.reset();
        if (ready) finish_last(executors);
      });
}

void Worker::CleanupGraphAsync(CallOptions* /*opts*/,
                               const tensorflow::CleanupGraphRequest* request,
                               tensorflow::CleanupGraphResponse* /*response*/,
                               StatusCallback done) {
  const int64_t step_id = request->step_id();
  std::vector<std::shared_ptr<StepState>> steps;
  {
    absl::MutexLock l(&mu_);
    if (cleaned_steps_.insert(step_id).second) {
      cleaned_order_.push_back(step_id);
      if (cleaned_order_.size() > kCleanedStepsRemembered) {
        cleaned_steps_.erase(cleaned_order_.front());
        cleaned_order_.pop_front();
      }
    }
    auto it = active_steps_.find(step_id);
    if (it != active_steps_.end()) steps = it->second;
    auto p = partial_runs_.find(step_id);
    if (p != partial_runs_.end()) {
      steps.push_back(p->second);
      partial_runs_.erase(p);
    }
  }
  // Aborts the rendezvous (waiting _Recvs and peers' RecvTensor calls fail)
  // and forgets it.
  rendezvous_mgr_.Cleanup(step_id);
  for (auto& step : steps) {
    AbortStep(step, errors::Aborted("Step ", step_id, " was cleaned up on ",
                                    env_->task_name,
                                    " (CleanupGraph) while it was running"));
  }
  done(absl::OkStatus());
}

// ---- RecvTensor
// --------------------------------------------------------------

void Worker::RecvTensorAsync(CallOptions* opts,
                             const tensorflow::RecvTensorRequest* request,
                             TensorResponse* response, StatusCallback done) {
  BeginCall();
  ScopedLogContext log("", request->step_id());
  auto finish = [this, done = std::move(done)](const absl::Status& s) {
    done(s);
    EndCall();
  };
  RendezvousParsedKey key;
  absl::Status s = ParseRendezvousKey(request->rendezvous_key(), &key);
  if (!s.ok()) {
    finish(s);
    return;
  }
  absl::StatusOr<Device*> src = env_->device_mgr->LookupDevice(key.src_device);
  if (!src.ok()) {
    finish(errors::InvalidArgument(
        "RecvTensor for ", key.FullKey(), " asks worker ", env_->task_name,
        " for a tensor of ", key.src_device,
        ", which is not one of its devices: ", src.status().message()));
    return;
  }
  if ((*src)->incarnation() != key.src_incarnation) {
    // The asker's graph was built against an earlier process of this task.
    spdlog::warn("RecvTensor for a stale incarnation of {} (step {})",
                 (*src)->name(), request->step_id());
    finish(errors::Aborted(
        "RecvTensor expects a different device incarnation: ",
        absl::StrFormat("%016x", key.src_incarnation), " vs. ",
        absl::StrFormat("%016x", (*src)->incarnation()), " for device ",
        (*src)->name(), ". Worker ", env_->task_name,
        " was probably restarted; the step must be set up again."));
    return;
  }
  const int64_t step_id = request->step_id();
  std::shared_ptr<RendezvousInterface> rendezvous;
  {
    absl::MutexLock l(&mu_);
    if (!shutdown_status_.ok()) {
      s = shutdown_status_;
    } else if (cleaned_steps_.contains(step_id)) {
      s = errors::Aborted("RecvTensor for ", key.FullKey(), ": step ", step_id,
                          " was already cleaned up on ", env_->task_name);
    } else {
      // Recv-driven: the step may not have started here yet; the receive
      // waits in its rendezvous until the _Send runs.
      rendezvous = rendezvous_mgr_.Find(step_id);
    }
  }
  if (!s.ok()) {
    finish(s);
    return;
  }

  // The call's own cancellation: the caller's cancel and the deadline
  // withdraw the waiting receive (other receives of the step go on).
  struct RecvCall {
    CancellationManager cm;
    std::atomic<bool> timed_out{false};
  };
  auto call = std::make_shared<RecvCall>();
  DeadlineTimer::Id timer = DeadlineTimer::kNoTimer;
  absl::Time deadline = absl::InfiniteFuture();
  if (opts != nullptr) {
    deadline = opts->deadline();
    timer = timer_.Schedule(deadline, [call] {
      call->timed_out = true;
      call->cm.StartCancel();
    });
    opts->SetCancelCallback([call] { call->cm.StartCancel(); });
  }
  RendezvousInterface::Args args;
  args.cancellation_manager = &call->cm;
  // The wire needs the bytes in host memory: a value a GPU produced is
  // copied out through that GPU's device context first.
  args.alloc_attrs.set_on_host(true);
  rendezvous->RecvAsync(
      key, args,
      [this, call, opts, timer, deadline, response, step_id,
       edge = std::string(key.edge_name), full_key = std::string(key.FullKey()),
       finish = std::move(finish)](
          const absl::Status& status, const RendezvousInterface::Args&,
          const RendezvousInterface::Args&, const Tensor& value, bool is_dead) {
        timer_.Cancel(timer);
        if (opts != nullptr) opts->ClearCancelCallback();
        absl::Status s = status;
        if (!s.ok() && call->timed_out) {
          s = errors::DeadlineExceeded(
              "RecvTensor for ", full_key, " (step ", step_id, ") on ",
              env_->task_name, " was not answered before its deadline (",
              absl::FormatTime(deadline), ")");
        }
        if (s.ok() && !is_dead && !value.IsInitialized()) {
          s = errors::FailedPrecondition(
              "Attempting to use uninitialized value ", edge);
        }
        if (s.ok() && !is_dead && value.dtype() == DT_VARIANT) {
          // Variants (TensorLists, ...) have no wire encoding here.
          s = errors::Unimplemented(
              "RecvTensor for ", full_key, ": tensor ", edge,
              " has dtype variant (e.g. a TensorList), which Tributary "
              "cannot send between processes");
        }
        if (s.ok()) {
          response->tensor = value;
          response->is_dead = is_dead;
          response->send_start_micros = absl::ToUnixMicros(absl::Now());
        }
        finish(s);
      });
}

}  // namespace tributary
