// Two workers (a ps and a worker task) in one process, talking through an
// InProcessWorkerCache, running partitions cut the way the master cuts
// them: cross-task values, variables on the ps, session isolation, errors,
// deadlines, cancellation, partial runs and step stats.

#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "common/cluster/cluster_spec.h"
#include "common/framework/derived_status.h"
#include "common/framework/status.h"
#include "common/framework/tensor.h"
#include "common/framework/tensor_testutil.h"
#include "common/rendezvous/rendezvous_key.h"
#include "common/rpc/grpc_worker_cache.h"
#include "common/runtime/session/local_session.h"
#include "gtest/gtest.h"
#include "worker/worker_test_util.h"

namespace tributary {
namespace {

using worker_test::BinaryOp;
using worker_test::MasterStep;
using worker_test::ParseGraph;
using worker_test::ScalarConst;
using worker_test::TestCluster;
using worker_test::TestTask;

// A bound for waits that end at once unless something hangs.
absl::Time Soon() { return absl::Now() + absl::Seconds(30); }

const char kPs[] = "/job:ps/replica:0/task:0";
const char kWorker[] = "/job:worker/replica:0/task:0";

std::string Dev(const std::string& task, int cpu) {
  return task.empty() ? "" : absl::StrCat(task, "/device:CPU:", cpu);
}

// y = relu(x @ w^T + b) + x, s = sum(y), with nodes spread over both tasks
// (and both CPUs of each) so most edges cross tasks or devices. With empty
// task names every node is unplaced (the local session's reference run).
tensorflow::GraphDef Model(const std::string& ps, const std::string& wk) {
  std::string text = absl::StrCat(
      "node { name: 'x' op: 'Placeholder' device: '", Dev(wk, 1),
      "' attr { key: 'dtype' value { type: DT_FLOAT } } }\n",
      "node { name: 'w' op: 'Const' device: '", Dev(ps, 0),
      "' attr { key: 'dtype' value { type: DT_FLOAT } } "
      "attr { key: 'value' value { tensor { dtype: DT_FLOAT tensor_shape { "
      "dim { size: 2 } dim { size: 2 } } float_val: 1 float_val: 2 "
      "float_val: 3 float_val: 4 } } } }\n",
      "node { name: 'b' op: 'Const' device: '", Dev(ps, 1),
      "' attr { key: 'dtype' value { type: DT_FLOAT } } "
      "attr { key: 'value' value { tensor { dtype: DT_FLOAT tensor_shape { "
      "dim { size: 2 } } float_val: -10 float_val: 0.5 } } } }\n",
      "node { name: 'mm' op: 'MatMul' input: 'x' input: 'w' device: '",
      Dev(ps, 0),
      "' attr { key: 'T' value { type: DT_FLOAT } } "
      "attr { key: 'transpose_b' value { b: true } } }\n",
      BinaryOp("bias", "BiasAdd", "mm", "b", Dev(wk, 0)),
      "node { name: 'relu' op: 'Relu' input: 'bias' device: '", Dev(ps, 1),
      "' attr { key: 'T' value { type: DT_FLOAT } } }\n",
      BinaryOp("y", "AddV2", "relu", "x", Dev(wk, 1)),
      "node { name: 'axes' op: 'Const' device: '", Dev(ps, 0),
      "' attr { key: 'dtype' value { type: DT_INT32 } } "
      "attr { key: 'value' value { tensor { dtype: DT_INT32 "
      "tensor_shape { dim { size: 2 } } int_val: 0 int_val: 1 } } } }\n",
      "node { name: 's' op: 'Sum' input: 'y' input: 'axes' device: '",
      Dev(ps, 1),
      "' attr { key: 'T' value { type: DT_FLOAT } } "
      "attr { key: 'Tidx' value { type: DT_INT32 } } }\n");
  return ParseGraph(text);
}

// A scalar variable on the ps: init (v = 10), inc (v += 1, returns v), and a
// read on the worker task (read = v * 2).
tensorflow::GraphDef VariableGraph() {
  const std::string ps = Dev(kPs, 0);
  const std::string wk = Dev(kWorker, 0);
  return ParseGraph(absl::StrCat(
      "node { name: 'v' op: 'VariableV2' device: '", ps,
      "' attr { key: 'dtype' value { type: DT_FLOAT } } "
      "attr { key: 'shape' value { shape { } } } }\n",
      ScalarConst("ten", ps, 10),
      "node { name: 'init' op: 'Assign' input: 'v' input: 'ten' device: '", ps,
      "' attr { key: 'T' value { type: DT_FLOAT } } }\n",
      ScalarConst("one", wk, 1),
      "node { name: 'inc' op: 'AssignAdd' input: 'v' input: 'one' device: '",
      ps, "' attr { key: 'T' value { type: DT_FLOAT } } }\n",
      ScalarConst("two", wk, 2), BinaryOp("read", "Mul", "v", "two", wk)));
}

StepSignature Sig(std::vector<std::string> feeds,
                  std::vector<std::string> fetches,
                  std::vector<std::string> targets = {}) {
  StepSignature s;
  s.feeds = std::move(feeds);
  s.fetches = std::move(fetches);
  s.targets = std::move(targets);
  return s;
}

absl::Status CreateSession(Worker* w, const std::string& handle, bool isolate) {
  tensorflow::CreateWorkerSessionRequest req;
  req.set_session_handle(handle);
  req.set_isolate_session_state(isolate);
  tensorflow::CreateWorkerSessionResponse resp;
  return w->CreateWorkerSession(req, &resp, absl::Seconds(10));
}

class WorkerClusterTest : public ::testing::Test {
 protected:
  WorkerClusterTest() : cluster_({kPs, kWorker}, /*num_cpus=*/2) {}

  // Partitions and registers `graph` for `sig` in `session` on every task.
  void Prepare(const tensorflow::GraphDef& graph, const StepSignature& sig,
               const std::string& session, MasterStep* step,
               std::map<std::string, std::string>* handles) {
    absl::StatusOr<MasterStep> s = cluster_.Partition(graph, sig, kWorker);
    ASSERT_TRUE(s.ok()) << s.status();
    *step = *std::move(s);
    auto h = cluster_.Register(*step, session);
    ASSERT_TRUE(h.ok()) << h.status();
    *handles = *std::move(h);
  }

  TestCluster cluster_;
  int64_t next_step_id_ = 1000;
};

TEST_F(WorkerClusterTest, CrossTaskValuesEqualTheLocalSession) {
  const Tensor x = test::AsTensor<float>({1, 2, 3, 4, 5, 6}, {3, 2});
  // Reference: the local session, everything in one process.
  tensorflow::ConfigProto config;
  auto local = LocalSession::New(config);
  ASSERT_TRUE(local.ok()) << local.status();
  ASSERT_TRUE((*local)->Create(Model("", "")).ok());
  std::vector<Tensor> expected;
  ASSERT_TRUE(
      (*local)->Run({{"x", x}}, {"y", "s", "mm:0"}, {}, &expected).ok());

  MasterStep step;
  std::map<std::string, std::string> handles;
  Prepare(Model(kPs, kWorker), Sig({"x"}, {"y", "s", "mm:0"}), "", &step,
          &handles);
  ASSERT_EQ(step.partitions.size(), 2u);
  for (int i = 0; i < 3; ++i) {
    auto result = cluster_.RunStep(step, handles, "", next_step_id_++, {x});
    ASSERT_TRUE(result.status.ok()) << result.status;
    ASSERT_EQ(result.fetches.size(), 3u);
    for (int j = 0; j < 3; ++j) {
      test::ExpectTensorEqual<float>(result.fetches[j], expected[j]);
    }
  }
  test::ExpectTensorEqual<float>(
      expected[0], test::AsTensor<float>({1, 13.5, 4, 29.5, 12, 45.5}, {3, 2}));
  // Nothing of the steps is left behind.
  EXPECT_EQ(cluster_.worker(kPs)->rendezvous_mgr()->NumSteps(), 0);
  EXPECT_EQ(cluster_.worker(kWorker)->rendezvous_mgr()->NumSteps(), 0);
}

TEST_F(WorkerClusterTest, OnlyTasksOthersFetchFromKeepAFinishedStep) {
  // The ps sends values to the worker task; the worker task sends only to
  // the client (recv_key). After the step, only the ps must keep the step's
  // rendezvous for a late RecvTensor, until CleanupGraph.
  auto graph = ParseGraph(absl::StrCat(
      "node { name: 'x' op: 'Placeholder' device: '", Dev(kWorker, 0),
      "' attr { key: 'dtype' value { type: DT_FLOAT } } }\n",
      ScalarConst("c", Dev(kPs, 0), 2.f),
      BinaryOp("y", "AddV2", "c", "x", Dev(kWorker, 0))));
  MasterStep step;
  std::map<std::string, std::string> handles;
  Prepare(graph, Sig({"x"}, {"y"}), "", &step, &handles);
  const int64_t step_id = next_step_id_++;
  auto result = cluster_.RunStep(step, handles, "", step_id,
                                 {test::AsTensor<float>({1, 2}, {2})},
                                 absl::ZeroDuration(), {}, /*cleanup=*/false);
  ASSERT_TRUE(result.status.ok()) << result.status;
  ASSERT_EQ(result.fetches.size(), 1u);
  test::ExpectTensorEqual<float>(result.fetches[0],
                                 test::AsTensor<float>({3, 4}, {2}));
  EXPECT_EQ(cluster_.worker(kPs)->rendezvous_mgr()->NumSteps(), 1);
  EXPECT_EQ(cluster_.worker(kWorker)->rendezvous_mgr()->NumSteps(), 0);
  tensorflow::CleanupGraphRequest creq;
  creq.set_step_id(step_id);
  tensorflow::CleanupGraphResponse cresp;
  ASSERT_TRUE(
      cluster_.worker(kPs)->CleanupGraph(creq, &cresp, absl::Seconds(5)).ok());
  EXPECT_EQ(cluster_.worker(kPs)->rendezvous_mgr()->NumSteps(), 0);
}

TEST_F(WorkerClusterTest, RegisteredGraphIsSplitByDevice) {
  MasterStep step;
  std::map<std::string, std::string> handles;
  Prepare(Model(kPs, kWorker), Sig({"x"}, {"s"}), "", &step, &handles);
  tensorflow::ExecutorOpts opts;
  opts.set_record_partition_graphs(true);
  auto result = cluster_.RunStep(step, handles, "", next_step_id_++,
                                 {test::AsTensor<float>({1, 2}, {1, 2})},
                                 absl::ZeroDuration(), opts);
  ASSERT_TRUE(result.status.ok()) << result.status;
  // Each task used both of its CPUs: two device partitions each, with the
  // worker's own "_G" names on the device-level cut edges.
  for (const char* t : {kPs, kWorker}) {
    const auto& resp = result.responses[t];
    EXPECT_EQ(resp.partition_graph_size(), 2) << t;
    bool worker_names = false;
    for (const auto& g : resp.partition_graph()) {
      for (const auto& n : g.node()) {
        worker_names |= absl::StrContains(n.name(), "_G");
      }
    }
    EXPECT_TRUE(worker_names) << t;
  }
}

TEST_F(WorkerClusterTest, VariablesOnThePsPersistAcrossSteps) {
  MasterStep init, inc, read;
  std::map<std::string, std::string> h_init, h_inc, h_read;
  const auto graph = VariableGraph();
  Prepare(graph, Sig({}, {}, {"init"}), "", &init, &h_init);
  Prepare(graph, Sig({}, {"inc:0"}), "", &inc, &h_inc);
  Prepare(graph, Sig({}, {"read:0"}), "", &read, &h_read);

  auto r = cluster_.RunStep(init, h_init, "", next_step_id_++, {});
  ASSERT_TRUE(r.status.ok()) << r.status;
  for (float expected : {11.f, 12.f, 13.f}) {
    r = cluster_.RunStep(inc, h_inc, "", next_step_id_++, {});
    ASSERT_TRUE(r.status.ok()) << r.status;
    ASSERT_EQ(r.fetches.size(), 1u);
    EXPECT_EQ(r.fetches[0].scalar<float>()(), expected);
  }
  r = cluster_.RunStep(read, h_read, "", next_step_id_++, {});
  ASSERT_TRUE(r.status.ok()) << r.status;
  EXPECT_EQ(r.fetches[0].scalar<float>()(), 26.f);
}

TEST_F(WorkerClusterTest, IsolatedSessionsDoNotShareVariables) {
  for (Worker* w : {cluster_.worker(kPs), cluster_.worker(kWorker)}) {
    ASSERT_TRUE(CreateSession(w, "a", /*isolate=*/true).ok());
    ASSERT_TRUE(CreateSession(w, "b", /*isolate=*/true).ok());
  }
  const auto graph = VariableGraph();
  MasterStep init, read_a, read_b;
  std::map<std::string, std::string> h_init, h_read_a, h_read_b;
  Prepare(graph, Sig({}, {}, {"init"}), "a", &init, &h_init);
  Prepare(graph, Sig({}, {"read:0"}), "a", &read_a, &h_read_a);
  Prepare(graph, Sig({}, {"read:0"}), "b", &read_b, &h_read_b);
  ASSERT_TRUE(
      cluster_.RunStep(init, h_init, "a", next_step_id_++, {}).status.ok());
  auto r = cluster_.RunStep(read_a, h_read_a, "a", next_step_id_++, {});
  ASSERT_TRUE(r.status.ok()) << r.status;
  EXPECT_EQ(r.fetches[0].scalar<float>()(), 20.f);
  // Session b has its own variable, never initialised.
  r = cluster_.RunStep(read_b, h_read_b, "b", next_step_id_++, {});
  EXPECT_TRUE(absl::IsFailedPrecondition(r.status)) << r.status;
  EXPECT_TRUE(absl::StrContains(r.status.message(),
                                "Attempting to use uninitialized value v"))
      << r.status;
}

TEST_F(WorkerClusterTest, SessionsWithoutIsolationShareVariables) {
  for (Worker* w : {cluster_.worker(kPs), cluster_.worker(kWorker)}) {
    ASSERT_TRUE(CreateSession(w, "a", /*isolate=*/false).ok());
    ASSERT_TRUE(CreateSession(w, "b", /*isolate=*/false).ok());
  }
  const auto graph = VariableGraph();
  MasterStep init, read_b;
  std::map<std::string, std::string> h_init, h_read_b;
  Prepare(graph, Sig({}, {}, {"init"}), "a", &init, &h_init);
  Prepare(graph, Sig({}, {"read:0"}), "b", &read_b, &h_read_b);
  ASSERT_TRUE(
      cluster_.RunStep(init, h_init, "a", next_step_id_++, {}).status.ok());
  auto r = cluster_.RunStep(read_b, h_read_b, "b", next_step_id_++, {});
  ASSERT_TRUE(r.status.ok()) << r.status;
  EXPECT_EQ(r.fetches[0].scalar<float>()(), 20.f);
}

TEST_F(WorkerClusterTest, CleanupAllClearsTheDefaultContainer) {
  const auto graph = VariableGraph();
  MasterStep init, read;
  std::map<std::string, std::string> h_init, h_read;
  Prepare(graph, Sig({}, {}, {"init"}), "", &init, &h_init);
  Prepare(graph, Sig({}, {"read:0"}), "", &read, &h_read);
  ASSERT_TRUE(
      cluster_.RunStep(init, h_init, "", next_step_id_++, {}).status.ok());
  ASSERT_TRUE(
      cluster_.RunStep(read, h_read, "", next_step_id_++, {}).status.ok());
  tensorflow::CleanupAllRequest req;
  tensorflow::CleanupAllResponse resp;
  ASSERT_TRUE(
      cluster_.worker(kPs)->CleanupAll(req, &resp, absl::Seconds(5)).ok());
  auto r = cluster_.RunStep(read, h_read, "", next_step_id_++, {});
  EXPECT_TRUE(absl::IsFailedPrecondition(r.status)) << r.status;
}

// ps: bad = Reshape(c, [7]) fails; the worker task waits for `bad` through
// RecvTensor and must be released with the ps's error.
tensorflow::GraphDef FailingGraph() {
  const std::string ps = Dev(kPs, 0);
  const std::string wk = Dev(kWorker, 0);
  return ParseGraph(absl::StrCat(
      "node { name: 'c' op: 'Const' device: '", ps,
      "' attr { key: 'dtype' value { type: DT_FLOAT } } "
      "attr { key: 'value' value { tensor { dtype: DT_FLOAT tensor_shape { "
      "dim { size: 4 } } float_val: 1 } } } }\n",
      "node { name: 'shape' op: 'Const' device: '", ps,
      "' attr { key: 'dtype' value { type: DT_INT32 } } "
      "attr { key: 'value' value { tensor { dtype: DT_INT32 tensor_shape { "
      "dim { size: 1 } } int_val: 7 } } } }\n",
      "node { name: 'bad' op: 'Reshape' input: 'c' input: 'shape' device: '",
      ps,
      "' attr { key: 'T' value { type: DT_FLOAT } } "
      "attr { key: 'Tshape' value { type: DT_INT32 } } }\n",
      "node { name: 'y' op: 'Identity' input: 'bad' device: '", wk,
      "' attr { key: 'T' value { type: DT_FLOAT } } }\n"));
}

TEST_F(WorkerClusterTest, KernelErrorFailsTheStepWithItsNodeAndReleasesPeers) {
  MasterStep step;
  std::map<std::string, std::string> handles;
  Prepare(FailingGraph(), Sig({}, {"y:0"}), "", &step, &handles);
  auto r = cluster_.RunStep(step, handles, "", next_step_id_++, {});
  EXPECT_TRUE(absl::IsInvalidArgument(r.status)) << r.status;
  EXPECT_TRUE(absl::StrContains(r.status.message(), "bad")) << r.status;
  // Both partitions ended (no hang); the waiting worker task got the error,
  // marked as passed on, so a master reports the ps's own in its place.
  EXPECT_FALSE(r.per_task[kPs].ok());
  EXPECT_FALSE(r.per_task[kWorker].ok());
  EXPECT_FALSE(errors::IsMarkedDerived(r.per_task[kPs])) << r.per_task[kPs];
  EXPECT_TRUE(errors::IsMarkedDerived(r.per_task[kWorker]))
      << r.per_task[kWorker];
  EXPECT_TRUE(absl::StrContains(r.per_task[kWorker].message(), "bad"))
      << r.per_task[kWorker];
  EXPECT_TRUE(cluster_.worker(kPs)->WaitUntilIdle(Soon()));
  EXPECT_TRUE(cluster_.worker(kWorker)->WaitUntilIdle(Soon()));
  EXPECT_EQ(cluster_.worker(kPs)->rendezvous_mgr()->NumSteps(), 0);
  EXPECT_EQ(cluster_.worker(kWorker)->rendezvous_mgr()->NumSteps(), 0);
}

TEST_F(WorkerClusterTest, ErrorsInTheResponseBodyWhenAsked) {
  MasterStep step;
  std::map<std::string, std::string> handles;
  Prepare(FailingGraph(), Sig({}, {"y:0"}), "", &step, &handles);
  RunGraphRequestMsg req;
  req.proto.set_graph_handle(handles[kPs]);
  req.proto.set_step_id(next_step_id_++);
  req.proto.set_store_errors_in_response_body(true);
  RunGraphResponseMsg resp;
  absl::Status s =
      cluster_.worker(kPs)->RunGraph(req, &resp, absl::Seconds(30));
  EXPECT_TRUE(s.ok()) << s;
  EXPECT_EQ(resp.proto.status_code(), tensorflow::error::INVALID_ARGUMENT);
  EXPECT_TRUE(absl::StrContains(resp.proto.status_error_message(), "bad"));
}

// The worker task waits for a tensor of the ps, whose partition never runs:
// only the deadline (or a cancellation) can end the step.
class WaitingStepTest : public WorkerClusterTest {
 protected:
  void SetUp() override {
    Prepare(Model(kPs, kWorker), Sig({"x"}, {"s"}), "", &step_, &handles_);
    req_.proto.set_graph_handle(handles_[kWorker]);
    req_.proto.set_step_id(4242);
    req_.send.emplace_back(step_.feed_keys[0],
                           test::AsTensor<float>({1, 2}, {1, 2}));
    req_.proto.add_recv_key(step_.fetch_keys[0]);
  }

  MasterStep step_;
  std::map<std::string, std::string> handles_;
  RunGraphRequestMsg req_;
  RunGraphResponseMsg resp_;
};

TEST_F(WaitingStepTest, DeadlineEndsTheStepWithDeadlineExceeded) {
  absl::Status s =
      cluster_.worker(kWorker)->RunGraph(req_, &resp_, absl::Milliseconds(200));
  EXPECT_TRUE(absl::IsDeadlineExceeded(s)) << s;
  // The worker's RecvTensor calls to the ps were cancelled with the step
  // (nothing is left waiting; a leftover would keep WaitUntilIdle waiting
  // until it fails).
  EXPECT_TRUE(cluster_.worker(kPs)->WaitUntilIdle(Soon()));
  EXPECT_TRUE(cluster_.worker(kWorker)->WaitUntilIdle(Soon()));
}

TEST_F(WaitingStepTest, CallOptionsCancellationEndsTheStep) {
  CallOptions opts;
  absl::Notification done;
  absl::Status status;
  cluster_.worker(kWorker)->RunGraphAsync(&opts, &req_, &resp_,
                                          [&](const absl::Status& s) {
                                            status = s;
                                            done.Notify();
                                          });
  EXPECT_FALSE(done.HasBeenNotified());
  opts.StartCancel();
  ASSERT_TRUE(done.WaitForNotificationWithTimeout(absl::Seconds(30)));
  EXPECT_TRUE(absl::IsCancelled(status)) << status;
  EXPECT_TRUE(absl::StrContains(status.message(), "cancelled by its caller"))
      << status;
  EXPECT_TRUE(cluster_.worker(kPs)->WaitUntilIdle(Soon()));
}

TEST_F(WaitingStepTest, CleanupGraphAbortsARunningStep) {
  absl::Notification done;
  absl::Status status;
  cluster_.worker(kWorker)->RunGraphAsync(nullptr, &req_, &resp_,
                                          [&](const absl::Status& s) {
                                            status = s;
                                            done.Notify();
                                          });
  tensorflow::CleanupGraphRequest creq;
  creq.set_step_id(4242);
  tensorflow::CleanupGraphResponse cresp;
  ASSERT_TRUE(cluster_.worker(kWorker)
                  ->CleanupGraph(creq, &cresp, absl::Seconds(5))
                  .ok());
  ASSERT_TRUE(done.WaitForNotificationWithTimeout(absl::Seconds(30)));
  EXPECT_TRUE(absl::IsAborted(status)) << status;
  // A late RunGraph of the cleaned step fails at once.
  absl::Status late =
      cluster_.worker(kWorker)->RunGraph(req_, &resp_, absl::Seconds(30));
  EXPECT_TRUE(absl::IsAborted(late)) << late;
}

TEST_F(WaitingStepTest, PeerAbortReleasesTheWaitingPeer) {
  // The ps's step is cleaned up while the worker task's _Recv waits there:
  // the RecvTensor fails and so does the worker task's step.
  absl::Notification done;
  absl::Status status;
  cluster_.worker(kWorker)->RunGraphAsync(nullptr, &req_, &resp_,
                                          [&](const absl::Status& s) {
                                            status = s;
                                            done.Notify();
                                          });
  tensorflow::CleanupGraphRequest creq;
  creq.set_step_id(4242);
  tensorflow::CleanupGraphResponse cresp;
  ASSERT_TRUE(
      cluster_.worker(kPs)->CleanupGraph(creq, &cresp, absl::Seconds(5)).ok());
  ASSERT_TRUE(done.WaitForNotificationWithTimeout(absl::Seconds(30)));
  EXPECT_TRUE(absl::IsAborted(status)) << status;
  ASSERT_TRUE(cluster_.worker(kWorker)
                  ->CleanupGraph(creq, &cresp, absl::Seconds(5))
                  .ok());
}

TEST_F(WorkerClusterTest, DeleteWorkerSessionCancelsItsRunningSteps) {
  for (Worker* w : {cluster_.worker(kPs), cluster_.worker(kWorker)}) {
    ASSERT_TRUE(CreateSession(w, "s", /*isolate=*/true).ok());
  }
  MasterStep step;
  std::map<std::string, std::string> handles;
  Prepare(Model(kPs, kWorker), Sig({"x"}, {"s"}), "s", &step, &handles);
  // Only the worker task runs: it waits for the ps until its session goes.
  RunGraphRequestMsg req;
  req.proto.set_session_handle("s");
  req.proto.set_create_worker_session_called(true);
  req.proto.set_graph_handle(handles[kWorker]);
  req.proto.set_step_id(next_step_id_++);
  req.send.emplace_back(step.feed_keys[0],
                        test::AsTensor<float>({1, 2}, {1, 2}));
  req.proto.add_recv_key(step.fetch_keys[0]);
  RunGraphResponseMsg resp;
  absl::Notification done;
  absl::Status status;
  Worker* w = cluster_.worker(kWorker);
  w->RunGraphAsync(nullptr, &req, &resp, [&](const absl::Status& s) {
    status = s;
    done.Notify();
  });
  tensorflow::DeleteWorkerSessionRequest dreq;
  dreq.set_session_handle("s");
  tensorflow::DeleteWorkerSessionResponse dresp;
  ASSERT_TRUE(w->DeleteWorkerSession(dreq, &dresp, absl::Seconds(5)).ok());
  ASSERT_TRUE(done.WaitForNotificationWithTimeout(absl::Seconds(30)));
  EXPECT_TRUE(absl::IsCancelled(status)) << status;
  EXPECT_TRUE(w->WaitUntilIdle(Soon()));
}

TEST_F(WorkerClusterTest, RecvTensorChecksTheIncarnation) {
  TestTask& ps = cluster_.task(kPs);
  Device* cpu0 = ps.device_mgr->ListDevices()[0];
  tensorflow::RecvTensorRequest req;
  req.set_step_id(7);
  req.set_rendezvous_key(
      CreateRendezvousKey(cpu0->name(), cpu0->incarnation() + 1,
                          Dev(kWorker, 0), "edge_1_x", FrameAndIter(0, 0)));
  TensorResponse resp;
  absl::Status s = ps.worker->RecvTensor(req, &resp, absl::Seconds(5));
  EXPECT_TRUE(absl::IsAborted(s)) << s;
  EXPECT_TRUE(absl::StrContains(s.message(), cpu0->name())) << s;
  // A device the task does not have.
  req.set_rendezvous_key(CreateRendezvousKey(Dev(kWorker, 0), 1, Dev(kPs, 0),
                                             "edge_1_x", FrameAndIter(0, 0)));
  s = ps.worker->RecvTensor(req, &resp, absl::Seconds(5));
  EXPECT_TRUE(absl::IsInvalidArgument(s)) << s;
}

TEST_F(WorkerClusterTest, RecvTensorWaitsForTheSendAndHonoursItsDeadline) {
  TestTask& ps = cluster_.task(kPs);
  Device* cpu0 = ps.device_mgr->ListDevices()[0];
  const std::string key =
      CreateRendezvousKey(cpu0->name(), cpu0->incarnation(), Dev(kWorker, 0),
                          "t", FrameAndIter(0, 0));
  tensorflow::RecvTensorRequest req;
  req.set_step_id(77);
  req.set_rendezvous_key(key);
  TensorResponse resp;
  // Nothing is sent: the deadline ends the wait.
  absl::Status s = ps.worker->RecvTensor(req, &resp, absl::Milliseconds(100));
  EXPECT_TRUE(absl::IsDeadlineExceeded(s)) << s;

  // Recv first, send later: the answer comes when the tensor is there.
  CallOptions opts;
  absl::Notification done;
  ps.worker->RecvTensorAsync(&opts, &req, &resp, [&](const absl::Status& st) {
    s = st;
    done.Notify();
  });
  EXPECT_FALSE(done.HasBeenNotified());
  auto rendezvous = ps.worker->rendezvous_mgr()->Find(77);
  ASSERT_TRUE(rendezvous
                  ->Send(*ParseRendezvousKey(key), RendezvousInterface::Args(),
                         test::AsTensor<float>({3.5f}, {}), false)
                  .ok());
  ASSERT_TRUE(done.WaitForNotificationWithTimeout(absl::Seconds(30)));
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(resp.tensor.scalar<float>()(), 3.5f);
  EXPECT_FALSE(resp.is_dead);

  // After CleanupGraph a RecvTensor for the step fails at once.
  tensorflow::CleanupGraphRequest creq;
  creq.set_step_id(77);
  tensorflow::CleanupGraphResponse cresp;
  ASSERT_TRUE(ps.worker->CleanupGraph(creq, &cresp, absl::Seconds(5)).ok());
  s = ps.worker->RecvTensor(req, &resp, absl::Seconds(30));
  EXPECT_TRUE(absl::IsAborted(s)) << s;
}

TEST_F(WorkerClusterTest, RestartedPeerIsDetectedByItsIncarnation) {
  MasterStep step;
  std::map<std::string, std::string> handles;
  Prepare(Model(kPs, kWorker), Sig({"x"}, {"s"}), "", &step, &handles);
  cluster_.RestartTask(kPs);
  // The worker task's partition still names the old ps devices: its
  // RecvTensor is refused as stale and the step fails promptly.
  RunGraphRequestMsg req;
  req.proto.set_graph_handle(handles[kWorker]);
  req.proto.set_step_id(next_step_id_++);
  req.send.emplace_back(step.feed_keys[0],
                        test::AsTensor<float>({1, 2}, {1, 2}));
  req.proto.add_recv_key(step.fetch_keys[0]);
  RunGraphResponseMsg resp;
  absl::Status s =
      cluster_.worker(kWorker)->RunGraph(req, &resp, absl::Seconds(30));
  EXPECT_TRUE(absl::IsAborted(s)) << s;
  EXPECT_TRUE(absl::StrContains(s.message(), "incarnation")) << s;
  // Re-partitioned against the new devices, it works again.
  MasterStep again;
  std::map<std::string, std::string> h2;
  Prepare(Model(kPs, kWorker), Sig({"x"}, {"s"}), "", &again, &h2);
  auto r = cluster_.RunStep(again, h2, "", next_step_id_++,
                            {test::AsTensor<float>({1, 2}, {1, 2})});
  EXPECT_TRUE(r.status.ok()) << r.status;
}

TEST_F(WorkerClusterTest, PartialRunFeedsAndFetchesAcrossCalls) {
  // a and b are fed in different calls; u = a * 2 is fetched in the first,
  // z = u + b in the last. Spread over both tasks.
  const std::string ps = Dev(kPs, 0);
  const std::string wk = Dev(kWorker, 1);
  auto graph = ParseGraph(absl::StrCat(
      "node { name: 'a' op: 'Placeholder' device: '", ps,
      "' attr { key: 'dtype' value { type: DT_FLOAT } } }\n",
      "node { name: 'b' op: 'Placeholder' device: '", wk,
      "' attr { key: 'dtype' value { type: DT_FLOAT } } }\n",
      ScalarConst("two", ps, 2), BinaryOp("u", "Mul", "a", "two", ps),
      BinaryOp("z", "AddV2", "u", "b", wk)));
  MasterStep step;
  std::map<std::string, std::string> handles;
  Prepare(graph, Sig({"a", "b"}, {"u:0", "z:0"}), "", &step, &handles);
  const int64_t step_id = next_step_id_++;

  auto call = [&](bool last, int feed, int fetch, float value,
                  std::vector<RunGraphResponseMsg>* responses) {
    std::vector<std::thread> threads;
    std::map<std::string, absl::Status> statuses;
    responses->resize(handles.size());
    int i = 0;
    std::vector<std::unique_ptr<RunGraphRequestMsg>> reqs;
    for (const auto& [t, handle] : handles) {
      auto req = std::make_unique<RunGraphRequestMsg>();
      req->proto.set_graph_handle(handle);
      req->proto.set_step_id(step_id);
      req->proto.set_is_partial(true);
      req->proto.set_is_last_partial_run(last);
      if (t == kWorker) {
        req->send.emplace_back(step.feed_keys[feed],
                               test::AsTensor<float>({value}, {}));
        req->proto.add_recv_key(step.fetch_keys[fetch]);
      }
      reqs.push_back(std::move(req));
    }
    i = 0;
    for (const auto& [t, handle] : handles) {
      RunGraphRequestMsg* req = reqs[i].get();
      RunGraphResponseMsg* resp = &(*responses)[i];
      absl::Status* st = &statuses[t];
      Worker* w = cluster_.worker(t);
      threads.emplace_back([w, req, resp, st] {
        *st = w->RunGraph(*req, resp, absl::Seconds(30));
      });
      ++i;
    }
    for (auto& th : threads) th.join();
    for (auto& [t, st] : statuses) ASSERT_TRUE(st.ok()) << t << ": " << st;
  };
  std::vector<RunGraphResponseMsg> first, last;
  call(false, 0, 0, 3.f, &first);
  // The executors keep running between the calls.
  EXPECT_EQ(cluster_.worker(kWorker)->NumPartialRuns(), 1);
  call(true, 1, 1, 10.f, &last);
  // handles is ordered: ps first, then worker.
  ASSERT_EQ(first[1].recv.size(), 1u);
  EXPECT_EQ(first[1].recv[0].second.scalar<float>()(), 6.f);
  ASSERT_EQ(last[1].recv.size(), 1u);
  EXPECT_EQ(last[1].recv[0].second.scalar<float>()(), 16.f);
  EXPECT_EQ(cluster_.worker(kWorker)->NumPartialRuns(), 0);
  EXPECT_EQ(cluster_.worker(kPs)->NumPartialRuns(), 0);
  for (const char* t : {kPs, kWorker}) {
    tensorflow::CleanupGraphRequest creq;
    creq.set_step_id(step_id);
    tensorflow::CleanupGraphResponse cresp;
    ASSERT_TRUE(
        cluster_.worker(t)->CleanupGraph(creq, &cresp, absl::Seconds(5)).ok());
  }
}

TEST_F(WorkerClusterTest, PartialRunIsDroppedByCleanupGraph) {
  // Only the first call comes; CleanupGraph ends the still running step.
  const std::string wk = Dev(kWorker, 0);
  auto graph = ParseGraph(
      absl::StrCat("node { name: 'a' op: 'Placeholder' device: '", wk,
                   "' attr { key: 'dtype' value { type: DT_FLOAT } } }\n",
                   "node { name: 'b' op: 'Placeholder' device: '", wk,
                   "' attr { key: 'dtype' value { type: DT_FLOAT } } }\n",
                   BinaryOp("z", "AddV2", "a", "b", wk)));
  MasterStep step;
  std::map<std::string, std::string> handles;
  Prepare(graph, Sig({"a", "b"}, {"z:0"}), "", &step, &handles);
  ASSERT_EQ(handles.size(), 1u);
  RunGraphRequestMsg req;
  req.proto.set_graph_handle(handles[kWorker]);
  req.proto.set_step_id(99);
  req.proto.set_is_partial(true);
  req.send.emplace_back(step.feed_keys[0], test::AsTensor<float>({1.f}, {}));
  RunGraphResponseMsg resp;
  Worker* w = cluster_.worker(kWorker);
  ASSERT_TRUE(w->RunGraph(req, &resp, absl::Seconds(30)).ok());
  EXPECT_EQ(w->NumPartialRuns(), 1);
  tensorflow::CleanupGraphRequest creq;
  creq.set_step_id(99);
  tensorflow::CleanupGraphResponse cresp;
  ASSERT_TRUE(w->CleanupGraph(creq, &cresp, absl::Seconds(5)).ok());
  EXPECT_EQ(w->NumPartialRuns(), 0);
  EXPECT_TRUE(w->WaitUntilIdle(Soon()));
}

TEST_F(WorkerClusterTest, StepStatsInTheResponseAndThroughLogging) {
  MasterStep step;
  std::map<std::string, std::string> handles;
  Prepare(Model(kPs, kWorker), Sig({"x"}, {"s"}), "", &step, &handles);
  tensorflow::ExecutorOpts opts;
  opts.set_record_timeline(true);
  const int64_t step_id = next_step_id_++;
  auto r = cluster_.RunStep(step, handles, "", step_id,
                            {test::AsTensor<float>({1, 2}, {1, 2})},
                            absl::ZeroDuration(), opts);
  ASSERT_TRUE(r.status.ok()) << r.status;
  const auto& stats = r.responses[kWorker].step_stats();
  ASSERT_GT(stats.dev_stats_size(), 0);
  EXPECT_GT(stats.dev_stats(0).node_stats_size(), 0);
  // The timeline includes the task's RecvTensor calls, with their duration.
  bool traced_transfer = false;
  for (const auto& d : stats.dev_stats()) {
    for (const auto& n : d.node_stats()) {
      if (n.node_name() != "RecvTensor") continue;
      traced_transfer = true;
      EXPECT_GE(n.op_end_rel_micros(), 0);
      EXPECT_GT(n.all_start_micros(), 0);
    }
  }
  EXPECT_TRUE(traced_transfer);

  Worker* w = cluster_.worker(kWorker);
  tensorflow::LoggingRequest lreq;
  lreq.add_fetch_step_id(step_id);
  tensorflow::LoggingResponse lresp;
  ASSERT_TRUE(w->Logging(lreq, &lresp, absl::Seconds(5)).ok());
  ASSERT_EQ(lresp.step_size(), 1);
  EXPECT_EQ(lresp.step(0).step_id(), step_id);
  EXPECT_GT(lresp.step(0).step_stats().dev_stats_size(), 0);
  // Handed over once.
  lresp.Clear();
  ASSERT_TRUE(w->Logging(lreq, &lresp, absl::Seconds(5)).ok());
  EXPECT_EQ(lresp.step_size(), 0);

  // With RPC logging on, steps record without being asked, RecvTensor
  // transfers included.
  tensorflow::LoggingRequest enable;
  enable.set_enable_rpc_logging(true);
  ASSERT_TRUE(w->Logging(enable, &lresp, absl::Seconds(5)).ok());
  const int64_t logged_id = next_step_id_++;
  r = cluster_.RunStep(step, handles, "", logged_id,
                       {test::AsTensor<float>({1, 2}, {1, 2})});
  ASSERT_TRUE(r.status.ok()) << r.status;
  EXPECT_EQ(r.responses[kWorker].step_stats().dev_stats_size(), 0);
  lreq.set_fetch_step_id(0, logged_id);
  lresp.Clear();
  ASSERT_TRUE(w->Logging(lreq, &lresp, absl::Seconds(5)).ok());
  ASSERT_EQ(lresp.step_size(), 1);
  bool transfer = false;
  for (const auto& d : lresp.step(0).step_stats().dev_stats()) {
    for (const auto& n : d.node_stats())
      transfer |= n.node_name() == "RecvTensor";
  }
  EXPECT_TRUE(transfer);
}

TEST_F(WorkerClusterTest, TracingIsUnimplemented) {
  tensorflow::TracingRequest req;
  tensorflow::TracingResponse resp;
  absl::Status s = cluster_.worker(kPs)->Tracing(req, &resp, absl::Seconds(5));
  EXPECT_TRUE(absl::IsUnimplemented(s)) << s;
  EXPECT_TRUE(absl::StrContains(s.message(), "no profiler")) << s;
}

TEST_F(WorkerClusterTest, GetStatusListsDevicesWithIncarnations) {
  tensorflow::GetStatusRequest req;
  tensorflow::GetStatusResponse resp;
  ASSERT_TRUE(
      cluster_.worker(kPs)->GetStatus(req, &resp, absl::Seconds(5)).ok());
  ASSERT_EQ(resp.device_attributes_size(), 2);
  for (const auto& d : resp.device_attributes()) {
    EXPECT_TRUE(absl::StartsWith(d.name(), kPs)) << d.name();
    EXPECT_NE(d.incarnation(), 0u);
  }
}

TEST_F(WorkerClusterTest, DeleteWorkerSessionDropsItsGraphs) {
  Worker* w = cluster_.worker(kWorker);
  ASSERT_TRUE(CreateSession(w, "s1", false).ok());
  EXPECT_TRUE(absl::IsAlreadyExists(CreateSession(w, "s1", false)));
  EXPECT_TRUE(absl::IsInvalidArgument(CreateSession(w, "", false)));
  tensorflow::RegisterGraphRequest rreq;
  rreq.set_session_handle("s1");
  rreq.set_create_worker_session_called(true);
  *rreq.mutable_graph_def() = ParseGraph(ScalarConst("c", Dev(kWorker, 0), 1));
  tensorflow::RegisterGraphResponse rresp;
  ASSERT_TRUE(w->RegisterGraph(rreq, &rresp, absl::Seconds(5)).ok());
  auto session = w->session_mgr()->Find("s1");
  ASSERT_TRUE(session.ok());
  EXPECT_EQ((*session)->graph_mgr()->NumGraphs(), 1);

  tensorflow::DeleteWorkerSessionRequest dreq;
  dreq.set_session_handle("s1");
  tensorflow::DeleteWorkerSessionResponse dresp;
  ASSERT_TRUE(w->DeleteWorkerSession(dreq, &dresp, absl::Seconds(5)).ok());
  EXPECT_EQ((*session)->graph_mgr()->NumGraphs(), 0);
  EXPECT_EQ(w->session_mgr()->NumSessions(), 0);

  RunGraphRequestMsg req;
  req.proto.set_session_handle("s1");
  req.proto.set_create_worker_session_called(true);
  req.proto.set_graph_handle(rresp.graph_handle());
  req.proto.set_step_id(5);
  RunGraphResponseMsg resp;
  absl::Status s = w->RunGraph(req, &resp, absl::Seconds(5));
  EXPECT_TRUE(absl::IsAborted(s)) << s;
  EXPECT_TRUE(absl::StrContains(s.message(), "Session handle is not found: s1"))
      << s;
}

TEST_F(WorkerClusterTest, RegisterGraphRejectsForeignDevices) {
  tensorflow::RegisterGraphRequest rreq;
  *rreq.mutable_graph_def() = ParseGraph(ScalarConst("c", Dev(kPs, 0), 1));
  tensorflow::RegisterGraphResponse rresp;
  absl::Status s =
      cluster_.worker(kWorker)->RegisterGraph(rreq, &rresp, absl::Seconds(5));
  EXPECT_TRUE(absl::IsInvalidArgument(s)) << s;
  EXPECT_TRUE(absl::StrContains(s.message(), "Node c")) << s;
  // Unknown graph handle.
  tensorflow::DeregisterGraphRequest dreq;
  dreq.set_graph_handle("nope");
  tensorflow::DeregisterGraphResponse dresp;
  s = cluster_.worker(kWorker)->DeregisterGraph(dreq, &dresp, absl::Seconds(5));
  EXPECT_TRUE(absl::IsAborted(s)) << s;
}

TEST_F(WorkerClusterTest, MasterRestartDropsItsOldSessions) {
  Worker* w = cluster_.worker(kWorker);
  tensorflow::CreateWorkerSessionRequest req;
  req.set_session_handle("old");
  req.set_master_task("/job:master/replica:0/task:0");
  req.set_master_incarnation(1);
  tensorflow::CreateWorkerSessionResponse resp;
  ASSERT_TRUE(w->CreateWorkerSession(req, &resp, absl::Seconds(5)).ok());
  req.set_session_handle("new");
  req.set_master_incarnation(2);
  ASSERT_TRUE(w->CreateWorkerSession(req, &resp, absl::Seconds(5)).ok());
  EXPECT_FALSE(w->session_mgr()->Find("old").ok());
  EXPECT_TRUE(w->session_mgr()->Find("new").ok());
}

// A master's own view of the cluster (CreateWorkerSession's
// server_def.cluster) is what its session's RecvTensor calls use: here the
// worker's own view sends them to a dead address, the master's to the ps.
TEST(WorkerSessionClusterTest, TheMastersClusterViewReachesThePeers) {
  TestCluster cluster({kPs, kWorker}, /*num_cpus=*/2, /*threads=*/2,
                      /*grpc=*/true);
  const std::string ps_address = cluster.task(kPs).address;
  const std::string worker_address = cluster.task(kWorker).address;
  auto own_view = ClusterSpec::FromJson(absl::StrCat(
      "{\"ps\": [\"127.0.0.1:1\"], \"worker\": [\"", worker_address, "\"]}"));
  ASSERT_TRUE(own_view.ok()) << own_view.status();
  std::unique_ptr<WorkerCacheInterface> stale = NewGrpcWorkerCache(*own_view);
  TestTask& worker = cluster.task(kWorker);
  worker.env.worker_cache = stale.get();
  worker.env.session_worker_cache_factory =
      [](const tensorflow::ClusterDef& def)
      -> absl::StatusOr<std::shared_ptr<WorkerCacheInterface>> {
    TRIB_ASSIGN_OR_RETURN(ClusterSpec spec, ClusterSpec::FromClusterDef(def));
    return std::shared_ptr<WorkerCacheInterface>(NewGrpcWorkerCache(spec));
  };
  auto masters_view = ClusterSpec::FromJson(absl::StrCat(
      "{\"ps\": [\"", ps_address, "\"], \"worker\": [\"", worker_address,
      "\"]}"));
  ASSERT_TRUE(masters_view.ok()) << masters_view.status();

  auto create = [&](const std::string& handle,
                    const tensorflow::ClusterDef* view) {
    for (const char* task : {kPs, kWorker}) {
      tensorflow::CreateWorkerSessionRequest req;
      req.set_session_handle(handle);
      if (view != nullptr) *req.mutable_server_def()->mutable_cluster() = *view;
      tensorflow::CreateWorkerSessionResponse resp;
      absl::Status s =
          cluster.client(task)->CreateWorkerSession(req, &resp, Soon() - absl::Now());
      if (!s.ok()) return s;
    }
    return absl::OkStatus();
  };
  const tensorflow::ClusterDef def = masters_view->AsClusterDef();
  ASSERT_TRUE(create("with-view", &def).ok());
  ASSERT_TRUE(create("without-view", nullptr).ok());

  const Tensor x = test::AsTensor<float>({1, 2, 3, 4, 5, 6}, {3, 2});
  auto run = [&](const std::string& session, int64_t step_id) {
    auto step = cluster.Partition(Model(kPs, kWorker), Sig({"x"}, {"y"}), kWorker);
    EXPECT_TRUE(step.ok()) << step.status();
    auto handles = cluster.Register(*step, session);
    EXPECT_TRUE(handles.ok()) << handles.status();
    return cluster.RunStep(*step, *handles, session, step_id, {x},
                           absl::Seconds(20));
  };
  auto with_view = run("with-view", 1);
  ASSERT_TRUE(with_view.status.ok()) << with_view.status;
  test::ExpectTensorEqual<float>(
      with_view.fetches[0],
      test::AsTensor<float>({1, 13.5, 4, 29.5, 12, 45.5}, {3, 2}));
  auto without_view = run("without-view", 2);
  EXPECT_FALSE(without_view.status.ok());
  EXPECT_TRUE(absl::StrContains(without_view.per_task[kWorker].message(),
                                "127.0.0.1:1"))
      << without_view.per_task[kWorker];

  // A cluster the worker cannot use is refused with the reason.
  tensorflow::ClusterDef bad;
  bad.add_job()->set_name("");
  tensorflow::CreateWorkerSessionRequest req;
  req.set_session_handle("bad-view");
  *req.mutable_server_def()->mutable_cluster() = bad;
  tensorflow::CreateWorkerSessionResponse resp;
  absl::Status s = cluster.client(kWorker)->CreateWorkerSession(
      req, &resp, absl::Seconds(10));
  EXPECT_TRUE(absl::IsInvalidArgument(s)) << s;
  EXPECT_TRUE(absl::StrContains(s.message(), "server_def.cluster")) << s;
}

}  // namespace
}  // namespace tributary
