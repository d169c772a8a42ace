#include "master/blocking_call_pool.h"

#include <atomic>

#include "absl/synchronization/blocking_counter.h"
#include "absl/synchronization/mutex.h"
#include "gtest/gtest.h"

namespace tributary {
namespace {

// Calls that wait for each other all run: the pool grows instead of
// queueing a call behind one it depends on.
TEST(BlockingCallPoolTest, GrowsSoDependentCallsAllRun) {
  constexpr int kCalls = 16;
  absl::Mutex mu;
  int arrived = 0;
  std::atomic<int> met{0};
  absl::BlockingCounter done(kCalls);
  {
    BlockingCallPool pool;
    for (int i = 0; i < kCalls; ++i) {
      pool.Schedule([&] {
        absl::MutexLock l(&mu);
        ++arrived;
        if (mu.AwaitWithTimeout(
                absl::Condition(
                    +[](int* n) { return *n == kCalls; }, &arrived),
                absl::Seconds(30))) {
          met.fetch_add(1);
        }
        done.DecrementCount();
      });
    }
    done.Wait();
    EXPECT_GE(pool.num_threads(), kCalls);
  }
  EXPECT_EQ(met.load(), kCalls);
}

TEST(BlockingCallPoolTest, ReusesIdleThreadsAndRunsQueuedWorkOnDestruction) {
  std::atomic<int> ran{0};
  {
    BlockingCallPool pool;
    for (int i = 0; i < 100; ++i) {
      absl::BlockingCounter one(1);
      pool.Schedule([&] {
        ran.fetch_add(1);
        one.DecrementCount();
      });
      one.Wait();
    }
    // Sequential calls reuse threads (a thread still on its way back to
    // idle when the next call comes may make the pool grow a little).
    EXPECT_LT(pool.num_threads(), 50);
    for (int i = 0; i < 10; ++i) pool.Schedule([&] { ran.fetch_add(1); });
  }
  EXPECT_EQ(ran.load(), 110);
}

TEST(BlockingCallPoolTest, IdleThreadsExit) {
  BlockingCallPool pool(absl::Milliseconds(1));
  absl::BlockingCounter one(1);
  pool.Schedule([&] { one.DecrementCount(); });
  one.Wait();
  const absl::Time give_up = absl::Now() + absl::Seconds(30);
  while (pool.num_threads() > 0 && absl::Now() < give_up) {
    absl::SleepFor(absl::Milliseconds(1));
  }
  EXPECT_EQ(pool.num_threads(), 0);
}

}  // namespace
}  // namespace tributary
