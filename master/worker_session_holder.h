#ifndef TRIBUTARY_MASTER_WORKER_SESSION_HOLDER_H_
#define TRIBUTARY_MASTER_WORKER_SESSION_HOLDER_H_

// The master's side of worker session holds (worker/session_holds.h): while
// a master session lives, one HoldWorkerSession call per task stays open,
// so that if this master process dies, each worker notices (the calls end)
// and deletes the session after its grace period instead of keeping its
// graphs and resources for good.
//
// A call that ends while the session lives is renewed: at once after its
// deadline (kHoldCallTimeout, so no call waits forever), one second later
// after an error (the task restarting or unreachable). A task that answers
// Unimplemented (it cannot hold: not a Tributary worker) or NotFound (it no
// longer knows the session: it restarted) is not held again. Release()
// stops everything; the destructor releases.
//
// Thread-safe. Callbacks hold the shared state, so they may outlive this
// object harmlessly.

#include <memory>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "common/distributed/deadline_timer.h"
#include "common/distributed/worker_interface.h"
#include "master/worker_calls.h"

namespace tributary {

inline constexpr absl::Duration kHoldCallTimeout = absl::Minutes(10);

class WorkerSessionHolder {
 public:
  // Starts holding `session_handle` on every task. `timer` (not owned)
  // schedules renewals and must outlive this object.
  WorkerSessionHolder(std::string session_handle,
                      const std::vector<TaskWorker>& tasks,
                      DeadlineTimer* timer);
  ~WorkerSessionHolder();

  WorkerSessionHolder(const WorkerSessionHolder&) = delete;
  WorkerSessionHolder& operator=(const WorkerSessionHolder&) = delete;

  // Cancels the open calls and renews none. Idempotent.
  void Release();

 private:
  struct State;
  const std::shared_ptr<State> state_;
};

}  // namespace tributary

#endif  // TRIBUTARY_MASTER_WORKER_SESSION_HOLDER_H_
