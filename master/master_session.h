#ifndef TRIBUTARY_MASTER_MASTER_SESSION_H_
#define TRIBUTARY_MASTER_MASTER_SESSION_H_

// One client session on the master (TensorFlow's MasterSession).
//
// It keeps the session's graph as a GraphExecutionState placed over the
// devices of the session's tasks (placer: every op assumed runnable on
// every device type, since kernels are the workers' to check; unplaced nodes
// and the client device on CPU:0 of the default task), a cache of
// RegisteredGraphs by step signature, the partial runs and the callables.
// A worker session (same handle) exists on every task of the session from
// Create until Close.
//
// Run / RunCallable / a partial-run call each become a DistributedStep with
// a fresh random step_id and the deadline RunOptions.timeout_in_ms, else
// ConfigProto.operation_timeout_in_ms, else the caller's. Close cancels the
// steps still running, then deregisters every graph and deletes the worker
// sessions.
//
// Thread-safe; every method may run concurrently with the others (Extend
// calls are serialised among themselves).

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "common/distributed/call_options.h"
#include "common/runtime/graph_execution/graph_execution_state.h"
#include "common/runtime/partition/graph_partition.h"
#include "common/runtime/placement/device_set.h"
#include "master/device_discovery.h"
#include "master/distributed_step.h"
#include "master/master_env.h"
#include "master/master_messages.h"
#include "master/registered_graph.h"
#include "master/worker_session_holder.h"
#include "protos/config.pb.h"
#include "protos/master.pb.h"

namespace tributary {

struct MasterSessionOptions {
  const MasterEnv* env = nullptr;
  std::string handle;
  tensorflow::ConfigProto config;
  // The session's tasks and their (filtered) devices, from discovery.
  std::vector<TaskDevices> tasks;
  // Largest the session's GraphDef may grow to through Extend, in
  // serialised bytes; <= 0: unlimited (MasterOptions::max_graph_bytes).
  int64_t max_graph_bytes = 0;
  // The same in nodes (MasterOptions::max_graph_nodes).
  int64_t max_graph_nodes = 0;
};

class MasterSession {
 public:
  // Places `graph` over the tasks' devices and creates the worker sessions
  // (bounded by `deadline`). Errors: the graph's (NotFound for an unknown
  // op, InvalidArgument for a node that cannot be placed, ...), a worker's
  // CreateWorkerSession error naming the task.
  static absl::StatusOr<std::shared_ptr<MasterSession>> Create(
      MasterSessionOptions options, const tensorflow::GraphDef& graph,
      absl::Time deadline);

  ~MasterSession();

  const std::string& handle() const { return options_.handle; }

  // Aborted "Current version is N but caller expected M." on a version
  // mismatch; the graph's errors otherwise.
  absl::Status Extend(const tensorflow::ExtendSessionRequest& request,
                      tensorflow::ExtendSessionResponse* response);
  absl::Status PartialRunSetup(
      const tensorflow::PartialRunSetupRequest& request,
      tensorflow::PartialRunSetupResponse* response);
  // `caller` (may be null): the incoming call's deadline and cancellation.
  absl::Status Run(CallOptions* caller, const RunStepRequestMsg& request,
                   RunStepResponseMsg* response);
  // Run without holding the calling thread: a step whose graph is
  // registered starts here and ends on a worker call's or the timer's
  // thread; registering a new signature and partial runs go to the env's
  // blocking pool (inline without one). `request`, `response` and `caller`
  // must stay valid until `done` has run; the caller keeps the session
  // alive until then.
  void RunAsync(CallOptions* caller, const RunStepRequestMsg& request,
                RunStepResponseMsg* response, StatusCallback done);
  absl::Status MakeCallable(const tensorflow::MakeCallableRequest& request,
                            tensorflow::MakeCallableResponse* response);
  absl::Status RunCallable(CallOptions* caller,
                           const tensorflow::RunCallableRequest& request,
                           tensorflow::RunCallableResponse* response);
  absl::Status ReleaseCallable(
      const tensorflow::ReleaseCallableRequest& request,
      tensorflow::ReleaseCallableResponse* response);
  void ListDevices(tensorflow::ListDevicesResponse* response) const;

  // Cancels running steps, waits (bounded) for the session's calls to
  // return, deregisters every graph and deletes the worker sessions.
  // Idempotent; later calls of other methods fail with Cancelled.
  absl::Status Close();

  // For idle-session collection: the last time a call began or ended, and
  // whether one is running.
  absl::Time last_access() const;
  bool busy() const;

  // Signatures whose graph is registered (or being registered).
  int64_t num_registered_graphs() const;

 private:
  struct GraphEntry;
  struct PartialRunState;
  struct Callable {
    StepSignature signature;
    tensorflow::RunOptions run_options;
    std::shared_ptr<const RegisteredGraph> graph;
  };
  class CallScope;

  explicit MasterSession(MasterSessionOptions options);
  absl::Status Init(const tensorflow::GraphDef& graph, absl::Time deadline);
  absl::Status CreateWorkerSessions(absl::Time deadline);

  // The step deadline and its description.
  absl::Time StepDeadline(const tensorflow::RunOptions& options,
                          CallOptions* caller, std::string* source) const;
  // The cached graph of `signature`, registering it on first use.
  absl::StatusOr<std::shared_ptr<const RegisteredGraph>> GetOrRegisterGraph(
      const StepSignature& signature, absl::Time deadline, bool partial_run);
  // Runs one step of `graph` and fills `outputs` (one per signature fetch).
  absl::Status RunStep(CallOptions* caller,
                       std::shared_ptr<const RegisteredGraph> graph,
                       const StepOptions& step_options,
                       const NamedTensors& feeds,
                       const std::vector<int>& fetches,
                       std::vector<Tensor>* outputs,
                       tensorflow::RunMetadata* metadata);
  void RunStepAsync(CallOptions* caller,
                    std::shared_ptr<const RegisteredGraph> graph,
                    const StepOptions& step_options, const NamedTensors& feeds,
                    const std::vector<int>& fetches,
                    std::vector<Tensor>* outputs,
                    tensorflow::RunMetadata* metadata, StatusCallback done);
  struct StepRun;
  void StartStep(const std::shared_ptr<StepRun>& run,
                 std::shared_ptr<const RegisteredGraph> graph);
  // The registered graph of `signature` if it is ready now; null when it
  // is not registered yet, is being registered, or failed.
  std::shared_ptr<const RegisteredGraph> ReadyGraph(
      const StepSignature& signature) const;
  // Runs `fn` on the env's blocking pool, or here without one.
  void Blocking(std::function<void()> fn);
  absl::Status DoPartialRun(CallOptions* caller,
                            const RunStepRequestMsg& request,
                            RunStepResponseMsg* response);
  absl::Status CheckFeedTypes(const RegisteredGraph& graph,
                              const NamedTensors& feeds) const;

  const MasterSessionOptions options_;
  DeviceSet devices_;
  std::vector<tensorflow::DeviceAttributes> device_list_;
  std::vector<TaskWorker> workers_;
  // Holds the worker sessions while this session lives (set once by Init).
  std::unique_ptr<WorkerSessionHolder> holder_;
  const PartitionOptions::NewNameFn new_name_;

  absl::Mutex extend_mu_;  // Serialises Extend.
  // Serialised bytes of the GraphDefs given so far (Create's and every
  // Extend's), for MasterSessionOptions::max_graph_bytes.
  int64_t graph_bytes_ ABSL_GUARDED_BY(extend_mu_) = 0;
  // Nodes of the same, for MasterSessionOptions::max_graph_nodes.
  int64_t graph_nodes_ ABSL_GUARDED_BY(extend_mu_) = 0;
  mutable absl::Mutex mu_;
  std::shared_ptr<const GraphExecutionState> state_ ABSL_GUARDED_BY(mu_);
  int64_t graph_version_ ABSL_GUARDED_BY(mu_) = 0;
  std::map<std::string, std::shared_ptr<GraphEntry>> graphs_
      ABSL_GUARDED_BY(mu_);
  std::map<std::string, std::shared_ptr<PartialRunState>> partial_runs_
      ABSL_GUARDED_BY(mu_);
  int64_t next_partial_run_ ABSL_GUARDED_BY(mu_) = 0;
  std::map<int64_t, Callable> callables_ ABSL_GUARDED_BY(mu_);
  int64_t next_callable_ ABSL_GUARDED_BY(mu_) = 0;
  std::set<std::shared_ptr<DistributedStep>> running_ ABSL_GUARDED_BY(mu_);
  bool closed_ ABSL_GUARDED_BY(mu_) = false;
  int in_flight_ ABSL_GUARDED_BY(mu_) = 0;
  absl::Time last_access_ ABSL_GUARDED_BY(mu_);
};

}  // namespace tributary

#endif  // TRIBUTARY_MASTER_MASTER_SESSION_H_
