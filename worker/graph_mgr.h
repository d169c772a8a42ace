#ifndef TRIBUTARY_WORKER_GRAPH_MGR_H_
#define TRIBUTARY_WORKER_GRAPH_MGR_H_

// The graphs registered in one worker session (TensorFlow's GraphMgr).
//
// Register takes the partition the master cut for this task (every node placed
// on one of this task's devices; edges to other tasks already _Send/_Recv pairs
// carrying their keys' attrs) and splits it a second time, by device (as
// TensorFlow's core/distributed_runtime/graph_mgr.cc): Partition with
// SplitByDevice, the session's "_G" name generator (so names never clash with
// the master's "/_" ones) and control_flow_added (the master added the control
// loops of frames spanning devices). One executor per device partition; the
// result is a graph handle.
//
// ExecuteAsync runs one step of a graph: every executor at once over the
// step's rendezvous, joined by an ExecutorBarrier. Steps of one graph may
// run concurrently. A step keeps its graph alive, so Deregister during a
// step is safe (the step finishes, then the executors go). Thread-safe.

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "common/device/device.h"
#include "common/kernel/cancellation.h"
#include "common/runtime/executor/executor.h"
#include "common/runtime/executor/step_stats_collector.h"
#include "common/runtime/partition/graph_partition.h"
#include "common/rendezvous/rendezvous.h"
#include "common/resource/resource_mgr.h"
#include "protos/graph.pb.h"
#include "protos/worker.pb.h"
#include "worker/worker_env.h"

namespace tributary {

// One device's part of a registered graph.
struct GraphUnit {
  Device* device = nullptr;  // Owned by the worker's DeviceMgr.
  std::unique_ptr<Executor> executor;
  // The device partition as the executor got it
  // (ExecutorOpts.record_partition_graphs).
  tensorflow::GraphDef graph_def;
};

struct GraphItem {
  std::string handle;
  std::vector<GraphUnit> units;
  // A peer may RecvTensor a value of this graph after its RunGraph returned
  // (common/runtime/partition/remote_sends.h); when false, the worker
  // forgets a finished step at once instead of waiting for CleanupGraph.
  bool has_remote_sends = true;
};

class GraphMgr {
 public:
  // `env` and `resource_mgr` (handed to every kernel: where this session's
  // variables live) must outlive the manager and every step it runs.
  // `memory_budget` (may be null; not owned, outlives this): what the
  // session's kernels allocate counts against it.
  GraphMgr(const WorkerEnv* env, ResourceMgr* resource_mgr,
           MemoryBudget* memory_budget = nullptr);
  ~GraphMgr();

  GraphMgr(const GraphMgr&) = delete;
  GraphMgr& operator=(const GraphMgr&) = delete;

  // Splits and prepares request.graph_def; returns its handle.
  // InvalidArgument naming the node for a node without a device or placed
  // on a device this task does not have; import, partition and kernel
  // construction errors name their node.
  absl::StatusOr<std::string> Register(
      const tensorflow::RegisterGraphRequest& request);

  // Aborted "Graph handle is not found: <h>" for an unknown handle (as
  // TensorFlow: the worker may have restarted).
  absl::Status Deregister(const std::string& handle);
  void DeregisterAll();

  absl::StatusOr<std::shared_ptr<const GraphItem>> Lookup(
      const std::string& handle) const;

  int NumGraphs() const;

  struct StepOptions {
    int64_t step_id = 0;
    RendezvousInterface* rendezvous = nullptr;  // Required.
    CancellationManager* cancellation_manager = nullptr;
    StepStatsCollectorInterface* stats_collector = nullptr;  // May be null.
  };
  // Starts every executor of `item`; `done` runs exactly once when all
  // have finished, with OK or the step's first real error (its node named;
  // Cancelled/Aborted echoes from the other partitions never hide it). The
  // pointers in `options` must stay valid until then.
  void ExecuteAsync(std::shared_ptr<const GraphItem> item,
                    const StepOptions& options,
                    std::function<void(const absl::Status&)> done);

 private:
  const WorkerEnv* const env_;
  ResourceMgr* const resource_mgr_;
  MemoryBudget* const memory_budget_;
  const PartitionOptions::NewNameFn new_name_;

  mutable absl::Mutex mu_;
  int64_t next_id_ ABSL_GUARDED_BY(mu_) = 0;
  absl::flat_hash_map<std::string, std::shared_ptr<const GraphItem>> items_
      ABSL_GUARDED_BY(mu_);
};

}  // namespace tributary

#endif  // TRIBUTARY_WORKER_GRAPH_MGR_H_
