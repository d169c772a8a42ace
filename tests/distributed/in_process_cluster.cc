#include "tests/distributed/in_process_cluster.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "common/framework/logging.h"
#include "common/framework/status.h"
#include "common/runtime/partition/graph_partition.h"
#include "common/runtime/placement/placer.h"
#include "master/device_discovery.h"
#include "master/distributed_step.h"

namespace tributary {
namespace distributed_test {
namespace {

// A bound for waits that end at once unless something hangs.
absl::Time Soon() { return absl::Now() + absl::Seconds(30); }

}  // namespace

InProcessCluster::InProcessCluster(const std::vector<std::string>& tasks,
                                   int num_cpus, int threads, bool grpc)
    : workers_(tasks, num_cpus, threads, grpc),
      new_name_(MakeNodeNameGenerator("/_")) {
  for (const std::string& t : workers_.tasks()) {
    absl::StatusOr<std::shared_ptr<WorkerInterface>> target =
        workers_.cache()->GetWorker(t);
    CHECK(target.ok()) << target.status();
    auto observed = std::make_shared<ObservedWorker>(t, *target);
    observed_[t] = observed;
    master_cache_.AddWorker(t, observed);
  }
  env_.worker_cache = &master_cache_;
  env_.timer = &timer_;
}

InProcessCluster::~InProcessCluster() {
  for (const std::string& t : workers_.tasks()) {
    if (worker(t) != nullptr) worker(t)->AbortAll(errors::Cancelled("end"));
  }
  // Held cleanups were answered already; the master's other calls finish
  // before the workers and the observers go.
  WaitForBackgroundCalls();
  for (const std::string& t : workers_.tasks()) {
    if (worker(t) != nullptr) worker(t)->WaitUntilIdle(Soon());
  }
}

ObservedWorker& InProcessCluster::observed(const std::string& name) {
  auto it = observed_.find(name);
  CHECK(it != observed_.end()) << name;
  return *it->second;
}

void InProcessCluster::RestartTask(const std::string& name) {
  workers_.RestartTask(name);
  absl::StatusOr<std::shared_ptr<WorkerInterface>> target =
      workers_.cache()->GetWorker(name);
  CHECK(target.ok()) << target.status();
  auto observed = std::make_shared<ObservedWorker>(name, *target);
  observed_[name] = observed;
  master_cache_.AddWorker(name, observed);
}

absl::StatusOr<std::shared_ptr<const RegisteredGraph>>
InProcessCluster::Register(const tensorflow::GraphDef& graph,
                           const StepSignature& signature,
                           const std::string& client_task,
                           const std::string& session) {
  // The devices as a master session finds them: GetStatus on every task.
  TRIB_ASSIGN_OR_RETURN(DeviceFilters filters, DeviceFilters::Parse({}));
  TRIB_ASSIGN_OR_RETURN(
      std::vector<TaskDevices> found,
      DiscoverDevices(env_, workers_.tasks(), filters, Soon(),
                      absl::Seconds(30)));
  DeviceSet devices;
  for (const TaskDevices& td : found) {
    for (const auto& attrs : td.devices) {
      TRIB_RETURN_IF_ERROR(devices.AddDevice(attrs));
    }
  }
  const std::string client = absl::StrCat(client_task, "/device:CPU:0");
  TRIB_RETURN_IF_ERROR(devices.set_client_device(client));
  GraphExecutionStateOptions gopts;
  gopts.devices = &devices;
  gopts.placer_options.default_device = client;
  gopts.placer_options.supported_device_types = AllDeviceTypesSupported();
  TRIB_ASSIGN_OR_RETURN(std::unique_ptr<GraphExecutionState> state,
                        GraphExecutionState::Create(graph, gopts));

  RegisteredGraphOptions ropts;
  ropts.env = &env_;
  ropts.state = state.get();
  ropts.devices = &devices;
  ropts.new_name = new_name_;
  ropts.session_handle = session;
  ropts.deadline = Soon();
  TRIB_ASSIGN_OR_RETURN(std::shared_ptr<RegisteredGraph> registered,
                        RegisteredGraph::Create(ropts, signature));
  return std::shared_ptr<const RegisteredGraph>(std::move(registered));
}

std::string InProcessCluster::Handle(const RegisteredGraph& graph,
                                     const std::string& task) {
  for (const WorkerPartition& p : graph.partitions()) {
    if (p.target.task == task) return p.graph_handle;
  }
  CHECK(false) << "no partition on " << task;
  return "";
}

InProcessCluster::StepResult InProcessCluster::RunStep(
    const RegisteredGraph& graph, const std::string& session, int64_t step_id,
    const std::vector<Tensor>& feeds, const StepOptions& options) {
  ::tributary::StepOptions step;
  step.step_id = step_id;
  step.session_handle = session;
  if (options.timeout > absl::ZeroDuration()) {
    step.deadline = absl::Now() + options.timeout;
    step.deadline_source = absl::StrCat(
        absl::ToInt64Milliseconds(options.timeout), " ms (the test's timeout)");
  }
  step.trace = options.trace;
  step.output_partition_graphs = options.partition_graphs;
  step.is_partial = options.is_partial;
  step.is_last_partial_run = options.is_last_partial_run;
  const StepSignature& sig = graph.signature();
  CHECK_EQ(feeds.size(), sig.feeds.size());
  NamedTensors named;
  for (size_t i = 0; i < feeds.size(); ++i) {
    named.emplace_back(sig.feeds[i], feeds[i]);
  }
  std::vector<int> fetches;
  for (size_t j = 0; j < sig.fetches.size(); ++j) {
    fetches.push_back(static_cast<int>(j));
  }
  return Run(graph, std::move(step), named, fetches);
}

InProcessCluster::StepResult InProcessCluster::RunPartial(
    const RegisteredGraph& graph, const std::string& session, int64_t step_id,
    const NamedTensors& feeds, const std::vector<int>& fetches, bool last) {
  ::tributary::StepOptions step;
  step.step_id = step_id;
  step.session_handle = session;
  step.is_partial = true;
  step.is_last_partial_run = last;
  return Run(graph, std::move(step), feeds, fetches);
}

InProcessCluster::StepResult InProcessCluster::Run(
    const RegisteredGraph& graph, ::tributary::StepOptions step,
    const NamedTensors& feeds, const std::vector<int>& fetches) {
  const int64_t step_id = step.step_id;
  // DistributedStep holds the graph beyond the step (late callbacks); the
  // caller's graph is one Register made, so share it without owning.
  std::shared_ptr<const RegisteredGraph> shared(&graph,
                                                [](const RegisteredGraph*) {});
  for (const WorkerPartition& p : graph.partitions()) {
    observed(p.target.task).ForgetRunGraph(step_id);
  }
  StepResult result;
  {
    DistributedStep run(&env_, shared, std::move(step));
    result.status = run.Run(feeds, fetches, &result.fetches, nullptr);
  }
  // The master may answer before a cancelled partition reported; the test
  // looks at every task's own outcome.
  for (const WorkerPartition& p : graph.partitions()) {
    ObservedWorker::RunGraphOutcome outcome;
    if (observed(p.target.task).WaitForRunGraph(step_id, Soon(), &outcome)) {
      result.per_task[p.target.task] = outcome.status;
      result.responses[p.target.task] = std::move(outcome.response);
    } else {
      result.per_task[p.target.task] = errors::DeadlineExceeded(
          "RunGraph of step ", step_id, " on ", p.target.task,
          " did not report within 30 s");
    }
  }
  WaitForBackgroundCalls();
  return result;
}

void InProcessCluster::HoldCleanups(bool hold) {
  for (auto& [t, o] : observed_) o->set_hold_cleanups(hold);
}

void InProcessCluster::ShieldRunGraphs(bool shield) {
  for (auto& [t, o] : observed_) o->set_shield_run_graph(shield);
}

std::map<std::string, std::vector<int64_t>>
InProcessCluster::ReleaseHeldCleanups() {
  std::map<std::string, std::vector<int64_t>> held;
  for (auto& [t, o] : observed_) {
    std::vector<int64_t> ids = o->held_cleanups();
    if (!ids.empty()) held[t] = std::move(ids);
    const absl::Status s = o->ReleaseHeldCleanups();
    CHECK(s.ok()) << t << ": " << s;
  }
  return held;
}

bool InProcessCluster::WaitForBackgroundCalls() {
  return env_.background->WaitIdle(Soon());
}

}  // namespace distributed_test
}  // namespace tributary
