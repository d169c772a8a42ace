#include "master/device_discovery.h"

#include <memory>

#include "common/distributed/testing/fake_worker.h"
#include "common/framework/status.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tributary {
namespace {

using ::testing::HasSubstr;

DeviceFilters Filters(std::vector<std::string> f) {
  google::protobuf::RepeatedPtrField<std::string> r(f.begin(), f.end());
  absl::StatusOr<DeviceFilters> parsed = DeviceFilters::Parse(r);
  EXPECT_TRUE(parsed.ok()) << parsed.status();
  return parsed.ok() ? *parsed : DeviceFilters();
}

TEST(DeviceFiltersTest, MatchTasksAndDevices) {
  const DeviceFilters none = Filters({});
  EXPECT_TRUE(none.MatchesTask("/job:ps/replica:0/task:0"));
  EXPECT_TRUE(none.MatchesDevice("/job:ps/replica:0/task:0/device:CPU:0"));

  const DeviceFilters f = Filters({"/job:ps", "/job:worker/task:1"});
  EXPECT_TRUE(f.MatchesTask("/job:ps/replica:0/task:3"));
  EXPECT_TRUE(f.MatchesTask("/job:worker/replica:0/task:1"));
  EXPECT_FALSE(f.MatchesTask("/job:worker/replica:0/task:0"));
  EXPECT_TRUE(f.MatchesDevice("/job:worker/replica:0/task:1/device:CPU:0"));
  EXPECT_FALSE(f.MatchesDevice("/job:worker/replica:0/task:0/device:CPU:0"));

  // A device part admits the task but filters its devices.
  const DeviceFilters d = Filters({"/job:worker/task:0/device:CPU:1"});
  EXPECT_TRUE(d.MatchesTask("/job:worker/replica:0/task:0"));
  EXPECT_FALSE(d.MatchesDevice("/job:worker/replica:0/task:0/device:CPU:0"));
  EXPECT_TRUE(d.MatchesDevice("/job:worker/replica:0/task:0/device:CPU:1"));
}

TEST(DeviceFiltersTest, BadFilterIsInvalidArgument) {
  google::protobuf::RepeatedPtrField<std::string> r;
  *r.Add() = "not a device";
  absl::StatusOr<DeviceFilters> parsed = DeviceFilters::Parse(r);
  EXPECT_TRUE(absl::IsInvalidArgument(parsed.status()));
  EXPECT_THAT(std::string(parsed.status().message()),
              HasSubstr("not a device"));
}

TEST(DefaultTaskTest, PrefersWorkerZero) {
  EXPECT_EQ(DefaultTask({"/job:ps/replica:0/task:0",
                         "/job:worker/replica:0/task:0"}),
            "/job:worker/replica:0/task:0");
  EXPECT_EQ(DefaultTask({"/job:chief/replica:0/task:0",
                         "/job:ps/replica:0/task:0"}),
            "/job:chief/replica:0/task:0");
  EXPECT_EQ(DefaultTask({}), "");
}

TEST(DiscoverDevicesTest, TaskReportingAnotherTasksDevices) {
  InProcessWorkerCache cache;
  auto a = std::make_shared<FakeWorker>("/job:worker/replica:0/task:0");
  auto b = std::make_shared<FakeWorker>("/job:worker/replica:0/task:1");
  // b's address reaches a.
  b->SetReportedDevices(a->devices());
  cache.AddWorker(a->task(), a);
  cache.AddWorker(b->task(), b);
  MasterEnv env;
  env.worker_cache = &cache;
  absl::StatusOr<std::vector<TaskDevices>> found = DiscoverDevices(
      env, {a->task(), b->task()}, DeviceFilters(),
      absl::Now() + absl::Seconds(30), absl::Seconds(30));
  EXPECT_TRUE(absl::IsFailedPrecondition(found.status())) << found.status();
  EXPECT_THAT(std::string(found.status().message()),
              HasSubstr("/job:worker/replica:0/task:1"));
}

TEST(DiscoverDevicesTest, FiltersDevices) {
  InProcessWorkerCache cache;
  auto a = std::make_shared<FakeWorker>("/job:worker/replica:0/task:0", 3);
  cache.AddWorker(a->task(), a);
  MasterEnv env;
  env.worker_cache = &cache;
  absl::StatusOr<std::vector<TaskDevices>> found =
      DiscoverDevices(env, {a->task()}, Filters({"/job:worker/device:CPU:2"}),
                      absl::Now() + absl::Seconds(30), absl::Seconds(30));
  ASSERT_TRUE(found.ok()) << found.status();
  ASSERT_EQ(found->size(), 1u);
  ASSERT_EQ((*found)[0].devices.size(), 1u);
  EXPECT_EQ((*found)[0].devices[0].name(),
            "/job:worker/replica:0/task:0/device:CPU:2");
}

}  // namespace
}  // namespace tributary
