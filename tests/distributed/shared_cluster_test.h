#ifndef TRIBUTARY_TESTS_DISTRIBUTED_SHARED_CLUSTER_TEST_H_
#define TRIBUTARY_TESTS_DISTRIBUTED_SHARED_CLUSTER_TEST_H_

// A gtest fixture whose tests share one cluster (started once per suite,
// stopped after it): starting daemons costs seconds, and these tests only
// need a working cluster, not a fresh one. A suite that wants other daemon
// flags defines its own SetUpTestSuite calling StartSharedCluster(options).
// When a test fails, every daemon's log tail is printed.

#include <memory>
#include <string>
#include <utility>

#include "gtest/gtest.h"
#include "tests/distributed/cluster_fixture.h"

namespace tributary {
namespace test {

class SharedClusterTest : public ::testing::Test {
 protected:
  static void StartSharedCluster(
      const ClusterOptions& options = ClusterOptions()) {
    auto cluster = TestCluster::Start(options);
    ASSERT_TRUE(cluster.ok()) << cluster.status();
    cluster_ = std::move(cluster).value().release();
  }
  static void SetUpTestSuite() { StartSharedCluster(); }
  static void TearDownTestSuite() {
    delete cluster_;
    cluster_ = nullptr;
  }
  void SetUp() override {
    ASSERT_NE(cluster_, nullptr) << "the cluster did not start";
  }
  void TearDown() override {
    if (HasFailure() && cluster_ != nullptr) cluster_->DumpLogs();
  }
  static std::string target() { return cluster_->master_target(); }

  static inline TestCluster* cluster_ = nullptr;
};

}  // namespace test
}  // namespace tributary

#endif  // TRIBUTARY_TESTS_DISTRIBUTED_SHARED_CLUSTER_TEST_H_
