#ifndef TRIBUTARY_MASTER_MASTER_ENV_H_
#define TRIBUTARY_MASTER_MASTER_ENV_H_

// What every part of the master shares: how to reach the workers, the
// cluster they belong to, the master's bounds on control calls, and the
// tracker of the calls it sends without waiting for them.

#include <cstdint>
#include <memory>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "common/cluster/cluster_spec.h"
#include "common/distributed/deadline_timer.h"
#include "common/distributed/worker_cache.h"
#include "master/blocking_call_pool.h"
#include "master/task_liveness.h"

namespace tributary {

// Counts the calls the master starts and does not wait for (CleanupGraph
// after a step, DeregisterGraph after a failed registration), so shutdown
// can wait for them. Shared with the calls' callbacks, which may run after
// everything else of the master has gone.
class BackgroundCalls {
 public:
  void Add();
  void Done();
  // True once no call is outstanding; false when `deadline` passed first.
  bool WaitIdle(absl::Time deadline);

 private:
  absl::Mutex mu_;
  int64_t outstanding_ ABSL_GUARDED_BY(mu_) = 0;
};

// What a call the master does not wait for needs; cheap to copy into the
// call's callback.
struct DetachedCallEnv {
  absl::Duration timeout = absl::Seconds(30);
  std::shared_ptr<BackgroundCalls> background;
};

struct MasterEnv {
  // Not owned; outlives the master.
  WorkerCacheInterface* worker_cache = nullptr;
  // Deadlines of asynchronous steps. Not owned; the Master owns it.
  DeadlineTimer* timer = nullptr;
  // Threads for work that waits (registering a graph on the workers, a
  // partial run) started from a thread that must not wait. Not owned; the
  // Master owns it. Null: such work runs on the calling thread.
  BlockingCallPool* blocking_pool = nullptr;
  // The cluster the workers belong to: task addresses for messages and the
  // ServerDef of CreateWorkerSession. Empty for in-process clusters.
  ClusterSpec cluster;
  // GetStatus bound of worker discovery when the session's config gives no
  // operation_timeout_in_ms (tributary-master --discovery-timeout).
  absl::Duration discovery_timeout = absl::Seconds(30);
  // Bound of every other control call (CreateWorkerSession, RegisterGraph
  // without a step deadline, DeregisterGraph, CleanupGraph,
  // DeleteWorkerSession, CleanupAll).
  absl::Duration control_timeout = absl::Seconds(30);
  // After a step's first error the master cancels the other partitions and
  // waits this long at most for them to report, to find the root cause.
  absl::Duration cancel_grace = absl::Seconds(10);
  // Which tasks answered discovery before, to tell a task still starting
  // from one that is down (master/task_liveness.h). Not owned; the Master
  // owns it. Null: every task may be starting (waited for up to the bound).
  TaskLiveness* liveness = nullptr;
  // Identifies this master process to the workers
  // (CreateWorkerSessionRequest.master_incarnation).
  uint64_t incarnation = 0;
  std::shared_ptr<BackgroundCalls> background =
      std::make_shared<BackgroundCalls>();

  DetachedCallEnv detached() const {
    return DetachedCallEnv{control_timeout, background};
  }

  // "/job:worker/replica:0/task:1 (127.0.0.1:1234)", or the task alone when
  // its address is unknown.
  std::string DescribeTask(const std::string& task) const;
};

// absl::Now() + d, saturating; InfiniteFuture for an infinite d.
absl::Time DeadlineAfter(absl::Duration d);

}  // namespace tributary

#endif  // TRIBUTARY_MASTER_MASTER_ENV_H_
