#include "worker/session_holds.h"

#include <string>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "gtest/gtest.h"

namespace tributary {
namespace {

// Records deletions; waits (bounded) for them.
class Deleted {
 public:
  void Add(const std::string& handle) {
    absl::MutexLock l(&mu_);
    handles_.push_back(handle);
  }
  bool WaitFor(size_t n, absl::Duration timeout) {
    absl::MutexLock l(&mu_);
    auto enough = [this, n]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
      return handles_.size() >= n;
    };
    return mu_.AwaitWithTimeout(absl::Condition(&enough), timeout);
  }
  std::vector<std::string> handles() {
    absl::MutexLock l(&mu_);
    return handles_;
  }

 private:
  absl::Mutex mu_;
  std::vector<std::string> handles_ ABSL_GUARDED_BY(mu_);
};

struct Result {
  absl::Notification done;
  absl::Status status;
  StatusCallback callback() {
    return [this](const absl::Status& s) {
      status = s;
      done.Notify();
    };
  }
};

TEST(SessionHoldsTest, ReleasedHoldCompletesOkAndNothingIsDeleted) {
  Deleted deleted;
  SessionHolds holds(absl::Milliseconds(50),
                     [&](const std::string& h) { deleted.Add(h); });
  CallOptions opts;
  Result r;
  holds.Hold("s1", &opts, r.callback());
  EXPECT_EQ(holds.num_held(), 1);
  EXPECT_FALSE(r.done.HasBeenNotified());
  holds.Released("s1");
  ASSERT_TRUE(r.done.HasBeenNotified());
  EXPECT_TRUE(r.status.ok()) << r.status;
  EXPECT_EQ(holds.num_held(), 0);
  // A cancel after completion is harmless.
  opts.StartCancel();
  absl::SleepFor(absl::Milliseconds(200));
  EXPECT_TRUE(deleted.handles().empty());
}

TEST(SessionHoldsTest, SessionUnheldPastTheGraceIsDeleted) {
  Deleted deleted;
  SessionHolds holds(absl::Milliseconds(100),
                     [&](const std::string& h) { deleted.Add(h); });
  CallOptions a_opts, b_opts;
  Result a, b;
  holds.Hold("a", &a_opts, a.callback());
  holds.Hold("b", &b_opts, b.callback());
  a_opts.StartCancel();  // a's master went away
  ASSERT_TRUE(a.done.HasBeenNotified());
  EXPECT_EQ(a.status.code(), absl::StatusCode::kCancelled);
  EXPECT_EQ(holds.num_orphaned(), 1);
  ASSERT_TRUE(deleted.WaitFor(1, absl::Seconds(30)));
  EXPECT_EQ(deleted.handles(), std::vector<std::string>{"a"});
  EXPECT_EQ(holds.num_orphaned(), 0);
  EXPECT_EQ(holds.num_held(), 1);  // b is still held
  holds.Released("b");
}

TEST(SessionHoldsTest, AHoldRenewedWithinTheGraceKeepsTheSession) {
  Deleted deleted;
  SessionHolds holds(absl::Milliseconds(300),
                     [&](const std::string& h) { deleted.Add(h); });
  CallOptions first, second;
  Result r1, r2;
  holds.Hold("s", &first, r1.callback());
  first.StartCancel();                      // a network blip ends the call...
  holds.Hold("s", &second, r2.callback());  // ...and the master holds again
  absl::SleepFor(absl::Milliseconds(600));
  EXPECT_TRUE(deleted.handles().empty());
  EXPECT_EQ(holds.num_held(), 1);
  holds.Released("s");
  EXPECT_TRUE(r2.status.ok());
}

TEST(SessionHoldsTest, ShutdownCompletesHoldsAndRefusesNewOnes) {
  Deleted deleted;
  SessionHolds holds(absl::Milliseconds(50),
                     [&](const std::string& h) { deleted.Add(h); });
  CallOptions opts, later_opts;
  Result r, later;
  holds.Hold("s", &opts, r.callback());
  holds.Shutdown(absl::UnavailableError("shutting down"));
  ASSERT_TRUE(r.done.HasBeenNotified());
  EXPECT_EQ(r.status.code(), absl::StatusCode::kUnavailable);
  holds.Hold("s", &later_opts, later.callback());
  ASSERT_TRUE(later.done.HasBeenNotified());
  EXPECT_EQ(later.status.code(), absl::StatusCode::kUnavailable);
  absl::SleepFor(absl::Milliseconds(200));
  EXPECT_TRUE(deleted.handles().empty());  // shutdown deletes nothing
}

}  // namespace
}  // namespace tributary
