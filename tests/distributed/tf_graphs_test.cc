// The real TensorFlow GraphDefs of tests/testdata/tf_graphs (see its README for
// what each must give) run through the master of a 1 ps + 2 worker cluster:
// once as TensorFlow wrote them (unplaced: everything on the default task),
// once with their nodes dealt round-robin over the three tasks (soft
// placement resolving colocation conflicts) so nearly every edge crosses
// tasks.

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/framework/tensor.h"
#include "common/framework/tf_graphs_testutil.h"
#include "gtest/gtest.h"
#include "protos/graph.pb.h"
#include "tests/distributed/cluster_fixture.h"
#include "tests/distributed/distributed_test_util.h"
#include "tools/client/tensor_helpers.h"

namespace tributary {
namespace test {
namespace {

// Whether a graph's nodes are dealt round-robin over the cluster's tasks.
struct TaskLayout {
  bool round_robin;
};

class TfGraphsDistributedTest : public ::testing::TestWithParam<TaskLayout> {
 protected:
  static void SetUpTestSuite() {
    auto cluster = TestCluster::Start();
    ASSERT_TRUE(cluster.ok()) << cluster.status();
    cluster_ = std::move(cluster).value().release();
  }
  static void TearDownTestSuite() {
    delete cluster_;
    cluster_ = nullptr;
  }
  void TearDown() override {
    if (HasFailure() && cluster_ != nullptr) cluster_->DumpLogs();
  }

  tensorflow::GraphDef Place(tensorflow::GraphDef gdef) const {
    if (GetParam().round_robin) {
      const std::vector<std::string> tasks = {kPs, kWorker0, kWorker1};
      for (int i = 0; i < gdef.node_size(); ++i) {
        gdef.mutable_node(i)->set_device(Cpu(tasks[i % tasks.size()]));
      }
    }
    return gdef;
  }

  tensorflow::ConfigProto Config() const {
    tensorflow::ConfigProto config = DefaultConfig();
    config.set_allow_soft_placement(true);
    return config;
  }

  std::unique_ptr<Session> Open(const std::string& file) {
    EXPECT_NE(cluster_, nullptr) << "the cluster did not start";
    if (cluster_ == nullptr) return nullptr;
    absl::StatusOr<tensorflow::GraphDef> gdef = LoadTfGraph(file);
    EXPECT_TRUE(gdef.ok()) << gdef.status();
    if (!gdef.ok()) return nullptr;
    auto session =
        OpenSession(cluster_->master_target(), Place(*gdef), Config());
    EXPECT_TRUE(session.ok()) << file << ": " << session.status();
    return session.ok() ? std::move(session).value() : nullptr;
  }

  static std::vector<Tensor> RunOk(
      Session* s, const NamedTensorList& feeds,
      const std::vector<std::string>& fetches,
      const std::vector<std::string>& targets = {}) {
    std::vector<Tensor> out;
    absl::Status st = RunStep(s, feeds, fetches, targets, &out);
    EXPECT_TRUE(st.ok()) << st;
    return out;
  }

  static TestCluster* cluster_;
};
TestCluster* TfGraphsDistributedTest::cluster_ = nullptr;

template <typename T>
Tensor Make(const std::vector<T>& values, const std::vector<int64_t>& dims) {
  return MakeTensor<T>(values, dims).value();
}

TEST_P(TfGraphsDistributedTest, TfAddConsts) {
  auto s = Open("tfadd_consts.pbtxt");
  ASSERT_NE(s, nullptr);
  auto out = RunOk(s.get(), {}, {"x_y_sum"});
  ASSERT_EQ(out.size(), 1u);
  ExpectSameTensor(out[0], Make<int32_t>({3}, {1}), "x_y_sum");
}

TEST_P(TfGraphsDistributedTest, AddInt32Feeds) {
  auto s = Open("add_int32_feeds.pbtxt");
  ASSERT_NE(s, nullptr);
  std::vector<int32_t> a, b, sum;
  for (int i = 0; i < 10; ++i) {
    a.push_back(i);
    b.push_back(100 * i - 7);
    sum.push_back(a.back() + b.back());
  }
  auto out = RunOk(
      s.get(),
      {{"input0", Make<int32_t>(a, {10})}, {"input1", Make<int32_t>(b, {10})}},
      {"Add"});
  ASSERT_EQ(out.size(), 1u);
  ExpectSameTensor(out[0], Make<int32_t>(sum, {10}), "Add");
}

TEST_P(TfGraphsDistributedTest, PruneUnusedPlaceholder) {
  absl::StatusOr<tensorflow::GraphDef> loaded =
      LoadTfGraph("prune_unused_placeholder.pbtxt");
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  const tensorflow::GraphDef& gdef = *loaded;
  DataType dtype = tensorflow::DT_INVALID;
  for (const auto& n : gdef.node()) {
    if (n.name() == "input0") dtype = n.attr().at("dtype").type();
  }
  auto s = Open("prune_unused_placeholder.pbtxt");
  ASSERT_NE(s, nullptr);
  Tensor a, b, want;
  if (dtype == tensorflow::DT_FLOAT) {
    a = Make<float>({1, 2}, {2});
    b = Make<float>({10, 20}, {2});
    want = Make<float>({11, 22}, {2});
  } else {
    ASSERT_EQ(dtype, tensorflow::DT_INT32);
    a = Make<int32_t>({1, 2}, {2});
    b = Make<int32_t>({10, 20}, {2});
    want = Make<int32_t>({11, 22}, {2});
  }
  // `unused_input` is never fed and must not be required.
  auto out = RunOk(s.get(), {{"input0", a}, {"input1", b}}, {"Add"});
  ASSERT_EQ(out.size(), 1u);
  ExpectSameTensor(out[0], want, "Add");
}

TEST_P(TfGraphsDistributedTest, FeedControlDep) {
  auto s = Open("feed_control_dep.pbtxt");
  ASSERT_NE(s, nullptr);
  auto out =
      RunOk(s.get(), {{"input", Make<float>({42}, {1})}}, {"output_node"});
  ASSERT_EQ(out.size(), 1u);
  ExpectSameTensor(out[0], Tensor(1.0f), "output_node");
}

TEST_P(TfGraphsDistributedTest, ConstTensorContent) {
  auto s = Open("const_tensor_content.pbtxt");
  ASSERT_NE(s, nullptr);
  auto out = RunOk(s.get(), {}, {"x", "y", "z"});
  ASSERT_EQ(out.size(), 3u);
  absl::StatusOr<tensorflow::GraphDef> loaded =
      LoadTfGraph("const_tensor_content.pbtxt");
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  const tensorflow::GraphDef& gdef = *loaded;
  const char* names[] = {"x", "y", "z"};
  const DataType dtypes[] = {tensorflow::DT_FLOAT, tensorflow::DT_INT64,
                             tensorflow::DT_INT32};
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(out[i].dtype(), dtypes[i]) << names[i];
    for (const auto& n : gdef.node()) {
      if (n.name() != names[i]) continue;
      auto want = Tensor::FromProto(n.attr().at("value").tensor());
      ASSERT_TRUE(want.ok()) << want.status();
      EXPECT_EQ(out[i].shape(), TensorShape({2, 3})) << names[i];
      ExpectSameTensor(out[i], *want, names[i]);
    }
  }
}

TEST_P(TfGraphsDistributedTest, ReluIdentityNMultiFetch) {
  auto s = Open("relu_identityn_multi_fetch.pbtxt");
  ASSERT_NE(s, nullptr);
  for (float x : {-3.0f, 2.5f}) {
    auto out = RunOk(s.get(), {{"input", Tensor(x)}}, {"out:1", "out"});
    ASSERT_EQ(out.size(), 2u);
    ExpectSameTensor(out[0], Tensor(x > 0 ? x : 0.0f), "out:1");
    ExpectSameTensor(out[1], Tensor(x > 0 ? x : 0.0f), "out");
  }
}

TEST_P(TfGraphsDistributedTest, Conv2DBiasRelu) {
  absl::StatusOr<tensorflow::GraphDef> loaded =
      LoadTfGraph("conv2d_bias_relu.pbtxt");
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  const tensorflow::GraphDef& gdef = *loaded;
  Tensor input(tensorflow::DT_FLOAT, TensorShape({1, 8, 8, 2}));
  auto in = input.flat<float>();
  for (int i = 0; i < in.size(); ++i) in(i) = std::sin(0.37f * i);
  // The local session (checked against a hand-written convolution by
  // common/runtime/session/tf_graphs_session_test) is the reference.
  auto local = OpenSession("", StripDevices(gdef), tensorflow::ConfigProto());
  ASSERT_TRUE(local.ok()) << local.status();
  auto want = RunOk(local->get(), {{"input", input}}, {"output_0"});
  auto s = Open("conv2d_bias_relu.pbtxt");
  ASSERT_NE(s, nullptr);
  auto out = RunOk(s.get(), {{"input", input}}, {"output_0"});
  ASSERT_EQ(out.size(), 1u);
  ASSERT_EQ(want.size(), 1u);
  EXPECT_EQ(out[0].shape(), TensorShape({1, 8, 8, 2}));
  ExpectSameTensor(out[0], want[0], "output_0");
}

TEST_P(TfGraphsDistributedTest, VariableV2AssignAddTarget) {
  // Isolated, so this test's variable cannot meet the other layout's (the
  // workers' shared resource manager outlives sessions).
  absl::StatusOr<tensorflow::GraphDef> loaded =
      LoadTfGraph("variablev2_assign_add_target.pbtxt");
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  const tensorflow::GraphDef& gdef = *loaded;
  tensorflow::ConfigProto config = Config();
  config.set_isolate_session_state(true);
  auto session = OpenSession(cluster_->master_target(), Place(gdef), config);
  ASSERT_TRUE(session.ok()) << session.status();
  Session* s = session->get();
  std::vector<Tensor> out;
  absl::Status st = RunStep(s, {}, {}, {"AssignAdd"}, &out);
  EXPECT_EQ(st.code(), absl::StatusCode::kFailedPrecondition) << st;
  RunOk(s, {}, {}, {"Variable/Assign"});
  RunOk(s, {}, {}, {"AssignAdd"});
  out = RunOk(s, {}, {"Variable/read"});
  ASSERT_EQ(out.size(), 1u);
  ExpectSameTensor(out[0], Tensor(5.0f), "Variable/read");
}

TEST_P(TfGraphsDistributedTest, Tf1WhileCounter) {
  auto s = Open("tf1_while_counter.pbtxt");
  ASSERT_NE(s, nullptr);
  for (int i = 0; i < 2; ++i) {
    auto out = RunOk(s.get(), {}, {"while/Exit"});
    ASSERT_EQ(out.size(), 1u);
    ExpectSameTensor(out[0], Tensor(int32_t{10}), "while/Exit");
  }
}

TEST_P(TfGraphsDistributedTest, InvalidOutputIndexIsInvalidArgument) {
  auto s = Open("err_invalid_output_index.pbtxt");
  ASSERT_NE(s, nullptr);
  std::vector<Tensor> out;
  absl::Status st = RunStep(s.get(), {}, {"input:1"}, {}, &out);
  EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument) << st;
}

TEST_P(TfGraphsDistributedTest, UnknownOpRejectsTheGraph) {
  ASSERT_NE(cluster_, nullptr);
  // As TensorFlow's Session and the local session: the whole graph is
  // rejected (at Create, or at the first step if the session defers it).
  absl::StatusOr<tensorflow::GraphDef> loaded =
      LoadTfGraph("err_unknown_op.pbtxt");
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  const tensorflow::GraphDef& gdef = *loaded;
  absl::Status st;
  auto session = OpenSession(cluster_->master_target(), Place(gdef), Config());
  if (session.ok()) {
    std::vector<Tensor> out;
    st = RunStep(session->get(), {}, {"x_y_sum"}, {}, &out);
  } else {
    st = session.status();
  }
  EXPECT_EQ(st.code(), absl::StatusCode::kNotFound) << st;
  EXPECT_TRUE(
      absl::StrContains(st.message(), "Op type not registered 'SomeUnknownOp'"))
      << st;
}

TEST_P(TfGraphsDistributedTest, HalfPlusTwoSavedModel) {
  ASSERT_NE(cluster_, nullptr);
  absl::StatusOr<tensorflow::GraphDef> gdef =
      LoadTfGraph("half_plus_two_saved_model.pbtxt");
  ASSERT_TRUE(gdef.ok()) << gdef.status();
  tensorflow::ConfigProto config = Config();
  config.set_isolate_session_state(true);
  auto session = OpenSession(cluster_->master_target(), Place(*gdef), config);
  ASSERT_TRUE(session.ok()) << session.status();
  RunOk(session->get(), {}, {}, {"init"});
  auto out =
      RunOk(session->get(), {{"x", Make<float>({0, 1, 4}, {3, 1})}}, {"y"});
  ASSERT_EQ(out.size(), 1u);
  ExpectSameTensor(out[0], Make<float>({2, 2.5, 4}, {3, 1}), "y");
  // The serving path through ParseExample has no kernel (as locally).
  std::vector<Tensor> none;
  EXPECT_EQ(RunStep(session->get(), {}, {"y"}, {}, &none).code(),
            absl::StatusCode::kInvalidArgument);
}

TEST_P(TfGraphsDistributedTest, MalformedTextIsNotAGraphDef) {
  EXPECT_EQ(LoadTfGraph("err_malformed_text.pbtxt").status().code(),
            absl::StatusCode::kInvalidArgument);
}

INSTANTIATE_TEST_SUITE_P(Layouts, TfGraphsDistributedTest,
                         ::testing::Values(TaskLayout{false}, TaskLayout{true}),
                         [](const ::testing::TestParamInfo<TaskLayout>& info) {
                           return info.param.round_robin ? "round_robin_tasks"
                                                         : "as_written";
                         });

}  // namespace
}  // namespace test
}  // namespace tributary
