#ifndef TRIBUTARY_TESTS_DISTRIBUTED_IN_PROCESS_CLUSTER_H_
#define TRIBUTARY_TESTS_DISTRIBUTED_IN_PROCESS_CLUSTER_H_

// Real workers in this process (worker_test::InProcessWorkers: one
// WorkerServer per task, in process or served over gRPC on 127.0.0.1)
// driven by the real master code: devices found by the master's
// DiscoverDevices, each signature placed, cut by task and registered by
// RegisteredGraph, each step run by DistributedStep (its cancellation,
// root-cause rule and CleanupGraph included). Nothing of the master is
// re-implemented here; what a test sees beyond the master's answer (each
// task's own RunGraph status and response, the CleanupGraph calls) comes
// from an ObservedWorker in front of every task.
//
// Not the multi-process TestCluster of cluster_fixture.h: no daemons, no
// client session; for tests of what workers do with the partitions a
// master sends them.

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "common/distributed/deadline_timer.h"
#include "common/distributed/worker_cache.h"
#include "common/framework/tensor.h"
#include "common/runtime/graph_execution/graph_execution_state.h"
#include "common/runtime/placement/device_set.h"
#include "master/distributed_step.h"
#include "master/master_env.h"
#include "master/registered_graph.h"
#include "protos/graph.pb.h"
#include "tests/distributed/observed_worker.h"
#include "worker/worker.h"
#include "worker/worker_server.h"
#include "worker/worker_test_util.h"

namespace tributary {
namespace distributed_test {

class InProcessCluster {
 public:
  // Tasks by full name, each with `num_cpus` CPU devices and `threads`
  // inter-op threads; `grpc`: each served over gRPC, and the master's and
  // the workers' calls go over the wire.
  InProcessCluster(const std::vector<std::string>& tasks, int num_cpus = 1,
                   int threads = 2, bool grpc = false);
  // Aborts what still runs on the workers, then waits for the master's
  // background calls before anything goes.
  ~InProcessCluster();

  WorkerServer& task(const std::string& name) { return workers_.server(name); }
  Worker* worker(const std::string& name) { return workers_.worker(name); }
  // How a caller other than the master reaches the task (gRPC client when
  // served over gRPC).
  WorkerInterface* client(const std::string& name) {
    return workers_.client(name);
  }
  ObservedWorker& observed(const std::string& name);
  // Replaces the task by a new process (new incarnations). In process only.
  void RestartTask(const std::string& name);

  // The master's part before a step: the cluster's devices (GetStatus),
  // `graph` placed with the client device CPU:0 of `client_task`, then
  // RegisteredGraph::Create in worker session `session` ("" = the legacy
  // session).
  absl::StatusOr<std::shared_ptr<const RegisteredGraph>> Register(
      const tensorflow::GraphDef& graph, const StepSignature& signature,
      const std::string& client_task, const std::string& session);

  struct StepOptions {
    // > 0: the step's deadline is now + timeout.
    absl::Duration timeout = absl::ZeroDuration();
    // RunOptions.trace_level: workers record step stats.
    bool trace = false;
    // RunOptions.output_partition_graphs.
    bool partition_graphs = false;
    bool is_partial = false;
    bool is_last_partial_run = false;
  };
  struct StepResult {
    // What the master answers: the step's root cause, or OK.
    absl::Status status;
    // One per fetch, in order, on success.
    std::vector<Tensor> fetches;
    // Each task's own RunGraph outcome.
    std::map<std::string, absl::Status> per_task;
    std::map<std::string, tensorflow::RunGraphResponse> responses;
  };
  // One DistributedStep: `feeds` are the signature's feeds in order (a
  // partial run's call may feed a subset by name with RunPartial);
  // every fetch of the signature is fetched. Returns once the master
  // answered, every task's RunGraph reported and the master's background
  // calls (CleanupGraph) are done.
  StepResult RunStep(const RegisteredGraph& graph, const std::string& session,
                     int64_t step_id, const std::vector<Tensor>& feeds,
                     const StepOptions& options);
  StepResult RunStep(const RegisteredGraph& graph, const std::string& session,
                     int64_t step_id, const std::vector<Tensor>& feeds) {
    return RunStep(graph, session, step_id, feeds, StepOptions());
  }
  // One call of a partial run: `feeds` by name, `fetches` as indices of
  // the signature's fetches.
  StepResult RunPartial(const RegisteredGraph& graph,
                        const std::string& session, int64_t step_id,
                        const NamedTensors& feeds,
                        const std::vector<int>& fetches, bool last);

  // The graph handle the task's worker gave the graph's partition.
  static std::string Handle(const RegisteredGraph& graph,
                            const std::string& task);

  // See ObservedWorker: on every task at once.
  void HoldCleanups(bool hold);
  void ShieldRunGraphs(bool shield);
  // Forwards the held CleanupGraph calls; what each task held, by task.
  std::map<std::string, std::vector<int64_t>> ReleaseHeldCleanups();

  // Waits (bounded) until the master's calls it does not wait for ended.
  bool WaitForBackgroundCalls();

 private:
  StepResult Run(const RegisteredGraph& graph, ::tributary::StepOptions step,
                 const NamedTensors& feeds, const std::vector<int>& fetches);

  worker_test::InProcessWorkers workers_;
  // The master's view: every task behind an ObservedWorker.
  InProcessWorkerCache master_cache_;
  std::map<std::string, std::shared_ptr<ObservedWorker>> observed_;
  DeadlineTimer timer_;
  MasterEnv env_;
  // One per cluster, as one per master session: node names stay unique
  // across the graphs registered in a worker session.
  PartitionOptions::NewNameFn new_name_;
};

}  // namespace distributed_test
}  // namespace tributary

#endif  // TRIBUTARY_TESTS_DISTRIBUTED_IN_PROCESS_CLUSTER_H_
