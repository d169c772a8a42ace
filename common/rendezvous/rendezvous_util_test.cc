#include "common/rendezvous/rendezvous_util.h"

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

std::string Key(const std::string& name) {
  return CreateRendezvousKey("/job:localhost/replica:0/task:0/device:CPU:0", 1,
                             "/job:localhost/replica:0/task:0/device:CPU:0",
                             name, FrameAndIter(0, 0));
}

TEST(RendezvousUtilTest, FeedsAndFetchesRoundTrip) {
  LocalRendezvous rendezvous;
  const std::vector<std::string> keys = {Key("a"), Key("b")};
  const std::vector<Tensor> tensors = {test::AsScalar<float>(1),
                                       test::AsTensor<int32_t>({2, 3})};
  ASSERT_TRUE(SendTensorsToRendezvous(&rendezvous, keys, tensors).ok());
  std::vector<Tensor> received;
  ASSERT_TRUE(
      RecvOutputsFromRendezvous(&rendezvous, keys, &received, 1000).ok());
  ASSERT_EQ(received.size(), 2u);
  test::ExpectTensorEqual<float>(received[0], tensors[0]);
  test::ExpectTensorEqual<int32_t>(received[1], tensors[1]);
}

TEST(RendezvousUtilTest, AsyncWaitsForEveryValue) {
  LocalRendezvous rendezvous;
  const std::vector<std::string> keys = {Key("a"), Key("b"), Key("c")};
  std::vector<Tensor> received;
  absl::Notification done;
  absl::Status status;
  RecvOutputsFromRendezvousAsync(&rendezvous, keys, &received,
                                 [&](const absl::Status& s) {
                                   status = s;
                                   done.Notify();
                                 });
  for (int i = 0; i < 3; ++i) {
    EXPECT_FALSE(done.HasBeenNotified());
    ASSERT_TRUE(SendTensorsToRendezvous(&rendezvous, {keys[i]},
                                        {test::AsScalar<float>(i)})
                    .ok());
  }
  ASSERT_TRUE(done.HasBeenNotified());
  ASSERT_TRUE(status.ok()) << status;
  test::ExpectTensorEqual<float>(received[2], test::AsScalar<float>(2));
}

TEST(RendezvousUtilTest, AsyncReportsTheFirstErrorOnce) {
  LocalRendezvous rendezvous;
  std::vector<Tensor> received;
  int calls = 0;
  absl::Status status;
  RecvOutputsFromRendezvousAsync(&rendezvous, {Key("a"), Key("b")}, &received,
                                 [&](const absl::Status& s) {
                                   status = s;
                                   ++calls;
                                 });
  rendezvous.StartAbort(errors::Cancelled("stop"));
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(status.code(), absl::StatusCode::kCancelled);

  // Empty key list: done at once.
  calls = 0;
  RecvOutputsFromRendezvousAsync(&rendezvous, {}, &received,
                                 [&](const absl::Status& s) {
                                   EXPECT_TRUE(s.ok());
                                   ++calls;
                                 });
  EXPECT_EQ(calls, 1);
}

TEST(RendezvousUtilTest, DeadFetchIsInvalidArgument) {
  LocalRendezvous rendezvous;
  RendezvousParsedKey parsed = *ParseRendezvousKey(Key("dead"));
  ASSERT_TRUE(rendezvous.Send(parsed, {}, Tensor(), /*is_dead=*/true).ok());
  std::vector<Tensor> received;
  absl::Status s =
      RecvOutputsFromRendezvous(&rendezvous, {Key("dead")}, &received, 1000);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("was not valid"), std::string::npos) << s;
}

TEST(RendezvousUtilTest, BadInputs) {
  LocalRendezvous rendezvous;
  EXPECT_EQ(SendTensorsToRendezvous(&rendezvous, {Key("a")}, {}).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(SendTensorsToRendezvous(&rendezvous, {"bad key"},
                                    {test::AsScalar<float>(1)})
                .code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(SendTensorsToRendezvous(nullptr, {}, {}).code(),
            absl::StatusCode::kInvalidArgument);
  std::vector<Tensor> received;
  absl::Status status;
  RecvOutputsFromRendezvousAsync(&rendezvous, {Key("a"), "bad key"}, &received,
                                 [&](const absl::Status& s) { status = s; });
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  // Nothing was left waiting for "a".
  EXPECT_EQ(rendezvous.NumPendingForTest(), 0);
  EXPECT_EQ(RecvOutputsFromRendezvous(&rendezvous, {Key("x")}, &received, 10)
                .code(),
            absl::StatusCode::kDeadlineExceeded);
}

}  // namespace
}  // namespace tributary
