#include "common/distributed/deadline_timer.h"

#include <atomic>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "gtest/gtest.h"

namespace tributary {
namespace {

TEST(DeadlineTimerTest, RunsCallbacksInDeadlineOrder) {
  DeadlineTimer timer;
  absl::Mutex mu;
  std::vector<int> order;
  absl::Notification last;
  const absl::Time now = absl::Now();
  timer.Schedule(now + absl::Milliseconds(60), [&] {
    absl::MutexLock l(&mu);
    order.push_back(3);
    last.Notify();
  });
  timer.Schedule(now + absl::Milliseconds(20), [&] {
    absl::MutexLock l(&mu);
    order.push_back(2);
  });
  timer.Schedule(now - absl::Seconds(1), [&] {
    absl::MutexLock l(&mu);
    order.push_back(1);
  });
  ASSERT_TRUE(last.WaitForNotificationWithTimeout(absl::Seconds(30)));
  absl::MutexLock l(&mu);
  EXPECT_EQ(order, (std::vector<int>{1, 2, 3}));
}

TEST(DeadlineTimerTest, CancelledCallbacksNeverRun) {
  DeadlineTimer timer;
  std::atomic<bool> ran{false};
  auto id =
      timer.Schedule(absl::Now() + absl::Milliseconds(50), [&] { ran = true; });
  EXPECT_EQ(timer.NumPending(), 1);
  EXPECT_TRUE(timer.Cancel(id));
  EXPECT_FALSE(timer.Cancel(id));
  EXPECT_EQ(timer.NumPending(), 0);
  // A later callback runs, so the cancelled one's time has passed.
  absl::Notification later;
  timer.Schedule(absl::Now() + absl::Milliseconds(100),
                 [&] { later.Notify(); });
  ASSERT_TRUE(later.WaitForNotificationWithTimeout(absl::Seconds(30)));
  EXPECT_FALSE(ran);
}

TEST(DeadlineTimerTest, InfiniteFutureSchedulesNothing) {
  DeadlineTimer timer;
  EXPECT_EQ(timer.Schedule(absl::InfiniteFuture(), [] {}),
            DeadlineTimer::kNoTimer);
  EXPECT_EQ(timer.NumPending(), 0);
  EXPECT_FALSE(timer.Cancel(DeadlineTimer::kNoTimer));
}

TEST(DeadlineTimerTest, DestructionDropsPendingCallbacks) {
  std::atomic<bool> ran{false};
  {
    DeadlineTimer timer;
    timer.Schedule(absl::Now() + absl::Hours(1), [&] { ran = true; });
  }
  EXPECT_FALSE(ran);
}

TEST(DeadlineTimerTest, AnEarlierDeadlineWakesTheTimer) {
  DeadlineTimer timer;
  timer.Schedule(absl::Now() + absl::Hours(1), [] {});
  absl::Notification soon;
  timer.Schedule(absl::Now() + absl::Milliseconds(10), [&] { soon.Notify(); });
  EXPECT_TRUE(soon.WaitForNotificationWithTimeout(absl::Seconds(30)));
}

TEST(DeadlineTimerTest, ADeadlineBeyondTheLongestSleepStillRuns) {
  // Scheduling this does not wake the idle timer thread (it is further
  // away than the thread ever sleeps); the thread's own re-check finds it.
  DeadlineTimer timer;
  absl::Notification ran;
  timer.Schedule(absl::Now() + absl::Milliseconds(1500), [&] { ran.Notify(); });
  EXPECT_TRUE(ran.WaitForNotificationWithTimeout(absl::Seconds(30)));
  EXPECT_EQ(timer.NumPending(), 0);
}

}  // namespace
}  // namespace tributary
