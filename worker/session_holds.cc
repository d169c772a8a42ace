#include "worker/session_holds.h"

#include <utility>
#include <vector>

#include "common/framework/status.h"
#include "spdlog/spdlog.h"

namespace tributary {

SessionHolds::SessionHolds(
    absl::Duration grace,
    std::function<void(const std::string& handle)> delete_session)
    : grace_(std::max(grace, absl::ZeroDuration())),
      delete_session_(std::move(delete_session)) {
  thread_ = std::thread([this] { Loop(); });
}

SessionHolds::~SessionHolds() {
  Shutdown(errors::Cancelled("The worker is shutting down"));
  thread_.join();
}

void SessionHolds::Shutdown(const absl::Status& status) {
  std::vector<StatusCallback> open;
  {
    absl::MutexLock l(&mu_);
    if (stop_) return;
    stop_ = true;
    refusal_ = status;
    for (auto& [handle, entry] : entries_) {
      for (auto& [id, done] : entry.holds) open.push_back(std::move(done));
    }
    entries_.clear();
  }
  for (StatusCallback& done : open) done(status);
}

void SessionHolds::Hold(const std::string& handle, CallOptions* opts,
                        StatusCallback done) {
  int64_t id = 0;
  absl::Status refused;
  {
    absl::MutexLock l(&mu_);
    if (stop_) refused = refusal_;
    if (!stop_) {
      id = next_id_++;
      Entry& entry = entries_[handle];
      entry.holds.emplace(id, std::move(done));
      entry.orphaned_until = absl::InfiniteFuture();
    }
  }
  if (id == 0) {
    done(refused);
    return;
  }
  // Runs at once if the call was already cancelled.
  if (opts != nullptr) {
    opts->SetCancelCallback([this, handle, id] { HoldEnded(handle, id); });
  }
}

void SessionHolds::HoldEnded(const std::string& handle, int64_t id) {
  StatusCallback done;
  {
    absl::MutexLock l(&mu_);
    auto it = entries_.find(handle);
    if (it == entries_.end()) return;
    auto hold = it->second.holds.find(id);
    if (hold == it->second.holds.end()) return;  // released meanwhile
    done = std::move(hold->second);
    it->second.holds.erase(hold);
    if (it->second.holds.empty()) {
      it->second.orphaned_until = absl::Now() + grace_;
      new_orphan_ = true;  // an earlier deadline for Loop
      spdlog::info(
          "worker session {}: its master's hold ended; deleting it in {} "
          "unless held again",
          handle, absl::FormatDuration(grace_));
    }
  }
  done(errors::Cancelled("The hold on worker session ", handle,
                         " was cancelled"));
}

void SessionHolds::Released(const std::string& handle) {
  std::vector<StatusCallback> open;
  {
    absl::MutexLock l(&mu_);
    auto it = entries_.find(handle);
    if (it == entries_.end()) return;
    for (auto& [id, done] : it->second.holds) open.push_back(std::move(done));
    entries_.erase(it);
  }
  for (StatusCallback& done : open) done(absl::OkStatus());
}

int SessionHolds::num_held() const {
  absl::MutexLock l(&mu_);
  int n = 0;
  for (const auto& [handle, entry] : entries_) n += !entry.holds.empty();
  return n;
}

int SessionHolds::num_orphaned() const {
  absl::MutexLock l(&mu_);
  int n = 0;
  for (const auto& [handle, entry] : entries_) n += entry.holds.empty();
  return n;
}

void SessionHolds::Loop() {
  absl::MutexLock l(&mu_);
  while (!stop_) {
    absl::Time next = absl::InfiniteFuture();
    for (const auto& [handle, entry] : entries_) {
      if (entry.holds.empty()) next = std::min(next, entry.orphaned_until);
    }
    // Until the next deadline, or a new orphan (whose deadline may come
    // first). A session held again only has a later deadline: waking at its
    // old one finds nothing to do.
    auto woken = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
      return stop_ || new_orphan_;
    };
    mu_.AwaitWithDeadline(absl::Condition(&woken), next);
    new_orphan_ = false;
    if (stop_) return;
    const absl::Time now = absl::Now();
    std::vector<std::string> expired;
    for (auto it = entries_.begin(); it != entries_.end();) {
      if (it->second.holds.empty() && it->second.orphaned_until <= now) {
        expired.push_back(it->first);
        entries_.erase(it++);
      } else {
        ++it;
      }
    }
    if (expired.empty()) continue;
    mu_.Unlock();
    for (const std::string& handle : expired) {
      spdlog::warn(
          "deleting worker session {}: its master has not held it for {} "
          "(the master is gone)",
          handle, absl::FormatDuration(grace_));
      delete_session_(handle);
    }
    mu_.Lock();
  }
}

}  // namespace tributary
