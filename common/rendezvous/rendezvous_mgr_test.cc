#include "common/rendezvous/rendezvous_mgr.h"

#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/synchronization/notification.h"
#include "common/framework/status.h"
#include "common/framework/tensor.h"
#include "common/framework/tensor_testutil.h"
#include "common/rendezvous/local_rendezvous.h"
#include "gtest/gtest.h"

namespace tributary {
namespace {

using Args = RendezvousInterface::Args;

RendezvousParsedKey Key(const std::string& name) {
  return *ParseRendezvousKey(CreateRendezvousKey(
      "/job:localhost/replica:0/task:0/device:CPU:0", 1,
      "/job:localhost/replica:0/task:0/device:CPU:1", name, FrameAndIter()));
}

TEST(RendezvousMgrTest, OneRendezvousPerStep) {
  RendezvousMgr mgr;
  std::shared_ptr<RendezvousInterface> a = mgr.Find(1);
  std::shared_ptr<RendezvousInterface> b = mgr.Find(2);
  EXPECT_EQ(mgr.Find(1), a);
  EXPECT_NE(a, b);
  EXPECT_EQ(mgr.NumSteps(), 2);

  // Steps do not see each other's tensors.
  ASSERT_TRUE(a->Send(Key("x"), Args(), test::AsScalar<float>(1), false).ok());
  ASSERT_TRUE(b->Send(Key("x"), Args(), test::AsScalar<float>(2), false).ok());
  Tensor v;
  bool dead;
  ASSERT_TRUE(mgr.Find(2)->Recv(Key("x"), Args(), &v, &dead).ok());
  test::ExpectTensorEqual<float>(v, test::AsScalar<float>(2));
  ASSERT_TRUE(mgr.Find(1)->Recv(Key("x"), Args(), &v, &dead).ok());
  test::ExpectTensorEqual<float>(v, test::AsScalar<float>(1));
}

TEST(RendezvousMgrTest, CleanupAbortsAndForgetsTheStep) {
  RendezvousMgr mgr;
  std::shared_ptr<RendezvousInterface> r = mgr.Find(7);
  absl::Status status;
  absl::Notification done;
  r->RecvAsync(Key("never_sent"), Args(),
               [&](const absl::Status& s, const Args&, const Args&,
                   const Tensor&, bool) {
                 status = s;
                 done.Notify();
               });
  mgr.Cleanup(7);
  ASSERT_TRUE(done.HasBeenNotified());
  EXPECT_EQ(status.code(), absl::StatusCode::kAborted);
  EXPECT_EQ(status.message(), "Cleanup 7");
  EXPECT_EQ(mgr.NumSteps(), 0);
  // The holder's reference stays usable, aborted.
  EXPECT_EQ(r->Send(Key("y"), Args(), test::AsScalar<float>(1), false).code(),
            absl::StatusCode::kAborted);
  // The step id gets a fresh rendezvous if used again.
  std::shared_ptr<RendezvousInterface> fresh = mgr.Find(7);
  EXPECT_NE(fresh, r);
  EXPECT_TRUE(
      fresh->Send(Key("y"), Args(), test::AsScalar<float>(1), false).ok());
  mgr.Cleanup(12345);  // unknown: no-op
  EXPECT_EQ(mgr.NumSteps(), 1);
}

TEST(RendezvousMgrTest, CleanupAllAbortsEveryStep) {
  RendezvousMgr mgr;
  std::vector<absl::Status> statuses(3);
  std::vector<std::thread> waiters;
  for (int step = 0; step < 3; ++step) {
    std::shared_ptr<RendezvousInterface> r = mgr.Find(step);
    waiters.emplace_back([r, step, &statuses] {
      Tensor v;
      bool dead;
      statuses[step] = r->Recv(Key("x"), Args(), &v, &dead, 60000);
    });
  }
  mgr.CleanupAll();
  for (auto& t : waiters) t.join();
  for (const absl::Status& s : statuses) {
    EXPECT_EQ(s.code(), absl::StatusCode::kAborted);
  }
  EXPECT_EQ(mgr.NumSteps(), 0);
}

TEST(RendezvousMgrTest, DestructionReleasesWaiters) {
  std::shared_ptr<RendezvousInterface> r;
  absl::Status status;
  {
    RendezvousMgr mgr;
    r = mgr.Find(1);
    r->RecvAsync(Key("x"), Args(),
                 [&](const absl::Status& s, const Args&, const Args&,
                     const Tensor&, bool) { status = s; });
  }
  EXPECT_EQ(status.code(), absl::StatusCode::kAborted);
}

TEST(RendezvousMgrTest, CustomFactory) {
  std::vector<int64_t> created;
  RendezvousMgr mgr([&created](int64_t step_id) {
    created.push_back(step_id);
    return std::make_shared<LocalRendezvous>();
  });
  mgr.Find(5);
  mgr.Find(5);
  mgr.Find(6);
  EXPECT_EQ(created, (std::vector<int64_t>{5, 6}));
}

TEST(RendezvousMgrTest, ConcurrentFindReturnsOneRendezvous) {
  RendezvousMgr mgr;
  std::vector<std::shared_ptr<RendezvousInterface>> found(8);
  std::vector<std::thread> threads;
  for (int i = 0; i < 8; ++i) {
    threads.emplace_back([&, i] { found[i] = mgr.Find(99); });
  }
  for (auto& t : threads) t.join();
  for (const auto& r : found) EXPECT_EQ(r, found[0]);
}

}  // namespace
}  // namespace tributary
