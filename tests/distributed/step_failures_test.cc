// How a step ends when it cannot finish: a kernel error on one worker fails
// the whole step with that error (code and node name) while the partitions on
// the other tasks stop; a step that blocks ends with DeadlineExceeded at
// RunOptions.timeout_in_ms or ConfigProto.operation_timeout_in_ms; closing a
// session cancels its blocked step. After each, the same workers keep
// running steps (nothing of the failed step is left behind to get in the way).

#include <chrono>
#include <future>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/time/clock.h"
#include "gtest/gtest.h"
#include "tests/distributed/cluster_fixture.h"
#include "tests/distributed/shared_cluster_test.h"
#include "tests/distributed/distributed_test_util.h"
#include "tools/client/graph_builder.h"
#include "tools/client/session.h"
#include "tools/client/tensor_helpers.h"

namespace tributary {
namespace test {
namespace {

class StepFailuresTest : public SharedClusterTest {};

// A graph over all three tasks whose MatMul on worker 1 fails when `a` and
// `b` are fed with mismatched shapes, while ps and worker 0 wait for its
// result (their _Recvs would hang if nobody stopped them), and whose `good`
// fetch touches every task too.
tensorflow::GraphDef ThreeTaskGraph() {
  GraphBuilder b;
  Output a = b.Placeholder(tensorflow::DT_FLOAT, PartialTensorShape(),
                           NodeOptions("a").WithDevice(Cpu(kWorker0)));
  Output c = b.Placeholder(tensorflow::DT_FLOAT, PartialTensorShape(),
                           NodeOptions("c").WithDevice(Cpu(kPs)));
  Output mm = b.MatMul(a, c, false, false,
                       NodeOptions("bad_matmul").WithDevice(Cpu(kWorker1)));
  b.Mul(mm, b.Scalar<float>(2.0f), NodeOptions("on_ps").WithDevice(Cpu(kPs)));
  b.Add(mm, a, NodeOptions("on_worker0").WithDevice(Cpu(kWorker0)));
  // Independent work on ps and worker 0 in the same step.
  b.Sum(b.Square(c, NodeOptions("c_sq").WithDevice(Cpu(kWorker0))),
        b.Const<int32_t>({0}, {1}), false,
        NodeOptions("good").WithDevice(Cpu(kWorker1)));
  return b.Build().value();
}

Tensor Matrix(int rows, int cols) {
  std::vector<float> v(rows * cols, 1.0f);
  return MakeTensor<float>(v, {rows, cols}).value();
}

TEST_F(StepFailuresTest, KernelErrorOnOneWorkerFailsTheStepWithItsNode) {
  auto session = OpenSession(target(), ThreeTaskGraph());
  ASSERT_TRUE(session.ok()) << session.status();
  Session* s = session->get();
  std::vector<Tensor> out;
  // Repeated: each failed step must leave nothing behind that trips the next.
  for (int i = 0; i < 10; ++i) {
    SCOPED_TRACE(i);
    absl::Status st = RunStep(s, {{"a", Matrix(2, 3)}, {"c", Matrix(2, 3)}},
                              {"on_ps", "on_worker0"}, {}, &out);
    ASSERT_EQ(st.code(), absl::StatusCode::kInvalidArgument) << st;
    EXPECT_TRUE(absl::StrContains(st.message(), "bad_matmul")) << st;
    // The same workers run the next step, with and without the failing node.
    st = RunStep(s, {{"a", Matrix(2, 3)}, {"c", Matrix(3, 1)}},
                 {"on_ps", "good"}, {}, &out);
    ASSERT_TRUE(st.ok()) << st;
    ASSERT_EQ(out.size(), 2u);
    EXPECT_EQ(out[0].flat<float>()(0), 6.0f);
  }
  EXPECT_TRUE(s->Close().ok());
}

TEST_F(StepFailuresTest, ErrorFromAWorkerInAnotherSessionLeavesThisOneAlone) {
  auto failing = OpenSession(target(), ThreeTaskGraph());
  ASSERT_TRUE(failing.ok()) << failing.status();
  auto healthy = OpenSession(target(), ThreeTaskGraph());
  ASSERT_TRUE(healthy.ok()) << healthy.status();
  std::vector<Tensor> out;
  for (int i = 0; i < 3; ++i) {
    absl::Status st =
        RunStep(failing->get(), {{"a", Matrix(1, 2)}, {"c", Matrix(3, 1)}},
                {"on_worker0"}, {}, &out);
    EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument) << st;
    st = RunStep(healthy->get(), {{"a", Matrix(1, 3)}, {"c", Matrix(3, 2)}},
                 {"on_ps", "good"}, {}, &out);
    EXPECT_TRUE(st.ok()) << st;
  }
}

// A graph whose `blocked` fetch waits on worker 1 for a tensor nobody sends,
// and whose `ok` fetch needs worker 1 and ps.
tensorflow::GraphDef BlockingGraph() {
  GraphBuilder b;
  Output never = NeverArrivingRecv(&b, Cpu(kWorker1), "never");
  b.Add(never, b.Scalar<float>(1.0f, NodeOptions("one").WithDevice(Cpu(kPs))),
        NodeOptions("blocked").WithDevice(Cpu(kWorker0)));
  b.Mul(b.Scalar<float>(3.0f, NodeOptions("three").WithDevice(Cpu(kWorker1))),
        b.Scalar<float>(2.0f, NodeOptions("two").WithDevice(Cpu(kPs))),
        NodeOptions("ok").WithDevice(Cpu(kWorker0)));
  return b.Build().value();
}

TEST_F(StepFailuresTest, RunOptionsTimeoutOnABlockedStepIsDeadlineExceeded) {
  auto session = OpenSession(target(), BlockingGraph());
  ASSERT_TRUE(session.ok()) << session.status();
  std::vector<Tensor> out;
  for (int i = 0; i < 3; ++i) {
    SCOPED_TRACE(i);
    absl::Status st =
        RunStep(session->get(), {}, {"blocked"}, {}, &out, /*timeout_ms=*/500);
    EXPECT_EQ(st.code(), absl::StatusCode::kDeadlineExceeded) << st;
    st = RunStep(session->get(), {}, {"ok"}, {}, &out);
    ASSERT_TRUE(st.ok()) << st;
    EXPECT_EQ(out[0].scalar<float>()(), 6.0f);
  }
}

TEST_F(StepFailuresTest, OperationTimeoutBoundsEveryStepOfTheSession) {
  tensorflow::ConfigProto config;
  config.set_operation_timeout_in_ms(500);
  auto session = OpenSession(target(), BlockingGraph(), config);
  ASSERT_TRUE(session.ok()) << session.status();
  std::vector<Tensor> out;
  // RunOptions without a timeout: the session's operation timeout applies.
  absl::Status st = (*session)->Run({}, {"blocked"}, {}, &out);
  EXPECT_EQ(st.code(), absl::StatusCode::kDeadlineExceeded) << st;
  st = (*session)->Run({}, {"ok"}, {}, &out);
  EXPECT_TRUE(st.ok()) << st;
}

TEST_F(StepFailuresTest, TheMasterItselfEnforcesTheStepTimeouts) {
  // Raw RunStep calls with a far gRPC deadline: DeadlineExceeded can only
  // come from the master bounding the step, not from the client giving up.
  auto master = cluster_->NewMasterStub();
  for (bool per_step : {true, false}) {
    SCOPED_TRACE(per_step ? "RunOptions.timeout_in_ms"
                          : "ConfigProto.operation_timeout_in_ms");
    tensorflow::CreateSessionRequest create;
    *create.mutable_graph_def() = BlockingGraph();
    if (!per_step) create.mutable_config()->set_operation_timeout_in_ms(500);
    tensorflow::CreateSessionResponse created;
    {
      grpc::ClientContext ctx;
      ctx.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(60)));
      grpc::Status s = master->CreateSession(&ctx, create, &created);
      ASSERT_TRUE(s.ok()) << s.error_message();
    }
    tensorflow::RunStepRequest run;
    run.set_session_handle(created.session_handle());
    run.add_fetch("blocked");
    if (per_step) run.mutable_options()->set_timeout_in_ms(500);
    tensorflow::RunStepResponse response;
    grpc::ClientContext ctx;
    ctx.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(60)));
    grpc::Status s = master->RunStep(&ctx, run, &response);
    EXPECT_EQ(s.error_code(), grpc::StatusCode::DEADLINE_EXCEEDED)
        << s.error_message();

    tensorflow::CloseSessionRequest close;
    close.set_session_handle(created.session_handle());
    tensorflow::CloseSessionResponse closed;
    grpc::ClientContext close_ctx;
    close_ctx.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(60)));
    EXPECT_TRUE(master->CloseSession(&close_ctx, close, &closed).ok());
  }
}

TEST_F(StepFailuresTest, CloseCancelsABlockedStep) {
  auto session = OpenSession(target(), BlockingGraph());
  ASSERT_TRUE(session.ok()) << session.status();
  Session* s = session->get();
  // The step runs on another thread; the safety timeout bounds it.
  std::future<absl::Status> step = std::async(std::launch::async, [s] {
    std::vector<Tensor> out;
    return RunStep(s, {}, {"blocked"}, {}, &out);
  });
  // Close cannot know when the step has reached the workers; closing first
  // is also a valid order, so whichever happens, the step must end.
  EXPECT_EQ(step.wait_for(std::chrono::milliseconds(300)),
            std::future_status::timeout)
      << "the blocked step finished before the session was closed";
  absl::Status closed = s->Close();
  EXPECT_TRUE(closed.ok()) << closed;
  ASSERT_EQ(step.wait_for(std::chrono::seconds(kSafetyTimeoutMs / 1000 + 30)),
            std::future_status::ready);
  absl::Status st = step.get();
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.code(), absl::StatusCode::kDeadlineExceeded)
      << "the step ran into its safety timeout instead of being cancelled: "
      << st;

  // The workers serve a new session afterwards.
  auto next = OpenSession(target(), BlockingGraph());
  ASSERT_TRUE(next.ok()) << next.status();
  std::vector<Tensor> out;
  st = RunStep(next->get(), {}, {"ok"}, {}, &out);
  EXPECT_TRUE(st.ok()) << st;
}

}  // namespace
}  // namespace test
}  // namespace tributary
