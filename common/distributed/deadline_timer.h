#ifndef TRIBUTARY_COMMON_DISTRIBUTED_DEADLINE_TIMER_H_
#define TRIBUTARY_COMMON_DISTRIBUTED_DEADLINE_TIMER_H_

// Runs callbacks at deadlines without holding a thread per waiter: the
// worker bounds RunGraph and RecvTensor calls by their CallOptions deadline
// while the calls themselves wait asynchronously (a _Recv in a rendezvous, a
// peer's RecvTensor); the master bounds its asynchronous steps. One thread
// sleeps until the earliest deadline, but never longer than a second, and
// is woken only by a deadline earlier than the time it would wake anyway:
// most calls schedule a deadline seconds away and cancel it a millisecond
// later, and must not pay a thread wake-up each.
//
// Callbacks run on the timer's thread, one at a time, and should be short
// (they cancel a step or a call; the work that follows is the canceller's).
// Cancel() before a callback has started guarantees it never runs.
// Thread-safe. The destructor drops pending callbacks without running them
// and joins the thread.

#include <cstdint>
#include <functional>
#include <map>
#include <thread>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace tributary {

class DeadlineTimer {
 public:
  using Id = int64_t;
  // Never returned by Schedule.
  static constexpr Id kNoTimer = 0;

  DeadlineTimer();
  ~DeadlineTimer();
  DeadlineTimer(const DeadlineTimer&) = delete;
  DeadlineTimer& operator=(const DeadlineTimer&) = delete;

  // Runs `fn` on the timer thread at `when` (at once, still on that thread,
  // when `when` has passed). absl::InfiniteFuture() schedules nothing and
  // returns kNoTimer.
  Id Schedule(absl::Time when, std::function<void()> fn);

  // True when the callback was removed before it started (it will never
  // run); false when it already ran, is running, or `id` is unknown.
  bool Cancel(Id id);

  // Callbacks waiting to run (for tests).
  int NumPending() const;

 private:
  void Loop();

  mutable absl::Mutex mu_;
  bool stop_ ABSL_GUARDED_BY(mu_) = false;
  Id next_id_ ABSL_GUARDED_BY(mu_) = 1;
  // (deadline, id) -> callback: ordered by deadline, ties by id.
  std::map<std::pair<absl::Time, Id>, std::function<void()>> queue_
      ABSL_GUARDED_BY(mu_);
  std::map<Id, absl::Time> when_ ABSL_GUARDED_BY(mu_);
  std::thread thread_;
};

}  // namespace tributary

#endif  // TRIBUTARY_COMMON_DISTRIBUTED_DEADLINE_TIMER_H_
