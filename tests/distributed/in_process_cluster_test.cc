// A ps and a worker task in one process (real Workers behind an
// InProcessWorkerCache), driven by the real master code: RegisteredGraph
// places, cuts and registers each signature, DistributedStep runs each
// step (in_process_cluster.h). What the workers do with the partitions:
// cross-task values, variables on the ps, session isolation, errors,
// deadlines, cancellation, partial runs and step stats. Moved from
// worker/worker_cluster_test.cc, whose helper carried its own copy of the
// master.

#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "common/framework/derived_status.h"
#include "common/framework/status.h"
#include "common/framework/tensor.h"
#include "common/framework/tensor_testutil.h"
#include "common/runtime/session/local_session.h"
#include "gtest/gtest.h"
#include "tests/distributed/in_process_cluster.h"
#include "tests/distributed/two_task_model.h"
#include "worker/worker_test_util.h"

namespace tributary {
namespace distributed_test {
namespace {

using worker_test::BinaryOp;
using worker_test::CreateSession;
using worker_test::ParseGraph;
using worker_test::ScalarConst;
using Graph = std::shared_ptr<const RegisteredGraph>;

// A bound for waits that end at once unless something hangs.
absl::Time Soon() { return absl::Now() + absl::Seconds(30); }

const char kPs[] = "/job:ps/replica:0/task:0";
const char kWorker[] = "/job:worker/replica:0/task:0";

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

class InProcessClusterTest : public ::testing::Test {
 protected:
  InProcessClusterTest() : cluster_({kPs, kWorker}, /*num_cpus=*/2) {}

  // Partitions and registers `graph` for `sig` in `session` on every task.
  void Prepare(const tensorflow::GraphDef& graph, const StepSignature& sig,
               const std::string& session, Graph* step) {
    auto s = cluster_.Register(graph, sig, kWorker, session);
    ASSERT_TRUE(s.ok()) << s.status();
    *step = *std::move(s);
  }

  static std::string Handle(const Graph& g, const std::string& task) {
    return InProcessCluster::Handle(*g, task);
  }

  InProcessCluster cluster_;
  int64_t next_step_id_ = 1000;
};

TEST_F(InProcessClusterTest, CrossTaskValuesEqualTheLocalSession) {
  const Tensor x = test::AsTensor<float>({1, 2, 3, 4, 5, 6}, {3, 2});
  // Reference: the local session, everything in one process.
  tensorflow::ConfigProto config;
  auto local = LocalSession::New(config);
  ASSERT_TRUE(local.ok()) << local.status();
  ASSERT_TRUE((*local)->Create(Model("", "")).ok());
  std::vector<Tensor> expected;
  ASSERT_TRUE(
      (*local)->Run({{"x", x}}, {"y", "s", "mm:0"}, {}, &expected).ok());

  Graph step;
  Prepare(Model(kPs, kWorker), Sig({"x"}, {"y", "s", "mm:0"}), "", &step);
  ASSERT_EQ(step->partitions().size(), 2u);
  for (int i = 0; i < 3; ++i) {
    auto result = cluster_.RunStep(*step, "", next_step_id_++, {x});
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

TEST_F(InProcessClusterTest, OnlyTasksOthersFetchFromKeepAFinishedStep) {
  // The ps sends values to the worker task; the worker task sends only to
  // the client (recv_key). After the step, only the ps must keep the step's
  // rendezvous for a late RecvTensor, until CleanupGraph.
  auto graph = ParseGraph(absl::StrCat(
      "node { name: 'x' op: 'Placeholder' device: '", Dev(kWorker, 0),
      "' attr { key: 'dtype' value { type: DT_FLOAT } } }\n",
      ScalarConst("c", Dev(kPs, 0), 2.f),
      BinaryOp("y", "AddV2", "c", "x", Dev(kWorker, 0))));
  Graph step;
  Prepare(graph, Sig({"x"}, {"y"}), "", &step);
  const int64_t step_id = next_step_id_++;
  // The master's CleanupGraph reaches the workers only when released.
  cluster_.HoldCleanups(true);
  auto result = cluster_.RunStep(*step, "", step_id,
                                 {test::AsTensor<float>({1, 2}, {2})});
  ASSERT_TRUE(result.status.ok()) << result.status;
  ASSERT_EQ(result.fetches.size(), 1u);
  test::ExpectTensorEqual<float>(result.fetches[0],
                                 test::AsTensor<float>({3, 4}, {2}));
  EXPECT_EQ(cluster_.worker(kPs)->rendezvous_mgr()->NumSteps(), 1);
  EXPECT_EQ(cluster_.worker(kWorker)->rendezvous_mgr()->NumSteps(), 0);
  // The master cleans up only the task others fetch from.
  const std::map<std::string, std::vector<int64_t>> cleaned =
      cluster_.ReleaseHeldCleanups();
  EXPECT_EQ(cleaned, (std::map<std::string, std::vector<int64_t>>{
                         {kPs, {step_id}}}));
  EXPECT_EQ(cluster_.worker(kPs)->rendezvous_mgr()->NumSteps(), 0);
}

TEST_F(InProcessClusterTest, RegisteredGraphIsSplitByDevice) {
  Graph step;
  Prepare(Model(kPs, kWorker), Sig({"x"}, {"s"}), "", &step);
  InProcessCluster::StepOptions opts;
  opts.partition_graphs = true;
  auto result = cluster_.RunStep(*step, "", next_step_id_++,
                                 {test::AsTensor<float>({1, 2}, {1, 2})},
                                 opts);
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

TEST_F(InProcessClusterTest, VariablesOnThePsPersistAcrossSteps) {
  Graph init, inc, read;
  const auto graph = VariableGraph();
  Prepare(graph, Sig({}, {}, {"init"}), "", &init);
  Prepare(graph, Sig({}, {"inc:0"}), "", &inc);
  Prepare(graph, Sig({}, {"read:0"}), "", &read);

  auto r = cluster_.RunStep(*init, "", next_step_id_++, {});
  ASSERT_TRUE(r.status.ok()) << r.status;
  for (float expected : {11.f, 12.f, 13.f}) {
    r = cluster_.RunStep(*inc, "", next_step_id_++, {});
    ASSERT_TRUE(r.status.ok()) << r.status;
    ASSERT_EQ(r.fetches.size(), 1u);
    EXPECT_EQ(r.fetches[0].scalar<float>()(), expected);
  }
  r = cluster_.RunStep(*read, "", next_step_id_++, {});
  ASSERT_TRUE(r.status.ok()) << r.status;
  EXPECT_EQ(r.fetches[0].scalar<float>()(), 26.f);
}

TEST_F(InProcessClusterTest, IsolatedSessionsDoNotShareVariables) {
  for (Worker* w : {cluster_.worker(kPs), cluster_.worker(kWorker)}) {
    ASSERT_TRUE(CreateSession(w, "a", /*isolate=*/true).ok());
    ASSERT_TRUE(CreateSession(w, "b", /*isolate=*/true).ok());
  }
  const auto graph = VariableGraph();
  Graph init, read_a, read_b;
  Prepare(graph, Sig({}, {}, {"init"}), "a", &init);
  Prepare(graph, Sig({}, {"read:0"}), "a", &read_a);
  Prepare(graph, Sig({}, {"read:0"}), "b", &read_b);
  ASSERT_TRUE(
      cluster_.RunStep(*init, "a", next_step_id_++, {}).status.ok());
  auto r = cluster_.RunStep(*read_a, "a", next_step_id_++, {});
  ASSERT_TRUE(r.status.ok()) << r.status;
  EXPECT_EQ(r.fetches[0].scalar<float>()(), 20.f);
  // Session b has its own variable, never initialised.
  r = cluster_.RunStep(*read_b, "b", next_step_id_++, {});
  EXPECT_TRUE(absl::IsFailedPrecondition(r.status)) << r.status;
  EXPECT_TRUE(absl::StrContains(r.status.message(),
                                "Attempting to use uninitialized value v"))
      << r.status;
}

TEST_F(InProcessClusterTest, SessionsWithoutIsolationShareVariables) {
  for (Worker* w : {cluster_.worker(kPs), cluster_.worker(kWorker)}) {
    ASSERT_TRUE(CreateSession(w, "a", /*isolate=*/false).ok());
    ASSERT_TRUE(CreateSession(w, "b", /*isolate=*/false).ok());
  }
  const auto graph = VariableGraph();
  Graph init, read_b;
  Prepare(graph, Sig({}, {}, {"init"}), "a", &init);
  Prepare(graph, Sig({}, {"read:0"}), "b", &read_b);
  ASSERT_TRUE(
      cluster_.RunStep(*init, "a", next_step_id_++, {}).status.ok());
  auto r = cluster_.RunStep(*read_b, "b", next_step_id_++, {});
  ASSERT_TRUE(r.status.ok()) << r.status;
  EXPECT_EQ(r.fetches[0].scalar<float>()(), 20.f);
}

TEST_F(InProcessClusterTest, CleanupAllClearsTheDefaultContainer) {
  const auto graph = VariableGraph();
  Graph init, read;
  Prepare(graph, Sig({}, {}, {"init"}), "", &init);
  Prepare(graph, Sig({}, {"read:0"}), "", &read);
  ASSERT_TRUE(
      cluster_.RunStep(*init, "", next_step_id_++, {}).status.ok());
  ASSERT_TRUE(
      cluster_.RunStep(*read, "", next_step_id_++, {}).status.ok());
  tensorflow::CleanupAllRequest req;
  tensorflow::CleanupAllResponse resp;
  ASSERT_TRUE(
      cluster_.worker(kPs)->CleanupAll(req, &resp, absl::Seconds(5)).ok());
  auto r = cluster_.RunStep(*read, "", next_step_id_++, {});
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

TEST_F(InProcessClusterTest, KernelErrorFailsTheStepWithItsNodeAndReleasesPeers) {
  Graph step;
  Prepare(FailingGraph(), Sig({}, {"y:0"}), "", &step);
  // Neither the master's cancellation nor its CleanupGraph after the ps's
  // failure reaches the worker task: only the ps's error can release it.
  cluster_.ShieldRunGraphs(true);
  cluster_.HoldCleanups(true);
  auto r = cluster_.RunStep(*step, "", next_step_id_++, {});
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
  // The master cleans the failed step up everywhere.
  EXPECT_EQ(cluster_.ReleaseHeldCleanups().size(), 2u);
  EXPECT_TRUE(cluster_.worker(kPs)->WaitUntilIdle(Soon()));
  EXPECT_TRUE(cluster_.worker(kWorker)->WaitUntilIdle(Soon()));
  EXPECT_EQ(cluster_.worker(kPs)->rendezvous_mgr()->NumSteps(), 0);
  EXPECT_EQ(cluster_.worker(kWorker)->rendezvous_mgr()->NumSteps(), 0);
}

TEST_F(InProcessClusterTest, ErrorsInTheResponseBodyWhenAsked) {
  Graph step;
  Prepare(FailingGraph(), Sig({}, {"y:0"}), "", &step);
  RunGraphRequestMsg req;
  req.proto.set_graph_handle(Handle(step, kPs));
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
class WaitingStepTest : public InProcessClusterTest {
 protected:
  void SetUp() override {
    Prepare(Model(kPs, kWorker), Sig({"x"}, {"s"}), "", &step_);
    req_.proto.set_graph_handle(Handle(step_, kWorker));
    req_.proto.set_step_id(4242);
    req_.send.emplace_back(step_->feed_keys()[0],
                           test::AsTensor<float>({1, 2}, {1, 2}));
    req_.proto.add_recv_key(step_->fetch_keys()[0]);
  }

  Graph step_;
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

TEST_F(InProcessClusterTest, DeleteWorkerSessionCancelsItsRunningSteps) {
  for (Worker* w : {cluster_.worker(kPs), cluster_.worker(kWorker)}) {
    ASSERT_TRUE(CreateSession(w, "s", /*isolate=*/true).ok());
  }
  Graph step;
  Prepare(Model(kPs, kWorker), Sig({"x"}, {"s"}), "s", &step);
  // Only the worker task runs: it waits for the ps until its session goes.
  RunGraphRequestMsg req;
  req.proto.set_session_handle("s");
  req.proto.set_create_worker_session_called(true);
  req.proto.set_graph_handle(Handle(step, kWorker));
  req.proto.set_step_id(next_step_id_++);
  req.send.emplace_back(step->feed_keys()[0],
                        test::AsTensor<float>({1, 2}, {1, 2}));
  req.proto.add_recv_key(step->fetch_keys()[0]);
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


TEST_F(InProcessClusterTest, RestartedPeerIsDetectedByItsIncarnation) {
  Graph step;
  Prepare(Model(kPs, kWorker), Sig({"x"}, {"s"}), "", &step);
  cluster_.RestartTask(kPs);
  // The worker task's partition still names the old ps devices: its
  // RecvTensor is refused as stale and the step fails promptly.
  RunGraphRequestMsg req;
  req.proto.set_graph_handle(Handle(step, kWorker));
  req.proto.set_step_id(next_step_id_++);
  req.send.emplace_back(step->feed_keys()[0],
                        test::AsTensor<float>({1, 2}, {1, 2}));
  req.proto.add_recv_key(step->fetch_keys()[0]);
  RunGraphResponseMsg resp;
  absl::Status s =
      cluster_.worker(kWorker)->RunGraph(req, &resp, absl::Seconds(30));
  EXPECT_TRUE(absl::IsAborted(s)) << s;
  EXPECT_TRUE(absl::StrContains(s.message(), "incarnation")) << s;
  // Re-partitioned against the new devices, it works again.
  Graph again;
  Prepare(Model(kPs, kWorker), Sig({"x"}, {"s"}), "", &again);
  auto r = cluster_.RunStep(*again, "", next_step_id_++,
                            {test::AsTensor<float>({1, 2}, {1, 2})});
  EXPECT_TRUE(r.status.ok()) << r.status;
}

TEST_F(InProcessClusterTest, PartialRunFeedsAndFetchesAcrossCalls) {
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
  Graph step;
  Prepare(graph, Sig({"a", "b"}, {"u:0", "z:0"}), "", &step);
  const int64_t step_id = next_step_id_++;

  // Two calls of one partial run, as the master makes them: the feed
  // goes to the client (worker) task, and every partition runs each call.
  auto first = cluster_.RunPartial(*step, "", step_id,
                                   {{"a", test::AsTensor<float>({3.f}, {})}},
                                   {0}, /*last=*/false);
  for (auto& [t, st] : first.per_task) ASSERT_TRUE(st.ok()) << t << ": " << st;
  ASSERT_TRUE(first.status.ok()) << first.status;
  // The executors keep running between the calls.
  EXPECT_EQ(cluster_.worker(kWorker)->NumPartialRuns(), 1);
  auto last = cluster_.RunPartial(*step, "", step_id,
                                  {{"b", test::AsTensor<float>({10.f}, {})}},
                                  {1}, /*last=*/true);
  for (auto& [t, st] : last.per_task) ASSERT_TRUE(st.ok()) << t << ": " << st;
  ASSERT_TRUE(last.status.ok()) << last.status;
  ASSERT_EQ(first.fetches.size(), 1u);
  EXPECT_EQ(first.fetches[0].scalar<float>()(), 6.f);
  ASSERT_EQ(last.fetches.size(), 1u);
  EXPECT_EQ(last.fetches[0].scalar<float>()(), 16.f);
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

TEST_F(InProcessClusterTest, PartialRunIsDroppedByCleanupGraph) {
  // Only the first call comes; CleanupGraph ends the still running step.
  const std::string wk = Dev(kWorker, 0);
  auto graph = ParseGraph(
      absl::StrCat("node { name: 'a' op: 'Placeholder' device: '", wk,
                   "' attr { key: 'dtype' value { type: DT_FLOAT } } }\n",
                   "node { name: 'b' op: 'Placeholder' device: '", wk,
                   "' attr { key: 'dtype' value { type: DT_FLOAT } } }\n",
                   BinaryOp("z", "AddV2", "a", "b", wk)));
  Graph step;
  Prepare(graph, Sig({"a", "b"}, {"z:0"}), "", &step);
  ASSERT_EQ(step->partitions().size(), 1u);
  RunGraphRequestMsg req;
  req.proto.set_graph_handle(Handle(step, kWorker));
  req.proto.set_step_id(99);
  req.proto.set_is_partial(true);
  req.send.emplace_back(step->feed_keys()[0], test::AsTensor<float>({1.f}, {}));
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

TEST_F(InProcessClusterTest, StepStatsInTheResponseAndThroughLogging) {
  Graph step;
  Prepare(Model(kPs, kWorker), Sig({"x"}, {"s"}), "", &step);
  InProcessCluster::StepOptions opts;
  opts.trace = true;
  const int64_t step_id = next_step_id_++;
  auto r = cluster_.RunStep(*step, "", step_id,
                            {test::AsTensor<float>({1, 2}, {1, 2})}, opts);
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
  r = cluster_.RunStep(*step, "", logged_id,
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


}  // namespace
}  // namespace distributed_test
}  // namespace tributary
