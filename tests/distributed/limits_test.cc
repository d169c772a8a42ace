// Limits against abuse on a real cluster (docs/limits.md): daemons started
// with small limits, a client going over each one, and the cluster serving
// the next step and session normally afterwards. Each limit's exact
// semantics are tested beside its code (master_limits_test,
// worker_limits_test, memory_budget_test, file_access_policy_test); this
// checks what a client sees through the daemons' flags.

#include <stdlib.h>
#include <sys/stat.h>

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/distributed/cluster_fixture.h"
#include "tests/distributed/distributed_test_util.h"
#include "tests/distributed/shared_cluster_test.h"
#include "tools/client/graph_builder.h"
#include "tools/client/session.h"

namespace tributary {
namespace test {
namespace {

using ::testing::HasSubstr;

constexpr int64_t kMaxMessage = 4 << 20;   // master and workers
constexpr int64_t kMaxGraph = 2 << 20;     // master and workers
constexpr int64_t kBudget = 64 << 20;      // per worker session
constexpr int kMaxSessions = 4;

std::string TmpPath(const std::string& name) {
  const char* tmp = getenv("TEST_TMPDIR");
  return absl::StrCat(tmp != nullptr ? tmp : "/tmp", "/limits_test_", name);
}

class LimitsTest : public SharedClusterTest {
 protected:
  static void SetUpTestSuite() {
    mkdir(TmpPath("allowed").c_str(), 0755);
    mkdir(TmpPath("outside").c_str(), 0755);
    ClusterOptions options;
    options.master_flags = {"--max-message-size", std::to_string(kMaxMessage),
                            "--max-graph-bytes", std::to_string(kMaxGraph),
                            "--max-sessions", std::to_string(kMaxSessions)};
    options.worker_flags = {"--max-message-size", std::to_string(kMaxMessage),
                            "--max-graph-bytes", std::to_string(kMaxGraph),
                            "--session-memory-budget", std::to_string(kBudget),
                            "--allowed-path", TmpPath("allowed")};
    StartSharedCluster(options);
  }
};

// x (a float vector fed) -> Identity on worker 0; also a Fill of `dims`
// floats there, run as a target.
tensorflow::GraphDef FeedAndFillGraph() {
  GraphBuilder b;
  Output x = b.Placeholder(tensorflow::DT_FLOAT, PartialTensorShape({-1}),
                           NodeOptions("x").WithDevice(Cpu(kWorker0)));
  b.Identity(x, NodeOptions("y").WithDevice(Cpu(kWorker0)));
  Output dims = b.Placeholder(tensorflow::DT_INT64, PartialTensorShape({1}),
                              NodeOptions("dims").WithDevice(Cpu(kWorker0)));
  b.Fill(dims, b.Scalar<float>(1.0f, NodeOptions("one").WithDevice(Cpu(kWorker0))),
         NodeOptions("fill").WithDevice(Cpu(kWorker0)));
  auto g = b.Build();
  EXPECT_TRUE(g.ok()) << g.status();
  return g.ok() ? *g : tensorflow::GraphDef();
}

Tensor Floats(int64_t n) {
  Tensor t(tensorflow::DT_FLOAT, TensorShape({n}));
  for (int64_t i = 0; i < n; ++i) t.flat<float>()(i) = static_cast<float>(i);
  return t;
}

Tensor Dims(int64_t n) {
  Tensor t(tensorflow::DT_INT64, TensorShape({1}));
  t.flat<int64_t>()(0) = n;
  return t;
}

TEST_F(LimitsTest, FeedOverTheMessageLimitIsResourceExhausted) {
  auto session = OpenSession(target(), FeedAndFillGraph());
  ASSERT_TRUE(session.ok()) << session.status();
  std::vector<Tensor> out;
  // 8 MB in one RunStep request: the master's gRPC refuses it.
  absl::Status s = RunStep(session->get(), {{"x:0", Floats(2 << 20)}}, {"y:0"},
                           {}, &out);
  ASSERT_EQ(s.code(), absl::StatusCode::kResourceExhausted) << s;
  EXPECT_THAT(std::string(s.message()), HasSubstr("--max-message-size"));
  EXPECT_THAT(std::string(s.message()), HasSubstr(std::to_string(kMaxMessage)));
  // The same session goes on.
  s = RunStep(session->get(), {{"x:0", Floats(1000)}}, {"y:0"}, {}, &out);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(out[0].NumElements(), 1000);
}

TEST_F(LimitsTest, FetchOverTheMessageLimitIsResourceExhausted) {
  auto session = OpenSession(target(), FeedAndFillGraph());
  ASSERT_TRUE(session.ok()) << session.status();
  std::vector<Tensor> out;
  // 6 MB made on worker 0 and fetched: over the worker's and the master's
  // limit on the way back.
  absl::Status s = RunStep(session->get(), {{"dims:0", Dims(1500000)}},
                           {"fill:0"}, {}, &out);
  ASSERT_EQ(s.code(), absl::StatusCode::kResourceExhausted) << s;
  EXPECT_THAT(std::string(s.message()), HasSubstr("--max-message-size"));
  s = RunStep(session->get(), {{"dims:0", Dims(1000)}}, {"fill:0"}, {}, &out);
  EXPECT_TRUE(s.ok()) << s;
}

TEST_F(LimitsTest, GraphOverMaxGraphBytesIsResourceExhausted) {
  GraphBuilder b;
  std::vector<float> values(700000, 1.0f);  // 2.8 MB of constant
  b.Const<float>(values, {700000}, NodeOptions("big").WithDevice(Cpu(kWorker0)));
  auto g = b.Build();
  ASSERT_TRUE(g.ok()) << g.status();
  auto session = OpenSession(target(), *g);
  ASSERT_EQ(session.status().code(), absl::StatusCode::kResourceExhausted)
      << session.status();
  EXPECT_THAT(std::string(session.status().message()),
              HasSubstr("--max-graph-bytes"));
  EXPECT_THAT(std::string(session.status().message()),
              HasSubstr(std::to_string(kMaxGraph)));
  // The next session works.
  auto ok = OpenSession(target(), FeedAndFillGraph());
  ASSERT_TRUE(ok.ok()) << ok.status();
  std::vector<Tensor> out;
  EXPECT_TRUE(RunStep(ok->get(), {{"x:0", Floats(3)}}, {"y:0"}, {}, &out).ok());
}

TEST_F(LimitsTest, StepOverTheSessionMemoryBudgetFailsCleanly) {
  auto session = OpenSession(target(), FeedAndFillGraph());
  ASSERT_TRUE(session.ok()) << session.status();
  std::vector<Tensor> out;
  // 10^12 floats (4 TB): refused by the budget, not an OOM kill.
  absl::Status s = RunStep(session->get(), {{"dims:0", Dims(1000000000000)}},
                           {}, {"fill"}, &out);
  ASSERT_EQ(s.code(), absl::StatusCode::kResourceExhausted) << s;
  EXPECT_THAT(std::string(s.message()),
              HasSubstr("--session-memory-budget=" + std::to_string(kBudget)));
  EXPECT_THAT(std::string(s.message()), HasSubstr("session"));
  EXPECT_THAT(std::string(s.message()), HasSubstr("fill"));
  // 80 MB: over the 64 MiB budget.
  s = RunStep(session->get(), {{"dims:0", Dims(20 << 20)}}, {}, {"fill"}, &out);
  EXPECT_EQ(s.code(), absl::StatusCode::kResourceExhausted) << s;
  // The worker is alive and the session runs steps within its budget, again
  // and again (freed memory returns to the budget).
  for (int i = 0; i < 5; ++i) {
    s = RunStep(session->get(), {{"dims:0", Dims(8 << 20)}}, {}, {"fill"}, &out);
    ASSERT_TRUE(s.ok()) << "step " << i << ": " << s;
  }
  EXPECT_TRUE(cluster_->TaskRunning("worker", 0));
}

// SaveV2 of one scalar on the ps task to `prefix`.
tensorflow::GraphDef SaveGraph(const std::string& prefix) {
  GraphBuilder b;
  const NodeOptions ps = NodeOptions().WithDevice(Cpu(kPs));
  tensorflow::AttrValue dtypes;
  dtypes.mutable_list()->add_type(tensorflow::DT_FLOAT);
  b.AddNode("SaveV2",
            {b.Scalar<std::string>(prefix, NodeOptions("prefix").WithDevice(Cpu(kPs))),
             b.Const<std::string>({"v"}, {1}, NodeOptions("names").WithDevice(Cpu(kPs))),
             b.Const<std::string>({""}, {1}, NodeOptions("slices").WithDevice(Cpu(kPs))),
             std::vector<Output>{
                 b.Scalar<float>(3.0f, NodeOptions("v").WithDevice(Cpu(kPs)))}},
            {{"dtypes", dtypes}}, NodeOptions("save").WithDevice(Cpu(kPs)));
  auto g = b.Build();
  EXPECT_TRUE(g.ok()) << g.status();
  return g.ok() ? *g : tensorflow::GraphDef();
}

TEST_F(LimitsTest, CheckpointsOnlyUnderAllowedPaths) {
  const std::string outside = TmpPath("outside") + "/model.ckpt";
  auto session = OpenSession(target(), SaveGraph(outside));
  ASSERT_TRUE(session.ok()) << session.status();
  std::vector<Tensor> out;
  absl::Status s = RunStep(session->get(), {}, {}, {"save"}, &out);
  ASSERT_EQ(s.code(), absl::StatusCode::kPermissionDenied) << s;
  EXPECT_THAT(std::string(s.message()), HasSubstr(outside));
  EXPECT_THAT(std::string(s.message()), HasSubstr("--allowed-path"));
  struct stat st;
  EXPECT_NE(stat((outside + ".index").c_str(), &st), 0);

  const std::string inside = TmpPath("allowed") + "/model.ckpt";
  auto good = OpenSession(target(), SaveGraph(inside));
  ASSERT_TRUE(good.ok()) << good.status();
  s = RunStep(good->get(), {}, {}, {"save"}, &out);
  EXPECT_TRUE(s.ok()) << s;
  EXPECT_EQ(stat((inside + ".index").c_str(), &st), 0);
}

TEST_F(LimitsTest, SessionsBeyondMaxSessionsAreResourceExhausted) {
  std::vector<std::unique_ptr<Session>> open;
  for (int i = 0; i < kMaxSessions; ++i) {
    auto s = OpenSession(target(), FeedAndFillGraph());
    ASSERT_TRUE(s.ok()) << i << ": " << s.status();
    open.push_back(*std::move(s));
  }
  auto refused = OpenSession(target(), FeedAndFillGraph());
  ASSERT_EQ(refused.status().code(), absl::StatusCode::kResourceExhausted)
      << refused.status();
  EXPECT_THAT(std::string(refused.status().message()),
              HasSubstr("--max-sessions=" + std::to_string(kMaxSessions)));
  // Closing one makes room.
  ASSERT_TRUE(open.back()->Close().ok());
  open.pop_back();
  auto again = OpenSession(target(), FeedAndFillGraph());
  ASSERT_TRUE(again.ok()) << again.status();
  std::vector<Tensor> out;
  EXPECT_TRUE(
      RunStep(again->get(), {{"x:0", Floats(3)}}, {"y:0"}, {}, &out).ok());
}

}  // namespace
}  // namespace test
}  // namespace tributary
