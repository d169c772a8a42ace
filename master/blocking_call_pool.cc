#include "master/blocking_call_pool.h"

#include <utility>

namespace tributary {

BlockingCallPool::BlockingCallPool(absl::Duration idle_timeout)
    : idle_timeout_(idle_timeout) {}

BlockingCallPool::~BlockingCallPool() {
  absl::MutexLock l(&mu_);
  stop_ = true;
  // Threads finish the queue, then exit.
  mu_.Await(absl::Condition(
      +[](std::map<int, std::thread>* r) { return r->empty(); }, &running_));
  JoinFinishedLocked();
}

void BlockingCallPool::JoinFinishedLocked() {
  // A finished thread has left Loop (it only needs the lock to hand over
  // its handle), so joining under the lock is brief.
  for (std::thread& t : finished_) t.join();
  finished_.clear();
}

void BlockingCallPool::Schedule(std::function<void()> fn) {
  absl::MutexLock l(&mu_);
  queue_.push_back(std::move(fn));
  JoinFinishedLocked();
  if (static_cast<int>(queue_.size()) > idle_) {
    const int id = next_id_++;
    running_.emplace(id, std::thread([this, id] { Loop(id); }));
  }
}

int BlockingCallPool::num_threads() const {
  absl::MutexLock l(&mu_);
  return static_cast<int>(running_.size());
}

void BlockingCallPool::Loop(int id) {
  mu_.Lock();
  while (true) {
    ++idle_;
    mu_.AwaitWithTimeout(absl::Condition(this, &BlockingCallPool::HasWorkOrStop),
                         idle_timeout_);
    --idle_;
    if (!queue_.empty()) {
      std::function<void()> fn = std::move(queue_.front());
      queue_.pop_front();
      mu_.Unlock();
      fn();
      fn = nullptr;  // Whatever it holds goes before the lock is taken.
      mu_.Lock();
      continue;
    }
    // Stopping, or idle for too long with nothing queued.
    auto it = running_.find(id);
    finished_.push_back(std::move(it->second));
    running_.erase(it);
    mu_.Unlock();
    return;
  }
}

}  // namespace tributary
