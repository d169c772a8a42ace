// A ps and a worker task, each a WorkerServer on 127.0.0.1: the real
// master code (in_process_cluster.h) drives them through gRPC clients, and
// the worker task fetches the ps's tensors with RecvTensor over the wire
// (tensor coding, deadlines and cancellation through the service adapter).
// Moved from worker/worker_grpc_test.cc, whose helper carried its own copy
// of the master.

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/framework/status.h"
#include "common/framework/tensor.h"
#include "common/framework/tensor_testutil.h"
#include "gtest/gtest.h"
#include "common/cluster/cluster_spec.h"
#include "common/framework/derived_status.h"
#include "common/rpc/grpc_worker_cache.h"
#include "master/master.h"
#include "tests/distributed/in_process_cluster.h"
#include "tests/distributed/two_task_model.h"
#include "worker/worker_server.h"
#include "worker/worker_test_util.h"

namespace tributary {
namespace distributed_test {
namespace {

using worker_test::BinaryOp;
using worker_test::ParseGraph;
using Graph = std::shared_ptr<const RegisteredGraph>;

const char kPs[] = "/job:ps/replica:0/task:0";
const char kWorker[] = "/job:worker/replica:0/task:0";

std::string Dev(const std::string& task) {
  return distributed_test::Dev(task, 0);
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

class InProcessGrpcTest : public ::testing::Test {
 protected:
  InProcessGrpcTest()
      : cluster_({kPs, kWorker}, /*num_cpus=*/1, /*threads=*/2,
                 /*grpc=*/true) {}

  void Prepare(const tensorflow::GraphDef& graph, const StepSignature& sig,
               Graph* step) {
    auto s = cluster_.Register(graph, sig, kWorker, "");
    ASSERT_TRUE(s.ok()) << s.status();
    *step = *std::move(s);
  }

  InProcessCluster cluster_;
};

TEST_F(InProcessGrpcTest, TensorsCrossTasksOverGrpc) {
  Graph step;
  Prepare(AddGraph(), Sig({"x"}, {"out:0"}), &step);
  auto r = cluster_.RunStep(*step, "", 1,
                            {test::AsTensor<float>({1, 2, 3}, {3})});
  ASSERT_TRUE(r.status.ok()) << r.status;
  ASSERT_EQ(r.fetches.size(), 1u);
  test::ExpectTensorEqual<float>(r.fetches[0],
                                 test::AsTensor<float>({4, 16, 36}, {3}));
}

TEST_F(InProcessGrpcTest, LargeTensorsTravelBothWays) {
  Graph step;
  Prepare(AddGraph(), Sig({"x"}, {"out:0"}), &step);
  // 64 MiB each way between the tasks, and in and out of the client task.
  const int64_t n = (64 << 20) / 4;
  Tensor x(DT_FLOAT, TensorShape({n}));
  auto flat = x.flat<float>();
  for (int64_t i = 0; i < n; ++i) flat(i) = static_cast<float>(i % 1000);
  auto r = cluster_.RunStep(*step, "", 2, {x});
  ASSERT_TRUE(r.status.ok()) << r.status;
  ASSERT_EQ(r.fetches.size(), 1u);
  ASSERT_EQ(r.fetches[0].NumElements(), n);
  auto out = r.fetches[0].flat<float>();
  for (int64_t i = 0; i < n; i += 9973) {
    const float v = 2.f * static_cast<float>(i % 1000);
    ASSERT_EQ(out(i), v * v) << i;
  }
}

TEST_F(InProcessGrpcTest, DeadlineOverGrpcEndsAWaitingStep) {
  Graph step;
  Prepare(AddGraph(), Sig({"x"}, {"out:0"}), &step);
  // Only the worker task runs: its _Recv waits for the ps, which never
  // runs the step. The call's deadline ends it on both sides.
  RunGraphRequestMsg req;
  req.proto.set_graph_handle(InProcessCluster::Handle(*step, kWorker));
  req.proto.set_step_id(3);
  req.send.emplace_back(step->feed_keys()[0], test::AsTensor<float>({1}, {1}));
  req.proto.add_recv_key(step->fetch_keys()[0]);
  RunGraphResponseMsg resp;
  absl::Status s =
      cluster_.client(kWorker)->RunGraph(req, &resp, absl::Milliseconds(300));
  EXPECT_TRUE(absl::IsDeadlineExceeded(s)) << s;
  const absl::Time soon = absl::Now() + absl::Seconds(30);
  EXPECT_TRUE(cluster_.worker(kWorker)->WaitUntilIdle(soon));
  EXPECT_TRUE(cluster_.worker(kPs)->WaitUntilIdle(soon));
}

TEST_F(InProcessGrpcTest, KernelErrorComesBackWithItsNode) {
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
  Graph step;
  Prepare(graph, Sig({"x"}, {"out:0"}), &step);
  auto r = cluster_.RunStep(*step, "", 4,
                            {test::AsTensor<float>({1, 2}, {2})});
  EXPECT_TRUE(absl::IsInvalidArgument(r.status)) << r.status;
  EXPECT_TRUE(absl::StrContains(r.status.message(), "bad")) << r.status;
  EXPECT_FALSE(r.per_task[kWorker].ok());
}


// A master's own view of the cluster (CreateWorkerSession's
// server_def.cluster) is what its session's RecvTensor calls use: here the
// worker task's own view (its WorkerServer's cluster spec) sends them to a
// dead address, the master's to the ps. Two real Masters drive the same
// WorkerServers: one announces its view, one announces none.
TEST(WorkerSessionClusterTest, TheMastersClusterViewReachesThePeers) {
  auto serve = [](const ClusterSpec& own_view, const std::string& job) {
    WorkerServerOptions options;
    options.job = job;
    options.task = 0;
    options.listen_address = "127.0.0.1:0";
    options.cpu_devices = 2;
    options.inter_op_threads = 2;
    auto server = WorkerServer::Create(own_view, options);
    EXPECT_TRUE(server.ok()) << server.status();
    EXPECT_TRUE((*server)->Start().ok());
    return *std::move(server);
  };
  // The worker task first: its own view has the ps at a dead address.
  auto stale = ClusterSpec::FromJson(
      R"({"ps": ["127.0.0.1:1"], "worker": ["127.0.0.1:1"]})");
  ASSERT_TRUE(stale.ok()) << stale.status();
  std::unique_ptr<WorkerServer> worker = serve(*stale, "worker");
  const std::string worker_address = worker->bound_address();
  // The ps's own view reaches the worker task.
  auto ps_view = ClusterSpec::FromJson(absl::StrCat(
      "{\"ps\": [\"127.0.0.1:1\"], \"worker\": [\"", worker_address,
      "\"]}"));
  ASSERT_TRUE(ps_view.ok()) << ps_view.status();
  std::unique_ptr<WorkerServer> ps = serve(*ps_view, "ps");
  const std::string ps_address = ps->bound_address();
  auto masters_view = ClusterSpec::FromJson(absl::StrCat(
      "{\"ps\": [\"", ps_address, "\"], \"worker\": [\"", worker_address,
      "\"]}"));
  ASSERT_TRUE(masters_view.ok()) << masters_view.status();
  std::unique_ptr<WorkerCacheInterface> to_workers =
      NewGrpcWorkerCache(*masters_view);

  const Tensor x = test::AsTensor<float>({1, 2, 3, 4, 5, 6}, {3, 2});
  // A session of a master that announces `announced` (empty: no view),
  // and one step fetching y.
  auto run = [&](const ClusterSpec& announced,
                 std::vector<Tensor>* outputs) -> absl::Status {
    MasterOptions options;
    options.worker_cache = to_workers.get();
    options.cluster = announced;
    Master master(options);
    tensorflow::CreateSessionRequest create;
    *create.mutable_graph_def() = Model(kPs, kWorker);
    tensorflow::CreateSessionResponse created;
    TRIB_RETURN_IF_ERROR(master.CreateSession(nullptr, create, &created));
    RunStepRequestMsg req;
    req.proto.set_session_handle(created.session_handle());
    req.proto.mutable_options()->set_timeout_in_ms(20000);
    req.feed.emplace_back("x", x);
    req.proto.add_fetch("y");
    RunStepResponseMsg resp;
    TRIB_RETURN_IF_ERROR(master.RunStep(nullptr, req, &resp));
    for (auto& [name, t] : resp.tensor) outputs->push_back(t);
    return absl::OkStatus();
  };
  std::vector<Tensor> with_view;
  absl::Status s = run(*masters_view, &with_view);
  ASSERT_TRUE(s.ok()) << s;
  ASSERT_EQ(with_view.size(), 1u);
  test::ExpectTensorEqual<float>(
      with_view[0], test::AsTensor<float>({1, 13.5, 4, 29.5, 12, 45.5}, {3, 2}));
  // Without a view the worker task's own sends its RecvTensor to the dead
  // address: that failure is the step's root cause.
  std::vector<Tensor> without_view;
  s = run(ClusterSpec(), &without_view);
  EXPECT_FALSE(s.ok());
  EXPECT_TRUE(absl::StrContains(s.message(), "127.0.0.1:1")) << s;

  // A cluster the worker cannot use is refused with the reason.
  tensorflow::ClusterDef bad;
  bad.add_job()->set_name("");
  tensorflow::CreateWorkerSessionRequest req;
  req.set_session_handle("bad-view");
  *req.mutable_server_def()->mutable_cluster() = bad;
  tensorflow::CreateWorkerSessionResponse resp;
  auto client = to_workers->GetWorker(kWorker);
  ASSERT_TRUE(client.ok()) << client.status();
  s = (*client)->CreateWorkerSession(req, &resp, absl::Seconds(10));
  EXPECT_TRUE(absl::IsInvalidArgument(s)) << s;
  EXPECT_TRUE(absl::StrContains(s.message(), "server_def.cluster")) << s;
}

}  // namespace
}  // namespace distributed_test
}  // namespace tributary
