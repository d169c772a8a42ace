// InterOpThreadPool: closures run on pool threads, and queued()/running()
// count what waits and what runs (the worker's executor queue metrics).
#include "common/runtime/executor/inter_op_thread_pool.h"

#include <thread>

#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"

namespace tributary {
namespace {

TEST(InterOpThreadPoolTest, RunsOnAPoolThread) {
  InterOpThreadPool pool(2);
  EXPECT_EQ(pool.num_threads(), 2);
  absl::Notification done;
  std::thread::id ran_on;
  pool.Schedule([&] {
    ran_on = std::this_thread::get_id();
    done.Notify();
  });
  ASSERT_TRUE(done.WaitForNotificationWithTimeout(absl::Seconds(30)));
  EXPECT_NE(ran_on, std::this_thread::get_id());
}

TEST(InterOpThreadPoolTest, CountsQueuedAndRunningClosures) {
  InterOpThreadPool pool(1);
  absl::Notification started, release;
  pool.Schedule([&] {
    started.Notify();
    release.WaitForNotification();
  });
  ASSERT_TRUE(started.WaitForNotificationWithTimeout(absl::Seconds(30)));
  absl::Mutex mu;
  int ran = 0;
  for (int i = 0; i < 3; ++i) {
    pool.Schedule([&] {
      absl::MutexLock lock(&mu);
      ++ran;
    });
  }
  // The one thread is busy: three wait.
  EXPECT_EQ(pool.running(), 1);
  EXPECT_EQ(pool.queued(), 3);

  release.Notify();
  {
    absl::MutexLock lock(&mu);
    ASSERT_TRUE(mu.AwaitWithTimeout(absl::Condition(
                                        +[](int* n) { return *n == 3; }, &ran),
                                    absl::Seconds(30)));
  }
  // A closure's count drops after it returns, just after `ran` moved.
  for (int i = 0; i < 3000 && (pool.running() != 0 || pool.queued() != 0);
       ++i) {
    absl::SleepFor(absl::Milliseconds(10));
  }
  EXPECT_EQ(pool.queued(), 0);
  EXPECT_EQ(pool.running(), 0);
}

TEST(InterOpThreadPoolTest, DestructorRunsWhatIsQueued) {
  int ran = 0;
  {
    InterOpThreadPool pool(1);
    for (int i = 0; i < 5; ++i) pool.Schedule([&ran] { ++ran; });
  }
  EXPECT_EQ(ran, 5);
}

}  // namespace
}  // namespace tributary
