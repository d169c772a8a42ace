// State and sessions on a real cluster (1 ps + 2 workers, two CPU devices per
// task): variables on /job:ps persist across steps and are shared by steps
// computed on different workers; sessions keep their graphs apart and share
// variables unless isolate_session_state is set (TensorFlow's semantics);
// ListDevices lists every device of every task.

#include <algorithm>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "tests/distributed/cluster_fixture.h"
#include "tests/distributed/shared_cluster_test.h"
#include "tests/distributed/distributed_test_util.h"
#include "tools/client/graph_builder.h"
#include "tools/client/session.h"

namespace tributary {
namespace test {
namespace {

constexpr int kCpusPerTask = 2;

class StateAndSessionsTest : public SharedClusterTest {
 protected:
  static void SetUpTestSuite() {
    ClusterOptions options;
    options.worker_flags = {"--cpu-devices", std::to_string(kCpusPerTask)};
    StartSharedCluster(options);
  }
};

float FetchScalar(Session* s, const std::string& name) {
  std::vector<Tensor> out;
  absl::Status st = RunStep(s, {}, {name}, {}, &out);
  EXPECT_TRUE(st.ok()) << name << ": " << st;
  return st.ok() && out.size() == 1 ? out[0].scalar<float>()() : -12345.0f;
}

void RunTarget(Session* s, const std::string& name) {
  std::vector<Tensor> out;
  absl::Status st = RunStep(s, {}, {}, {name}, &out);
  EXPECT_TRUE(st.ok()) << name << ": " << st;
}

TEST_F(StateAndSessionsTest, PsVariableIsSharedByStepsOnTwoWorkers) {
  GraphBuilder b;
  Output v = b.Variable({}, tensorflow::DT_FLOAT,
                        NodeOptions("ps_v").WithDevice(Cpu(kPs)));
  b.Assign(v, b.Scalar<float>(1.0f, NodeOptions("one").WithDevice(Cpu(kPs))),
           NodeOptions("init").WithDevice(Cpu(kPs)));
  // Worker 0 doubles it; worker 1 (on its second CPU) adds value + 1.
  Output read0 = b.Identity(v, NodeOptions("read0").WithDevice(Cpu(kWorker0)));
  b.Assign(v,
           b.Mul(read0, b.Scalar<float>(2.0f),
                 NodeOptions("doubled").WithDevice(Cpu(kWorker0))),
           NodeOptions("double_step").WithDevice(Cpu(kPs)));
  Output read1 =
      b.Identity(v, NodeOptions("read1").WithDevice(Cpu(kWorker1, 1)));
  b.AssignAdd(v,
              b.Add(read1, b.Scalar<float>(1.0f),
                    NodeOptions("plus_one").WithDevice(Cpu(kWorker1, 1))),
              NodeOptions("add_step").WithDevice(Cpu(kPs)));
  auto graph = b.Build();
  ASSERT_TRUE(graph.ok()) << graph.status();
  auto session = OpenSession(target(), *graph);
  ASSERT_TRUE(session.ok()) << session.status();
  Session* s = session->get();

  RunTarget(s, "init");
  float want = 1.0f;
  for (int i = 0; i < 6; ++i) {
    if (i % 2 == 0) {
      RunTarget(s, "double_step");
      want *= 2;
    } else {
      RunTarget(s, "add_step");
      want += want + 1;
    }
    // Each worker reads what the other one wrote.
    EXPECT_EQ(FetchScalar(s, "read0"), want) << "after step " << i;
    EXPECT_EQ(FetchScalar(s, "read1"), want) << "after step " << i;
    EXPECT_EQ(FetchScalar(s, "ps_v"), want) << "after step " << i;
  }
  EXPECT_TRUE(s->Close().ok());
}

TEST_F(StateAndSessionsTest, ConcurrentUpdatesFromTwoWorkers) {
  GraphBuilder b;
  Output v = b.Variable({}, tensorflow::DT_FLOAT,
                        NodeOptions("counter").WithDevice(Cpu(kPs)));
  b.Assign(v, b.Scalar<float>(0.0f, NodeOptions("zero").WithDevice(Cpu(kPs))),
           NodeOptions("init").WithDevice(Cpu(kPs)));
  tensorflow::AttrValue locking;
  locking.set_b(true);
  for (const char* worker : {kWorker0, kWorker1}) {
    const std::string tag = worker == kWorker0 ? "w0" : "w1";
    Output one = b.Scalar<float>(
        1.0f, NodeOptions("one_" + tag).WithDevice(Cpu(worker)));
    b.AddSingleOutputNode("AssignAdd", {v, one}, {{"use_locking", locking}},
                          NodeOptions("inc_" + tag).WithDevice(Cpu(kPs)));
  }
  auto graph = b.Build();
  ASSERT_TRUE(graph.ok()) << graph.status();
  auto session = OpenSession(target(), *graph);
  ASSERT_TRUE(session.ok()) << session.status();
  Session* s = session->get();
  RunTarget(s, "init");

  constexpr int kSteps = 40;
  // Session::Run is thread-safe; two clients drive two workers at once.
  std::vector<absl::Status> failures[2];
  std::thread threads[2];
  for (int t = 0; t < 2; ++t) {
    threads[t] = std::thread([&, t] {
      for (int i = 0; i < kSteps; ++i) {
        std::vector<Tensor> out;
        absl::Status st =
            RunStep(s, {}, {}, {t == 0 ? "inc_w0" : "inc_w1"}, &out);
        if (!st.ok()) failures[t].push_back(st);
      }
    });
  }
  for (auto& thread : threads) thread.join();
  for (const auto& f : failures) {
    for (const auto& st : f) ADD_FAILURE() << st;
  }
  EXPECT_EQ(FetchScalar(s, "counter"), 2.0f * kSteps);
}

TEST_F(StateAndSessionsTest, SessionsKeepTheirGraphsApart) {
  auto make = [](float value, bool extra) {
    GraphBuilder b;
    Output c =
        b.Scalar<float>(value, NodeOptions("c").WithDevice(Cpu(kWorker1)));
    b.Add(c, c, NodeOptions("twice").WithDevice(Cpu(kWorker0)));
    if (extra) b.Neg(c, NodeOptions("only_in_b").WithDevice(Cpu(kPs)));
    return b.Build().value();
  };
  auto a = OpenSession(target(), make(1.0f, false));
  ASSERT_TRUE(a.ok()) << a.status();
  auto bs = OpenSession(target(), make(2.0f, true));
  ASSERT_TRUE(bs.ok()) << bs.status();
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(FetchScalar(a->get(), "twice"), 2.0f);
    EXPECT_EQ(FetchScalar(bs->get(), "twice"), 4.0f);
  }
  EXPECT_EQ(FetchScalar(bs->get(), "only_in_b"), -2.0f);

  // A node of the other session's graph is unknown here, with the code the
  // local session gives for an unknown fetch.
  auto local = OpenSession("", StripDevices(make(1.0f, false)),
                           tensorflow::ConfigProto());
  ASSERT_TRUE(local.ok());
  std::vector<Tensor> out;
  absl::Status want = RunStep(local->get(), {}, {"only_in_b"}, {}, &out);
  ASSERT_FALSE(want.ok());
  absl::Status got = RunStep(a->get(), {}, {"only_in_b"}, {}, &out);
  EXPECT_EQ(got.code(), want.code()) << got;

  // Closing one session leaves the other working.
  EXPECT_TRUE((*a)->Close().ok());
  EXPECT_FALSE(RunStep(a->get(), {}, {"twice"}, {}, &out).ok());
  EXPECT_EQ(FetchScalar(bs->get(), "twice"), 4.0f);
  EXPECT_TRUE((*bs)->Close().ok());
}

TEST_F(StateAndSessionsTest, VariablesAreSharedUnlessSessionStateIsIsolated) {
  GraphBuilder b;
  Output v = b.Variable({}, tensorflow::DT_FLOAT,
                        NodeOptions("shared_var").WithDevice(Cpu(kPs)));
  b.Assign(v, b.Scalar<float>(7.0f, NodeOptions("seven").WithDevice(Cpu(kPs))),
           NodeOptions("init").WithDevice(Cpu(kPs)));
  b.AssignAdd(
      v, b.Scalar<float>(1.0f, NodeOptions("one").WithDevice(Cpu(kWorker1))),
      NodeOptions("inc").WithDevice(Cpu(kPs)));
  b.Identity(v, NodeOptions("read").WithDevice(Cpu(kWorker0)));
  auto graph = b.Build();
  ASSERT_TRUE(graph.ok()) << graph.status();

  auto first = OpenSession(target(), *graph);
  ASSERT_TRUE(first.ok()) << first.status();
  RunTarget(first->get(), "init");
  RunTarget(first->get(), "inc");
  // isolate_session_state = false (the default): the workers' shared
  // resource manager holds the variable, as in TensorFlow.
  auto second = OpenSession(target(), *graph);
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_EQ(FetchScalar(second->get(), "read"), 8.0f);

  tensorflow::ConfigProto isolated_config = DefaultConfig();
  isolated_config.set_isolate_session_state(true);
  auto isolated = OpenSession(target(), *graph, isolated_config);
  ASSERT_TRUE(isolated.ok()) << isolated.status();
  std::vector<Tensor> out;
  absl::Status st = RunStep(isolated->get(), {}, {"read"}, {}, &out);
  EXPECT_EQ(st.code(), absl::StatusCode::kFailedPrecondition) << st;
  RunTarget(isolated->get(), "init");
  RunTarget(isolated->get(), "inc");
  RunTarget(isolated->get(), "inc");
  EXPECT_EQ(FetchScalar(isolated->get(), "read"), 9.0f);
  // The shared variable did not see the isolated session's steps...
  EXPECT_EQ(FetchScalar(second->get(), "read"), 8.0f);
  // ...and survives the sessions that used it being closed.
  EXPECT_TRUE((*first)->Close().ok());
  EXPECT_TRUE((*isolated)->Close().ok());
  EXPECT_EQ(FetchScalar(second->get(), "read"), 8.0f);
  EXPECT_TRUE((*second)->Close().ok());
}

TEST_F(StateAndSessionsTest, ListDevicesListsEveryDeviceOfEveryTask) {
  std::set<std::string> want;
  for (const std::string& task : cluster_->TaskNames()) {
    for (int i = 0; i < kCpusPerTask; ++i) want.insert(Cpu(task, i));
  }
  // Through the client's Session.
  auto session = NewSession(target(), DefaultConfig());
  ASSERT_TRUE(session.ok()) << session.status();
  auto listed = (*session)->ListDevices();
  ASSERT_TRUE(listed.ok()) << listed.status();
  std::set<std::string> names;
  for (const auto& d : *listed) names.insert(d.name());
  EXPECT_EQ(names, want);

  // Raw MasterService.ListDevices without a session, compared with each
  // worker's own GetStatus (names, types, incarnations).
  auto master = cluster_->NewMasterStub();
  grpc::ClientContext ctx;
  ctx.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(30)));
  tensorflow::ListDevicesRequest req;
  tensorflow::ListDevicesResponse resp;
  grpc::Status gs = master->ListDevices(&ctx, req, &resp);
  ASSERT_TRUE(gs.ok()) << gs.error_message();
  std::map<std::string, tensorflow::DeviceAttributes> from_master;
  for (const auto& d : resp.local_device()) from_master[d.name()] = d;
  for (const auto& d : resp.remote_device()) from_master[d.name()] = d;
  EXPECT_EQ(from_master.size(), want.size());

  std::set<uint64_t> incarnations;
  for (const auto& [job, count] : ClusterOptions().jobs) {
    for (int t = 0; t < count; ++t) {
      auto worker = cluster_->NewWorkerStub(job, t);
      grpc::ClientContext wctx;
      wctx.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(30)));
      tensorflow::GetStatusRequest sreq;
      tensorflow::GetStatusResponse sresp;
      grpc::Status ws = worker->GetStatus(&wctx, sreq, &sresp);
      ASSERT_TRUE(ws.ok()) << job << ":" << t << " " << ws.error_message();
      EXPECT_EQ(sresp.device_attributes_size(), kCpusPerTask);
      for (const auto& d : sresp.device_attributes()) {
        SCOPED_TRACE(d.name());
        EXPECT_EQ(d.device_type(), "CPU");
        EXPECT_NE(d.incarnation(), 0u);
        incarnations.insert(d.incarnation());
        auto it = from_master.find(d.name());
        ASSERT_NE(it, from_master.end());
        EXPECT_EQ(it->second.incarnation(), d.incarnation());
        EXPECT_EQ(it->second.device_type(), d.device_type());
      }
    }
  }
  EXPECT_EQ(incarnations.size(), want.size()) << "incarnations must differ";
}

}  // namespace
}  // namespace test
}  // namespace tributary
