// A ps and a worker task served over real gRPC on 127.0.0.1: the test
// drives them through gRPC clients as the master would, and the worker
// task fetches the ps's tensors with RecvTensor over the wire (tensor
// coding, deadlines and cancellation through the service adapter).

#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/framework/status.h"
#include "common/framework/tensor.h"
#include "common/framework/tensor_testutil.h"
#include "gtest/gtest.h"
#include "worker/worker_test_util.h"

namespace tributary {
namespace {

using worker_test::BinaryOp;
using worker_test::MasterStep;
using worker_test::ParseGraph;
using worker_test::TestCluster;

const char kPs[] = "/job:ps/replica:0/task:0";
const char kWorker[] = "/job:worker/replica:0/task:0";

std::string Dev(const std::string& task) {
  return absl::StrCat(task, "/device:CPU:0");
}

StepSignature Sig(std::vector<std::string> feeds,
                  std::vector<std::string> fetches) {
  StepSignature s;
  s.feeds = std::move(feeds);
  s.fetches = std::move(fetches);
  return s;
}

// x is fed on the worker task; the ps computes y = x + x and z = y * y;
// the worker task fetches z through RecvTensor.
tensorflow::GraphDef AddGraph() {
  return ParseGraph(absl::StrCat(
      "node { name: 'x' op: 'Placeholder' device: '", Dev(kWorker),
      "' attr { key: 'dtype' value { type: DT_FLOAT } } }\n",
      BinaryOp("y", "AddV2", "x", "x", Dev(kPs)),
      BinaryOp("z", "Mul", "y", "y", Dev(kPs)),
      "node { name: 'out' op: 'Identity' input: 'z' device: '", Dev(kWorker),
      "' attr { key: 'T' value { type: DT_FLOAT } } }\n"));
}

class WorkerGrpcTest : public ::testing::Test {
 protected:
  WorkerGrpcTest()
      : cluster_({kPs, kWorker}, /*num_cpus=*/1, /*threads=*/2,
                 /*grpc=*/true) {}

  void Prepare(const tensorflow::GraphDef& graph, const StepSignature& sig,
               MasterStep* step, std::map<std::string, std::string>* handles) {
    auto s = cluster_.Partition(graph, sig, kWorker);
    ASSERT_TRUE(s.ok()) << s.status();
    *step = *std::move(s);
    auto h = cluster_.Register(*step, "");
    ASSERT_TRUE(h.ok()) << h.status();
    *handles = *std::move(h);
  }

  TestCluster cluster_;
};

TEST_F(WorkerGrpcTest, TensorsCrossTasksOverGrpc) {
  MasterStep step;
  std::map<std::string, std::string> handles;
  Prepare(AddGraph(), Sig({"x"}, {"out:0"}), &step, &handles);
  auto r = cluster_.RunStep(step, handles, "", 1,
                            {test::AsTensor<float>({1, 2, 3}, {3})});
  ASSERT_TRUE(r.status.ok()) << r.status;
  ASSERT_EQ(r.fetches.size(), 1u);
  test::ExpectTensorEqual<float>(r.fetches[0],
                                 test::AsTensor<float>({4, 16, 36}, {3}));
}

TEST_F(WorkerGrpcTest, LargeTensorsTravelBothWays) {
  MasterStep step;
  std::map<std::string, std::string> handles;
  Prepare(AddGraph(), Sig({"x"}, {"out:0"}), &step, &handles);
  // 64 MiB each way between the tasks, and in and out of the client task.
  const int64_t n = (64 << 20) / 4;
  Tensor x(DT_FLOAT, TensorShape({n}));
  auto flat = x.flat<float>();
  for (int64_t i = 0; i < n; ++i) flat(i) = static_cast<float>(i % 1000);
  auto r = cluster_.RunStep(step, handles, "", 2, {x});
  ASSERT_TRUE(r.status.ok()) << r.status;
  ASSERT_EQ(r.fetches.size(), 1u);
  ASSERT_EQ(r.fetches[0].NumElements(), n);
  auto out = r.fetches[0].flat<float>();
  for (int64_t i = 0; i < n; i += 9973) {
    const float v = 2.f * static_cast<float>(i % 1000);
    ASSERT_EQ(out(i), v * v) << i;
  }
}

TEST_F(WorkerGrpcTest, DeadlineOverGrpcEndsAWaitingStep) {
  MasterStep step;
  std::map<std::string, std::string> handles;
  Prepare(AddGraph(), Sig({"x"}, {"out:0"}), &step, &handles);
  // Only the worker task runs: its _Recv waits for the ps, which never
  // runs the step. The call's deadline ends it on both sides.
  RunGraphRequestMsg req;
  req.proto.set_graph_handle(handles[kWorker]);
  req.proto.set_step_id(3);
  req.send.emplace_back(step.feed_keys[0], test::AsTensor<float>({1}, {1}));
  req.proto.add_recv_key(step.fetch_keys[0]);
  RunGraphResponseMsg resp;
  absl::Status s =
      cluster_.client(kWorker)->RunGraph(req, &resp, absl::Milliseconds(300));
  EXPECT_TRUE(absl::IsDeadlineExceeded(s)) << s;
  const absl::Time soon = absl::Now() + absl::Seconds(30);
  EXPECT_TRUE(cluster_.worker(kWorker)->WaitUntilIdle(soon));
  EXPECT_TRUE(cluster_.worker(kPs)->WaitUntilIdle(soon));
}

TEST_F(WorkerGrpcTest, KernelErrorComesBackWithItsNode) {
  const std::string ps = Dev(kPs);
  auto graph = ParseGraph(absl::StrCat(
      "node { name: 'x' op: 'Placeholder' device: '", Dev(kWorker),
      "' attr { key: 'dtype' value { type: DT_FLOAT } } }\n",
      "node { name: 'shape' op: 'Const' device: '", ps,
      "' attr { key: 'dtype' value { type: DT_INT32 } } "
      "attr { key: 'value' value { tensor { dtype: DT_INT32 tensor_shape { "
      "dim { size: 1 } } int_val: 7 } } } }\n",
      "node { name: 'bad' op: 'Reshape' input: 'x' input: 'shape' device: '",
      ps,
      "' attr { key: 'T' value { type: DT_FLOAT } } "
      "attr { key: 'Tshape' value { type: DT_INT32 } } }\n",
      "node { name: 'out' op: 'Identity' input: 'bad' device: '", Dev(kWorker),
      "' attr { key: 'T' value { type: DT_FLOAT } } }\n"));
  MasterStep step;
  std::map<std::string, std::string> handles;
  Prepare(graph, Sig({"x"}, {"out:0"}), &step, &handles);
  auto r = cluster_.RunStep(step, handles, "", 4,
                            {test::AsTensor<float>({1, 2}, {2})});
  EXPECT_TRUE(absl::IsInvalidArgument(r.status)) << r.status;
  EXPECT_TRUE(absl::StrContains(r.status.message(), "bad")) << r.status;
  EXPECT_FALSE(r.per_task[kWorker].ok());
}

}  // namespace
}  // namespace tributary
