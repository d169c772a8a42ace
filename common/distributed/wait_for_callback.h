#ifndef TRIBUTARY_COMMON_DISTRIBUTED_WAIT_FOR_CALLBACK_H_
#define TRIBUTARY_COMMON_DISTRIBUTED_WAIT_FOR_CALLBACK_H_

// The blocking form of an asynchronous operation: `start` begins it with a
// callback, and this thread waits until the callback has run. Bounds come
// from the operation itself (its deadline), as for every asynchronous call
// of the runtime.

#include <functional>
#include <utility>

#include "absl/status/status.h"
#include "absl/synchronization/notification.h"

namespace tributary {

template <typename Start>
absl::Status WaitForCallback(Start&& start) {
  absl::Notification done;
  absl::Status result;
  std::forward<Start>(start)([&done, &result](const absl::Status& s) {
    result = s;
    done.Notify();
  });
  done.WaitForNotification();
  return result;
}

}  // namespace tributary

#endif  // TRIBUTARY_COMMON_DISTRIBUTED_WAIT_FOR_CALLBACK_H_
