#ifndef TRIBUTARY_MASTER_RECENT_REQUEST_IDS_H_
#define TRIBUTARY_MASTER_RECENT_REQUEST_IDS_H_

// Recently seen request ids, so a request that a client retried after a
// transport error is not executed twice. TensorFlow's client retries
// MasterService calls that fail with UNAVAILABLE (up to 10 times) and tags
// RunStep, PartialRunSetup, MakeCallable and RunCallable with a random
// request_id for this purpose; a repeat is refused with TensorFlow's
// Aborted "The same RunStepRequest was received twice.". Id 0 means
// "untracked". Thread-safe.

#include <cstdint>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"

namespace tributary {

class RecentRequestIds {
 public:
  // Remembers the last `capacity` ids.
  explicit RecentRequestIds(int capacity = 100000);

  // OK the first time `request_id` is seen (and for 0); Aborted naming
  // `method` afterwards, as long as the id is remembered.
  absl::Status TrackUnique(int64_t request_id, absl::string_view method);

 private:
  absl::Mutex mu_;
  std::vector<int64_t> ring_ ABSL_GUARDED_BY(mu_);
  size_t next_ ABSL_GUARDED_BY(mu_) = 0;
  absl::flat_hash_set<int64_t> set_ ABSL_GUARDED_BY(mu_);
};

}  // namespace tributary

#endif  // TRIBUTARY_MASTER_RECENT_REQUEST_IDS_H_
