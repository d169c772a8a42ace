#include "common/distributed/deadline_timer.h"

#include <algorithm>

namespace tributary {
namespace {

// The longest the timer thread sleeps without looking at its queue; a
// deadline further away than this never wakes it early.
constexpr absl::Duration kMaxSleep = absl::Seconds(1);

}  // namespace

DeadlineTimer::DeadlineTimer() : thread_([this] { Loop(); }) {}

DeadlineTimer::~DeadlineTimer() {
  {
    absl::MutexLock l(&mu_);
    stop_ = true;
  }
  thread_.join();
}

DeadlineTimer::Id DeadlineTimer::Schedule(absl::Time when,
                                          std::function<void()> fn) {
  if (when == absl::InfiniteFuture()) return kNoTimer;
  absl::MutexLock l(&mu_);
  const Id id = next_id_++;
  queue_.emplace(std::make_pair(when, id), std::move(fn));
  when_.emplace(id, when);
  return id;
}

bool DeadlineTimer::Cancel(Id id) {
  if (id == kNoTimer) return false;
  // Destroyed outside the lock: the callback may hold the last reference
  // to state whose destructor takes other locks.
  std::function<void()> dropped;
  {
    absl::MutexLock l(&mu_);
    auto it = when_.find(id);
    if (it == when_.end()) return false;
    auto q = queue_.find(std::make_pair(it->second, id));
    dropped = std::move(q->second);
    queue_.erase(q);
    when_.erase(it);
  }
  return true;
}

int DeadlineTimer::NumPending() const {
  absl::MutexLock l(&mu_);
  return static_cast<int>(queue_.size());
}

void DeadlineTimer::Loop() {
  absl::MutexLock l(&mu_);
  while (true) {
    const absl::Time now = absl::Now();
    const absl::Time next =
        queue_.empty() ? absl::InfiniteFuture() : queue_.begin()->first.first;
    const absl::Time wake_at = std::min(next, now + kMaxSleep);
    // Wakes early only on stop or for a deadline before wake_at.
    auto ready = [this, wake_at]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
      return stop_ ||
             (!queue_.empty() && queue_.begin()->first.first < wake_at);
    };
    mu_.AwaitWithDeadline(absl::Condition(&ready), wake_at);
    if (stop_) return;
    if (queue_.empty() || queue_.begin()->first.first > absl::Now()) continue;
    auto it = queue_.begin();
    std::function<void()> fn = std::move(it->second);
    when_.erase(it->first.second);
    queue_.erase(it);
    mu_.Unlock();
    fn();
    fn = nullptr;
    mu_.Lock();
  }
}

}  // namespace tributary
