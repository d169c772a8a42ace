#ifndef TRIBUTARY_WORKER_WORKER_ENV_H_
#define TRIBUTARY_WORKER_WORKER_ENV_H_

// What every part of one worker task shares (TensorFlow's WorkerEnv): its
// name, its devices, how to reach its peers and where its steps run. Plain
// pointers, owned by whoever builds the worker (worker_main.cc, a test),
// which keeps them alive for the worker's lifetime.

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "common/device/device_mgr.h"
#include "common/device/device_name_utils.h"
#include "common/distributed/worker_cache.h"
#include "common/framework/file_access_policy.h"
#include "common/runtime/executor/inter_op_thread_pool.h"
#include "protos/cluster.pb.h"

namespace tributary {

struct WorkerEnv {
  // "/job:<job>/replica:0/task:<t>"; every device of device_mgr is named
  // under it.
  std::string task_name;
  // This task's devices. Required.
  const DeviceMgr* device_mgr = nullptr;
  // The cluster's workers, for RecvTensor to peers. Required when graphs
  // receive from other tasks.
  WorkerCacheInterface* worker_cache = nullptr;
  // The peers of a session whose master sent its view of the cluster
  // (CreateWorkerSession's server_def.cluster): as in TensorFlow, that view
  // is the one the session's RecvTensor calls use. The factory may answer
  // null when that view is the worker's own (worker_cache is used then).
  // Null factory: every session uses worker_cache.
  std::function<absl::StatusOr<std::shared_ptr<WorkerCacheInterface>>(
      const tensorflow::ClusterDef& cluster)>
      session_worker_cache_factory;
  // The inter-op pool executors hand expensive kernels to and on which the
  // partitions of a step run side by side. Null: every kernel runs inline
  // on the thread that made it ready (deterministic, for tests).
  InterOpThreadPool* compute_pool = nullptr;

  // Limits against abuse (docs/limits.md). Largest GraphDef RegisterGraph
  // accepts, in serialised bytes; <= 0: unlimited (--max-graph-bytes).
  int64_t max_graph_bytes = 0;
  // The same in nodes, functions' included (--max-graph-nodes).
  int64_t max_graph_nodes = 0;
  // Bytes the kernels of one worker session's steps may hold at once
  // (their tensors still alive, variables they assigned included); <= 0:
  // unlimited (--session-memory-budget).
  int64_t session_memory_budget = 0;
  // Where ops that touch the filesystem may do so; null: anywhere
  // (--allowed-path). Not owned.
  const FileAccessPolicy* file_access = nullptr;
  // How long a worker session its master stopped holding is kept before it
  // is deleted (worker/session_holds.h; --orphaned-session-grace).
  absl::Duration orphaned_session_grace = absl::Seconds(30);
};

// Whether `device` (a parsed device name from a rendezvous key) lives in
// the process of `task` (a parsed "/job:<job>/replica:<r>/task:<t>"). Parts
// the device name leaves unset (a local name such as "/device:CPU:0") match.
bool IsDeviceOfTask(const DeviceNameUtils::ParsedName& device,
                    const DeviceNameUtils::ParsedName& task);

}  // namespace tributary

#endif  // TRIBUTARY_WORKER_WORKER_ENV_H_
