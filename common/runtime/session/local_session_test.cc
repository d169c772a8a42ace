// The local session end to end with the real kernels: results over 1, 2 and
// 4 CPU devices, the executor cache, variables across Runs, concurrent
// Runs, timeouts, tracing, Close, and TensorFlow's error codes.

#include "common/runtime/session/local_session.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "common/framework/tensor.h"
#include "common/framework/tensor_testutil.h"
#include "common/runtime/session/session_test_util.h"
#include "gtest/gtest.h"

namespace tributary {
namespace {

using session_test::CpuConfig;
using session_test::NewSessionWithGraph;
using session_test::ParseGraph;

std::string FloatConst(const std::string& name, const std::string& device,
                       const std::vector<float>& values,
                       const std::vector<int>& dims) {
  std::string shape;
  for (int d : dims) absl::StrAppend(&shape, "dim { size: ", d, " } ");
  std::string vals;
  for (float v : values) absl::StrAppend(&vals, "float_val: ", v, " ");
  return absl::StrCat(
      "node { name: '", name, "' op: 'Const' device: '", device,
      "' attr { key: 'dtype' value { type: DT_FLOAT } } "
      "attr { key: 'value' value { tensor { dtype: DT_FLOAT tensor_shape { ",
      shape, "} ", vals, "} } } }\n");
}

std::string Binary(const std::string& name, const std::string& op,
                   const std::string& a, const std::string& b,
                   const std::string& device) {
  return absl::StrCat("node { name: '", name, "' op: '", op, "' input: '", a,
                      "' input: '", b, "' device: '", device,
                      "' attr { key: 'T' value { type: DT_FLOAT } } }\n");
}

// y = relu(x @ w + b) + x, s = sum(y), spread over `n` devices so that most
// edges cross devices.
tensorflow::GraphDef SpreadModel(int n) {
  auto dev = [n](int k) { return absl::StrCat("/device:CPU:", k % n); };
  std::string text = absl::StrCat(
      "node { name: 'x' op: 'Placeholder' device: '", dev(1),
      "' attr { key: 'dtype' value { type: DT_FLOAT } } }\n",
      FloatConst("w", dev(2), {1, 2, 3, 4}, {2, 2}),
      FloatConst("b", dev(3), {-10, 0.5}, {2}),
      "node { name: 'mm' op: 'MatMul' input: 'x' input: 'w' device: '", dev(0),
      "' attr { key: 'T' value { type: DT_FLOAT } } "
      "attr { key: 'transpose_b' value { b: true } } }\n",
      Binary("bias", "BiasAdd", "mm", "b", dev(1)),
      "node { name: 'relu' op: 'Relu' input: 'bias' device: '", dev(2),
      "' attr { key: 'T' value { type: DT_FLOAT } } }\n",
      Binary("y", "AddV2", "relu", "x", dev(3)),
      "node { name: 'axes' op: 'Const' device: '", dev(1),
      "' attr { key: 'dtype' value { type: DT_INT32 } } "
      "attr { key: 'value' value { tensor { dtype: DT_INT32 "
      "tensor_shape { dim { size: 2 } } int_val: 0 int_val: 1 } } } }\n",
      "node { name: 's' op: 'Sum' input: 'y' input: 'axes' device: '", dev(2),
      "' attr { key: 'T' value { type: DT_FLOAT } } "
      "attr { key: 'Tidx' value { type: DT_INT32 } } }\n");
  return ParseGraph(text);
}

void RunSpreadModel(absl::StatusOr<std::unique_ptr<LocalSession>>& session,
                    int n, const Tensor& x,
                    std::vector<std::vector<Tensor>>* results) {
  ASSERT_TRUE(session.ok()) << session.status();
  EXPECT_EQ((*session)->device_mgr().NumDevices(), n);
  std::vector<Tensor> out;
  tensorflow::RunOptions opts;
  opts.set_output_partition_graphs(true);
  tensorflow::RunMetadata md;
  absl::Status s =
      (*session)->Run(opts, {{"x", x}}, {"y", "s", "mm:0"}, {}, &out, &md);
  ASSERT_TRUE(s.ok()) << s;
  ASSERT_EQ(out.size(), 3u);
  // One partition per device, and cut edges became _Send/_Recv pairs.
  EXPECT_EQ(md.partition_graphs_size(), n);
  int sends = 0;
  for (const auto& g : md.partition_graphs()) {
    for (const auto& node : g.node()) {
      auto ct = node.attr().find("client_terminated");
      sends +=
          node.op() == "_Send" && !(ct != node.attr().end() && ct->second.b());
    }
  }
  if (n > 1) {
    EXPECT_GT(sends, 0);
  } else {
    EXPECT_EQ(sends, 0);
  }
  results->push_back(out);
}

void CheckSpreadModelResults(const std::vector<std::vector<Tensor>>& results) {
  ASSERT_FALSE(results.empty());
  // x @ w^T: rows [5,11], [11,25], [17,39]; + b = [-5,11.5], [1,25.5],
  // [7,39.5]; relu; + x.
  test::ExpectTensorEqual<float>(
      results[0][0],
      test::AsTensor<float>({1, 13.5, 4, 29.5, 12, 45.5}, {3, 2}));
  test::ExpectTensorEqual<float>(results[0][1],
                                 test::AsTensor<float>({105.5f}, {}));
  for (size_t i = 1; i < results.size(); ++i) {
    for (size_t j = 0; j < 3; ++j) {
      test::ExpectTensorEqual<float>(results[i][j], results[0][j]);
    }
  }
}

TEST(LocalSessionTest, SameResultsOnOneTwoAndFourDevices) {
  const Tensor x = test::AsTensor<float>({1, 2, 3, 4, 5, 6}, {3, 2});
  std::vector<std::vector<Tensor>> results;
  for (int n : {1, 2, 4}) {
    SCOPED_TRACE(n);
    auto session = NewSessionWithGraph(SpreadModel(n), n);
    RunSpreadModel(session, n, x, &results);
  }
  CheckSpreadModelResults(results);
}

TEST(LocalSessionTest, FeedsAndFetchesThroughTheRendezvous) {
  const Tensor x = test::AsTensor<float>({1, 2, 3, 4, 5, 6}, {3, 2});
  std::vector<std::vector<Tensor>> results;
  LocalSessionOptions options;
  options.feed_fetch_through_rendezvous = true;
  for (int n : {1, 2, 4}) {
    SCOPED_TRACE(n);
    auto session = LocalSession::New(CpuConfig(n), options);
    ASSERT_TRUE(session.ok()) << session.status();
    ASSERT_TRUE((*session)->Create(SpreadModel(n)).ok());
    RunSpreadModel(session, n, x, &results);
  }
  CheckSpreadModelResults(results);

  // Errors keep their codes; a fed dtype is still checked.
  auto session = LocalSession::New(CpuConfig(2), options);
  ASSERT_TRUE(session.ok());
  ASSERT_TRUE((*session)->Create(SpreadModel(2)).ok());
  std::vector<Tensor> out;
  EXPECT_EQ((*session)->Run({}, {"y"}, {}, &out).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ((*session)
                ->Run({{"x", test::AsTensor<int32_t>({1, 2}, {1, 2})}}, {"y"},
                      {}, &out)
                .code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ((*session)->Run({}, {"nope"}, {}, &out).code(),
            absl::StatusCode::kNotFound);
}

TEST(LocalSessionTest, SecondRunOfASignatureReusesItsExecutors) {
  auto session = NewSessionWithGraph(SpreadModel(2), 2);
  ASSERT_TRUE(session.ok()) << session.status();
  LocalSession* s = session->get();
  const Tensor x = test::AsTensor<float>({1, 2}, {1, 2});
  std::vector<Tensor> out;
  EXPECT_EQ(s->num_executor_builds(), 0);
  ASSERT_TRUE(s->Run({{"x", x}}, {"y"}, {}, &out).ok());
  EXPECT_EQ(s->num_executor_builds(), 1);
  ASSERT_TRUE(s->Run({{"x", x}}, {"y"}, {}, &out).ok());
  ASSERT_TRUE(s->Run({{"x", x}}, {"y"}, {}, &out).ok());
  EXPECT_EQ(s->num_executor_builds(), 1);
  // Another signature builds once more, and is then cached too.
  ASSERT_TRUE(s->Run({{"x", x}}, {"s"}, {}, &out).ok());
  ASSERT_TRUE(s->Run({{"x", x}}, {"s"}, {}, &out).ok());
  EXPECT_EQ(s->num_executor_builds(), 2);
  // A failing build is not cached (nor counted).
  EXPECT_EQ(s->Run({{"x", x}}, {"nope"}, {}, &out).code(),
            absl::StatusCode::kNotFound);
  EXPECT_EQ(s->num_executor_builds(), 2);
}

constexpr char kCounterGraph[] = R"pb(
  node {
    name: 'v'
    op: 'VariableV2'
    device: '$V'
    attr {
      key: 'dtype'
      value { type: DT_FLOAT }
    }
    attr {
      key: 'shape'
      value { shape {} }
    }
  }
  node {
    name: 'one'
    op: 'Const'
    attr {
      key: 'dtype'
      value { type: DT_FLOAT }
    }
    attr {
      key: 'value'
      value {
        tensor {
          dtype: DT_FLOAT
          tensor_shape {}
          float_val: 1
        }
      }
    }
  }
  node {
    name: 'two'
    op: 'Const'
    attr {
      key: 'dtype'
      value { type: DT_FLOAT }
    }
    attr {
      key: 'value'
      value {
        tensor {
          dtype: DT_FLOAT
          tensor_shape {}
          float_val: 2
        }
      }
    }
  }
  node {
    name: 'init'
    op: 'Assign'
    input: 'v'
    input: 'one'
    attr {
      key: 'T'
      value { type: DT_FLOAT }
    }
  }
  node {
    name: 'inc'
    op: 'AssignAdd'
    input: 'v'
    input: 'two'
    device: '$INC'
    attr {
      key: 'T'
      value { type: DT_FLOAT }
    }
  }
  node {
    name: 'read'
    op: 'Identity'
    input: 'v'
    device: '$READ'
    attr {
      key: 'T'
      value { type: DT_FLOAT }
    }
  }
)pb";

tensorflow::GraphDef CounterGraph(const std::string& v, const std::string& inc,
                                  const std::string& read) {
  return ParseGraph(absl::StrReplaceAll(
      kCounterGraph, {{"$V", v}, {"$INC", inc}, {"$READ", read}}));
}

// Kernels run with denormals flushed, as TensorFlow's do: a product that
// falls below float's normal range is 0 and a denormal input reads as 0,
// both for a small op run on the step's thread and for a large one split
// over the intra-op pool's threads.
float MaxAbs(const Tensor& t) {
  float m = 0;
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    m = std::max(m, std::abs(t.flat<float>()(i)));
  }
  return m;
}

TEST(LocalSessionTest, DenormalsAreFlushedToZero) {
  auto session = NewSessionWithGraph(ParseGraph(R"pb(
    node { name: 'x' op: 'Placeholder'
           attr { key: 'dtype' value { type: DT_FLOAT } } }
    node { name: 'y' op: 'Placeholder'
           attr { key: 'dtype' value { type: DT_FLOAT } } }
    node { name: 'product' op: 'Mul' input: 'x' input: 'y'
           attr { key: 'T' value { type: DT_FLOAT } } }
    node { name: 'sum' op: 'AddV2' input: 'x' input: 'x'
           attr { key: 'T' value { type: DT_FLOAT } } }
    node { name: 'exp' op: 'Exp' input: 'y'
           attr { key: 'T' value { type: DT_FLOAT } } }
  )pb"));
  ASSERT_TRUE(session.ok()) << session.status();
  for (const int64_t n : {int64_t{3}, int64_t{1} << 18}) {
    SCOPED_TRACE(n);
    Tensor x(DT_FLOAT, TensorShape({n}));
    Tensor y(DT_FLOAT, TensorShape({n}));
    x.flat<float>().setConstant(1e-30f);
    y.flat<float>().setConstant(1e-10f);
    std::vector<Tensor> out;
    ASSERT_TRUE(
        (*session)->Run({{"x", x}, {"y", y}}, {"product"}, {}, &out).ok());
    EXPECT_EQ(MaxAbs(out[0]), 0.0f);
    // 1e-40 is denormal: read as 0, so x + x is 0, not 2e-40.
    x.flat<float>().setConstant(1e-40f);
    y.flat<float>().setConstant(-100.0f);  // exp(-100) = 3.7e-44, denormal
    ASSERT_TRUE(
        (*session)->Run({{"x", x}, {"y", y}}, {"sum", "exp"}, {}, &out).ok());
    EXPECT_EQ(MaxAbs(out[0]), 0.0f);
    EXPECT_EQ(MaxAbs(out[1]), 0.0f);
  }
}

TEST(LocalSessionTest, VariablesPersistAcrossRuns) {
  auto session = NewSessionWithGraph(CounterGraph("", "", ""));
  ASSERT_TRUE(session.ok()) << session.status();
  LocalSession* s = session->get();
  ASSERT_TRUE(s->Run({}, {}, {"init"}, nullptr).ok());
  for (int i = 0; i < 3; ++i)
    ASSERT_TRUE(s->Run({}, {}, {"inc"}, nullptr).ok());
  std::vector<Tensor> out;
  ASSERT_TRUE(s->Run({}, {"read"}, {}, &out).ok());
  test::ExpectTensorEqual<float>(out[0], Tensor(7.0f));
  // Re-initialising resets it.
  ASSERT_TRUE(s->Run({}, {"read"}, {"init"}, &out).ok());
  ASSERT_TRUE(s->Run({}, {"read"}, {}, &out).ok());
  test::ExpectTensorEqual<float>(out[0], Tensor(1.0f));
}

// A TensorArray lives in the step's container: each Run gets a fresh one
// (writing index 0 again is fine) and nothing is left in the session's
// ResourceMgr afterwards.
TEST(LocalSessionTest, TensorArraysLiveForOneStep) {
  auto session = NewSessionWithGraph(ParseGraph(R"pb(
    node { name: 'size' op: 'Const'
           attr { key: 'dtype' value { type: DT_INT32 } }
           attr { key: 'value' value { tensor { dtype: DT_INT32 tensor_shape {}
                                                int_val: 2 } } } }
    node { name: 'index' op: 'Const'
           attr { key: 'dtype' value { type: DT_INT32 } }
           attr { key: 'value' value { tensor { dtype: DT_INT32 tensor_shape {}
                                                int_val: 0 } } } }
    node { name: 'value' op: 'Const'
           attr { key: 'dtype' value { type: DT_FLOAT } }
           attr { key: 'value' value { tensor { dtype: DT_FLOAT tensor_shape {}
                                                float_val: 3 } } } }
    node { name: 'ta' op: 'TensorArrayV3' input: 'size'
           attr { key: 'dtype' value { type: DT_FLOAT } } }
    node { name: 'write' op: 'TensorArrayWriteV3'
           input: 'ta' input: 'index' input: 'value' input: 'ta:1'
           attr { key: 'T' value { type: DT_FLOAT } } }
    node { name: 'read' op: 'TensorArrayReadV3'
           input: 'ta' input: 'index' input: 'write'
           attr { key: 'dtype' value { type: DT_FLOAT } } }
  )pb"));
  ASSERT_TRUE(session.ok()) << session.status();
  LocalSession* s = session->get();
  for (int i = 0; i < 2; ++i) {
    std::vector<Tensor> out;
    absl::Status status = s->Run({}, {"read"}, {}, &out);
    ASSERT_TRUE(status.ok()) << status;
    test::ExpectTensorEqual<float>(out[0], Tensor(3.0f));
    EXPECT_FALSE(absl::StrContains(s->resource_mgr()->DebugString(),
                                   "__per_step_"))
        << s->resource_mgr()->DebugString();
  }
}

TEST(LocalSessionTest, VariableColocatesWithItsUpdateAcrossDevices) {
  // The variable has no device of its own; its AssignAdd wants CPU:1, so the
  // full-graph placement puts the variable (and its Assign) there even for
  // the init step, which never runs the AssignAdd. The read on CPU:0
  // crosses devices.
  auto session = NewSessionWithGraph(
      CounterGraph("", "/device:CPU:1", "/device:CPU:0"), 2);
  ASSERT_TRUE(session.ok()) << session.status();
  LocalSession* s = session->get();
  ASSERT_TRUE(s->Run({}, {}, {"init"}, nullptr).ok());
  ASSERT_TRUE(s->Run({}, {}, {"inc"}, nullptr).ok());
  std::vector<Tensor> out;
  tensorflow::RunOptions opts;
  opts.set_output_partition_graphs(true);
  tensorflow::RunMetadata md;
  absl::Status st = s->Run(opts, {}, {"read"}, {}, &out, &md);
  ASSERT_TRUE(st.ok()) << st;
  test::ExpectTensorEqual<float>(out[0], Tensor(3.0f));
  bool variable_on_cpu1 = false;
  for (const auto& g : md.partition_graphs()) {
    for (const auto& n : g.node()) {
      if (n.name() == "v") {
        variable_on_cpu1 = absl::EndsWith(n.device(), "CPU:1");
      }
    }
  }
  EXPECT_TRUE(variable_on_cpu1);
}

TEST(LocalSessionTest, UninitialisedVariableIsFailedPrecondition) {
  auto session = NewSessionWithGraph(CounterGraph("", "", ""));
  ASSERT_TRUE(session.ok()) << session.status();
  absl::Status s = (*session)->Run({}, {}, {"inc"}, nullptr);
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition) << s;
  EXPECT_NE(s.message().find("v"), std::string::npos) << s;
}

TEST(LocalSessionTest, FetchingAnUninitialisedVariableIsFailedPrecondition) {
  for (int n : {1, 2}) {
    auto session = NewSessionWithGraph(
        CounterGraph(n == 1 ? "" : "/device:CPU:1", "", ""), n);
    ASSERT_TRUE(session.ok()) << session.status();
    std::vector<Tensor> out;
    absl::Status s = (*session)->Run({}, {"v"}, {}, &out);
    EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition) << s;
  }
}

TEST(LocalSessionTest, ConcurrentRunsGetTheirOwnResults) {
  auto session = NewSessionWithGraph(SpreadModel(2), 2);
  ASSERT_TRUE(session.ok()) << session.status();
  LocalSession* s = session->get();
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([s, t, &failures] {
      for (int i = 0; i < 50; ++i) {
        const float v = static_cast<float>(t * 1000 + i);
        std::vector<Tensor> out;
        // x = [v, 0]: x @ w^T = [v, 3v]; + b; relu; + x.
        absl::Status st = s->Run({{"x", test::AsTensor<float>({v, 0}, {1, 2})}},
                                 {"y"}, {}, &out);
        const float y0 = (v - 10 > 0 ? v - 10 : 0) + v;
        const float y1 = 3 * v + 0.5f;
        if (!st.ok() || out.size() != 1 || out[0].flat<float>()(0) != y0 ||
            out[0].flat<float>()(1) != y1) {
          ++failures;
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(s->num_executor_builds(), 1);
}

constexpr char kWaitGraph[] = R"pb(
  node { name: 'wait' op: 'XWaitCancel' }
  node {
    name: 'c'
    op: 'Const'
    attr {
      key: 'dtype'
      value { type: DT_FLOAT }
    }
    attr {
      key: 'value'
      value {
        tensor {
          dtype: DT_FLOAT
          tensor_shape {}
          float_val: 3
        }
      }
    }
  }
)pb";

TEST(LocalSessionTest, RunOptionsTimeoutCancelsTheStep) {
  auto session = NewSessionWithGraph(ParseGraph(kWaitGraph), 2);
  ASSERT_TRUE(session.ok()) << session.status();
  tensorflow::RunOptions opts;
  opts.set_timeout_in_ms(50);
  std::vector<Tensor> out;
  absl::Status s = (*session)->Run(opts, {}, {"wait"}, {}, &out, nullptr);
  EXPECT_EQ(s.code(), absl::StatusCode::kDeadlineExceeded) << s;
  // The session is still usable.
  ASSERT_TRUE((*session)->Run({}, {"c"}, {}, &out).ok());
  test::ExpectTensorEqual<float>(out[0], Tensor(3.0f));
}

TEST(LocalSessionTest, OperationTimeoutFromConfig) {
  tensorflow::ConfigProto config;
  config.set_operation_timeout_in_ms(50);
  auto session = NewSessionWithGraph(ParseGraph(kWaitGraph), 1, config);
  ASSERT_TRUE(session.ok()) << session.status();
  std::vector<Tensor> out;
  absl::Status s = (*session)->Run({}, {"wait"}, {}, &out);
  EXPECT_EQ(s.code(), absl::StatusCode::kDeadlineExceeded) << s;
}

TEST(LocalSessionTest, CloseCancelsARunningStep) {
  auto session = NewSessionWithGraph(ParseGraph(kWaitGraph));
  ASSERT_TRUE(session.ok()) << session.status();
  LocalSession* s = session->get();
  absl::Status run_status;
  std::thread runner([s, &run_status] {
    std::vector<Tensor> out;
    run_status = s->Run({}, {"wait"}, {}, &out);
  });
  // Close must not return before the step has unwound, whenever it lands.
  absl::SleepFor(absl::Milliseconds(20));
  EXPECT_TRUE(s->Close().ok());
  runner.join();
  EXPECT_EQ(run_status.code(), absl::StatusCode::kCancelled) << run_status;
  std::vector<Tensor> out;
  EXPECT_EQ(s->Run({}, {"c"}, {}, &out).code(), absl::StatusCode::kCancelled);
  EXPECT_TRUE(s->Close().ok());  // Idempotent.
}

TEST(LocalSessionTest, FullTraceReturnsStepStats) {
  auto session = NewSessionWithGraph(SpreadModel(2), 2);
  ASSERT_TRUE(session.ok()) << session.status();
  tensorflow::RunOptions opts;
  opts.set_trace_level(tensorflow::RunOptions::FULL_TRACE);
  tensorflow::RunMetadata md;
  std::vector<Tensor> out;
  ASSERT_TRUE((*session)
                  ->Run(opts, {{"x", test::AsTensor<float>({1, 2}, {1, 2})}},
                        {"s"}, {}, &out, &md)
                  .ok());
  EXPECT_EQ(md.step_stats().dev_stats_size(), 2);
  bool saw_matmul = false;
  for (const auto& dev : md.step_stats().dev_stats()) {
    EXPECT_FALSE(dev.device().empty());
    for (const auto& ns : dev.node_stats()) {
      if (ns.node_name() == "mm") {
        saw_matmul = true;
        EXPECT_GT(ns.all_start_micros(), 0);
        EXPECT_GE(ns.all_end_rel_micros(), ns.op_start_rel_micros());
      }
    }
  }
  EXPECT_TRUE(saw_matmul);
  // Without tracing nothing is collected.
  tensorflow::RunMetadata none;
  ASSERT_TRUE((*session)
                  ->Run(tensorflow::RunOptions(),
                        {{"x", test::AsTensor<float>({1, 2}, {1, 2})}}, {"s"},
                        {}, &out, &none)
                  .ok());
  EXPECT_EQ(none.step_stats().dev_stats_size(), 0);
}

TEST(LocalSessionTest, ErrorsHaveTensorFlowsCodes) {
  auto session = NewSessionWithGraph(SpreadModel(1));
  ASSERT_TRUE(session.ok()) << session.status();
  LocalSession* s = session->get();
  std::vector<Tensor> out;

  absl::Status st = s->Run({}, {"no_such_node"}, {}, &out);
  EXPECT_EQ(st.code(), absl::StatusCode::kNotFound) << st;
  EXPECT_NE(st.message().find("no_such_node"), std::string::npos) << st;

  st = s->Run({}, {"y"}, {}, &out);
  EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument) << st;
  EXPECT_NE(
      st.message().find("You must feed a value for placeholder tensor 'x'"),
      std::string::npos)
      << st;

  // A kernel error names its node: x is [1,3] and w is [2,2]. The remapper
  // fused mm + bias + relu into one _FusedMatMul named "relu", as
  // TensorFlow's does, so the error names that node and its op.
  st = s->Run({{"x", test::AsTensor<float>({1, 2, 3}, {1, 3})}}, {"y"}, {},
              &out);
  EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument) << st;
  EXPECT_NE(st.message().find("{{node relu}} = _FusedMatMul"), std::string::npos)
      << st;

  // Feeding the wrong dtype.
  st =
      s->Run({{"x", test::AsTensor<int32_t>({1, 2}, {1, 2})}}, {"y"}, {}, &out);
  EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument) << st;

  st = s->Run({}, {}, {}, &out);
  EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument) << st;

  EXPECT_EQ(s->Create(SpreadModel(1)).code(), absl::StatusCode::kAlreadyExists);
}

TEST(LocalSessionTest, RunBeforeCreateIsInvalidArgument) {
  auto session = LocalSession::New(CpuConfig(1));
  ASSERT_TRUE(session.ok()) << session.status();
  std::vector<Tensor> out;
  EXPECT_EQ((*session)->Run({}, {"x"}, {}, &out).code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(LocalSessionTest, UnknownOpRejectsTheWholeGraph) {
  auto session = LocalSession::New(CpuConfig(1));
  ASSERT_TRUE(session.ok()) << session.status();
  absl::Status s =
      (*session)->Create(ParseGraph("node { name: 'u' op: 'SomeUnknownOp' }"));
  EXPECT_EQ(s.code(), absl::StatusCode::kNotFound) << s;
  EXPECT_NE(s.message().find("Op type not registered 'SomeUnknownOp'"),
            std::string::npos)
      << s;
}

constexpr char kNoKernelGraph[] = R"pb(
  node { name: 'unused' op: 'XNoKernel' }
  node {
    name: 'c'
    op: 'Const'
    attr {
      key: 'dtype'
      value { type: DT_FLOAT }
    }
    attr {
      key: 'value'
      value {
        tensor {
          dtype: DT_FLOAT
          tensor_shape {}
          float_val: 3
        }
      }
    }
  }
)pb";

TEST(LocalSessionTest, NodesWithoutKernelsFailOnlyTheStepsThatRunThem) {
  for (bool place_pruned : {false, true}) {
    SCOPED_TRACE(place_pruned);
    tensorflow::ConfigProto config;
    config.mutable_graph_options()->set_place_pruned_graph(place_pruned);
    auto session = NewSessionWithGraph(ParseGraph(kNoKernelGraph), 2, config);
    ASSERT_TRUE(session.ok()) << session.status();
    std::vector<Tensor> out;
    ASSERT_TRUE((*session)->Run({}, {"c"}, {}, &out).ok());
    test::ExpectTensorEqual<float>(out[0], Tensor(3.0f));
    absl::Status s = (*session)->Run({}, {}, {"unused"}, nullptr);
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
    EXPECT_NE(s.message().find(
                  "No OpKernel was registered to support Op 'XNoKernel'"),
              std::string::npos)
        << s;
  }
}

TEST(LocalSessionTest, PlacePrunedGraphKeepsVariablesWhereTheyWere) {
  tensorflow::ConfigProto config;
  config.mutable_graph_options()->set_place_pruned_graph(true);
  // The AssignAdd asks for CPU:1 but its variable is pinned to CPU:0:
  // soft placement lets the variable's device win, as TensorFlow would.
  config.set_allow_soft_placement(true);
  auto session = NewSessionWithGraph(
      CounterGraph("", "/device:CPU:1", "/device:CPU:0"), 2, config);
  ASSERT_TRUE(session.ok()) << session.status();
  LocalSession* s = session->get();
  // The init step alone puts the variable on CPU:0; the AssignAdd step
  // finds it pinned there and follows it, so the value survives.
  ASSERT_TRUE(s->Run({}, {}, {"init"}, nullptr).ok());
  absl::Status st = s->Run({}, {}, {"inc"}, nullptr);
  ASSERT_TRUE(st.ok()) << st;
  std::vector<Tensor> out;
  ASSERT_TRUE(s->Run({}, {"read"}, {}, &out).ok());
  test::ExpectTensorEqual<float>(out[0], Tensor(3.0f));
}

TEST(LocalSessionTest, UnplaceableDeviceIsInvalidArgument) {
  auto session = LocalSession::New(CpuConfig(1));
  ASSERT_TRUE(session.ok()) << session.status();
  absl::Status s =
      (*session)->Create(ParseGraph(FloatConst("c", "/device:CPU:7", {1}, {})));
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_NE(s.message().find("'c'"), std::string::npos) << s;

  // With soft placement it lands on CPU:0.
  tensorflow::ConfigProto soft = CpuConfig(1);
  soft.set_allow_soft_placement(true);
  auto soft_session = NewSessionWithGraph(
      ParseGraph(FloatConst("c", "/device:CPU:7", {1}, {})), 1, soft);
  ASSERT_TRUE(soft_session.ok()) << soft_session.status();
  std::vector<Tensor> out;
  ASSERT_TRUE((*soft_session)->Run({}, {"c"}, {}, &out).ok());
  test::ExpectTensorEqual<float>(out[0], Tensor(1.0f));
}

TEST(LocalSessionTest, ExtendAddsNodesAndKeepsVariables) {
  auto session = NewSessionWithGraph(CounterGraph("", "", ""), 2);
  ASSERT_TRUE(session.ok()) << session.status();
  LocalSession* s = session->get();
  ASSERT_TRUE(s->Run({}, {}, {"init"}, nullptr).ok());
  const int64_t builds = s->num_executor_builds();

  absl::Status st = s->Extend(ParseGraph(
      absl::StrCat(FloatConst("ten", "/device:CPU:1", {10}, {}),
                   Binary("plus_ten", "AddV2", "v", "ten", "/device:CPU:1"))));
  ASSERT_TRUE(st.ok()) << st;
  std::vector<Tensor> out;
  st = s->Run({}, {"plus_ten"}, {}, &out);
  ASSERT_TRUE(st.ok()) << st;
  test::ExpectTensorEqual<float>(out[0], Tensor(11.0f));
  // The init signature's executors survived the Extend.
  ASSERT_TRUE(s->Run({}, {}, {"init"}, nullptr).ok());
  EXPECT_EQ(s->num_executor_builds(), builds + 1);

  st = s->Extend(ParseGraph(FloatConst("ten", "", {10}, {})));
  EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument) << st;
}

// A function library arriving with Extend: the call is inlined, a re-sent
// identical function is accepted, a different one under the same name is not.
TEST(LocalSessionTest, ExtendWithFunctionCalls) {
  constexpr char kDouble[] = R"pb(
    library {
      function {
        signature {
          name: "double_it"
          input_arg { name: "x" type: DT_FLOAT }
          output_arg { name: "y" type: DT_FLOAT }
        }
        node_def {
          name: "add"
          op: "AddV2"
          input: "x"
          input: "x"
          attr { key: "T" value { type: DT_FLOAT } }
        }
        ret { key: "y" value: "add:z:0" }
      }
    }
  )pb";
  auto session = NewSessionWithGraph(ParseGraph(FloatConst("c", "", {3}, {})));
  ASSERT_TRUE(session.ok()) << session.status();
  LocalSession* s = session->get();
  absl::Status st = s->Extend(ParseGraph(absl::StrCat(
      kDouble, R"pb(node {
                      name: "call"
                      op: "PartitionedCall"
                      input: "c"
                      attr { key: "Tin" value { list { type: DT_FLOAT } } }
                      attr { key: "Tout" value { list { type: DT_FLOAT } } }
                      attr { key: "f" value { func { name: "double_it" } } }
                    })pb")));
  ASSERT_TRUE(st.ok()) << st;
  std::vector<Tensor> out;
  st = s->Run({}, {"call"}, {}, &out);
  ASSERT_TRUE(st.ok()) << st;
  test::ExpectTensorEqual<float>(out[0], Tensor(6.0f));

  // The same library again, with another caller by name.
  st = s->Extend(ParseGraph(absl::StrCat(
      kDouble, R"pb(node { name: "again" op: "double_it" input: "call" })pb")));
  ASSERT_TRUE(st.ok()) << st;
  st = s->Run({}, {"again"}, {}, &out);
  ASSERT_TRUE(st.ok()) << st;
  test::ExpectTensorEqual<float>(out[0], Tensor(12.0f));

  // A different body under the same name.
  std::string other = absl::StrReplaceAll(kDouble, {{"AddV2", "Mul"}});
  st = s->Extend(ParseGraph(absl::StrCat(
      other, R"pb(node { name: "third" op: "double_it" input: "c" })pb")));
  EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument) << st;
  st = s->Run({}, {"again"}, {}, &out);
  ASSERT_TRUE(st.ok()) << st;
}

TEST(LocalSessionTest, FetchOfAFedTensorReturnsTheFeed) {
  auto session = NewSessionWithGraph(SpreadModel(1));
  ASSERT_TRUE(session.ok()) << session.status();
  std::vector<Tensor> out;
  const Tensor mm = test::AsTensor<float>({100, 200}, {1, 2});
  ASSERT_TRUE(
      (*session)
          ->Run({{"x", test::AsTensor<float>({1, 1}, {1, 2})}, {"mm", mm}},
                {"mm", "bias"}, {}, &out)
          .ok());
  test::ExpectTensorEqual<float>(out[0], mm);
  test::ExpectTensorEqual<float>(out[1],
                                 test::AsTensor<float>({90, 200.5}, {1, 2}));
}

TEST(LocalSessionTest, CallerThreadPoolRunsInline) {
  tensorflow::ConfigProto config;
  config.set_inter_op_parallelism_threads(-1);
  auto session = NewSessionWithGraph(SpreadModel(4), 4, config);
  ASSERT_TRUE(session.ok()) << session.status();
  std::vector<Tensor> out;
  ASSERT_TRUE(
      (*session)
          ->Run({{"x", test::AsTensor<float>({1, 2}, {1, 2})}}, {"s"}, {}, &out)
          .ok());
  // [5, 11] + b = [-5, 11.5] -> relu [0, 11.5] + x = [1, 13.5].
  test::ExpectTensorEqual<float>(out[0], Tensor(14.5f));
}

}  // namespace
}  // namespace tributary
