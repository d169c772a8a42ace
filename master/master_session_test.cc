// What the master registers on each worker: placement of explicitly and
// partially placed nodes, colocation and soft placement, the cut into task
// partitions with _Send/_Recv carrying the right devices and incarnations,
// and the client-terminated feed and fetch nodes on the default task.

#include "master/master_session.h"

#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "common/framework/tensor_testutil.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "master/testing/master_test_util.h"

namespace tributary {
namespace test {
namespace {

using ::testing::HasSubstr;

const tensorflow::NodeDef* FindNode(const tensorflow::GraphDef& g,
                                    const std::string& name) {
  for (const auto& n : g.node()) {
    if (n.name() == name) return &n;
  }
  return nullptr;
}

std::vector<const tensorflow::NodeDef*> NodesWithOp(
    const tensorflow::GraphDef& g, const std::string& op) {
  std::vector<const tensorflow::NodeDef*> out;
  for (const auto& n : g.node()) {
    if (n.op() == op) out.push_back(&n);
  }
  return out;
}

std::string AttrS(const tensorflow::NodeDef& n, const std::string& key) {
  auto it = n.attr().find(key);
  return it == n.attr().end() ? "" : it->second.s();
}

int64_t AttrI(const tensorflow::NodeDef& n, const std::string& key) {
  auto it = n.attr().find(key);
  return it == n.attr().end() ? 0 : it->second.i();
}

// The single graph registered on `w`.
tensorflow::GraphDef Registered(const FakeWorker& w) {
  const auto reqs = w.register_requests();
  EXPECT_EQ(reqs.size(), 1u) << w.task();
  return reqs.empty() ? tensorflow::GraphDef() : reqs[0].graph_def();
}

std::string Cpu0(const std::string& task) { return task + "/device:CPU:0"; }

TEST_F(MasterTest, PartitionsFollowPlacementAcrossTasks) {
  absl::StatusOr<std::string> h = CreateSession(PsWorkerGraph());
  ASSERT_TRUE(h.ok()) << h.status();
  w0_->SetFetchValue("z:0", test::AsTensor<float>({5, 6}));
  ASSERT_TRUE(
      Run(*h, {{"x:0", test::AsTensor<float>({1, 2})}}, {"z:0"}, {}, nullptr)
          .ok());

  const tensorflow::GraphDef ps = Registered(*ps_);
  const tensorflow::GraphDef w0 = Registered(*w0_);
  const tensorflow::GraphDef w1 = Registered(*w1_);

  // /job:ps -> the ps task; /job:worker/task:1 -> worker 1; unplaced nodes
  // and the feed/fetch nodes -> CPU:0 of /job:worker/task:0.
  ASSERT_NE(FindNode(ps, "v"), nullptr);
  EXPECT_EQ(FindNode(ps, "v")->device(), Cpu0(kPs));
  ASSERT_NE(FindNode(w1, "y"), nullptr);
  EXPECT_EQ(FindNode(w1, "y")->device(), Cpu0(kWorker1));
  ASSERT_NE(FindNode(w0, "z"), nullptr);
  EXPECT_EQ(FindNode(w0, "z")->device(), Cpu0(kWorker0));
  EXPECT_EQ(FindNode(w0, "v"), nullptr);
  EXPECT_EQ(FindNode(w1, "v"), nullptr);

  // Client-terminated feed and fetch on the client device.
  bool feed = false, fetch = false;
  for (const auto* n : NodesWithOp(w0, "_Recv")) {
    if (n->attr().at("client_terminated").b()) {
      EXPECT_EQ(AttrS(*n, "tensor_name"), "x:0");
      EXPECT_EQ(n->device(), Cpu0(kWorker0));
      feed = true;
    }
  }
  for (const auto* n : NodesWithOp(w0, "_Send")) {
    if (n->attr().at("client_terminated").b()) {
      EXPECT_EQ(AttrS(*n, "tensor_name"), "z:0");
      fetch = true;
    }
  }
  EXPECT_TRUE(feed);
  EXPECT_TRUE(fetch);

  // v: ps -> worker 1, with the ps device's incarnation.
  bool v_edge = false;
  for (const auto* n : NodesWithOp(ps, "_Send")) {
    EXPECT_EQ(AttrS(*n, "send_device"), Cpu0(kPs));
    EXPECT_EQ(AttrS(*n, "recv_device"), Cpu0(kWorker1));
    EXPECT_EQ(static_cast<uint64_t>(AttrI(*n, "send_device_incarnation")),
              ps_->incarnation(Cpu0(kPs)));
    EXPECT_TRUE(absl::StrContains(n->name(), "/_")) << n->name();
    v_edge = true;
  }
  EXPECT_TRUE(v_edge);
  // Worker 1 receives x from worker 0 and v from ps, and sends y back.
  std::set<std::string> senders;
  for (const auto* n : NodesWithOp(w1, "_Recv")) {
    senders.insert(AttrS(*n, "send_device"));
  }
  EXPECT_EQ(senders, (std::set<std::string>{Cpu0(kPs), Cpu0(kWorker0)}));
  ASSERT_EQ(NodesWithOp(w1, "_Send").size(), 1u);
  EXPECT_EQ(AttrS(*NodesWithOp(w1, "_Send")[0], "recv_device"),
            Cpu0(kWorker0));
  EXPECT_EQ(static_cast<uint64_t>(
                AttrI(*NodesWithOp(w1, "_Send")[0], "send_device_incarnation")),
            w1_->incarnation(Cpu0(kWorker1)));

  // Registration carries the session.
  for (const auto& w : all_workers()) {
    const auto req = w->register_requests()[0];
    EXPECT_EQ(req.session_handle(), *h);
    EXPECT_TRUE(req.create_worker_session_called());
  }
}

TEST_F(MasterTest, ColocatedInitRunsOnlyOnThePsTask) {
  tensorflow::GraphDef g = PsWorkerGraph();
  tensorflow::GraphDef more = ParseGraph(R"pb(
    node { name: "init_value" op: "Const"
           attr { key: "dtype" value { type: DT_FLOAT } }
           attr { key: "value" value { tensor { dtype: DT_FLOAT
                  tensor_shape { dim { size: 2 } } float_val: 0 } } } }
    node { name: "init" op: "Assign" input: "v" input: "init_value"
           attr { key: "T" value { type: DT_FLOAT } } }
  )pb");
  for (const auto& n : more.node()) *g.add_node() = n;
  absl::StatusOr<std::string> h = CreateSession(g);
  ASSERT_TRUE(h.ok()) << h.status();
  ASSERT_TRUE(Run(*h, {}, {}, {"init"}, nullptr).ok());
  const tensorflow::GraphDef ps = Registered(*ps_);
  ASSERT_NE(FindNode(ps, "init"), nullptr);
  EXPECT_EQ(FindNode(ps, "init")->device(), Cpu0(kPs));
  EXPECT_NE(FindNode(ps, "init_value"), nullptr);
  EXPECT_EQ(w0_->num_register_graph(), 0);
  EXPECT_EQ(w1_->num_register_graph(), 0);
  EXPECT_EQ(w0_->num_run_graph(), 0);
  EXPECT_EQ(ps_->num_run_graph(), 1);

  // A feed nothing uses is accepted and ignored, as in TensorFlow.
  ASSERT_TRUE(
      Run(*h, {{"x:0", test::AsTensor<float>({1, 2})}}, {}, {"init"}, nullptr)
          .ok());
  EXPECT_EQ(w0_->num_run_graph(), 0);
  EXPECT_EQ(ps_->num_run_graph(), 2);
}

TEST_F(MasterTest, SoftPlacementDropsTheDeviceButKeepsTheTask) {
  tensorflow::GraphDef g = ParseGraph(R"pb(
    node { name: "c" op: "Const" device: "/job:worker/task:1/device:GPU:0"
           attr { key: "dtype" value { type: DT_FLOAT } }
           attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 1 } } } }
  )pb");
  absl::StatusOr<std::string> hard = CreateSession(g);
  EXPECT_TRUE(absl::IsInvalidArgument(hard.status())) << hard.status();
  EXPECT_THAT(std::string(hard.status().message()), HasSubstr("'c'"));

  tensorflow::ConfigProto config;
  config.set_allow_soft_placement(true);
  absl::StatusOr<std::string> h = CreateSession(g, config);
  ASSERT_TRUE(h.ok()) << h.status();
  ASSERT_TRUE(Run(*h, {}, {}, {"c"}, nullptr).ok());
  const tensorflow::GraphDef w1 = Registered(*w1_);
  ASSERT_NE(FindNode(w1, "c"), nullptr);
  EXPECT_EQ(FindNode(w1, "c")->device(), Cpu0(kWorker1));
}

TEST_F(MasterTest, NodesOnTheSecondCpuOfATaskStayInItsPartition) {
  tensorflow::GraphDef g = ParseGraph(R"pb(
    node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
    node { name: "y" op: "Identity" input: "x" device: "/device:CPU:1"
           attr { key: "T" value { type: DT_FLOAT } } }
  )pb");
  absl::StatusOr<std::string> h = CreateSession(g);
  ASSERT_TRUE(h.ok()) << h.status();
  w0_->SetFetchValue("y:0", test::AsTensor<float>({1}));
  ASSERT_TRUE(
      Run(*h, {{"x:0", test::AsTensor<float>({1})}}, {"y:0"}, {}, nullptr)
          .ok());
  // One partition per task: the worker splits by device itself.
  const tensorflow::GraphDef w0 = Registered(*w0_);
  ASSERT_NE(FindNode(w0, "y"), nullptr);
  EXPECT_EQ(FindNode(w0, "y")->device(),
            std::string(kWorker0) + "/device:CPU:1");
  EXPECT_TRUE(NodesWithOp(w0, "_Send").size() == 1);  // the fetch only
  EXPECT_EQ(w1_->num_register_graph(), 0);
}

TEST(MasterWithoutWorkerJob, ClientDeviceIsTheFirstTask) {
  InProcessWorkerCache cache;
  auto a = std::make_shared<FakeWorker>("/job:ps/replica:0/task:0");
  auto b = std::make_shared<FakeWorker>("/job:ps/replica:0/task:1");
  cache.AddWorker(a->task(), a);
  cache.AddWorker(b->task(), b);
  MasterOptions o;
  o.worker_cache = &cache;
  Master master(o);
  tensorflow::CreateSessionRequest req;
  *req.mutable_graph_def() = ParseGraph(R"pb(
    node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
  )pb");
  tensorflow::CreateSessionResponse resp;
  ASSERT_TRUE(master.CreateSession(nullptr, req, &resp).ok());
  RunStepRequestMsg run;
  run.proto.set_session_handle(resp.session_handle());
  run.feed.emplace_back("x:0", test::AsTensor<float>({1}));
  run.proto.add_fetch("x:0");
  RunStepResponseMsg out;
  ASSERT_TRUE(master.RunStep(nullptr, run, &out).ok());
  EXPECT_EQ(a->num_run_graph(), 1);
  EXPECT_EQ(b->num_run_graph(), 0);
}

}  // namespace
}  // namespace test
}  // namespace tributary
