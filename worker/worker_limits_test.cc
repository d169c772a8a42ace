// A worker's limits against abuse (docs/limits.md), called directly as a
// master would: RegisterGraph beyond --max-graph-bytes, steps allocating
// beyond --session-memory-budget (a Fill of 10^12 elements included), and
// checkpoint ops outside --allowed-path. Each fails with its code naming
// the limit; the worker then serves the next graph and step normally.

#include <stdlib.h>
#include <sys/stat.h>

#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "worker/worker_server.h"
#include "worker/worker_test_util.h"

namespace tributary {
namespace {

using ::testing::HasSubstr;
using worker_test::CreateSession;
using worker_test::ParseGraph;

constexpr char kDev[] = "/job:worker/replica:0/task:0/device:CPU:0";

std::string TmpDir(const std::string& name) {
  const char* tmp = getenv("TEST_TMPDIR");
  const std::string dir =
      absl::StrCat(tmp != nullptr ? tmp : "/tmp", "/worker_limits_", name);
  mkdir(dir.c_str(), 0755);
  return dir;
}

std::string ConstNode(const std::string& name, const std::string& dtype,
                      const std::string& shape, const std::string& values) {
  return absl::StrCat(
      "node { name: '", name, "' op: 'Const' device: '", kDev,
      "' attr { key: 'dtype' value { type: ", dtype,
      " } } attr { key: 'value' value { tensor { dtype: ", dtype,
      " tensor_shape { ", shape, " } ", values, " } } } }\n");
}

// Fill([n], 1.0f): n floats.
tensorflow::GraphDef FillGraph(int64_t n) {
  return ParseGraph(absl::StrCat(
      ConstNode("dims", "DT_INT64", "dim { size: 1 }",
                absl::StrCat("int64_val: ", n)),
      ConstNode("value", "DT_FLOAT", "", "float_val: 1"),
      "node { name: 'fill' op: 'Fill' input: 'dims' input: 'value' device: '",
      kDev,
      "' attr { key: 'T' value { type: DT_FLOAT } } "
      "attr { key: 'index_type' value { type: DT_INT64 } } }\n"));
}

// SaveV2(prefix, ["v"], [""], [1.0f]).
tensorflow::GraphDef SaveGraph(const std::string& prefix) {
  return ParseGraph(absl::StrCat(
      ConstNode("prefix", "DT_STRING", "",
                absl::StrCat("string_val: '", prefix, "'")),
      ConstNode("names", "DT_STRING", "dim { size: 1 }", "string_val: 'v'"),
      ConstNode("slices", "DT_STRING", "dim { size: 1 }", "string_val: ''"),
      ConstNode("v", "DT_FLOAT", "", "float_val: 1"),
      "node { name: 'save' op: 'SaveV2' input: 'prefix' input: 'names' "
      "input: 'slices' input: 'v' device: '",
      kDev, "' attr { key: 'dtypes' value { list { type: DT_FLOAT } } } }\n"));
}

class WorkerLimitsTest : public ::testing::Test {
 protected:
  void Start(WorkerServerOptions options) {
    absl::StatusOr<ClusterSpec> cluster =
        ClusterSpec::FromJson(R"({"worker": ["127.0.0.1:1"]})");
    ASSERT_TRUE(cluster.ok()) << cluster.status();
    options.job = "worker";
    options.task = 0;
    options.inter_op_threads = 2;
    absl::StatusOr<std::unique_ptr<WorkerServer>> server =
        WorkerServer::Create(*cluster, options);
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = *std::move(server);
  }
  Worker* worker() { return server_->worker(); }

  absl::StatusOr<std::string> Register(const std::string& session,
                                       const tensorflow::GraphDef& graph) {
    tensorflow::RegisterGraphRequest req;
    req.set_session_handle(session);
    req.set_create_worker_session_called(true);
    *req.mutable_graph_def() = graph;
    tensorflow::RegisterGraphResponse resp;
    absl::Status s = worker()->RegisterGraph(req, &resp, absl::Seconds(10));
    if (!s.ok()) return s;
    return resp.graph_handle();
  }
  absl::Status RunGraph(const std::string& session, const std::string& graph) {
    RunGraphRequestMsg req;
    req.proto.set_session_handle(session);
    req.proto.set_create_worker_session_called(true);
    req.proto.set_graph_handle(graph);
    req.proto.set_step_id(++step_id_);
    RunGraphResponseMsg resp;
    return worker()->RunGraph(req, &resp, absl::Seconds(30));
  }
  // Register + RunGraph.
  absl::Status Run(const std::string& session,
                   const tensorflow::GraphDef& graph) {
    absl::StatusOr<std::string> h = Register(session, graph);
    if (!h.ok()) return h.status();
    return RunGraph(session, *h);
  }

  std::unique_ptr<WorkerServer> server_;
  int64_t step_id_ = 100;
};

TEST_F(WorkerLimitsTest, RegisterGraphOverMaxGraphBytesIsResourceExhausted) {
  WorkerServerOptions o;
  const tensorflow::GraphDef big = FillGraph(10);
  o.max_graph_bytes = static_cast<int64_t>(big.ByteSizeLong()) - 1;
  Start(o);
  ASSERT_TRUE(CreateSession(worker(), "s1", false).ok());
  absl::StatusOr<std::string> h = Register("s1", big);
  ASSERT_EQ(h.status().code(), absl::StatusCode::kResourceExhausted)
      << h.status();
  EXPECT_THAT(std::string(h.status().message()),
              HasSubstr("--max-graph-bytes"));
  EXPECT_THAT(std::string(h.status().message()),
              HasSubstr(std::to_string(big.ByteSizeLong()) + " bytes"));
  EXPECT_THAT(std::string(h.status().message()),
              HasSubstr("/job:worker/replica:0/task:0"));
  // A graph under the limit registers and runs.
  tensorflow::GraphDef small =
      ParseGraph(ConstNode("c", "DT_FLOAT", "", "float_val: 2"));
  EXPECT_TRUE(Run("s1", small).ok());
}

TEST_F(WorkerLimitsTest, RegisterGraphOverMaxGraphNodesIsResourceExhausted) {
  WorkerServerOptions o;
  const tensorflow::GraphDef big = FillGraph(10);
  o.max_graph_nodes = big.node_size() - 1;
  Start(o);
  ASSERT_TRUE(CreateSession(worker(), "s1", false).ok());
  absl::StatusOr<std::string> h = Register("s1", big);
  ASSERT_EQ(h.status().code(), absl::StatusCode::kResourceExhausted)
      << h.status();
  EXPECT_THAT(std::string(h.status().message()),
              HasSubstr("--max-graph-nodes"));
  EXPECT_THAT(std::string(h.status().message()),
              HasSubstr("has " + std::to_string(big.node_size()) + " nodes"));
  tensorflow::GraphDef small =
      ParseGraph(ConstNode("c", "DT_FLOAT", "", "float_val: 2"));
  EXPECT_TRUE(Run("s1", small).ok());
}

TEST_F(WorkerLimitsTest, AllocationsBeyondTheSessionBudgetFailTheStep) {
  WorkerServerOptions o;
  o.session_memory_budget = 4 << 20;  // 4 MiB
  Start(o);
  EXPECT_EQ(server_->session_memory_budget(), 4 << 20);
  ASSERT_TRUE(CreateSession(worker(), "s1", false).ok());
  // 10^12 floats: refused before any memory is asked for.
  absl::Status s = Run("s1", FillGraph(1000000000000));
  ASSERT_EQ(s.code(), absl::StatusCode::kResourceExhausted) << s;
  EXPECT_THAT(std::string(s.message()),
              HasSubstr("--session-memory-budget=4194304"));
  EXPECT_THAT(std::string(s.message()), HasSubstr("session s1"));
  EXPECT_THAT(std::string(s.message()), HasSubstr("fill"));
  // Just over the budget: 1.25 M floats = 5 MB.
  s = Run("s1", FillGraph(1250000));
  EXPECT_EQ(s.code(), absl::StatusCode::kResourceExhausted) << s;
  // Under it, step after step: what a step frees returns to the budget.
  absl::StatusOr<std::string> h = Register("s1", FillGraph(750000));  // 3 MB
  ASSERT_TRUE(h.ok()) << h.status();
  for (int i = 0; i < 5; ++i) {
    s = RunGraph("s1", *h);
    ASSERT_TRUE(s.ok()) << "step " << i << ": " << s;
  }
  auto session = worker()->session_mgr()->Find("s1");
  ASSERT_TRUE(session.ok());
  ASSERT_NE((*session)->memory_budget(), nullptr);
  EXPECT_EQ((*session)->memory_budget()->bytes_in_use(), 0);
  EXPECT_GE((*session)->memory_budget()->peak_bytes_in_use(), 3000000);
  // Another session has a budget of its own.
  ASSERT_TRUE(CreateSession(worker(), "s2", false).ok());
  EXPECT_TRUE(Run("s2", FillGraph(750000)).ok());
}

TEST_F(WorkerLimitsTest, NoBudgetMeansNoWrapping) {
  WorkerServerOptions o;
  o.session_memory_budget = 0;
  Start(o);
  ASSERT_TRUE(CreateSession(worker(), "s1", false).ok());
  auto session = worker()->session_mgr()->Find("s1");
  ASSERT_TRUE(session.ok());
  EXPECT_EQ((*session)->memory_budget(), nullptr);
  EXPECT_TRUE(Run("s1", FillGraph(1000)).ok());
}

TEST_F(WorkerLimitsTest, CheckpointsOnlyUnderAllowedPaths) {
  const std::string allowed = TmpDir("allowed");
  const std::string outside = TmpDir("outside");
  WorkerServerOptions o;
  o.allowed_paths = {allowed};
  Start(o);
  ASSERT_TRUE(server_->file_access().restricted());
  ASSERT_TRUE(CreateSession(worker(), "s1", false).ok());
  absl::Status s = Run("s1", SaveGraph(outside + "/model.ckpt"));
  ASSERT_EQ(s.code(), absl::StatusCode::kPermissionDenied) << s;
  EXPECT_THAT(std::string(s.message()), HasSubstr(outside + "/model.ckpt"));
  EXPECT_THAT(std::string(s.message()), HasSubstr("--allowed-path"));
  s = Run("s1", SaveGraph(allowed + "/../" +
                          outside.substr(outside.rfind('/') + 1) + "/x.ckpt"));
  EXPECT_EQ(s.code(), absl::StatusCode::kPermissionDenied) << s;
  struct stat st;
  EXPECT_NE(stat((outside + "/model.ckpt.index").c_str(), &st), 0);
  // Under the directory it works.
  s = Run("s1", SaveGraph(allowed + "/model.ckpt"));
  EXPECT_TRUE(s.ok()) << s;
  EXPECT_EQ(stat((allowed + "/model.ckpt.index").c_str(), &st), 0);
}

TEST_F(WorkerLimitsTest, BadAllowedPathFailsCreate) {
  absl::StatusOr<ClusterSpec> cluster =
      ClusterSpec::FromJson(R"({"worker": ["127.0.0.1:1"]})");
  ASSERT_TRUE(cluster.ok());
  WorkerServerOptions o;
  o.job = "worker";
  o.task = 0;
  o.allowed_paths = {"/no/such/directory/here"};
  auto server = WorkerServer::Create(*cluster, o);
  EXPECT_EQ(server.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(server.status().message()),
              HasSubstr("/no/such/directory/here"));
}

}  // namespace
}  // namespace tributary
