#include "master/master.h"

#include <algorithm>
#include <thread>
#include <utility>
#include <vector>

#include "absl/random/random.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "common/distributed/wait_for_callback.h"
#include "common/framework/status.h"
#include "master/device_discovery.h"
#include "master/worker_calls.h"
#include "spdlog/spdlog.h"

namespace tributary {
namespace {

std::string NewSessionHandle() {
  thread_local absl::BitGen gen;
  return absl::StrFormat("%016x", absl::Uniform<uint64_t>(gen));
}

uint64_t NewIncarnation() {
  absl::BitGen gen;
  uint64_t v = 0;
  while (v == 0) v = absl::Uniform<uint64_t>(gen);
  return v;
}

absl::Time EarlierOf(absl::Time deadline, const CallOptions* opts) {
  return opts == nullptr ? deadline : std::min(deadline, opts->deadline());
}

absl::Duration GcInterval(const MasterOptions& o) {
  if (o.gc_interval > absl::ZeroDuration()) return o.gc_interval;
  return std::clamp(o.idle_session_timeout / 4, absl::Milliseconds(10),
                    absl::Seconds(60));
}

// Closes `sessions` concurrently: each Close is bounded by the control
// timeout, and dead workers should not make that add up per session.
void CloseAll(std::vector<std::shared_ptr<MasterSession>> sessions) {
  std::vector<std::thread> threads;
  for (auto& s : sessions) {
    threads.emplace_back([s] { s->Close().IgnoreError(); });
  }
  for (std::thread& t : threads) t.join();
}

}  // namespace

// Marks a call of the master: refused once shutting down, counted so that
// Shutdown can let running calls finish.
class Master::CallScope {
 public:
  explicit CallScope(Master* m) : master_(m) {
    absl::MutexLock l(&m->mu_);
    if (m->shutting_down_) {
      status_ = errors::Unavailable("tributary-master is shutting down");
      return;
    }
    ++m->in_flight_;
    entered_ = true;
  }
  ~CallScope() {
    if (!entered_) return;
    absl::MutexLock l(&master_->mu_);
    --master_->in_flight_;
  }
  const absl::Status& status() const { return status_; }

 private:
  Master* const master_;
  absl::Status status_;
  bool entered_ = false;
};

Master::Master(MasterOptions options)
    : options_(std::move(options)),
      liveness_(absl::Now(), options_.task_startup_window),
      client_steps_(options_.max_steps_per_client, "--max-steps-per-client",
                    "steps"),
      session_steps_(options_.max_steps_per_session, "--max-steps-per-session",
                     "steps") {
  env_.worker_cache = options_.worker_cache;
  env_.cluster = options_.cluster;
  env_.discovery_timeout = options_.discovery_timeout;
  env_.control_timeout = options_.control_timeout;
  env_.cancel_grace = options_.cancel_grace;
  env_.incarnation = NewIncarnation();
  env_.timer = &timer_;
  env_.blocking_pool = &blocking_pool_;
  env_.liveness = &liveness_;
  if (options_.idle_session_timeout > absl::ZeroDuration()) {
    gc_thread_ = std::thread([this] { GcLoop(); });
  }
  // Families made here, outside any lock of ours (the collector below runs
  // under the registry's lock and takes mu_), and so listed from the start.
  StepMetricsOfMaster();
  sessions_collector_ = metrics::Default().AddCollector(
      [this](std::vector<metrics::CollectedFamily>* out) {
        out->push_back({"tributary_master_sessions",
                        "Sessions open on the master.",
                        "gauge",
                        {metrics::Sample{{}, double(num_sessions())}}});
      });
}

Master::~Master() {
  metrics::Default().RemoveCollector(sessions_collector_);
  Shutdown(absl::ZeroDuration());
}

absl::StatusOr<std::shared_ptr<MasterSession>> Master::FindSession(
    const std::string& handle) const {
  absl::MutexLock l(&mu_);
  auto it = sessions_.find(handle);
  if (it == sessions_.end()) {
    return errors::Aborted("Session ", handle, " is not found.");
  }
  return it->second;
}

absl::Status Master::CreateSession(
    CallOptions* opts, const tensorflow::CreateSessionRequest& request,
    tensorflow::CreateSessionResponse* response) {
  CallScope scope(this);
  TRIB_RETURN_IF_ERROR(scope.status());
  TRIB_RETURN_IF_ERROR(CheckGraphBytes(request.graph_def(),
                                       options_.max_graph_bytes,
                                       "--max-graph-bytes", "CreateSession"));
  TRIB_RETURN_IF_ERROR(CheckGraphNodes(CountGraphNodes(request.graph_def()),
                                       options_.max_graph_nodes,
                                       "--max-graph-nodes", "CreateSession"));
  // A slot among --max-sessions, held from here until the session is in
  // sessions_ (or creating it failed).
  {
    absl::MutexLock l(&mu_);
    const int64_t open =
        static_cast<int64_t>(sessions_.size()) + sessions_being_created_;
    if (options_.max_sessions > 0 && open >= options_.max_sessions) {
      return errors::ResourceExhausted(
          "tributary-master already has ", open,
          " sessions open, the limit (--max-sessions=", options_.max_sessions,
          "); close a session (or wait for idle ones to be collected, "
          "--idle-session-timeout), or ask the operator to raise "
          "--max-sessions");
    }
    ++sessions_being_created_;
  }
  struct CreatingSlot {
    Master* m;
    ~CreatingSlot() {
      absl::MutexLock l(&m->mu_);
      --m->sessions_being_created_;
    }
  } creating{this};
  const tensorflow::ConfigProto& config = request.config();
  if (config.cluster_def().job_size() > 0) {
    absl::StatusOr<ClusterSpec> given =
        ClusterSpec::FromClusterDef(config.cluster_def());
    if (!given.ok() || *given != env_.cluster) {
      return errors::Unimplemented(
          "ConfigProto.cluster_def (ClusterSpec propagation) is not supported "
          "by tributary-master: it serves the cluster it was started with "
          "(--cluster). Leave cluster_def empty or equal to that cluster.");
    }
  }
  TRIB_ASSIGN_OR_RETURN(DeviceFilters filters,
                        DeviceFilters::Parse(config.device_filters()));
  const std::vector<std::string> tasks = FilteredTasks(env_, filters);
  if (tasks.empty()) {
    return errors::InvalidArgument(
        "No task of the cluster matches ConfigProto.device_filters ",
        filters.DebugString(), "; the cluster's tasks are [",
        absl::StrJoin(env_.worker_cache->ListWorkers(), ", "), "]");
  }
  const absl::Duration timeout =
      config.operation_timeout_in_ms() > 0
          ? absl::Milliseconds(config.operation_timeout_in_ms())
          : env_.discovery_timeout;
  TRIB_ASSIGN_OR_RETURN(
      std::vector<TaskDevices> discovered,
      DiscoverDevices(env_, tasks, filters,
                      EarlierOf(DeadlineAfter(timeout), opts), timeout, opts));

  MasterSessionOptions sopts;
  sopts.env = &env_;
  sopts.config = config;
  sopts.tasks = std::move(discovered);
  sopts.max_graph_bytes = options_.max_graph_bytes;
  sopts.max_graph_nodes = options_.max_graph_nodes;
  {
    absl::MutexLock l(&mu_);
    do {
      sopts.handle = NewSessionHandle();
    } while (sessions_.count(sopts.handle) > 0);
  }
  TRIB_ASSIGN_OR_RETURN(
      std::shared_ptr<MasterSession> session,
      MasterSession::Create(
          std::move(sopts), request.graph_def(),
          EarlierOf(DeadlineAfter(env_.control_timeout), opts)));
  {
    absl::MutexLock l(&mu_);
    if (!shutting_down_) {
      sessions_[session->handle()] = session;
      response->set_session_handle(session->handle());
      response->set_graph_version(0);
      spdlog::info("Created session {} ({} nodes, {} tasks)", session->handle(),
                   request.graph_def().node_size(), tasks.size());
      return absl::OkStatus();
    }
  }
  session->Close().IgnoreError();
  return errors::Unavailable("tributary-master is shutting down");
}

absl::Status Master::ExtendSession(
    const tensorflow::ExtendSessionRequest& request,
    tensorflow::ExtendSessionResponse* response) {
  CallScope scope(this);
  TRIB_RETURN_IF_ERROR(scope.status());
  TRIB_ASSIGN_OR_RETURN(std::shared_ptr<MasterSession> session,
                        FindSession(request.session_handle()));
  return session->Extend(request, response);
}

absl::Status Master::PartialRunSetup(
    const tensorflow::PartialRunSetupRequest& request,
    tensorflow::PartialRunSetupResponse* response) {
  CallScope scope(this);
  TRIB_RETURN_IF_ERROR(scope.status());
  TRIB_RETURN_IF_ERROR(
      request_ids_.TrackUnique(request.request_id(), "PartialRunSetupRequest"));
  TRIB_ASSIGN_OR_RETURN(std::shared_ptr<MasterSession> session,
                        FindSession(request.session_handle()));
  return session->PartialRunSetup(request, response);
}

absl::Status Master::RunStep(CallOptions* opts,
                             const RunStepRequestMsg& request,
                             RunStepResponseMsg* response) {
  return WaitForCallback([&](StatusCallback done) {
    RunStepAsync(opts, request, response, std::move(done));
  });
}

metrics::StepMetrics& Master::StepMetricsOfMaster() {
  static auto* steps = new metrics::StepMetrics(
      &metrics::Default(), "tributary_master_step",
      "steps (RunStep and RunCallable) the master ran");
  return *steps;
}

void Master::RunStepAsync(CallOptions* opts, const RunStepRequestMsg& request,
                          RunStepResponseMsg* response, StatusCallback done) {
  // TensorFlow's store_errors_in_response_body: the call succeeds and
  // carries the step's error, so the code and message survive whatever is
  // in between.
  auto finish = [&request, response, started = StepMetricsOfMaster().Start(),
                 done = std::move(done)](const absl::Status& s) {
    StepMetricsOfMaster().End(started, s.code());
    if (!s.ok() && request.proto.store_errors_in_response_body()) {
      response->tensor.clear();
      response->proto.set_status_code(ToErrorCode(s.code()));
      response->proto.set_status_error_message(std::string(s.message()));
      done(absl::OkStatus());
      return;
    }
    done(s);
  };
  auto scope = std::make_shared<CallScope>(this);
  absl::Status s = scope->status();
  absl::StatusOr<std::shared_ptr<MasterSession>> session =
      s.ok() ? FindSession(request.proto.session_handle())
             : absl::StatusOr<std::shared_ptr<MasterSession>>(s);
  // The limits first: a step refused for them did nothing, so the client
  // may send it again with the same request_id.
  absl::StatusOr<std::shared_ptr<StepSlots>> slots =
      session.ok()
          ? AcquireStepSlots(opts, (*session)->handle())
          : absl::StatusOr<std::shared_ptr<StepSlots>>(session.status());
  if (slots.ok()) {
    s = request_ids_.TrackUnique(request.proto.request_id(), "RunStepRequest");
    if (!s.ok()) slots = s;
  }
  if (!slots.ok()) {
    scope.reset();
    finish(slots.status());
    return;
  }
  MasterSession* raw = session->get();
  raw->RunAsync(opts, request, response,
                [session = *std::move(session), scope = std::move(scope),
                 slots = *std::move(slots),
                 finish = std::move(finish)](const absl::Status& s) mutable {
                  // All go before the caller hears: a shutdown waiting
                  // for this call may then release everything, and the
                  // client's next step must find its slot free.
                  slots.reset();
                  scope.reset();
                  session.reset();
                  finish(s);
                });
}

absl::Status Master::CloseSession(
    const tensorflow::CloseSessionRequest& request,
    tensorflow::CloseSessionResponse* response) {
  (void)response;
  CallScope scope(this);
  TRIB_RETURN_IF_ERROR(scope.status());
  std::shared_ptr<MasterSession> session;
  {
    absl::MutexLock l(&mu_);
    auto it = sessions_.find(request.session_handle());
    if (it == sessions_.end()) {
      return errors::Aborted("Session ", request.session_handle(),
                             " is not found.");
    }
    session = std::move(it->second);
    sessions_.erase(it);
  }
  spdlog::info("Closing session {}", session->handle());
  return session->Close();
}

absl::Status Master::ListDevices(CallOptions* opts,
                                 const tensorflow::ListDevicesRequest& request,
                                 tensorflow::ListDevicesResponse* response) {
  CallScope scope(this);
  TRIB_RETURN_IF_ERROR(scope.status());
  if (!request.session_handle().empty()) {
    TRIB_ASSIGN_OR_RETURN(std::shared_ptr<MasterSession> session,
                          FindSession(request.session_handle()));
    session->ListDevices(response);
    return absl::OkStatus();
  }
  const DeviceFilters all;
  TRIB_ASSIGN_OR_RETURN(
      std::vector<TaskDevices> discovered,
      DiscoverDevices(env_, FilteredTasks(env_, all), all,
                      EarlierOf(DeadlineAfter(env_.discovery_timeout), opts),
                      env_.discovery_timeout, opts));
  for (const TaskDevices& td : discovered) {
    for (const auto& d : td.devices) *response->add_remote_device() = d;
  }
  return absl::OkStatus();
}

absl::Status Master::Reset(const tensorflow::ResetRequest& request,
                           tensorflow::ResetResponse* response) {
  (void)response;
  CallScope scope(this);
  TRIB_RETURN_IF_ERROR(scope.status());
  TRIB_ASSIGN_OR_RETURN(DeviceFilters filters,
                        DeviceFilters::Parse(request.device_filters()));
  std::vector<std::shared_ptr<MasterSession>> sessions;
  {
    absl::MutexLock l(&mu_);
    for (auto& [handle, session] : sessions_) sessions.push_back(session);
    sessions_.clear();
  }
  CloseAll(std::move(sessions));

  using Group = WorkerCallGroup<tensorflow::CleanupAllRequest,
                                tensorflow::CleanupAllResponse>;
  Group group;
  for (const std::string& task : FilteredTasks(env_, filters)) {
    TRIB_ASSIGN_OR_RETURN(std::shared_ptr<WorkerInterface> worker,
                          env_.worker_cache->GetWorker(task));
    Group::Call* call = group.Add(task, std::move(worker));
    for (const std::string& c : request.container()) {
      call->request.add_container(c);
    }
  }
  const absl::Time deadline = DeadlineAfter(env_.control_timeout);
  group.Start(deadline, StartCleanupAll);
  const bool all_done = group.WaitAll(deadline);
  absl::Status first;
  for (size_t i = 0; i < group.size() && first.ok(); ++i) {
    absl::Status s = group.status(
        i,
        errors::DeadlineExceeded("no answer within ",
                                 absl::FormatDuration(env_.control_timeout)));
    if (!s.ok()) {
      first = errors::Create(s.code(), "CleanupAll on ",
                             env_.DescribeTask(group.call(i).task),
                             " failed: ", s.message());
    }
  }
  if (!all_done) group.CancelAll();
  return first;
}

absl::Status Master::MakeCallable(
    const tensorflow::MakeCallableRequest& request,
    tensorflow::MakeCallableResponse* response) {
  CallScope scope(this);
  TRIB_RETURN_IF_ERROR(scope.status());
  TRIB_RETURN_IF_ERROR(
      request_ids_.TrackUnique(request.request_id(), "MakeCallableRequest"));
  TRIB_ASSIGN_OR_RETURN(std::shared_ptr<MasterSession> session,
                        FindSession(request.session_handle()));
  return session->MakeCallable(request, response);
}

absl::Status Master::RunCallable(CallOptions* opts,
                                 const tensorflow::RunCallableRequest& request,
                                 tensorflow::RunCallableResponse* response) {
  const absl::Time started = StepMetricsOfMaster().Start();
  absl::Status s = DoRunCallable(opts, request, response);
  StepMetricsOfMaster().End(started, s.code());
  return s;
}

absl::Status Master::DoRunCallable(
    CallOptions* opts, const tensorflow::RunCallableRequest& request,
    tensorflow::RunCallableResponse* response) {
  CallScope scope(this);
  TRIB_RETURN_IF_ERROR(scope.status());
  TRIB_ASSIGN_OR_RETURN(std::shared_ptr<MasterSession> session,
                        FindSession(request.session_handle()));
  TRIB_ASSIGN_OR_RETURN(std::shared_ptr<StepSlots> slots,
                        AcquireStepSlots(opts, session->handle()));
  TRIB_RETURN_IF_ERROR(
      request_ids_.TrackUnique(request.request_id(), "RunCallableRequest"));
  return session->RunCallable(opts, request, response);
}

absl::Status Master::ReleaseCallable(
    const tensorflow::ReleaseCallableRequest& request,
    tensorflow::ReleaseCallableResponse* response) {
  CallScope scope(this);
  TRIB_RETURN_IF_ERROR(scope.status());
  TRIB_ASSIGN_OR_RETURN(std::shared_ptr<MasterSession> session,
                        FindSession(request.session_handle()));
  return session->ReleaseCallable(request, response);
}

absl::StatusOr<std::shared_ptr<Master::StepSlots>> Master::AcquireStepSlots(
    const CallOptions* opts, const std::string& session_handle) {
  const std::string client = opts == nullptr ? "" : opts->client();
  auto slots = std::make_shared<StepSlots>();
  TRIB_ASSIGN_OR_RETURN(
      slots->client,
      client_steps_.Acquire(client, client.empty()
                                        ? std::string("The in-process client")
                                        : absl::StrCat("Client ", client)));
  TRIB_ASSIGN_OR_RETURN(
      slots->session,
      session_steps_.Acquire(session_handle,
                             absl::StrCat("Session ", session_handle)));
  return slots;
}

int Master::CollectIdleSessions(absl::Time now) {
  if (options_.idle_session_timeout <= absl::ZeroDuration()) return 0;
  std::vector<std::shared_ptr<MasterSession>> idle;
  {
    absl::MutexLock l(&mu_);
    for (auto it = sessions_.begin(); it != sessions_.end();) {
      const MasterSession& s = *it->second;
      if (!s.busy() && s.last_access() + options_.idle_session_timeout < now) {
        idle.push_back(std::move(it->second));
        it = sessions_.erase(it);
      } else {
        ++it;
      }
    }
  }
  for (const auto& session : idle) {
    spdlog::info("Closing session {}: idle for more than {}", session->handle(),
                 absl::FormatDuration(options_.idle_session_timeout));
  }
  const int n = static_cast<int>(idle.size());
  CloseAll(std::move(idle));
  return n;
}

void Master::GcLoop() {
  const absl::Duration interval = GcInterval(options_);
  while (true) {
    {
      absl::MutexLock l(&mu_);
      if (mu_.AwaitWithTimeout(absl::Condition(&gc_stop_), interval)) return;
    }
    CollectIdleSessions(absl::Now());
  }
}

void Master::Shutdown(absl::Duration grace) {
  {
    absl::MutexLock l(&mu_);
    shutting_down_ = true;
    mu_.AwaitWithTimeout(absl::Condition(
                             +[](int* n) { return *n == 0; }, &in_flight_),
                         grace);
  }
  // Closing cancels whatever still runs.
  std::vector<std::shared_ptr<MasterSession>> sessions;
  {
    absl::MutexLock l(&mu_);
    for (auto& [handle, session] : sessions_) sessions.push_back(session);
    sessions_.clear();
    gc_stop_ = true;
  }
  if (!sessions.empty()) {
    spdlog::info("Closing {} session(s)", sessions.size());
  }
  CloseAll(std::move(sessions));
  if (gc_thread_.joinable()) gc_thread_.join();
  {
    absl::MutexLock l(&mu_);
    mu_.AwaitWithTimeout(absl::Condition(
                             +[](int* n) { return *n == 0; }, &in_flight_),
                         env_.control_timeout);
  }
  env_.background->WaitIdle(DeadlineAfter(env_.control_timeout));
}

int Master::num_sessions() const {
  absl::MutexLock l(&mu_);
  return static_cast<int>(sessions_.size());
}

bool Master::HasSession(const std::string& handle) const {
  absl::MutexLock l(&mu_);
  return sessions_.count(handle) != 0;
}

}  // namespace tributary
