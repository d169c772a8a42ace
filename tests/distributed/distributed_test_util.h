#ifndef TRIBUTARY_TESTS_DISTRIBUTED_DISTRIBUTED_TEST_UTIL_H_
#define TRIBUTARY_TESTS_DISTRIBUTED_DISTRIBUTED_TEST_UTIL_H_

// Helpers shared by the distributed tests: sessions with a safety deadline,
// the local session as the reference, tensor comparison, blocking nodes.

#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/framework/tensor.h"
#include "common/runtime/session/session.h"
#include "protos/config.pb.h"
#include "protos/graph.pb.h"
#include "tools/client/graph_builder.h"

namespace tributary {
namespace test {

// Device names of the standard test cluster (1 ps + 2 workers).
inline constexpr char kPs[] = "/job:ps/replica:0/task:0";
inline constexpr char kWorker0[] = "/job:worker/replica:0/task:0";
inline constexpr char kWorker1[] = "/job:worker/replica:0/task:1";
inline std::string Cpu(const std::string& task, int index = 0) {
  return task + "/device:CPU:" + std::to_string(index);
}

// Every test step is bounded, so a hang fails the test (as DeadlineExceeded)
// instead of stalling it until Bazel's timeout.
inline constexpr int kSafetyTimeoutMs = 60000;

tensorflow::ConfigProto DefaultConfig();
tensorflow::RunOptions DefaultRunOptions(int timeout_ms = kSafetyTimeoutMs);

// NewSession(target, config) + Create(graph).
absl::StatusOr<std::unique_ptr<Session>> OpenSession(
    const std::string& target, const tensorflow::GraphDef& graph,
    const tensorflow::ConfigProto& config = DefaultConfig());

// The graph with every node's device cleared: what the local session runs
// as the reference.
tensorflow::GraphDef StripDevices(tensorflow::GraphDef graph);

// One step with DefaultRunOptions().
absl::Status RunStep(Session* session, const NamedTensorList& feeds,
                     const std::vector<std::string>& fetches,
                     const std::vector<std::string>& targets,
                     std::vector<Tensor>* outputs,
                     int timeout_ms = kSafetyTimeoutMs);

// Same dtype and shape; floating-point values within rtol/atol, others
// exactly (strings included).
void ExpectSameTensor(const Tensor& got, const Tensor& want,
                      const std::string& what, double rtol = 1e-5,
                      double atol = 1e-6);

// Runs `steps` (each: feeds, fetches, targets) in a session on `target` and
// in a local session on StripDevices(graph), and expects the same fetches
// (or the same error code) step by step.
struct Step {
  NamedTensorList feeds;
  std::vector<std::string> fetches;
  std::vector<std::string> targets;
};
void ExpectSameAsLocal(const std::string& target,
                       const tensorflow::GraphDef& graph,
                       const std::vector<Step>& steps, double rtol = 1e-5,
                       double atol = 1e-6);

// Adds "out" = x * 3 across every task: placeholder "x" (a float scalar) on
// worker 0, the product "y" on worker 1, "out" on ps 0.
void AddTimesThreeAcrossTasks(GraphBuilder* b);

// A _Recv node on `device` waiting for a tensor that no one ever sends:
// it blocks its step until the step is cancelled (timeout, failure, close).
Output NeverArrivingRecv(GraphBuilder* b, const std::string& device,
                         const std::string& name);

}  // namespace test
}  // namespace tributary

#endif  // TRIBUTARY_TESTS_DISTRIBUTED_DISTRIBUTED_TEST_UTIL_H_
