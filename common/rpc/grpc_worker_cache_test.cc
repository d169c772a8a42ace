#include "common/rpc/grpc_worker_cache.h"

#include "gtest/gtest.h"

namespace tributary {
namespace {

ClusterSpec TestCluster() {
  absl::StatusOr<ClusterSpec> cluster = ClusterSpec::FromJson(
      R"({"worker": ["127.0.0.1:1", "127.0.0.1:2"], "ps": ["127.0.0.1:3"]})");
  CHECK(cluster.ok()) << cluster.status();
  return *cluster;
}

TEST(GrpcWorkerCacheTest, ListsEveryTask) {
  auto cache = NewGrpcWorkerCache(TestCluster());
  EXPECT_EQ(cache->ListWorkers(),
            (std::vector<std::string>{"/job:ps/replica:0/task:0",
                                      "/job:worker/replica:0/task:0",
                                      "/job:worker/replica:0/task:1"}));
}

TEST(GrpcWorkerCacheTest, TaskAndDeviceNamesGiveTheSameWorker) {
  auto cache = NewGrpcWorkerCache(TestCluster());
  auto by_task = cache->GetWorker("/job:worker/replica:0/task:1");
  ASSERT_TRUE(by_task.ok()) << by_task.status();
  auto by_device =
      cache->GetWorker("/job:worker/replica:0/task:1/device:CPU:0");
  ASSERT_TRUE(by_device.ok()) << by_device.status();
  EXPECT_EQ(by_task->get(), by_device->get());
  auto other = cache->GetWorker("/job:worker/replica:0/task:0");
  ASSERT_TRUE(other.ok());
  EXPECT_NE(other->get(), by_task->get());
}

TEST(GrpcWorkerCacheTest, UnknownTaskIsNotFoundListingTheTasks) {
  auto cache = NewGrpcWorkerCache(TestCluster());
  for (const char* name :
       {"/job:worker/replica:0/task:2", "/job:chief/replica:0/task:0",
        "/job:ps/replica:1/task:0"}) {
    auto worker = cache->GetWorker(name);
    ASSERT_FALSE(worker.ok()) << name;
    EXPECT_EQ(worker.status().code(), absl::StatusCode::kNotFound);
    EXPECT_NE(worker.status().message().find("/job:ps/replica:0/task:0"),
              std::string::npos)
        << worker.status();
  }
  EXPECT_EQ(cache->GetWorker("worker").status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(GrpcWorkerCacheTest, UnreachableTaskIsUnavailableNamingIt) {
  // Nothing listens on port 1.
  auto cache = NewGrpcWorkerCache(TestCluster());
  auto worker = cache->GetWorker("/job:worker/replica:0/task:0");
  ASSERT_TRUE(worker.ok());
  tensorflow::CleanupAllRequest request;
  tensorflow::CleanupAllResponse response;
  absl::Status s =
      (*worker)->CleanupAll(request, &response, absl::Seconds(30));
  EXPECT_EQ(s.code(), absl::StatusCode::kUnavailable) << s;
  EXPECT_NE(s.message().find("(worker /job:worker/replica:0/task:0 at "
                             "127.0.0.1:1)"),
            std::string::npos)
      << s;
}

}  // namespace
}  // namespace tributary
