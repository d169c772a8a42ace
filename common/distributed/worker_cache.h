#ifndef TRIBUTARY_COMMON_DISTRIBUTED_WORKER_CACHE_H_
#define TRIBUTARY_COMMON_DISTRIBUTED_WORKER_CACHE_H_

// Finds the WorkerInterface of a task by name. The master uses it to reach
// every task of the cluster; a worker uses it to reach the peers it receives
// tensors from (device name -> task -> worker).
//
// Implementations: common/rpc/grpc_worker_cache.h (tasks of a ClusterSpec
// over gRPC, one shared channel per address) and InProcessWorkerCache below
// (workers living in this process: one-process clusters, unit tests).
// Thread-safe.

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "common/distributed/worker_interface.h"

namespace tributary {

class WorkerCacheInterface {
 public:
  virtual ~WorkerCacheInterface();

  // Every task, "/job:<job>/replica:0/task:<t>", in job then task order.
  virtual std::vector<std::string> ListWorkers() const = 0;

  // The worker of `task` ("/job:ps/replica:0/task:0"; a device name of that
  // task is accepted too). NotFound naming the task and listing the known
  // ones when it is not part of the cluster.
  virtual absl::StatusOr<std::shared_ptr<WorkerInterface>> GetWorker(
      absl::string_view task) = 0;

  // Connections to tasks that failed are retried now rather than after
  // their reconnect backoff: a new session's discovery just found every
  // task up, and a task restarted since its connection failed must not
  // fail the session's first transfers. No-op by default.
  virtual void RetryFailedConnections() {}
};

// Workers registered by task name; for in-process clusters and tests.
class InProcessWorkerCache : public WorkerCacheInterface {
 public:
  // `task` must be "/job:<job>/replica:<r>/task:<t>". Replaces an earlier
  // registration of the same task (a "restarted" worker).
  void AddWorker(const std::string& task,
                 std::shared_ptr<WorkerInterface> worker);
  void RemoveWorker(const std::string& task);

  std::vector<std::string> ListWorkers() const override;
  absl::StatusOr<std::shared_ptr<WorkerInterface>> GetWorker(
      absl::string_view task) override;

 private:
  mutable absl::Mutex mu_;
  std::map<std::string, std::shared_ptr<WorkerInterface>> workers_
      ABSL_GUARDED_BY(mu_);
};

// The task part ("/job:a/replica:0/task:1") of a task or device name;
// InvalidArgument when the name has no full job/replica/task.
absl::StatusOr<std::string> TaskNameOf(absl::string_view task_or_device);

}  // namespace tributary

#endif  // TRIBUTARY_COMMON_DISTRIBUTED_WORKER_CACHE_H_
