#include "common/cluster/cluster_spec.h"

#include <cstdlib>
#include <fstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tributary {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

ClusterSpec Spec(const std::string& json) {
  auto spec = ClusterSpec::FromJson(json);
  EXPECT_TRUE(spec.ok()) << spec.status();
  return spec.value_or(ClusterSpec());
}

TEST(ClusterSpecTest, Lookups) {
  const ClusterSpec spec =
      Spec(R"({"worker": {"0": "w0:1", "5": "w5:1"}, "ps": ["p0:1", "p1:1"]})");
  EXPECT_THAT(spec.jobs(), ElementsAre("ps", "worker"));
  EXPECT_TRUE(spec.HasJob("ps"));
  EXPECT_FALSE(spec.HasJob("chief"));
  EXPECT_EQ(spec.num_tasks("ps"), 2);
  EXPECT_EQ(spec.num_tasks("worker"), 2);
  EXPECT_EQ(spec.num_tasks("chief"), 0);
  EXPECT_THAT(spec.task_indices("worker"), ElementsAre(0, 5));
  EXPECT_THAT(spec.task_indices("chief"), IsEmpty());
  auto address = spec.TaskAddress("worker", 5);
  ASSERT_TRUE(address.ok());
  EXPECT_EQ(*address, "w5:1");
  EXPECT_EQ(spec.TaskAddress("ps", 1).value(), "p1:1");
}

TEST(ClusterSpecTest, TaskAddressNotFound) {
  const ClusterSpec spec =
      Spec(R"({"worker": ["w0:1", "w1:1"], "ps": ["p:1"]})");
  auto no_job = spec.TaskAddress("chief", 0);
  EXPECT_EQ(no_job.status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(no_job.status().message(),
            "Job 'chief' is not in the cluster (jobs: ps, worker)");
  auto no_task = spec.TaskAddress("worker", 2);
  EXPECT_EQ(no_task.status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(no_task.status().message(),
            "Task 2 of job 'worker' is not in the cluster (tasks: 0, 1)");
  EXPECT_EQ(spec.TaskAddress("worker", -1).status().code(),
            absl::StatusCode::kNotFound);
}

TEST(ClusterSpecTest, TaskNames) {
  const ClusterSpec spec =
      Spec(R"({"worker": {"2": "w:1"}, "ps": ["p:1", "p:2"]})");
  EXPECT_THAT(spec.TaskNames(), ElementsAre("/job:ps/replica:0/task:0",
                                            "/job:ps/replica:0/task:1",
                                            "/job:worker/replica:0/task:2"));
}

TEST(ClusterSpecTest, ToJsonAndRoundTrip) {
  const ClusterSpec spec =
      Spec(R"({"worker": {"2": "w:1"}, "ps": ["p:1", "p:2"]})");
  EXPECT_EQ(spec.ToJson(), R"({"ps":["p:1","p:2"],"worker":{"2":"w:1"}})");
  EXPECT_EQ(spec.ToJson(2),
            "{\n  \"ps\": [\n    \"p:1\",\n    \"p:2\"\n  ],\n  \"worker\": {\n"
            "    \"2\": \"w:1\"\n  }\n}");
  EXPECT_EQ(Spec(spec.ToJson()), spec);
  EXPECT_EQ(ClusterSpec().ToJson(), "{}");
}

TEST(ClusterSpecTest, ClusterDefRoundTrip) {
  const ClusterSpec spec = Spec(R"({"worker": ["w:1"], "ps": ["p:1"]})");
  tensorflow::ClusterDef def = spec.AsClusterDef();
  ASSERT_EQ(def.job_size(), 2);
  EXPECT_EQ(def.job(0).name(), "ps");
  auto again = ClusterSpec::FromClusterDef(def);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, spec);
  EXPECT_NE(*again, Spec(R"({"worker": ["w:2"], "ps": ["p:1"]})"));
}

TEST(ClusterSpecTest, FromClusterDefValidates) {
  tensorflow::ClusterDef def;
  tensorflow::JobDef* job = def.add_job();
  job->set_name("worker");
  (*job->mutable_tasks())[0] = "not an address";
  auto spec = ClusterSpec::FromClusterDef(def);
  EXPECT_EQ(spec.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(spec.status().message(), HasSubstr("job 'worker' task 0"));
}

TEST(ClusterSpecTest, FromJsonErrors) {
  auto spec = ClusterSpec::FromJson(R"({"worker": ["w:1", "w"]})");
  EXPECT_EQ(spec.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(spec.status().message(), HasSubstr("worker[1]"));
}

TEST(ClusterSpecTest, HeaderExposesParsers) {
  // cluster_spec.h is the one include for cluster handling.
  EXPECT_TRUE(ParseClusterSpecJson(R"({"w": ["h:1"]})").ok());
  EXPECT_TRUE(ClusterSpecFromTfConfig(R"({"cluster": {"w": ["h:1"]}})").ok());
}

TEST(ClusterSpecTest, FromJsonFile) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  const std::string path =
      std::string(tmp != nullptr ? tmp : "/tmp") + "/cluster_spec_test.json";
  {
    std::ofstream out(path);
    out << R"({"ps": ["h:1"], "worker": ["h:2", "h:3"]})";
  }
  absl::StatusOr<ClusterSpec> spec = ClusterSpec::FromJsonFile(path);
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->num_tasks("worker"), 2);

  absl::StatusOr<ClusterSpec> missing =
      ClusterSpec::FromJsonFile(path + ".missing");
  EXPECT_TRUE(absl::IsNotFound(missing.status())) << missing.status();
  EXPECT_THAT(std::string(missing.status().message()),
              ::testing::HasSubstr("cluster_spec_test.json.missing"));
}

}  // namespace
}  // namespace tributary
