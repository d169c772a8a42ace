#ifndef TRIBUTARY_MASTER_REGISTERED_GRAPH_H_
#define TRIBUTARY_MASTER_REGISTERED_GRAPH_H_

// The graph of one step signature (feeds, fetches, targets), cut by task and
// registered on the workers (TensorFlow's ReffedClientGraph):
//
//   GraphExecutionState::BuildClientGraph(signature, use_call_frame=false)
//     prune to what the fetches and targets need; feeds become _Recv and
//     fetches _Send nodes, client-terminated, on the client device
//   Partition(SplitByTask)
//     one GraphDef per task; every cross-task edge becomes a _Send/_Recv
//     pair carrying the devices' incarnations (new names "<prefix>/_<n>")
//   RegisterGraph on every task with a partition, concurrently
//     each worker splits its part by device and answers a graph handle
//
// A MasterSession caches one per signature and runs every step of that
// signature on it. Immutable once created; DeregisterAsync when dropped.

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "common/framework/types.h"
#include "common/runtime/partition/graph_partition.h"
#include "common/runtime/placement/device_set.h"
#include "common/runtime/graph_execution/graph_execution_state.h"
#include "master/master_env.h"
#include "master/worker_calls.h"
#include "protos/config.pb.h"
#include "protos/graph.pb.h"

namespace tributary {

struct RegisteredGraphOptions {
  const MasterEnv* env = nullptr;
  const GraphExecutionState* state = nullptr;
  // The session's devices; client_device() is where feeds and fetches are.
  const DeviceSet* devices = nullptr;
  // The session's generator of node names, shared by all its graphs.
  PartitionOptions::NewNameFn new_name;
  std::string session_handle;
  // graph_options and the config travel with RegisterGraph.
  tensorflow::ConfigProto config;
  // Bound of the RegisterGraph calls.
  absl::Time deadline = absl::InfiniteFuture();
  // Partial runs: work out which feeds each fetch depends on.
  bool compute_fetch_dependencies = false;
};

struct WorkerPartition {
  TaskWorker target;
  tensorflow::GraphDef graph_def;
  std::string graph_handle;
  // Another task RecvTensors from this partition; only then does a
  // successful step need CleanupGraph on its worker
  // (common/runtime/partition/remote_sends.h).
  bool has_remote_sends = true;
};

class RegisteredGraph {
 public:
  // Builds, partitions and registers. Errors: the client graph's (NotFound
  // for an unknown feed/fetch/target, ...), the partitioner's, a worker's
  // RegisterGraph error (with its code; partitions already registered are
  // deregistered), DeadlineExceeded when `deadline` passes first.
  static absl::StatusOr<std::shared_ptr<RegisteredGraph>> Create(
      const RegisteredGraphOptions& options, const StepSignature& signature);

  // Only the first two steps of Create (no RPC), for tests.
  static absl::StatusOr<std::shared_ptr<RegisteredGraph>> Partition(
      const RegisteredGraphOptions& options, const StepSignature& signature);

  const StepSignature& signature() const { return signature_; }
  const std::vector<WorkerPartition>& partitions() const {
    return partitions_;
  }
  // Index in partitions() of the client device's task; -1 when no partition
  // is there (a step without fetches whose nodes, and used feeds, are all
  // elsewhere).
  int client_partition() const { return client_partition_; }
  // Rendezvous keys of feed i / fetch j on the client device:
  // "<client>;<incarnation>;<client>;<name as given>;0:0".
  const std::vector<std::string>& feed_keys() const { return feed_keys_; }
  const std::vector<std::string>& fetch_keys() const { return fetch_keys_; }
  const DataTypeVector& feed_types() const { return feed_types_; }
  const DataTypeVector& fetch_types() const { return fetch_types_; }
  // With compute_fetch_dependencies: the feeds (indices) fetch j needs.
  const std::vector<std::vector<int>>& fetch_feed_dependencies() const {
    return fetch_feed_deps_;
  }

  // The tasks of the partitions.
  std::vector<TaskWorker> workers() const;
  // Those whose partition has_remote_sends.
  std::vector<TaskWorker> workers_with_remote_sends() const;

  // DeregisterGraph on every worker, not waited for.
  void DeregisterAsync(const MasterEnv& env,
                       const std::string& session_handle) const;

 private:
  absl::Status Register(const RegisteredGraphOptions& options);

  StepSignature signature_;
  std::vector<WorkerPartition> partitions_;
  int client_partition_ = -1;
  std::vector<std::string> feed_keys_;
  std::vector<std::string> fetch_keys_;
  DataTypeVector feed_types_;
  DataTypeVector fetch_types_;
  std::vector<std::vector<int>> fetch_feed_deps_;
};

}  // namespace tributary

#endif  // TRIBUTARY_MASTER_REGISTERED_GRAPH_H_
