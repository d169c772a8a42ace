#include "master/master_session.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/device/device_name_utils.h"
#include "common/distributed/resource_limits.h"
#include "common/distributed/wait_for_callback.h"
#include "common/framework/log_context.h"
#include "common/framework/status.h"
#include "common/framework/types.h"
#include "common/runtime/placement/placer.h"
#include "master/worker_calls.h"
#include "spdlog/spdlog.h"

namespace tributary {

namespace {

// Requested fetches without repeats (the rendezvous convention allows one
// _Send per tensor), and where each request position finds its value.
void DedupeFetches(const google::protobuf::RepeatedPtrField<std::string>& in,
                   std::vector<std::string>* unique, std::vector<int>* map) {
  absl::flat_hash_map<std::string, int> seen;
  for (const std::string& name : in) {
    auto [it, inserted] = seen.emplace(name, static_cast<int>(unique->size()));
    if (inserted) unique->push_back(name);
    map->push_back(it->second);
  }
}

// What this master does not support in RunOptions, said plainly.
absl::Status CheckRunOptions(const tensorflow::RunOptions& options) {
  if (options.debug_options().debug_tensor_watch_opts_size() > 0) {
    return errors::Unimplemented(
        "RunOptions.debug_options (tfdbg tensor watches) is not supported by "
        "tributary-master");
  }
  if (options.experimental().collective_graph_key() != 0) {
    return errors::Unimplemented(
        "Collective ops (RunOptions.experimental.collective_graph_key) are "
        "not supported by tributary-master");
  }
  return absl::OkStatus();
}

void TensorToProto(const Tensor& t, tensorflow::TensorProto* proto) {
  // Typed fields for strings, the form every TensorFlow version reads.
  if (t.dtype() == DT_STRING) {
    t.AsProtoField(proto);
  } else {
    t.AsProtoTensorContent(proto);
  }
}

bool WantsMetadata(const tensorflow::RunOptions& options) {
  return options.trace_level() > tensorflow::RunOptions::NO_TRACE ||
         options.output_partition_graphs();
}

}  // namespace

struct MasterSession::GraphEntry {
  bool ready = false;
  absl::Status status;
  std::shared_ptr<const RegisteredGraph> graph;
};

struct MasterSession::PartialRunState {
  std::shared_ptr<const RegisteredGraph> graph;
  int64_t step_id = 0;
  std::vector<bool> fed;
  std::vector<bool> fetched;
};

// Marks a call of the session: refused once closed; counted so Close can
// wait for it and idle collection leaves the session alone meanwhile.
class MasterSession::CallScope {
 public:
  explicit CallScope(MasterSession* s) : session_(s) {
    absl::MutexLock l(&s->mu_);
    if (s->closed_) {
      status_ = errors::Cancelled("Session ", s->handle(), " has been closed.");
      return;
    }
    ++s->in_flight_;
    s->last_access_ = absl::Now();
    entered_ = true;
  }
  ~CallScope() {
    if (!entered_) return;
    absl::MutexLock l(&session_->mu_);
    --session_->in_flight_;
    session_->last_access_ = absl::Now();
  }
  const absl::Status& status() const { return status_; }

 private:
  MasterSession* const session_;
  absl::Status status_;
  bool entered_ = false;
};

MasterSession::MasterSession(MasterSessionOptions options)
    : options_(std::move(options)), new_name_(MakeNodeNameGenerator("/_")) {
  absl::MutexLock l(&mu_);
  last_access_ = absl::Now();
}

MasterSession::~MasterSession() { Close().IgnoreError(); }

absl::StatusOr<std::shared_ptr<MasterSession>> MasterSession::Create(
    MasterSessionOptions options, const tensorflow::GraphDef& graph,
    absl::Time deadline) {
  std::shared_ptr<MasterSession> session(new MasterSession(std::move(options)));
  absl::Status s = session->Init(graph, deadline);
  if (!s.ok()) {
    // Nothing to deregister yet; Close would talk to the workers again.
    absl::MutexLock l(&session->mu_);
    session->closed_ = true;
    return s;
  }
  return session;
}

absl::Status MasterSession::Init(const tensorflow::GraphDef& graph,
                                 absl::Time deadline) {
  const MasterEnv& env = *options_.env;
  {
    absl::MutexLock el(&extend_mu_);
    graph_bytes_ = static_cast<int64_t>(graph.ByteSizeLong());
    graph_nodes_ = CountGraphNodes(graph);
  }
  std::vector<std::string> tasks_with_devices;
  for (const TaskDevices& td : options_.tasks) {
    TRIB_ASSIGN_OR_RETURN(std::shared_ptr<WorkerInterface> worker,
                          env.worker_cache->GetWorker(td.task));
    workers_.push_back(TaskWorker{td.task, std::move(worker)});
    for (const tensorflow::DeviceAttributes& d : td.devices) {
      TRIB_RETURN_IF_ERROR(devices_.AddDevice(d));
      device_list_.push_back(d);
    }
    if (!td.devices.empty()) tasks_with_devices.push_back(td.task);
  }
  if (devices_.empty()) {
    return errors::InvalidArgument(
        "No device of the cluster is left for the session (check "
        "ConfigProto.device_filters)");
  }
  // The client device: CPU:0 of the default task, else its first device.
  const std::string default_task = DefaultTask(tasks_with_devices);
  const PlacementDevice* client =
      devices_.FindDeviceByName(absl::StrCat(default_task, "/device:CPU:0"));
  if (client == nullptr) {
    for (const PlacementDevice* d : devices_.devices()) {
      absl::StatusOr<std::string> task = TaskNameOf(d->name());
      if (task.ok() && *task == default_task) {
        client = d;
        break;
      }
    }
  }
  TRIB_RETURN_IF_ERROR(devices_.set_client_device(client->name()));

  GraphExecutionStateOptions gopts;
  gopts.devices = &devices_;
  gopts.placer_options.allow_soft_placement =
      options_.config.allow_soft_placement();
  gopts.placer_options.default_device = client->name();
  // The master links CPU kernels only to fold constants: kernel availability is
  // the workers' to check (RegisterGraph names a node without a kernel).
  gopts.placer_options.supported_device_types = AllDeviceTypesSupported();
  gopts.place_pruned_graph =
      options_.config.graph_options().place_pruned_graph();
  // The master folds and fuses with the kernels it links, as TensorFlow's
  // master does before it partitions.
  gopts.optimizer = std::make_shared<const GraphOptimizer>(
      options_.config.graph_options().rewrite_options());
  TRIB_ASSIGN_OR_RETURN(std::unique_ptr<GraphExecutionState> state,
                        GraphExecutionState::Create(graph, gopts));
  {
    absl::MutexLock l(&mu_);
    state_ = std::move(state);
  }
  return CreateWorkerSessions(deadline);
}

absl::Status MasterSession::CreateWorkerSessions(absl::Time deadline) {
  const MasterEnv& env = *options_.env;
  using Group = WorkerCallGroup<tensorflow::CreateWorkerSessionRequest,
                                tensorflow::CreateWorkerSessionResponse>;
  Group group;
  const tensorflow::ClusterDef cluster_def = env.cluster.AsClusterDef();
  for (const TaskWorker& w : workers_) {
    Group::Call* call = group.Add(w.task, w.worker);
    tensorflow::CreateWorkerSessionRequest& req = call->request;
    req.set_session_handle(handle());
    tensorflow::ServerDef* server_def = req.mutable_server_def();
    *server_def->mutable_cluster() = cluster_def;
    DeviceNameUtils::ParsedName parsed;
    if (DeviceNameUtils::ParseFullName(w.task, &parsed)) {
      server_def->set_job_name(parsed.job);
      server_def->set_task_index(parsed.task);
    }
    *server_def->mutable_default_session_config() = options_.config;
    server_def->set_protocol("grpc");
    req.set_isolate_session_state(options_.config.isolate_session_state());
    req.set_master_incarnation(static_cast<int64_t>(env.incarnation));
  }
  group.Start(deadline, StartCreateWorkerSession);
  const bool all_done = group.WaitAll(deadline);
  absl::Status first;
  for (size_t i = 0; i < group.size(); ++i) {
    absl::Status s = group.status(
        i, errors::DeadlineExceeded("no answer before the deadline"));
    if (s.ok()) continue;
    first = errors::Create(s.code(), "CreateWorkerSession on ",
                           env.DescribeTask(group.call(i).task),
                           " failed: ", s.message());
    break;
  }
  if (first.ok()) {
    // If this process dies, the workers delete the sessions it held.
    holder_ =
        std::make_unique<WorkerSessionHolder>(handle(), workers_, env.timer);
    return absl::OkStatus();
  }
  if (!all_done) group.CancelAll();
  DeleteWorkerSessionAsync(env.detached(), workers_, handle());
  return first;
}

absl::Status MasterSession::Extend(
    const tensorflow::ExtendSessionRequest& request,
    tensorflow::ExtendSessionResponse* response) {
  CallScope scope(this);
  TRIB_RETURN_IF_ERROR(scope.status());
  absl::MutexLock el(&extend_mu_);
  std::shared_ptr<const GraphExecutionState> current;
  int64_t version;
  {
    absl::MutexLock l(&mu_);
    current = state_;
    version = graph_version_;
  }
  if (request.current_graph_version() != version) {
    return errors::Aborted("Current version is ", version,
                           " but caller expected ",
                           request.current_graph_version(), ".");
  }
  const int64_t added =
      static_cast<int64_t>(request.graph_def().ByteSizeLong());
  TRIB_RETURN_IF_ERROR(CheckGraphBytes(
      graph_bytes_ + added, options_.max_graph_bytes, "--max-graph-bytes",
      absl::StrCat("ExtendSession of session ", handle(),
                   " (the session's graph with this extension)")));
  const int64_t added_nodes = CountGraphNodes(request.graph_def());
  TRIB_RETURN_IF_ERROR(CheckGraphNodes(
      graph_nodes_ + added_nodes, options_.max_graph_nodes, "--max-graph-nodes",
      absl::StrCat("ExtendSession of session ", handle(),
                   " (the session's graph with this extension)")));
  TRIB_ASSIGN_OR_RETURN(std::unique_ptr<GraphExecutionState> next,
                        current->Extend(request.graph_def()));
  // Registered graphs stay valid: Extend only adds nodes, and stateful
  // nodes keep their devices.
  absl::MutexLock l(&mu_);
  graph_bytes_ += added;
  graph_nodes_ += added_nodes;
  state_ = std::move(next);
  graph_version_ = version + 1;
  response->set_new_graph_version(graph_version_);
  return absl::OkStatus();
}

absl::Time MasterSession::StepDeadline(const tensorflow::RunOptions& options,
                                       CallOptions* caller,
                                       std::string* source) const {
  absl::Time deadline = absl::InfiniteFuture();
  if (options.timeout_in_ms() > 0) {
    deadline = absl::Now() + absl::Milliseconds(options.timeout_in_ms());
    *source =
        absl::StrCat(options.timeout_in_ms(), " ms (RunOptions.timeout_in_ms)");
  } else if (options_.config.operation_timeout_in_ms() > 0) {
    deadline = absl::Now() +
               absl::Milliseconds(options_.config.operation_timeout_in_ms());
    *source = absl::StrCat(options_.config.operation_timeout_in_ms(),
                           " ms (ConfigProto.operation_timeout_in_ms)");
  }
  if (caller != nullptr && caller->deadline() < deadline) {
    deadline = caller->deadline();
    *source = "the deadline of the client's call";
  }
  return deadline;
}

absl::StatusOr<std::shared_ptr<const RegisteredGraph>>
MasterSession::GetOrRegisterGraph(const StepSignature& signature,
                                  absl::Time deadline, bool partial_run) {
  const std::string key =
      absl::StrCat(partial_run ? "partial|" : "", SignatureKey(signature));
  std::shared_ptr<GraphEntry> entry;
  std::shared_ptr<const GraphExecutionState> state;
  bool builder = false;
  {
    absl::MutexLock l(&mu_);
    auto it = graphs_.find(key);
    if (it != graphs_.end()) {
      entry = it->second;
    } else {
      entry = std::make_shared<GraphEntry>();
      graphs_.emplace(key, entry);
      builder = true;
    }
    state = state_;
  }
  if (!builder) {
    // Another call registers this signature: wait for it.
    absl::MutexLock l(&mu_);
    if (!mu_.AwaitWithDeadline(absl::Condition(&entry->ready), deadline)) {
      return errors::DeadlineExceeded(
          "The step's deadline passed while its graph was being registered "
          "by another call");
    }
    if (!entry->status.ok()) return entry->status;
    return entry->graph;
  }

  RegisteredGraphOptions ropts;
  ropts.env = options_.env;
  ropts.state = state.get();
  ropts.devices = &devices_;
  ropts.new_name = new_name_;
  ropts.session_handle = handle();
  ropts.config = options_.config;
  ropts.deadline = deadline != absl::InfiniteFuture()
                       ? deadline
                       : DeadlineAfter(options_.env->control_timeout);
  ropts.compute_fetch_dependencies = partial_run;
  absl::StatusOr<std::shared_ptr<RegisteredGraph>> built =
      RegisteredGraph::Create(ropts, signature);

  absl::MutexLock l(&mu_);
  entry->ready = true;
  if (built.ok() && closed_) {
    (*built)->DeregisterAsync(*options_.env, handle());
    built = errors::Cancelled("Session ", handle(), " has been closed.");
  }
  if (!built.ok()) {
    entry->status = built.status();
    // Not cached: a later step may succeed (a worker came back).
    auto it = graphs_.find(key);
    if (it != graphs_.end() && it->second == entry) graphs_.erase(it);
    return built.status();
  }
  entry->graph = *built;
  return entry->graph;
}

absl::Status MasterSession::CheckFeedTypes(const RegisteredGraph& graph,
                                           const NamedTensors& feeds) const {
  const StepSignature& sig = graph.signature();
  for (const auto& [name, value] : feeds) {
    auto it = std::find(sig.feeds.begin(), sig.feeds.end(), name);
    if (it == sig.feeds.end()) continue;
    const size_t i = it - sig.feeds.begin();
    if (value.dtype() != graph.feed_types()[i]) {
      return errors::InvalidArgument(
          "Expects arg[", i, "] to be ", DataTypeString(graph.feed_types()[i]),
          " but ", DataTypeString(value.dtype()), " is provided");
    }
  }
  return absl::OkStatus();
}

absl::Status MasterSession::RunStep(
    CallOptions* caller, std::shared_ptr<const RegisteredGraph> graph,
    const StepOptions& step_options, const NamedTensors& feeds,
    const std::vector<int>& fetches, std::vector<Tensor>* outputs,
    tensorflow::RunMetadata* metadata) {
  return WaitForCallback([&](StatusCallback done) {
    RunStepAsync(caller, std::move(graph), step_options, feeds, fetches,
                 outputs, metadata, std::move(done));
  });
}

void MasterSession::RunStepAsync(
    CallOptions* caller, std::shared_ptr<const RegisteredGraph> graph,
    const StepOptions& step_options, const NamedTensors& feeds,
    const std::vector<int>& fetches, std::vector<Tensor>* outputs,
    tensorflow::RunMetadata* metadata, StatusCallback done) {
  auto step = std::make_shared<DistributedStep>(options_.env, std::move(graph),
                                                step_options);
  {
    absl::MutexLock l(&mu_);
    if (closed_) {
      done(errors::Cancelled("Session ", handle(), " has been closed."));
      return;
    }
    running_.insert(step);
  }
  if (caller != nullptr) {
    caller->SetCancelCallback([step] {
      step->Cancel(errors::Cancelled("The client cancelled the call"));
    });
  }
  step->RunAsync(
      feeds, fetches, outputs, metadata,
      [this, step, caller, done = std::move(done)](const absl::Status& s) {
        if (caller != nullptr) caller->ClearCancelCallback();
        {
          absl::MutexLock l(&mu_);
          running_.erase(step);
        }
        done(s);
      });
}

// One RunStep request on its way: what the step's end needs.
struct MasterSession::StepRun {
  const RunStepRequestMsg* request = nullptr;
  RunStepResponseMsg* response = nullptr;
  CallOptions* caller = nullptr;
  // Feeds given in the proto (an in-process caller), as tensors.
  NamedTensors proto_feeds;
  const NamedTensors* feeds = nullptr;
  StepSignature signature;
  // Request fetch i is signature fetch fetch_map[i].
  std::vector<int> fetch_map;
  StepOptions step_options;
  std::vector<Tensor> outputs;
  // Released before `done` runs: the session may go once it has.
  std::unique_ptr<CallScope> scope;
  StatusCallback done;

  void Finish(const absl::Status& s) {
    scope.reset();
    StatusCallback d = std::move(done);
    d(s);
  }
};

absl::Status MasterSession::Run(CallOptions* caller,
                                const RunStepRequestMsg& request,
                                RunStepResponseMsg* response) {
  return WaitForCallback([&](StatusCallback done) {
    RunAsync(caller, request, response, std::move(done));
  });
}

void MasterSession::RunAsync(CallOptions* caller,
                             const RunStepRequestMsg& request,
                             RunStepResponseMsg* response,
                             StatusCallback done) {
  auto run = std::make_shared<StepRun>();
  run->request = &request;
  run->response = response;
  run->caller = caller;
  run->scope = std::make_unique<CallScope>(this);
  run->done = std::move(done);
  if (!run->scope->status().ok()) return run->Finish(run->scope->status());
  const tensorflow::RunStepRequest& req = request.proto;
  absl::Status s = CheckRunOptions(req.options());
  if (!s.ok()) return run->Finish(s);

  if (!req.partial_run_handle().empty()) {
    // Partial runs keep their own synchronous bookkeeping.
    return Blocking([this, run] {
      run->Finish(DoPartialRun(run->caller, *run->request, run->response));
    });
  }
  // Feeds arrive as tensors (the gRPC service decodes them so); an
  // in-process caller may have filled the proto instead.
  if (request.feed.empty()) {
    for (const tensorflow::NamedTensorProto& f : req.feed()) {
      absl::StatusOr<Tensor> t = Tensor::FromProto(f.tensor());
      if (!t.ok()) {
        return run->Finish(errors::InvalidArgument("Feed ", f.name(), ": ",
                                                   t.status().message()));
      }
      run->proto_feeds.emplace_back(f.name(), std::move(*t));
    }
  }
  run->feeds = request.feed.empty() ? &run->proto_feeds : &request.feed;
  for (const auto& [name, value] : *run->feeds) {
    run->signature.feeds.push_back(name);
  }
  DedupeFetches(req.fetch(), &run->signature.fetches, &run->fetch_map);
  run->signature.targets.assign(req.target().begin(), req.target().end());
  StepOptions& sopts = run->step_options;
  sopts.deadline = StepDeadline(req.options(), caller, &sopts.deadline_source);

  // The common case, a signature seen before, starts the step on this
  // thread; the first step of a signature registers its graph (RPCs to
  // every worker, waited for) on a blocking thread first.
  std::shared_ptr<const RegisteredGraph> graph = ReadyGraph(run->signature);
  if (graph != nullptr) return StartStep(run, std::move(graph));
  Blocking([this, run] {
    absl::StatusOr<std::shared_ptr<const RegisteredGraph>> g =
        GetOrRegisterGraph(run->signature, run->step_options.deadline, false);
    if (!g.ok()) return run->Finish(g.status());
    StartStep(run, *std::move(g));
  });
}

void MasterSession::StartStep(const std::shared_ptr<StepRun>& run,
                              std::shared_ptr<const RegisteredGraph> graph) {
  absl::Status s = CheckFeedTypes(*graph, *run->feeds);
  if (!s.ok()) return run->Finish(s);
  const tensorflow::RunStepRequest& req = run->request->proto;
  StepOptions& sopts = run->step_options;
  sopts.step_id = NewStepId();
  sopts.session_handle = handle();
  ScopedLogContext log(handle(), sopts.step_id);
  spdlog::debug("step started: {} feed(s), {} fetch(es), {} target(s)",
                req.feed_size(), req.fetch_size(), req.target_size());
  sopts.trace = req.options().trace_level() > tensorflow::RunOptions::NO_TRACE;
  sopts.output_partition_graphs = req.options().output_partition_graphs();
  std::vector<int> fetches(run->signature.fetches.size());
  for (size_t j = 0; j < fetches.size(); ++j) fetches[j] = j;
  tensorflow::RunMetadata* metadata =
      WantsMetadata(req.options()) ? run->response->proto.mutable_metadata()
                                   : nullptr;
  RunStepAsync(run->caller, std::move(graph), sopts, *run->feeds, fetches,
               &run->outputs, metadata,
               [run, session = handle(),
                step_id = sopts.step_id](const absl::Status& s) {
                 {
                   ScopedLogContext log(session, step_id);
                   spdlog::debug("step ended: {}",
                                 s.ok() ? "OK" : s.ToString());
                 }
                 if (s.ok()) {
                   const tensorflow::RunStepRequest& r = run->request->proto;
                   RunStepResponseMsg* response = run->response;
                   response->tensor.clear();
                   for (int i = 0; i < r.fetch_size(); ++i) {
                     response->tensor.emplace_back(
                         r.fetch(i), run->outputs[run->fetch_map[i]]);
                   }
                 }
                 run->Finish(s);
               });
}

std::shared_ptr<const RegisteredGraph> MasterSession::ReadyGraph(
    const StepSignature& signature) const {
  const std::string key = SignatureKey(signature);
  absl::MutexLock l(&mu_);
  auto it = graphs_.find(key);
  if (it == graphs_.end() || !it->second->ready || !it->second->status.ok()) {
    return nullptr;
  }
  return it->second->graph;
}

void MasterSession::Blocking(std::function<void()> fn) {
  BlockingCallPool* pool = options_.env->blocking_pool;
  if (pool == nullptr) {
    fn();
  } else {
    pool->Schedule(std::move(fn));
  }
}

absl::Status MasterSession::PartialRunSetup(
    const tensorflow::PartialRunSetupRequest& request,
    tensorflow::PartialRunSetupResponse* response) {
  CallScope scope(this);
  TRIB_RETURN_IF_ERROR(scope.status());
  StepSignature sig;
  sig.feeds.assign(request.feed().begin(), request.feed().end());
  std::vector<int> unused;
  DedupeFetches(request.fetch(), &sig.fetches, &unused);
  sig.targets.assign(request.target().begin(), request.target().end());
  tensorflow::RunOptions no_options;
  std::string source;
  const absl::Time deadline = StepDeadline(no_options, nullptr, &source);
  TRIB_ASSIGN_OR_RETURN(std::shared_ptr<const RegisteredGraph> graph,
                        GetOrRegisterGraph(sig, deadline, true));
  auto prs = std::make_shared<PartialRunState>();
  prs->graph = graph;
  prs->step_id = NewStepId();
  prs->fed.assign(sig.feeds.size(), false);
  prs->fetched.assign(sig.fetches.size(), false);
  absl::MutexLock l(&mu_);
  const std::string h = absl::StrCat(next_partial_run_++);
  partial_runs_[h] = prs;
  response->set_partial_run_handle(h);
  return absl::OkStatus();
}

absl::Status MasterSession::DoPartialRun(CallOptions* caller,
                                         const RunStepRequestMsg& request,
                                         RunStepResponseMsg* response) {
  const tensorflow::RunStepRequest& req = request.proto;
  const std::string& h = req.partial_run_handle();
  NamedTensors proto_feeds;
  if (request.feed.empty()) {
    for (const tensorflow::NamedTensorProto& f : req.feed()) {
      TRIB_ASSIGN_OR_RETURN(Tensor t, Tensor::FromProto(f.tensor()));
      proto_feeds.emplace_back(f.name(), std::move(t));
    }
  }
  const NamedTensors& feeds = request.feed.empty() ? proto_feeds : request.feed;

  std::shared_ptr<PartialRunState> prs;
  std::vector<int> fetches;    // Indices into the signature's fetches.
  std::vector<int> fetch_pos;  // Request position -> index in `fetches`.
  bool is_last = false;
  {
    absl::MutexLock l(&mu_);
    auto it = partial_runs_.find(h);
    if (it == partial_runs_.end()) {
      return errors::InvalidArgument(
          "Partial run handle ", h,
          " is not known: run PartialRunSetup first (a partial run that "
          "finished or failed is forgotten)");
    }
    prs = it->second;
    const StepSignature& sig = prs->graph->signature();
    std::vector<bool> fed_now(sig.feeds.size(), false);
    for (const auto& [name, value] : feeds) {
      auto f = std::find(sig.feeds.begin(), sig.feeds.end(), name);
      if (f == sig.feeds.end()) {
        return errors::InvalidArgument("The feed ", name,
                                       " was not specified in "
                                       "partial_run_setup.");
      }
      const size_t i = f - sig.feeds.begin();
      if (prs->fed[i] || fed_now[i]) {
        return errors::InvalidArgument("The feed ", name,
                                       " has already been fed.");
      }
      fed_now[i] = true;
    }
    absl::flat_hash_map<int, int> seen;
    for (const std::string& name : req.fetch()) {
      auto f = std::find(sig.fetches.begin(), sig.fetches.end(), name);
      if (f == sig.fetches.end()) {
        return errors::InvalidArgument("The fetch ", name,
                                       " was not specified in "
                                       "partial_run_setup.");
      }
      const int j = f - sig.fetches.begin();
      if (prs->fetched[j]) {
        return errors::InvalidArgument("The fetch ", name,
                                       " has already been fetched.");
      }
      auto [pos, inserted] = seen.emplace(j, static_cast<int>(fetches.size()));
      if (inserted) fetches.push_back(j);
      fetch_pos.push_back(pos->second);
      // A fetch that needs a feed nobody gave yet would wait for it
      // forever (or until the deadline).
      for (int dep : prs->graph->fetch_feed_dependencies()[j]) {
        if (!prs->fed[dep] && !fed_now[dep]) {
          return errors::InvalidArgument(
              "Fetch ", name,
              " can't be computed from the feeds that have been fed so far.");
        }
      }
    }
    for (size_t i = 0; i < fed_now.size(); ++i) {
      if (fed_now[i]) prs->fed[i] = true;
    }
    for (int j : fetches) prs->fetched[j] = true;
    is_last = std::all_of(prs->fed.begin(), prs->fed.end(),
                          [](bool b) { return b; }) &&
              std::all_of(prs->fetched.begin(), prs->fetched.end(),
                          [](bool b) { return b; });
    if (is_last) partial_runs_.erase(h);
  }

  StepOptions sopts;
  sopts.deadline = StepDeadline(req.options(), caller, &sopts.deadline_source);
  sopts.step_id = prs->step_id;
  sopts.session_handle = handle();
  sopts.trace = req.options().trace_level() > tensorflow::RunOptions::NO_TRACE;
  sopts.output_partition_graphs = req.options().output_partition_graphs();
  sopts.is_partial = true;
  sopts.is_last_partial_run = is_last;
  TRIB_RETURN_IF_ERROR(CheckFeedTypes(*prs->graph, feeds));
  std::vector<Tensor> outputs;
  absl::Status s =
      RunStep(caller, prs->graph, sopts, feeds, fetches, &outputs,
              WantsMetadata(req.options()) ? response->proto.mutable_metadata()
                                           : nullptr);
  if (!s.ok()) {
    // The step was aborted on the workers: the partial run is over.
    absl::MutexLock l(&mu_);
    auto it = partial_runs_.find(h);
    if (it != partial_runs_.end() && it->second == prs) partial_runs_.erase(it);
    return s;
  }
  response->tensor.clear();
  for (int i = 0; i < req.fetch_size(); ++i) {
    response->tensor.emplace_back(req.fetch(i), outputs[fetch_pos[i]]);
  }
  return absl::OkStatus();
}

absl::Status MasterSession::MakeCallable(
    const tensorflow::MakeCallableRequest& request,
    tensorflow::MakeCallableResponse* response) {
  CallScope scope(this);
  TRIB_RETURN_IF_ERROR(scope.status());
  const tensorflow::CallableOptions& opts = request.options();
  if (opts.tensor_connection_size() > 0) {
    return errors::Unimplemented(
        "CallableOptions.tensor_connection is not supported by "
        "tributary-master");
  }
  if (!opts.feed_devices().empty() || !opts.fetch_devices().empty()) {
    return errors::Unimplemented(
        "CallableOptions.feed_devices / fetch_devices are not supported by "
        "tributary-master: feeds and fetches live in the client's memory");
  }
  TRIB_RETURN_IF_ERROR(CheckRunOptions(opts.run_options()));
  Callable callable;
  callable.signature.feeds.assign(opts.feed().begin(), opts.feed().end());
  callable.signature.fetches.assign(opts.fetch().begin(), opts.fetch().end());
  callable.signature.targets.assign(opts.target().begin(), opts.target().end());
  callable.run_options = opts.run_options();
  std::string source;
  const absl::Time deadline =
      StepDeadline(callable.run_options, nullptr, &source);
  StepSignature unique = callable.signature;
  unique.fetches.clear();
  std::vector<int> unused;
  DedupeFetches(opts.fetch(), &unique.fetches, &unused);
  TRIB_ASSIGN_OR_RETURN(callable.graph,
                        GetOrRegisterGraph(unique, deadline, false));
  absl::MutexLock l(&mu_);
  const int64_t h = next_callable_++;
  callables_[h] = std::move(callable);
  response->set_handle(h);
  return absl::OkStatus();
}

absl::Status MasterSession::RunCallable(
    CallOptions* caller, const tensorflow::RunCallableRequest& request,
    tensorflow::RunCallableResponse* response) {
  CallScope scope(this);
  TRIB_RETURN_IF_ERROR(scope.status());
  Callable callable;
  {
    absl::MutexLock l(&mu_);
    auto it = callables_.find(request.handle());
    if (it == callables_.end()) {
      if (request.handle() >= 0 && request.handle() < next_callable_) {
        return errors::InvalidArgument(
            "Attempted to run callable after handle was released: ",
            request.handle());
      }
      return errors::InvalidArgument("No such callable handle: ",
                                     request.handle());
    }
    callable = it->second;
  }
  const StepSignature& sig = callable.signature;
  if (request.feed_size() != static_cast<int>(sig.feeds.size())) {
    return errors::InvalidArgument("Expected ", sig.feeds.size(),
                                   " feed tensors, but got ",
                                   request.feed_size());
  }
  NamedTensors feeds;
  for (int i = 0; i < request.feed_size(); ++i) {
    absl::StatusOr<Tensor> t = Tensor::FromProto(request.feed(i));
    if (!t.ok()) {
      return errors::InvalidArgument("Feed ", sig.feeds[i], ": ",
                                     t.status().message());
    }
    feeds.emplace_back(sig.feeds[i], std::move(*t));
  }
  const RegisteredGraph& graph = *callable.graph;
  TRIB_RETURN_IF_ERROR(CheckFeedTypes(graph, feeds));

  StepOptions sopts;
  sopts.deadline =
      StepDeadline(callable.run_options, caller, &sopts.deadline_source);
  sopts.step_id = NewStepId();
  sopts.session_handle = handle();
  sopts.trace =
      callable.run_options.trace_level() > tensorflow::RunOptions::NO_TRACE;
  sopts.output_partition_graphs =
      callable.run_options.output_partition_graphs();
  std::vector<int> fetches(graph.signature().fetches.size());
  for (size_t j = 0; j < fetches.size(); ++j) fetches[j] = j;
  std::vector<Tensor> outputs;
  TRIB_RETURN_IF_ERROR(
      RunStep(caller, callable.graph, sopts, feeds, fetches, &outputs,
              WantsMetadata(callable.run_options) ? response->mutable_metadata()
                                                  : nullptr));
  // Fetches in the callable's order, repeats included.
  const std::vector<std::string>& unique = graph.signature().fetches;
  for (const std::string& name : sig.fetches) {
    const size_t j =
        std::find(unique.begin(), unique.end(), name) - unique.begin();
    TensorToProto(outputs[j], response->add_fetch());
  }
  return absl::OkStatus();
}

absl::Status MasterSession::ReleaseCallable(
    const tensorflow::ReleaseCallableRequest& request,
    tensorflow::ReleaseCallableResponse* response) {
  (void)response;
  CallScope scope(this);
  TRIB_RETURN_IF_ERROR(scope.status());
  absl::MutexLock l(&mu_);
  // The registered graph stays cached for other steps of its signature.
  callables_.erase(request.handle());
  return absl::OkStatus();
}

void MasterSession::ListDevices(
    tensorflow::ListDevicesResponse* response) const {
  for (const tensorflow::DeviceAttributes& d : device_list_) {
    *response->add_remote_device() = d;
  }
}

absl::Status MasterSession::Close() {
  const MasterEnv& env = *options_.env;
  std::set<std::shared_ptr<DistributedStep>> running;
  std::map<std::string, std::shared_ptr<PartialRunState>> partial;
  {
    absl::MutexLock l(&mu_);
    if (closed_) return absl::OkStatus();
    closed_ = true;
    running = running_;
    partial.swap(partial_runs_);
  }
  // Set by Init, which ran before anyone could call Close.
  if (holder_ != nullptr) holder_->Release();
  const absl::Status closed =
      errors::Cancelled("Session ", handle(), " was closed");
  for (const auto& step : running) step->Cancel(closed);
  std::map<std::string, std::shared_ptr<GraphEntry>> graphs;
  {
    absl::MutexLock l(&mu_);
    if (!mu_.AwaitWithDeadline(
            absl::Condition(
                +[](int* n) { return *n == 0; }, &in_flight_),
            DeadlineAfter(env.control_timeout))) {
      spdlog::warn("Closing session {}: {} call(s) still running", handle(),
                   in_flight_);
    }
    graphs.swap(graphs_);
    callables_.clear();
  }
  for (const auto& [h, prs] : partial) {
    CleanupGraphAsync(env.detached(), prs->graph->workers(), prs->step_id);
  }

  // Deregister every graph, then delete the worker sessions; both waited
  // for (bounded) so that a closed session holds nothing on the workers.
  const absl::Time deadline = DeadlineAfter(env.control_timeout);
  {
    using Group = WorkerCallGroup<tensorflow::DeregisterGraphRequest,
                                  tensorflow::DeregisterGraphResponse>;
    Group group;
    for (const auto& [key, entry] : graphs) {
      if (!entry->ready || entry->graph == nullptr) continue;
      for (const WorkerPartition& p : entry->graph->partitions()) {
        Group::Call* call = group.Add(p.target.task, p.target.worker);
        call->request.set_session_handle(handle());
        call->request.set_create_worker_session_called(true);
        call->request.set_graph_handle(p.graph_handle);
      }
    }
    group.Start(deadline, StartDeregisterGraph);
    if (!group.WaitAll(deadline)) group.CancelAll();
    for (size_t i = 0; i < group.size(); ++i) {
      absl::Status s = group.status(i, errors::DeadlineExceeded("no answer"));
      if (!s.ok()) {
        spdlog::warn("Closing session {}: DeregisterGraph on {}: {}", handle(),
                     group.call(i).task, s.ToString());
      }
    }
  }
  {
    using Group = WorkerCallGroup<tensorflow::DeleteWorkerSessionRequest,
                                  tensorflow::DeleteWorkerSessionResponse>;
    Group group;
    for (const TaskWorker& w : workers_) {
      group.Add(w.task, w.worker)->request.set_session_handle(handle());
    }
    group.Start(deadline, StartDeleteWorkerSession);
    if (!group.WaitAll(deadline)) group.CancelAll();
    for (size_t i = 0; i < group.size(); ++i) {
      absl::Status s = group.status(i, errors::DeadlineExceeded("no answer"));
      if (!s.ok()) {
        spdlog::warn("Closing session {}: DeleteWorkerSession on {}: {}",
                     handle(), group.call(i).task, s.ToString());
      }
    }
  }
  return absl::OkStatus();
}

absl::Time MasterSession::last_access() const {
  absl::MutexLock l(&mu_);
  return last_access_;
}

bool MasterSession::busy() const {
  absl::MutexLock l(&mu_);
  return in_flight_ > 0;
}

int64_t MasterSession::num_registered_graphs() const {
  absl::MutexLock l(&mu_);
  return graphs_.size();
}

}  // namespace tributary
