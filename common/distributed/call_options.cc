#include "common/distributed/call_options.h"

#include <utility>

namespace tributary {

void CallOptions::SetDeadline(absl::Time deadline) {
  absl::MutexLock l(&mu_);
  deadline_ = deadline;
}

absl::Time CallOptions::deadline() const {
  absl::MutexLock l(&mu_);
  return deadline_;
}

void CallOptions::StartCancel() {
  std::function<void()> cancel;
  {
    absl::MutexLock l(&mu_);
    if (cancelled_) return;
    cancelled_ = true;
    cancel = std::move(cancel_);
    cancel_ = nullptr;
  }
  // Outside the lock: the hook may complete the call, whose callback may
  // touch these options.
  if (cancel) cancel();
}

bool CallOptions::IsCancelled() const {
  absl::MutexLock l(&mu_);
  return cancelled_;
}

void CallOptions::SetCancelCallback(std::function<void()> cancel) {
  {
    absl::MutexLock l(&mu_);
    if (!cancelled_) {
      cancel_ = std::move(cancel);
      return;
    }
  }
  if (cancel) cancel();
}

void CallOptions::ClearCancelCallback() {
  absl::MutexLock l(&mu_);
  cancel_ = nullptr;
}

}  // namespace tributary
