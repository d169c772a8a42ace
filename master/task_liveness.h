#ifndef TRIBUTARY_MASTER_TASK_LIVENESS_H_
#define TRIBUTARY_MASTER_TASK_LIVENESS_H_

// Which tasks a master has reached, so that discovery (GetStatus at
// CreateSession, ListDevices, Reset) can tell a task worth waiting for from
// one that is down (docs/operations.md "A task that is down").
//
// A task is *starting* while the master is young (it has run for less than
// `startup_window`: the cluster may still be coming up) and the task has
// never answered it. Discovery waits for such a task up to the caller's
// bound and then fails with Unavailable (retryable: a client that retries
// is waiting for the cluster to come up).
//
// Any other task that does not answer is *down*: it answered before and no
// longer does, or the cluster had its startup window to start it.
// Discovery gives it kDownTaskPatience (a fresh connection attempt, and the
// handshake of a task that was just restarted), unless its connection is
// live (WorkerInterface::HasLiveConnection: up, only busy; it gets the
// caller's bound, and a link that died is found by keepalive), and then
// fails with Aborted:
// not Unavailable, which TensorFlow's client retries ten times with backoff
// (minutes for a task that stays down), while TensorFlow's MonitoredSession
// takes both as "recreate the session".
//
// Thread-safe.

#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_set.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace tributary {

inline constexpr absl::Duration kDownTaskPatience = absl::Seconds(2);

class TaskLiveness {
 public:
  // `start`: when the master started.
  TaskLiveness(absl::Time start, absl::Duration startup_window)
      : startup_ends_(start + startup_window) {}
  TaskLiveness(const TaskLiveness&) = delete;
  TaskLiveness& operator=(const TaskLiveness&) = delete;

  // Whether `task` may still be starting at `now` (see above).
  bool MayBeStarting(const std::string& task, absl::Time now) const;
  // Whether `task` ever answered.
  bool Answered(const std::string& task) const;
  // `task` answered a discovery call.
  void MarkAnswered(const std::string& task);

 private:
  const absl::Time startup_ends_;
  mutable absl::Mutex mu_;
  absl::flat_hash_set<std::string> answered_ ABSL_GUARDED_BY(mu_);
};

}  // namespace tributary

#endif  // TRIBUTARY_MASTER_TASK_LIVENESS_H_
