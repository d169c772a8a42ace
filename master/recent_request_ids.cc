#include "master/recent_request_ids.h"

#include "common/framework/status.h"

namespace tributary {

RecentRequestIds::RecentRequestIds(int capacity) {
  absl::MutexLock l(&mu_);
  ring_.assign(capacity > 0 ? capacity : 1, 0);
  set_.reserve(ring_.size());
}

absl::Status RecentRequestIds::TrackUnique(int64_t request_id,
                                           absl::string_view method) {
  if (request_id == 0) return absl::OkStatus();
  absl::MutexLock l(&mu_);
  if (!set_.insert(request_id).second) {
    return errors::Aborted("The same ", method,
                           " was received twice (request_id ", request_id,
                           "): the client retried a request that had "
                           "already reached the master");
  }
  // Forget the oldest id to make room.
  if (ring_[next_] != 0) set_.erase(ring_[next_]);
  ring_[next_] = request_id;
  next_ = (next_ + 1) % ring_.size();
  return absl::OkStatus();
}

}  // namespace tributary
