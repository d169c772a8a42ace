#include "master/task_liveness.h"

#include "gtest/gtest.h"

namespace tributary {
namespace {

const absl::Time kStart = absl::FromUnixSeconds(1000);
const char kTask[] = "/job:worker/replica:0/task:1";

TEST(TaskLivenessTest, ANewTaskMayBeStartingOnlyDuringTheStartupWindow) {
  TaskLiveness liveness(kStart, absl::Seconds(30));
  EXPECT_TRUE(liveness.MayBeStarting(kTask, kStart));
  EXPECT_TRUE(liveness.MayBeStarting(kTask, kStart + absl::Seconds(29)));
  EXPECT_FALSE(liveness.MayBeStarting(kTask, kStart + absl::Seconds(30)));
  EXPECT_FALSE(liveness.Answered(kTask));
}

TEST(TaskLivenessTest, ATaskThatAnsweredIsDownWhenItStopsAnswering) {
  TaskLiveness liveness(kStart, absl::Seconds(30));
  liveness.MarkAnswered(kTask);
  EXPECT_TRUE(liveness.Answered(kTask));
  EXPECT_FALSE(liveness.MayBeStarting(kTask, kStart + absl::Seconds(1)));
  // Other tasks are not affected.
  EXPECT_TRUE(liveness.MayBeStarting("/job:ps/replica:0/task:0",
                                     kStart + absl::Seconds(1)));
}

}  // namespace
}  // namespace tributary
