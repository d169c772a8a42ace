#ifndef TRIBUTARY_MASTER_BLOCKING_CALL_POOL_H_
#define TRIBUTARY_MASTER_BLOCKING_CALL_POOL_H_

// Threads for the master's blocking calls, so they never block gRPC's own
// callback threads. Master methods wait (bounded) for workers; a step may
// wait on another step (a queue fed by a second client), so a fixed-size
// pool could deadlock: like TensorFlow's master (a thread per call), this
// pool grows whenever every thread is busy, and a thread idle for
// `idle_timeout` exits. Threads are reused, so a RunStep does not pay for a
// thread start.
//
// The destructor runs what is queued, then joins every thread.

#include <deque>
#include <functional>
#include <map>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace tributary {

class BlockingCallPool {
 public:
  explicit BlockingCallPool(absl::Duration idle_timeout = absl::Seconds(60));
  ~BlockingCallPool();
  BlockingCallPool(const BlockingCallPool&) = delete;
  BlockingCallPool& operator=(const BlockingCallPool&) = delete;

  void Schedule(std::function<void()> fn);

  // Threads alive now (for tests and logs).
  int num_threads() const;

 private:
  void Loop(int id);
  bool HasWorkOrStop() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return !queue_.empty() || stop_;
  }
  void JoinFinishedLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const absl::Duration idle_timeout_;
  mutable absl::Mutex mu_;
  std::deque<std::function<void()>> queue_ ABSL_GUARDED_BY(mu_);
  int idle_ ABSL_GUARDED_BY(mu_) = 0;
  int next_id_ ABSL_GUARDED_BY(mu_) = 0;
  bool stop_ ABSL_GUARDED_BY(mu_) = false;
  std::map<int, std::thread> running_ ABSL_GUARDED_BY(mu_);
  // Threads that returned from Loop, to be joined by someone else.
  std::vector<std::thread> finished_ ABSL_GUARDED_BY(mu_);
};

}  // namespace tributary

#endif  // TRIBUTARY_MASTER_BLOCKING_CALL_POOL_H_
