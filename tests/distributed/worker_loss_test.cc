// Losing a worker process (kill -9): steps that need it fail with Unavailable
// naming it, before their deadline, whether they start after the loss or
// were running when it happened; the master keeps serving sessions that do
// not need it; a restarted worker (same address, new incarnation) serves new
// sessions. Each test has its own cluster.

#include <chrono>
#include <future>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/distributed/cluster_fixture.h"
#include "tests/distributed/distributed_test_util.h"
#include "tools/client/graph_builder.h"
#include "tools/client/session.h"

namespace tributary {
namespace test {
namespace {

// Generous: these steps must end by themselves (Unavailable) long before.
constexpr int kStepTimeoutMs = 30000;

class WorkerLossTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto cluster = TestCluster::Start();
    ASSERT_TRUE(cluster.ok()) << cluster.status();
    cluster_ = std::move(cluster).value();
  }
  void TearDown() override {
    if (HasFailure() && cluster_) cluster_->DumpLogs();
  }
  std::string target() const { return cluster_->master_target(); }

  std::unique_ptr<TestCluster> cluster_;
};

// Needs worker 1: x (fed on worker 0) * 3 on worker 1, fetched on ps.
tensorflow::GraphDef UsesWorker1() {
  GraphBuilder b;
  AddTimesThreeAcrossTasks(&b);
  Output never = NeverArrivingRecv(&b, Cpu(kWorker1), "never");
  b.Identity(never, NodeOptions("blocked").WithDevice(Cpu(kWorker0)));
  return b.Build().value();
}

// Needs only ps and worker 0.
tensorflow::GraphDef AvoidsWorker1() {
  GraphBuilder b;
  Output x = b.Placeholder(tensorflow::DT_FLOAT, {},
                           NodeOptions("x").WithDevice(Cpu(kWorker0)));
  b.Add(x, b.Scalar<float>(1.0f, NodeOptions("one").WithDevice(Cpu(kPs))),
        NodeOptions("out").WithDevice(Cpu(kPs)));
  return b.Build().value();
}

absl::StatusOr<float> RunOut(Session* s, float x,
                             int timeout_ms = kStepTimeoutMs) {
  std::vector<Tensor> out;
  absl::Status st =
      RunStep(s, {{"x", Tensor(x)}}, {"out"}, {}, &out, timeout_ms);
  if (!st.ok()) return st;
  return out[0].scalar<float>()();
}

bool NamesWorker1(const absl::Status& st, const std::string& address) {
  return absl::StrContains(st.message(), "/job:worker/replica:0/task:1") ||
         absl::StrContains(st.message(), address);
}

TEST_F(WorkerLossTest, KilledWorkerIsUnavailableAndOtherSessionsGoOn) {
  auto needs = OpenSession(target(), UsesWorker1());
  ASSERT_TRUE(needs.ok()) << needs.status();
  auto avoids = OpenSession(target(), AvoidsWorker1());
  ASSERT_TRUE(avoids.ok()) << avoids.status();
  ASSERT_EQ(RunOut(needs->get(), 2.0f).value_or(-1), 6.0f);
  ASSERT_EQ(RunOut(avoids->get(), 2.0f).value_or(-1), 3.0f);

  ASSERT_TRUE(cluster_->KillTask("worker", 1).ok());
  const std::string address = cluster_->TaskAddress("worker", 1);

  for (int i = 0; i < 2; ++i) {
    absl::StatusOr<float> lost = RunOut(needs->get(), 2.0f);
    EXPECT_EQ(lost.status().code(), absl::StatusCode::kUnavailable)
        << lost.status();
    EXPECT_TRUE(NamesWorker1(lost.status(), address)) << lost.status();
    // The session that never needed worker 1 is unaffected.
    absl::StatusOr<float> fine = RunOut(avoids->get(), 5.0f);
    EXPECT_TRUE(fine.ok()) << fine.status();
    EXPECT_EQ(fine.value_or(-1), 6.0f);
  }

  // A new session must discover every task. Worker 1 answered the master
  // before, so it is down, not starting: the session fails with Aborted
  // naming it within seconds (master/task_liveness.h), not at the end of
  // its (long) operation timeout.
  tensorflow::ConfigProto long_config;
  long_config.set_operation_timeout_in_ms(600000);
  const absl::Time before = absl::Now();
  auto fresh = OpenSession(target(), AvoidsWorker1(), long_config);
  ASSERT_FALSE(fresh.ok());
  std::cout << "new session with worker 1 down failed after "
            << absl::Now() - before << ": " << fresh.status() << "\n";
  EXPECT_EQ(fresh.status().code(), absl::StatusCode::kAborted)
      << fresh.status();
  EXPECT_TRUE(NamesWorker1(fresh.status(), address)) << fresh.status();
  EXPECT_THAT(std::string(fresh.status().message()),
              ::testing::HasSubstr("is down"));
  EXPECT_TRUE(cluster_->MasterRunning());
}

TEST_F(WorkerLossTest, DeviceFiltersLetANewSessionIgnoreTheLostTask) {
  ASSERT_TRUE(cluster_->KillTask("worker", 1).ok());
  // TensorFlow's way to use part of a cluster: device_filters restrict the
  // devices (and so the tasks) a session uses.
  tensorflow::ConfigProto config = DefaultConfig();
  config.add_device_filters("/job:ps");
  config.add_device_filters("/job:worker/task:0");
  auto session = OpenSession(target(), AvoidsWorker1(), config);
  ASSERT_TRUE(session.ok()) << session.status();
  absl::StatusOr<float> out = RunOut(session->get(), 1.5f);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(*out, 2.5f);
}

TEST_F(WorkerLossTest, WorkerKilledDuringAStepFailsItWithUnavailable) {
  auto session = OpenSession(target(), UsesWorker1());
  ASSERT_TRUE(session.ok()) << session.status();
  Session* s = session->get();
  ASSERT_EQ(RunOut(s, 1.0f).value_or(-1), 3.0f);
  std::future<absl::Status> step = std::async(std::launch::async, [s] {
    std::vector<Tensor> out;
    return RunStep(s, {}, {"blocked"}, {}, &out, kStepTimeoutMs);
  });
  // The step blocks on worker 1; whether or not it reached it yet, killing
  // the worker must end it with Unavailable, not with its deadline.
  ASSERT_EQ(step.wait_for(std::chrono::milliseconds(300)),
            std::future_status::timeout);
  ASSERT_TRUE(cluster_->KillTask("worker", 1).ok());
  ASSERT_EQ(step.wait_for(std::chrono::milliseconds(kStepTimeoutMs + 30000)),
            std::future_status::ready);
  absl::Status st = step.get();
  EXPECT_EQ(st.code(), absl::StatusCode::kUnavailable) << st;
  EXPECT_TRUE(cluster_->MasterRunning());
}

TEST_F(WorkerLossTest, RestartedWorkerServesANewSession) {
  // State on worker 1 before the crash: a variable there, initialised.
  GraphBuilder b;
  Output v = b.Variable({}, tensorflow::DT_FLOAT,
                        NodeOptions("w1_var").WithDevice(Cpu(kWorker1)));
  b.Assign(v,
           b.Scalar<float>(4.0f, NodeOptions("four").WithDevice(Cpu(kWorker1))),
           NodeOptions("init").WithDevice(Cpu(kWorker1)));
  b.Identity(v, NodeOptions("read").WithDevice(Cpu(kWorker0)));
  tensorflow::GraphDef var_graph = b.Build().value();
  auto before = OpenSession(target(), var_graph);
  ASSERT_TRUE(before.ok()) << before.status();
  std::vector<Tensor> out;
  ASSERT_TRUE(RunStep(before->get(), {}, {}, {"init"}, &out).ok());
  ASSERT_TRUE(RunStep(before->get(), {}, {"read"}, {}, &out).ok());

  auto incarnation_of_worker1 = [&]() -> uint64_t {
    auto worker = cluster_->NewWorkerStub("worker", 1);
    grpc::ClientContext ctx;
    ctx.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(30)));
    tensorflow::GetStatusRequest req;
    tensorflow::GetStatusResponse resp;
    grpc::Status s = worker->GetStatus(&ctx, req, &resp);
    EXPECT_TRUE(s.ok()) << s.error_message();
    return s.ok() && resp.device_attributes_size() > 0
               ? resp.device_attributes(0).incarnation()
               : 0;
  };
  const uint64_t old_incarnation = incarnation_of_worker1();

  ASSERT_TRUE(cluster_->KillTask("worker", 1).ok());
  absl::Status restarted = cluster_->RestartTask("worker", 1);
  ASSERT_TRUE(restarted.ok()) << restarted;
  EXPECT_NE(incarnation_of_worker1(), old_incarnation);

  // The old session's step ends at once with Aborted saying the worker was
  // restarted: its devices have other incarnations (named, when a transfer
  // notices first) or it does not know the session (when RunGraph does).
  absl::Status old_step =
      RunStep(before->get(), {}, {"read"}, {}, &out, kStepTimeoutMs);
  std::cout << "old session's step after the restart: " << old_step << "\n";
  EXPECT_EQ(old_step.code(), absl::StatusCode::kAborted) << old_step;
  EXPECT_THAT(std::string(old_step.message()),
              ::testing::HasSubstr("restarted"));

  // A new session uses the new worker 1...
  auto after = OpenSession(target(), UsesWorker1());
  ASSERT_TRUE(after.ok()) << after.status();
  for (int i = 0; i < 3; ++i) {
    absl::StatusOr<float> y = RunOut(after->get(), 1.0f + i);
    ASSERT_TRUE(y.ok()) << y.status();
    EXPECT_EQ(*y, 3.0f * (1.0f + i));
  }
  // ...whose variables started over.
  auto fresh_vars = OpenSession(target(), var_graph);
  ASSERT_TRUE(fresh_vars.ok()) << fresh_vars.status();
  absl::Status st = RunStep(fresh_vars->get(), {}, {"read"}, {}, &out);
  EXPECT_EQ(st.code(), absl::StatusCode::kFailedPrecondition) << st;
  ASSERT_TRUE(RunStep(fresh_vars->get(), {}, {}, {"init"}, &out).ok());
  st = RunStep(fresh_vars->get(), {}, {"read"}, {}, &out);
  ASSERT_TRUE(st.ok()) << st;
  EXPECT_EQ(out[0].scalar<float>()(), 4.0f);

  // ListDevices through the master reports the new incarnation.
  auto master = cluster_->NewMasterStub();
  grpc::ClientContext ctx;
  ctx.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(30)));
  tensorflow::ListDevicesRequest req;
  tensorflow::ListDevicesResponse resp;
  ASSERT_TRUE(master->ListDevices(&ctx, req, &resp).ok());
  bool found = false;
  for (const auto* list : {&resp.local_device(), &resp.remote_device()}) {
    for (const auto& d : *list) {
      if (d.name() == Cpu(kWorker1)) {
        found = true;
        EXPECT_NE(d.incarnation(), old_incarnation);
      }
    }
  }
  EXPECT_TRUE(found);
}

}  // namespace
}  // namespace test
}  // namespace tributary
