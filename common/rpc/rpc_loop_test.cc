#include "common/rpc/rpc_loop.h"

#include <atomic>
#include <thread>

#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "grpcpp/alarm.h"
#include "gtest/gtest.h"

namespace tributary {
namespace {

// A tag that records where and how it ran.
struct Recorder : RpcLoop::Tag {
  void OnEvent(bool ok) override {
    on_loop = RpcLoop::OnLoopThread();
    this->ok = ok;
    ran.Notify();
  }
  std::atomic<bool> on_loop{false};
  std::atomic<bool> ok{false};
  absl::Notification ran;
};

TEST(RpcLoopTest, RunsTagsOnItsOwnThread) {
  std::shared_ptr<RpcLoop> loop = RpcLoop::NewClientLoop();
  EXPECT_FALSE(RpcLoop::OnLoopThread());
  Recorder tag;
  grpc::Alarm alarm;
  ASSERT_TRUE(loop->StartOp([&] {
    alarm.Set(loop->cq(), absl::ToChronoTime(absl::Now()), &tag);
  }));
  ASSERT_TRUE(tag.ran.WaitForNotificationWithTimeout(absl::Seconds(10)));
  EXPECT_TRUE(tag.on_loop);
  EXPECT_TRUE(tag.ok);
}

TEST(RpcLoopTest, ShutdownDrainsPendingOperationsThenRefusesNewOnes) {
  std::shared_ptr<RpcLoop> loop = RpcLoop::NewClientLoop();
  Recorder tag;
  grpc::Alarm alarm;
  // An alarm far away: Shutdown cancels nothing by itself, so cancel it the
  // way an owner cancels its calls, and check the loop waited for it.
  ASSERT_TRUE(loop->StartOp([&] {
    alarm.Set(loop->cq(), absl::ToChronoTime(absl::Now() + absl::Hours(1)),
              &tag);
  }));
  std::thread cancel([&] {
    absl::SleepFor(absl::Milliseconds(100));
    alarm.Cancel();
  });
  loop->Shutdown(absl::Now() + absl::Seconds(10));
  cancel.join();
  EXPECT_TRUE(tag.ran.HasBeenNotified());
  EXPECT_FALSE(tag.ok);  // Cancelled alarms report ok = false.
  bool ran = false;
  EXPECT_FALSE(loop->StartOp([&] { ran = true; }));
  EXPECT_FALSE(ran);
}

// The last owner letting go on the loop's own thread (a completion dropping
// the last reference) must neither deadlock nor crash.
struct DropLoop : RpcLoop::Tag {
  void OnEvent(bool) override {
    loop.reset();
    dropped.Notify();
  }
  std::shared_ptr<RpcLoop> loop;
  absl::Notification dropped;
};

TEST(RpcLoopTest, LastOwnerMayLetGoOnTheLoopThread) {
  DropLoop tag;
  tag.loop = RpcLoop::NewClientLoop();
  grpc::Alarm alarm;
  RpcLoop* loop = tag.loop.get();
  ASSERT_TRUE(loop->StartOp([&] {
    alarm.Set(loop->cq(), absl::ToChronoTime(absl::Now()), &tag);
  }));
  ASSERT_TRUE(tag.dropped.WaitForNotificationWithTimeout(absl::Seconds(10)));
}

}  // namespace
}  // namespace tributary
