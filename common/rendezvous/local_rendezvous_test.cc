#include "common/rendezvous/local_rendezvous.h"

#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "common/framework/status.h"
#include "common/framework/tensor.h"
#include "common/framework/tensor_testutil.h"
#include "common/kernel/cancellation.h"
#include "common/rendezvous/recv_testutil.h"
#include "gtest/gtest.h"

namespace tributary {
namespace {

using Args = RendezvousInterface::Args;

constexpr char kSrc[] = "/job:localhost/replica:0/task:0/device:CPU:0";
constexpr char kDst[] = "/job:localhost/replica:0/task:0/device:CPU:1";

RendezvousParsedKey Key(const std::string& name,
                        FrameAndIter frame_iter = FrameAndIter(0, 0)) {
  absl::StatusOr<RendezvousParsedKey> key =
      ParseRendezvousKey(CreateRendezvousKey(kSrc, 1, kDst, name, frame_iter));
  EXPECT_TRUE(key.ok()) << key.status();
  return *key;
}

Tensor Scalar(float v) { return test::AsScalar<float>(v); }

using test::Received;

TEST(LocalRendezvousTest, SendThenRecv) {
  LocalRendezvous rendezvous;
  const Tensor sent = Scalar(3.5f);
  ASSERT_TRUE(rendezvous.Send(Key("a"), Args(), sent, false).ok());
  EXPECT_EQ(rendezvous.NumPendingForTest(), 1);

  Received r;
  rendezvous.RecvAsync(Key("a"), Args(), r.Callback());
  // The value was there: the callback ran on this thread, before returning.
  ASSERT_TRUE(r.done.HasBeenNotified());
  ASSERT_TRUE(r.status.ok()) << r.status;
  EXPECT_FALSE(r.is_dead);
  test::ExpectTensorEqual<float>(r.value, sent);
  EXPECT_TRUE(r.value.SharesBufferWith(sent));
  EXPECT_EQ(rendezvous.NumPendingForTest(), 0);
}

TEST(LocalRendezvousTest, RecvThenSend) {
  LocalRendezvous rendezvous;
  Received r;
  rendezvous.RecvAsync(Key("a"), Args(), r.Callback());
  EXPECT_FALSE(r.done.HasBeenNotified());
  EXPECT_EQ(rendezvous.NumPendingForTest(), 1);

  ASSERT_TRUE(rendezvous.Send(Key("a"), Args(), Scalar(7), false).ok());
  ASSERT_TRUE(r.done.HasBeenNotified());
  ASSERT_TRUE(r.status.ok()) << r.status;
  test::ExpectTensorEqual<float>(r.value, Scalar(7));
  EXPECT_EQ(r.calls, 1);
  EXPECT_EQ(rendezvous.NumPendingForTest(), 0);
}

TEST(LocalRendezvousTest, RecvOnAnotherThreadWaitsForSend) {
  LocalRendezvous rendezvous;
  Tensor value;
  bool is_dead = true;
  absl::Status status;
  std::thread receiver([&] {
    status = rendezvous.Recv(Key("a"), Args(), &value, &is_dead,
                             /*timeout_ms=*/60000);
  });
  absl::SleepFor(absl::Milliseconds(20));
  ASSERT_TRUE(rendezvous.Send(Key("a"), Args(), Scalar(1), false).ok());
  receiver.join();
  ASSERT_TRUE(status.ok()) << status;
  EXPECT_FALSE(is_dead);
  test::ExpectTensorEqual<float>(value, Scalar(1));
}

TEST(LocalRendezvousTest, SendersArgsReachTheReceiver) {
  LocalRendezvous rendezvous;
  Args send_args;
  send_args.alloc_attrs.set_on_host(true);
  ASSERT_TRUE(rendezvous.Send(Key("a"), send_args, Scalar(1), false).ok());
  Args recv_args;
  recv_args.alloc_attrs.set_gpu_compatible(true);
  bool checked = false;
  rendezvous.RecvAsync(Key("a"), recv_args,
                       [&](const absl::Status& s, const Args& sa,
                           const Args& ra, const Tensor&, bool) {
                         EXPECT_TRUE(s.ok());
                         EXPECT_TRUE(sa.alloc_attrs.on_host());
                         EXPECT_TRUE(ra.alloc_attrs.gpu_compatible());
                         checked = true;
                       });
  EXPECT_TRUE(checked);
}

TEST(LocalRendezvousTest, DeadValuesPassThrough) {
  LocalRendezvous rendezvous;
  ASSERT_TRUE(rendezvous.Send(Key("a"), Args(), Tensor(), true).ok());
  Tensor value = Scalar(1);
  bool is_dead = false;
  ASSERT_TRUE(rendezvous.Recv(Key("a"), Args(), &value, &is_dead).ok());
  EXPECT_TRUE(is_dead);
  EXPECT_EQ(value.NumElements(), 0);
}

TEST(LocalRendezvousTest, KeysAreIndependent) {
  LocalRendezvous rendezvous;
  ASSERT_TRUE(rendezvous.Send(Key("a"), Args(), Scalar(1), false).ok());
  ASSERT_TRUE(rendezvous.Send(Key("b"), Args(), Scalar(2), false).ok());
  // Same name, another loop iteration: another channel.
  ASSERT_TRUE(
      rendezvous.Send(Key("a", FrameAndIter(0, 1)), Args(), Scalar(3), false)
          .ok());
  Tensor v;
  bool dead;
  ASSERT_TRUE(rendezvous.Recv(Key("b"), Args(), &v, &dead).ok());
  test::ExpectTensorEqual<float>(v, Scalar(2));
  ASSERT_TRUE(
      rendezvous.Recv(Key("a", FrameAndIter(0, 1)), Args(), &v, &dead).ok());
  test::ExpectTensorEqual<float>(v, Scalar(3));
  ASSERT_TRUE(rendezvous.Recv(Key("a"), Args(), &v, &dead).ok());
  test::ExpectTensorEqual<float>(v, Scalar(1));
}

TEST(LocalRendezvousTest, DuplicateSendIsAnError) {
  LocalRendezvous rendezvous;
  ASSERT_TRUE(rendezvous.Send(Key("a"), Args(), Scalar(1), false).ok());
  absl::Status s = rendezvous.Send(Key("a"), Args(), Scalar(2), false);
  EXPECT_EQ(s.code(), absl::StatusCode::kAborted);
  EXPECT_NE(s.message().find("Duplicated send"), std::string::npos) << s;
  EXPECT_NE(s.message().find(std::string(Key("a").FullKey())),
            std::string::npos)
      << s;
  // The first value is untouched.
  Tensor v;
  bool dead;
  ASSERT_TRUE(rendezvous.Recv(Key("a"), Args(), &v, &dead).ok());
  test::ExpectTensorEqual<float>(v, Scalar(1));
  // Once received, the key may carry a new value (a later use of the key).
  EXPECT_TRUE(rendezvous.Send(Key("a"), Args(), Scalar(3), false).ok());
}

TEST(LocalRendezvousTest, DuplicateRecvIsAnError) {
  LocalRendezvous rendezvous;
  Received first, second;
  rendezvous.RecvAsync(Key("a"), Args(), first.Callback());
  rendezvous.RecvAsync(Key("a"), Args(), second.Callback());
  ASSERT_TRUE(second.done.HasBeenNotified());
  EXPECT_EQ(second.status.code(), absl::StatusCode::kAborted);
  EXPECT_NE(second.status.message().find("Duplicated recv"), std::string::npos);
  EXPECT_FALSE(first.done.HasBeenNotified());
  ASSERT_TRUE(rendezvous.Send(Key("a"), Args(), Scalar(1), false).ok());
  EXPECT_TRUE(first.status.ok());
}

TEST(LocalRendezvousTest, RecvTimeoutIsDeadlineExceeded) {
  LocalRendezvous rendezvous;
  Tensor v;
  bool dead;
  const absl::Time start = absl::Now();
  absl::Status s =
      rendezvous.Recv(Key("a"), Args(), &v, &dead, /*timeout_ms=*/50);
  EXPECT_GE(absl::Now() - start, absl::Milliseconds(50));
  EXPECT_EQ(s.code(), absl::StatusCode::kDeadlineExceeded) << s;
  EXPECT_NE(s.message().find(std::string(Key("a").FullKey())),
            std::string::npos)
      << s;
  // The timed-out request was withdrawn: a later Send is kept for the next
  // receiver rather than swallowed by a dead waiter.
  EXPECT_EQ(rendezvous.NumPendingForTest(), 0);
  ASSERT_TRUE(rendezvous.Send(Key("a"), Args(), Scalar(5), false).ok());
  ASSERT_TRUE(rendezvous.Recv(Key("a"), Args(), &v, &dead, 1000).ok());
  test::ExpectTensorEqual<float>(v, Scalar(5));
}

TEST(LocalRendezvousTest, RecvTimeoutWithCallerCancellationManager) {
  LocalRendezvous rendezvous;
  CancellationManager cm;
  Args args;
  args.cancellation_manager = &cm;
  Tensor v;
  bool dead;
  absl::Status s = rendezvous.Recv(Key("a"), args, &v, &dead, 20);
  EXPECT_EQ(s.code(), absl::StatusCode::kDeadlineExceeded) << s;
  EXPECT_FALSE(cm.IsCancelled());
  // The caller's manager still cancels a later Recv.
  std::thread canceller([&] {
    absl::SleepFor(absl::Milliseconds(20));
    cm.StartCancel();
  });
  s = rendezvous.Recv(Key("b"), args, &v, &dead, 60000);
  canceller.join();
  EXPECT_EQ(s.code(), absl::StatusCode::kCancelled) << s;
}

TEST(LocalRendezvousTest, StartAbortWakesEveryWaiter) {
  LocalRendezvous rendezvous;
  constexpr int kWaiters = 8;
  std::vector<std::unique_ptr<Received>> received;
  for (int i = 0; i < kWaiters; ++i) {
    received.push_back(std::make_unique<Received>());
    rendezvous.RecvAsync(Key(absl::StrCat("k", i)), Args(),
                         received.back()->Callback());
  }
  // Plus blocking receivers on their own threads.
  std::vector<absl::Status> blocking(3);
  std::vector<std::thread> threads;
  for (int i = 0; i < 3; ++i) {
    threads.emplace_back([&, i] {
      Tensor v;
      bool dead;
      blocking[i] = rendezvous.Recv(Key(absl::StrCat("t", i)), Args(), &v,
                                    &dead, 60000);
    });
  }
  // An unreceived value is dropped by the abort.
  ASSERT_TRUE(rendezvous.Send(Key("sent"), Args(), Scalar(1), false).ok());
  while (rendezvous.NumPendingForTest() < kWaiters + 3 + 1) {
    absl::SleepFor(absl::Milliseconds(1));
  }

  const absl::Status abort = errors::Aborted("step 7 failed: node 'x'");
  rendezvous.StartAbort(abort);
  for (auto& r : received) {
    ASSERT_TRUE(r->done.HasBeenNotified());
    EXPECT_EQ(r->status, abort);
    EXPECT_EQ(r->calls, 1);
  }
  for (auto& t : threads) t.join();
  for (const absl::Status& s : blocking) EXPECT_EQ(s, abort);
  EXPECT_EQ(rendezvous.NumPendingForTest(), 0);
  EXPECT_EQ(rendezvous.status(), abort);

  // Everything afterwards fails with the same (first) status.
  EXPECT_EQ(rendezvous.Send(Key("new"), Args(), Scalar(1), false), abort);
  Received late;
  rendezvous.RecvAsync(Key("sent"), Args(), late.Callback());
  ASSERT_TRUE(late.done.HasBeenNotified());
  EXPECT_EQ(late.status, abort);
  rendezvous.StartAbort(errors::Cancelled("second"));
  EXPECT_EQ(rendezvous.status(), abort);
}

TEST(LocalRendezvousTest, CancellationCancelsPendingRecvAsync) {
  // Declared first: b's receiver is still pending when the rendezvous is
  // destroyed, which runs its callback.
  Received r, unaffected;
  LocalRendezvous rendezvous;
  CancellationManager cm;
  Args args;
  args.cancellation_manager = &cm;
  rendezvous.RecvAsync(Key("a"), args, r.Callback());
  rendezvous.RecvAsync(Key("b"), Args(), unaffected.Callback());
  EXPECT_FALSE(r.done.HasBeenNotified());
  cm.StartCancel();
  ASSERT_TRUE(r.done.HasBeenNotified());
  EXPECT_EQ(r.status.code(), absl::StatusCode::kCancelled) << r.status;
  EXPECT_EQ(r.calls, 1);
  EXPECT_FALSE(unaffected.done.HasBeenNotified());
  // The withdrawn request does not swallow a later value.
  ASSERT_TRUE(rendezvous.Send(Key("a"), Args(), Scalar(1), false).ok());
  EXPECT_EQ(r.calls, 1);
  EXPECT_EQ(rendezvous.NumPendingForTest(), 2);  // a's value, b's receiver
  EXPECT_TRUE(rendezvous.status().ok());
}

TEST(LocalRendezvousTest, RecvWithAlreadyCancelledManagerFailsAtOnce) {
  LocalRendezvous rendezvous;
  CancellationManager cm;
  cm.StartCancel();
  Args args;
  args.cancellation_manager = &cm;
  Received r;
  rendezvous.RecvAsync(Key("a"), args, r.Callback());
  ASSERT_TRUE(r.done.HasBeenNotified());
  EXPECT_EQ(r.status.code(), absl::StatusCode::kCancelled);
  EXPECT_EQ(rendezvous.NumPendingForTest(), 0);
}

TEST(LocalRendezvousTest, CompletedRecvDeregistersItsCancellation) {
  LocalRendezvous rendezvous;
  Received r;
  {
    CancellationManager cm;
    Args args;
    args.cancellation_manager = &cm;
    rendezvous.RecvAsync(Key("a"), args, r.Callback());
    ASSERT_TRUE(rendezvous.Send(Key("a"), Args(), Scalar(1), false).ok());
    ASSERT_TRUE(r.status.ok());
    // Destroying the manager would run a still-registered callback.
  }
  EXPECT_EQ(r.calls, 1);
}

TEST(LocalRendezvousTest, DestructionAbortsPendingReceivers) {
  Received r;
  {
    LocalRendezvous rendezvous;
    rendezvous.RecvAsync(Key("a"), Args(), r.Callback());
  }
  ASSERT_TRUE(r.done.HasBeenNotified());
  EXPECT_EQ(r.status.code(), absl::StatusCode::kCancelled);
}

TEST(LocalRendezvousTest, CallbackMayReenterTheRendezvous) {
  LocalRendezvous rendezvous;
  Received second;
  rendezvous.RecvAsync(
      Key("a"), Args(),
      [&](const absl::Status& s, const Args&, const Args&, const Tensor& v,
          bool dead) {
        ASSERT_TRUE(s.ok());
        // Forward the value under another key from inside the callback.
        EXPECT_TRUE(rendezvous.Send(Key("b"), Args(), v, dead).ok());
      });
  rendezvous.RecvAsync(Key("b"), Args(), second.Callback());
  ASSERT_TRUE(rendezvous.Send(Key("a"), Args(), Scalar(9), false).ok());
  ASSERT_TRUE(second.done.HasBeenNotified());
  test::ExpectTensorEqual<float>(second.value, Scalar(9));
}

TEST(LocalRendezvousTest, ConcurrentSendersAndReceiversPairUp) {
  LocalRendezvous rendezvous;
  constexpr int kKeys = 400;
  std::atomic<int> ok_count{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = t; i < kKeys; i += 4) {
        Tensor v;
        bool dead;
        if (rendezvous.Recv(Key(absl::StrCat("k", i)), Args(), &v, &dead,
                            60000)
                .ok() &&
            v.scalar<float>()() == static_cast<float>(i)) {
          ok_count.fetch_add(1);
        }
      }
    });
    threads.emplace_back([&, t] {
      for (int i = kKeys - 1 - t; i >= 0; i -= 4) {
        EXPECT_TRUE(rendezvous
                        .Send(Key(absl::StrCat("k", i)), Args(),
                              Scalar(static_cast<float>(i)), false)
                        .ok());
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(ok_count.load(), kKeys);
  EXPECT_EQ(rendezvous.NumPendingForTest(), 0);
}

TEST(LocalRendezvousTest, ConcurrentCancelAndSendCompleteExactlyOnce) {
  for (int round = 0; round < 200; ++round) {
    LocalRendezvous rendezvous;
    CancellationManager cm;
    Args args;
    args.cancellation_manager = &cm;
    std::atomic<int> calls{0};
    absl::Notification done;
    rendezvous.RecvAsync(Key("a"), args,
                         [&](const absl::Status&, const Args&, const Args&,
                             const Tensor&, bool) {
                           calls.fetch_add(1);
                           done.Notify();
                         });
    std::thread sender(
        [&] { (void)rendezvous.Send(Key("a"), Args(), Scalar(1), false); });
    cm.StartCancel();
    sender.join();
    done.WaitForNotification();
    EXPECT_EQ(calls.load(), 1);
  }
}

}  // namespace
}  // namespace tributary
