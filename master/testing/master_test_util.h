#ifndef TRIBUTARY_MASTER_TESTING_MASTER_TEST_UTIL_H_
#define TRIBUTARY_MASTER_TESTING_MASTER_TEST_UTIL_H_

// A Master over a cluster of FakeWorkers (one ps task, two worker tasks,
// with addresses, as a cluster spec file would give), and the graphs the
// master's tests run.

#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/cluster/cluster_spec.h"
#include "common/distributed/testing/fake_worker.h"
#include "common/distributed/worker_cache.h"
#include "gtest/gtest.h"
#include "master/master.h"
#include "protos/graph.pb.h"

namespace tributary {
namespace test {

inline constexpr char kPs[] = "/job:ps/replica:0/task:0";
inline constexpr char kWorker0[] = "/job:worker/replica:0/task:0";
inline constexpr char kWorker1[] = "/job:worker/replica:0/task:1";
inline constexpr char kClusterJson[] =
    R"({"ps": ["127.0.0.1:2001"], "worker": ["127.0.0.1:2002", "127.0.0.1:2003"]})";

// Parses a text-format GraphDef (CHECK-fails on bad text: a test bug).
tensorflow::GraphDef ParseGraph(const std::string& text);

// x (Placeholder float) on the default task, v (VariableV2 float[2]) on
// /job:ps, y = Add(x, v) on /job:worker/task:1, z = Identity(y) unplaced.
tensorflow::GraphDef PsWorkerGraph();

class MasterTest : public ::testing::Test {
 protected:
  void SetUp() override;
  void TearDown() override;

  // Replace before SetUp's master is used, through RestartMaster.
  MasterOptions DefaultOptions();
  void RestartMaster(MasterOptions options);

  absl::StatusOr<std::string> CreateSession(
      const tensorflow::GraphDef& graph,
      const tensorflow::ConfigProto& config = {});
  // RunStep; fills `outputs` (in fetch order) on success.
  absl::Status Run(const std::string& handle, const NamedTensors& feeds,
                   const std::vector<std::string>& fetches,
                   const std::vector<std::string>& targets,
                   std::vector<Tensor>* outputs,
                   const tensorflow::RunOptions& options = {},
                   tensorflow::RunMetadata* metadata = nullptr,
                   CallOptions* call = nullptr);
  // Waits (bounded) for the master's fire-and-forget calls.
  void WaitForBackgroundCalls();
  std::vector<std::shared_ptr<FakeWorker>> all_workers() const {
    return {ps_, w0_, w1_};
  }

  ClusterSpec cluster_;
  InProcessWorkerCache cache_;
  std::shared_ptr<FakeWorker> ps_, w0_, w1_;
  std::unique_ptr<Master> master_;
};

}  // namespace test
}  // namespace tributary

#endif  // TRIBUTARY_MASTER_TESTING_MASTER_TEST_UTIL_H_
