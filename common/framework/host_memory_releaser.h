#ifndef TRIBUTARY_COMMON_FRAMEWORK_HOST_MEMORY_RELEASER_H_
#define TRIBUTARY_COMMON_FRAMEWORK_HOST_MEMORY_RELEASER_H_

// Gives a long-running process's idle host memory back to the system, so a
// daemon that once ran a big step (or received a big request) returns to
// its baseline plus what it is allowed to cache, instead of keeping its
// peak for good.
//
// A background thread wakes every `period` and
//  * unmaps the HostBlockCache's blocks that nobody reused for `idle`
//    (HostBlockCache::ReleaseIdle): the tensors' big blocks;
//  * if the process was idle during the last period (it used less than 5%
//    of a core), calls glibc's malloc_trim(0), which returns the free pages
//    of the malloc heap: what gRPC and protobuf allocated for messages (a
//    big GraphDef, big feeds) and freed. The daemons keep those pages on
//    purpose while they work (malloc_tuning.h: a high trim threshold, so
//    big messages do not fault in fresh pages each time); a busy process
//    is therefore never trimmed.
// Both are cheap when there is nothing to give back. The destructor stops
// and joins the thread (it waits on a condition, not a sleep).

#include <memory>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "common/framework/caching_allocator.h"

namespace tributary {

class HostMemoryReleaser {
 public:
  // `idle` > 0; `period`: how often to look (ZeroDuration: idle / 4, at
  // least 100 ms).
  HostMemoryReleaser(std::shared_ptr<HostBlockCache> cache, absl::Duration idle,
                     absl::Duration period = absl::ZeroDuration());
  ~HostMemoryReleaser();

  HostMemoryReleaser(const HostMemoryReleaser&) = delete;
  HostMemoryReleaser& operator=(const HostMemoryReleaser&) = delete;

  // One round now: the cache's idle blocks, and the heap's free pages when
  // `process_idle`; returns the cache bytes unmapped.
  size_t ReleaseNow(bool process_idle);

 private:
  void Loop();

  const std::shared_ptr<HostBlockCache> cache_;
  const absl::Duration idle_;
  const absl::Duration period_;
  absl::Mutex mu_;
  bool stop_ ABSL_GUARDED_BY(mu_) = false;
  std::thread thread_;
};

}  // namespace tributary

#endif  // TRIBUTARY_COMMON_FRAMEWORK_HOST_MEMORY_RELEASER_H_
