#include "common/daemon/daemon_cluster.h"

#include "absl/strings/match.h"
#include "gtest/gtest.h"

namespace tributary {
namespace {

ClusterSpec Spec() {
  absl::StatusOr<ClusterSpec> spec = ClusterSpec::FromJson(
      R"({"ps": ["ps-0.ps:2222"],
          "worker": ["worker-0.worker:2222", "worker-1.worker:2222"]})");
  EXPECT_TRUE(spec.ok()) << spec.status();
  return *spec;
}

TEST(TaskFromHostnameTest, AStatefulSetPodNameIsItsJobAndOrdinal) {
  absl::StatusOr<TaskName> task = TaskFromHostname("worker-1", Spec(), "");
  ASSERT_TRUE(task.ok()) << task.status();
  EXPECT_EQ(task->job, "worker");
  EXPECT_EQ(task->task, 1);
  task = TaskFromHostname("ps-0.ps.default.svc.cluster.local", Spec(), "");
  ASSERT_TRUE(task.ok()) << task.status();
  EXPECT_EQ(task->job, "ps");
  EXPECT_EQ(task->task, 0);
}

TEST(TaskFromHostnameTest, WithAJobOnlyTheOrdinalIsTaken) {
  absl::StatusOr<TaskName> task =
      TaskFromHostname("tributary-workers-1", Spec(), "worker");
  ASSERT_TRUE(task.ok()) << task.status();
  EXPECT_EQ(task->job, "worker");
  EXPECT_EQ(task->task, 1);
}

TEST(TaskFromHostnameTest, NamesThatSayNoTaskOfTheClusterAreRefused) {
  for (const char* host : {"worker", "worker-", "-1", "worker-x", "worker-1a",
                           "worker--1", "chief-0", "worker-2", "ps-1"}) {
    absl::StatusOr<TaskName> task = TaskFromHostname(host, Spec(), "");
    EXPECT_EQ(task.status().code(), absl::StatusCode::kInvalidArgument) << host;
    EXPECT_TRUE(absl::StrContains(task.status().message(),
                                  std::string("'") + host + "'"))
        << task.status();
  }
  EXPECT_TRUE(absl::StrContains(
      TaskFromHostname("chief-0", Spec(), "").status().message(),
      "its jobs: ps, worker"));
}

}  // namespace
}  // namespace tributary
