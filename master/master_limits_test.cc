// The master's limits against abuse (docs/limits.md): GraphDef size
// (CreateSession, ExtendSession), sessions open at once, steps in flight per
// client and per session. Each is ResourceExhausted naming its flag, and
// the master serves the next call normally afterwards.

#include <string>
#include <thread>
#include <vector>

#include "absl/synchronization/notification.h"
#include "common/framework/tensor_testutil.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "master/master.h"
#include "master/testing/master_test_util.h"

namespace tributary {
namespace test {
namespace {

using ::testing::HasSubstr;

absl::Status CloseSession(Master* master, const std::string& handle) {
  tensorflow::CloseSessionRequest req;
  req.set_session_handle(handle);
  tensorflow::CloseSessionResponse resp;
  return master->CloseSession(req, &resp);
}

TEST_F(MasterTest, GraphOverMaxGraphNodesIsResourceExhausted) {
  MasterOptions o = DefaultOptions();
  const int64_t nodes = PsWorkerGraph().node_size();
  o.max_graph_nodes = nodes;
  RestartMaster(o);
  // Exactly at the limit is fine; one more node through Extend is not.
  absl::StatusOr<std::string> h = CreateSession(PsWorkerGraph());
  ASSERT_TRUE(h.ok()) << h.status();
  tensorflow::ExtendSessionRequest req;
  req.set_session_handle(*h);
  tensorflow::NodeDef* extra = req.mutable_graph_def()->add_node();
  extra->set_name("extra");
  extra->set_op("NoOp");
  tensorflow::ExtendSessionResponse resp;
  absl::Status s = master_->ExtendSession(req, &resp);
  EXPECT_EQ(s.code(), absl::StatusCode::kResourceExhausted) << s;
  EXPECT_THAT(std::string(s.message()), HasSubstr("--max-graph-nodes"));
  EXPECT_THAT(std::string(s.message()),
              HasSubstr("has " + std::to_string(nodes + 1) + " nodes"));

  // Nodes of the library's functions count too.
  tensorflow::GraphDef with_function = PsWorkerGraph();
  with_function.mutable_library()->add_function()->add_node_def()->set_name(
      "f");
  h = CreateSession(with_function);
  ASSERT_EQ(h.status().code(), absl::StatusCode::kResourceExhausted)
      << h.status();
  EXPECT_THAT(std::string(h.status().message()), HasSubstr("CreateSession"));
}

TEST_F(MasterTest, GraphOverMaxGraphBytesIsResourceExhausted) {
  MasterOptions o = DefaultOptions();
  const int64_t size = static_cast<int64_t>(PsWorkerGraph().ByteSizeLong());
  o.max_graph_bytes = size - 1;
  RestartMaster(o);
  absl::StatusOr<std::string> h = CreateSession(PsWorkerGraph());
  ASSERT_EQ(h.status().code(), absl::StatusCode::kResourceExhausted)
      << h.status();
  EXPECT_THAT(std::string(h.status().message()),
              HasSubstr("--max-graph-bytes"));
  EXPECT_THAT(std::string(h.status().message()),
              HasSubstr("the GraphDef is " + std::to_string(size) + " bytes"));
  EXPECT_THAT(std::string(h.status().message()), HasSubstr("CreateSession"));
  // Nothing was created on the workers, and a smaller graph works.
  for (const auto& w : all_workers()) EXPECT_TRUE(w->live_sessions().empty());
  h = CreateSession(tensorflow::GraphDef());
  ASSERT_TRUE(h.ok()) << h.status();

  // Extending counts the session's whole graph.
  tensorflow::ExtendSessionRequest req;
  req.set_session_handle(*h);
  *req.mutable_graph_def() = PsWorkerGraph();
  tensorflow::ExtendSessionResponse resp;
  absl::Status s = master_->ExtendSession(req, &resp);
  EXPECT_EQ(s.code(), absl::StatusCode::kResourceExhausted) << s;
  EXPECT_THAT(std::string(s.message()), HasSubstr("--max-graph-bytes"));
  EXPECT_THAT(std::string(s.message()), HasSubstr("ExtendSession"));

  RestartMaster(DefaultOptions());
  EXPECT_TRUE(CreateSession(PsWorkerGraph()).ok());
}

TEST_F(MasterTest, SessionsBeyondMaxSessionsAreResourceExhausted) {
  MasterOptions o = DefaultOptions();
  o.max_sessions = 2;
  RestartMaster(o);
  absl::StatusOr<std::string> a = CreateSession(PsWorkerGraph());
  absl::StatusOr<std::string> b = CreateSession(PsWorkerGraph());
  ASSERT_TRUE(a.ok()) << a.status();
  ASSERT_TRUE(b.ok()) << b.status();
  absl::StatusOr<std::string> c = CreateSession(PsWorkerGraph());
  ASSERT_EQ(c.status().code(), absl::StatusCode::kResourceExhausted)
      << c.status();
  EXPECT_THAT(std::string(c.status().message()), HasSubstr("--max-sessions=2"));
  EXPECT_EQ(master_->num_sessions(), 2);
  // A failed creation gives its slot back; so does closing a session.
  ASSERT_TRUE(CloseSession(master_.get(), *a).ok());
  absl::StatusOr<std::string> d = CreateSession(PsWorkerGraph());
  ASSERT_TRUE(d.ok()) << d.status();
  std::vector<Tensor> out;
  EXPECT_TRUE(
      Run(*d, {{"x:0", test::AsTensor<float>({1, 2})}}, {"x:0"}, {}, &out)
          .ok());
}

TEST_F(MasterTest, FailedCreationsDoNotLeakSessionSlots) {
  MasterOptions o = DefaultOptions();
  o.max_sessions = 1;
  RestartMaster(o);
  w1_->SetCreateWorkerSessionError(absl::InternalError("no"));
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(CreateSession(PsWorkerGraph()).status().code(),
              absl::StatusCode::kInternal);
  }
  w1_->SetCreateWorkerSessionError(absl::OkStatus());
  EXPECT_TRUE(CreateSession(PsWorkerGraph()).ok());
}

// One step hangs on a worker until cancelled; the limit counts it.
class StepLimitTest : public MasterTest {
 protected:
  // Starts a step of session `h` as `client` that hangs; returns once it
  // runs on the worker.
  void StartHangingStep(const std::string& h, const std::string& client) {
    auto call = std::make_unique<CallOptions>();
    call->set_client(client);
    CallOptions* raw = call.get();
    calls_.push_back(std::move(call));
    auto started = std::make_unique<absl::Notification>();
    w1_->HangRunGraphUntilCancelled(started.get());
    threads_.emplace_back([this, h, raw] {
      Run(h, {{"x:0", test::AsTensor<float>({1, 2})}}, {"z:0"}, {}, nullptr, {},
          nullptr, raw)
          .IgnoreError();
    });
    ASSERT_TRUE(started->WaitForNotificationWithTimeout(absl::Seconds(30)));
    // Later steps hang too, without notifying this one again.
    w1_->HangRunGraphUntilCancelled(nullptr);
    started_.push_back(std::move(started));
  }
  void CancelHangingSteps() {
    for (auto& c : calls_) c->StartCancel();
    for (auto& t : threads_) t.join();
    threads_.clear();
    w1_->SetRunGraphHandler(nullptr);
  }
  absl::Status RunAs(const std::string& h, const std::string& client,
                     int timeout_ms = 0) {
    CallOptions call;
    call.set_client(client);
    tensorflow::RunOptions options;
    if (timeout_ms > 0) options.set_timeout_in_ms(timeout_ms);
    std::vector<Tensor> out;
    return Run(h, {{"x:0", test::AsTensor<float>({1, 2})}}, {"z:0"}, {}, &out,
               options, nullptr, &call);
  }
  void TearDown() override {
    CancelHangingSteps();
    MasterTest::TearDown();
  }

  std::vector<std::unique_ptr<CallOptions>> calls_;
  std::vector<std::unique_ptr<absl::Notification>> started_;
  std::vector<std::thread> threads_;
};

TEST_F(StepLimitTest, StepsBeyondMaxStepsPerClientAreResourceExhausted) {
  MasterOptions o = DefaultOptions();
  o.max_steps_per_client = 1;
  RestartMaster(o);
  w0_->SetFetchValue("z:0", test::AsTensor<float>({5, 6}));
  absl::StatusOr<std::string> a = CreateSession(PsWorkerGraph());
  absl::StatusOr<std::string> b = CreateSession(PsWorkerGraph());
  ASSERT_TRUE(a.ok() && b.ok());
  StartHangingStep(*a, "ipv4:10.0.0.1");
  // The same client, even in another session, is refused at once.
  absl::Status s = RunAs(*b, "ipv4:10.0.0.1");
  EXPECT_EQ(s.code(), absl::StatusCode::kResourceExhausted) << s;
  EXPECT_THAT(std::string(s.message()), HasSubstr("--max-steps-per-client=1"));
  EXPECT_THAT(std::string(s.message()), HasSubstr("ipv4:10.0.0.1"));
  // Another client is not: its step runs (and hangs on the worker too,
  // until its timeout).
  s = RunAs(*b, "ipv4:10.0.0.2", /*timeout_ms=*/100);
  EXPECT_EQ(s.code(), absl::StatusCode::kDeadlineExceeded) << s;
  // Once the first step ended, the client runs steps normally again.
  CancelHangingSteps();
  s = RunAs(*b, "ipv4:10.0.0.1");
  EXPECT_TRUE(s.ok()) << s;
}

TEST_F(StepLimitTest, StepsBeyondMaxStepsPerSessionAreResourceExhausted) {
  MasterOptions o = DefaultOptions();
  o.max_steps_per_session = 1;
  RestartMaster(o);
  w0_->SetFetchValue("z:0", test::AsTensor<float>({5, 6}));
  absl::StatusOr<std::string> a = CreateSession(PsWorkerGraph());
  absl::StatusOr<std::string> b = CreateSession(PsWorkerGraph());
  ASSERT_TRUE(a.ok() && b.ok());
  StartHangingStep(*a, "ipv4:10.0.0.1");
  absl::Status s = RunAs(*a, "ipv4:10.0.0.2");
  EXPECT_EQ(s.code(), absl::StatusCode::kResourceExhausted) << s;
  EXPECT_THAT(std::string(s.message()), HasSubstr("--max-steps-per-session=1"));
  EXPECT_THAT(std::string(s.message()), HasSubstr(*a));
  s = RunAs(*b, "ipv4:10.0.0.2", /*timeout_ms=*/100);
  EXPECT_EQ(s.code(), absl::StatusCode::kDeadlineExceeded) << s;
  // A refused step did nothing: sent again with the same request_id once
  // there is room, it runs.
  RunStepRequestMsg req;
  req.proto.set_session_handle(*a);
  req.proto.set_request_id(4242);
  req.feed.emplace_back("x:0", test::AsTensor<float>({1, 2}));
  req.proto.add_fetch("z:0");
  RunStepResponseMsg resp;
  s = master_->RunStep(nullptr, req, &resp);
  EXPECT_EQ(s.code(), absl::StatusCode::kResourceExhausted) << s;
  CancelHangingSteps();
  s = master_->RunStep(nullptr, req, &resp);
  EXPECT_TRUE(s.ok()) << s;
  EXPECT_TRUE(RunAs(*a, "ipv4:10.0.0.2").ok());
}

}  // namespace
}  // namespace test
}  // namespace tributary
