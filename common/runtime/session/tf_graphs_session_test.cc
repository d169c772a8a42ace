// The real TensorFlow GraphDefs of tests/testdata/tf_graphs run through the
// local session and give the values their README lists. Each graph runs as
// TensorFlow wrote it (everything on CPU:0), and again with its nodes
// forced round-robin onto 4 CPUs (soft placement resolving colocation
// conflicts) so that nearly every edge crosses devices; and once more with
// the graph optimizer switched off (disable_meta_optimizer), so every value
// is checked with constant folding and fusion on and off. All must agree.

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/framework/tensor.h"
#include "common/framework/tensor_testutil.h"
#include "common/framework/tf_graphs_testutil.h"
#include "common/runtime/session/local_session.h"
#include "common/runtime/session/session_test_util.h"
#include "gtest/gtest.h"
#include "protos/graph.pb.h"

namespace tributary {
namespace {

// How a graph is spread over the local session's CPUs (and how feeds
// reach it); every graph runs in each of kLayouts.
struct DeviceLayout {
  int num_devices;
  bool round_robin;
  bool rendezvous_feeds = false;  // LocalSessionOptions
  bool optimize = true;           // rewrite_options.disable_meta_optimizer
};
const DeviceLayout kLayouts[] = {
    {1, false}, {4, true}, {4, true, true}, {1, false, false, false}};

std::unique_ptr<LocalSession> Open(const std::string& file,
                                   const DeviceLayout& layout) {
  absl::StatusOr<tensorflow::GraphDef> loaded = test::LoadTfGraph(file);
  EXPECT_TRUE(loaded.ok()) << loaded.status();
  if (!loaded.ok()) return nullptr;
  tensorflow::GraphDef gdef = *std::move(loaded);
  if (layout.round_robin) {
    for (int i = 0; i < gdef.node_size(); ++i) {
      gdef.mutable_node(i)->set_device(
          absl::StrCat("/device:CPU:", i % layout.num_devices));
    }
  }
  tensorflow::ConfigProto config = session_test::CpuConfig(layout.num_devices);
  config.mutable_graph_options()->mutable_rewrite_options()->set_disable_meta_optimizer(
      !layout.optimize);
  config.set_allow_soft_placement(true);
  LocalSessionOptions options;
  options.feed_fetch_through_rendezvous = layout.rendezvous_feeds;
  auto session = LocalSession::New(config, options);
  EXPECT_TRUE(session.ok()) << file << ": " << session.status();
  if (!session.ok()) return nullptr;
  absl::Status s = (*session)->Create(gdef);
  EXPECT_TRUE(s.ok()) << file << ": " << s;
  return s.ok() ? std::move(session).value() : nullptr;
}

std::vector<Tensor> RunOk(LocalSession* s, const NamedTensorList& feeds,
                          const std::vector<std::string>& fetches,
                          const std::vector<std::string>& targets = {}) {
  std::vector<Tensor> out;
  absl::Status st = s->Run(feeds, fetches, targets, &out);
  EXPECT_TRUE(st.ok()) << st;
  return out;
}

class TfGraphsSessionTest : public ::testing::TestWithParam<DeviceLayout> {};

TEST_P(TfGraphsSessionTest, TfAddConsts) {
  auto s = Open("tfadd_consts.pbtxt", GetParam());
  ASSERT_NE(s, nullptr);
  auto out = RunOk(s.get(), {}, {"x_y_sum"});
  ASSERT_EQ(out.size(), 1u);
  test::ExpectTensorEqual<int32_t>(out[0], test::AsTensor<int32_t>({3}, {1}));
}

TEST_P(TfGraphsSessionTest, AddInt32Feeds) {
  auto s = Open("add_int32_feeds.pbtxt", GetParam());
  ASSERT_NE(s, nullptr);
  std::vector<int32_t> a, b, sum;
  for (int i = 0; i < 10; ++i) {
    a.push_back(i);
    b.push_back(100 * i - 7);
    sum.push_back(a.back() + b.back());
  }
  auto out = RunOk(s.get(),
                   {{"input0", test::AsTensor<int32_t>(a, {10})},
                    {"input1", test::AsTensor<int32_t>(b, {10})}},
                   {"Add"});
  ASSERT_EQ(out.size(), 1u);
  test::ExpectTensorEqual<int32_t>(out[0], test::AsTensor<int32_t>(sum, {10}));
}

TEST_P(TfGraphsSessionTest, PruneUnusedPlaceholder) {
  auto s = Open("prune_unused_placeholder.pbtxt", GetParam());
  ASSERT_NE(s, nullptr);
  absl::StatusOr<tensorflow::GraphDef> loaded =
      test::LoadTfGraph("prune_unused_placeholder.pbtxt");
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  const tensorflow::GraphDef& gdef = *loaded;
  // The inputs' dtype as the file declares it.
  DataType dtype = tensorflow::DT_INVALID;
  for (const auto& n : gdef.node()) {
    if (n.name() == "input0") dtype = n.attr().at("dtype").type();
  }
  Tensor a(dtype, TensorShape({2})), b(dtype, TensorShape({2})), want;
  if (dtype == tensorflow::DT_FLOAT) {
    a = test::AsTensor<float>({1, 2}, {2});
    b = test::AsTensor<float>({10, 20}, {2});
    want = test::AsTensor<float>({11, 22}, {2});
  } else {
    ASSERT_EQ(dtype, tensorflow::DT_INT32);
    a = test::AsTensor<int32_t>({1, 2}, {2});
    b = test::AsTensor<int32_t>({10, 20}, {2});
    want = test::AsTensor<int32_t>({11, 22}, {2});
  }
  auto out = RunOk(s.get(), {{"input0", a}, {"input1", b}}, {"Add"});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].DebugString(), want.DebugString());
}

TEST_P(TfGraphsSessionTest, FeedControlDep) {
  auto s = Open("feed_control_dep.pbtxt", GetParam());
  ASSERT_NE(s, nullptr);
  auto out = RunOk(s.get(), {{"input", test::AsTensor<float>({42}, {1})}},
                   {"output_node"});
  ASSERT_EQ(out.size(), 1u);
  test::ExpectTensorEqual<float>(out[0], Tensor(1.0f));
}

TEST_P(TfGraphsSessionTest, ConstTensorContent) {
  auto s = Open("const_tensor_content.pbtxt", GetParam());
  ASSERT_NE(s, nullptr);
  auto out = RunOk(s.get(), {}, {"x", "y", "z"});
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0].dtype(), tensorflow::DT_FLOAT);
  EXPECT_EQ(out[1].dtype(), tensorflow::DT_INT64);
  EXPECT_EQ(out[2].dtype(), tensorflow::DT_INT32);
  // The values are whatever the file's tensor_content holds: decode the
  // Const attrs directly and compare.
  absl::StatusOr<tensorflow::GraphDef> loaded =
      test::LoadTfGraph("const_tensor_content.pbtxt");
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  const tensorflow::GraphDef& gdef = *loaded;
  const char* names[] = {"x", "y", "z"};
  for (int i = 0; i < 3; ++i) {
    for (const auto& n : gdef.node()) {
      if (n.name() != names[i]) continue;
      auto want = Tensor::FromProto(n.attr().at("value").tensor());
      ASSERT_TRUE(want.ok()) << want.status();
      EXPECT_EQ(out[i].shape(), TensorShape({2, 3})) << names[i];
      EXPECT_EQ(out[i].tensor_data(), want->tensor_data()) << names[i];
    }
  }
}

TEST_P(TfGraphsSessionTest, ReluIdentityNMultiFetch) {
  auto s = Open("relu_identityn_multi_fetch.pbtxt", GetParam());
  ASSERT_NE(s, nullptr);
  for (float x : {-3.0f, 2.5f}) {
    auto out = RunOk(s.get(), {{"input", Tensor(x)}}, {"out:1", "out"});
    ASSERT_EQ(out.size(), 2u);
    test::ExpectTensorEqual<float>(out[0], Tensor(x > 0 ? x : 0.0f));
    test::ExpectTensorEqual<float>(out[1], Tensor(x > 0 ? x : 0.0f));
  }
}

TEST_P(TfGraphsSessionTest, Conv2DBiasRelu) {
  auto s = Open("conv2d_bias_relu.pbtxt", GetParam());
  ASSERT_NE(s, nullptr);
  absl::StatusOr<tensorflow::GraphDef> loaded =
      test::LoadTfGraph("conv2d_bias_relu.pbtxt");
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  const tensorflow::GraphDef& gdef = *loaded;
  Tensor w, b;
  for (const auto& n : gdef.node()) {
    if (n.name() == "conv_net_2d/conv_2d_0/w") {
      w = Tensor::FromProto(n.attr().at("value").tensor()).value();
    } else if (n.name() == "conv_net_2d/conv_2d_0/b") {
      b = Tensor::FromProto(n.attr().at("value").tensor()).value();
    }
  }
  ASSERT_EQ(w.shape(), TensorShape({3, 3, 2, 2}));
  ASSERT_EQ(b.shape(), TensorShape({2}));

  Tensor input(tensorflow::DT_FLOAT, TensorShape({1, 8, 8, 2}));
  auto in = input.tensor<float, 4>();
  for (int i = 0; i < 8; ++i) {
    for (int j = 0; j < 8; ++j) {
      for (int c = 0; c < 2; ++c) {
        in(0, i, j, c) = std::sin(0.3f * i + 0.7f * j + 1.1f * c);
      }
    }
  }
  // Reference: 3x3 SAME convolution, stride 1, + bias, relu.
  auto wt = w.tensor<float, 4>();
  Tensor want(tensorflow::DT_FLOAT, TensorShape({1, 8, 8, 2}));
  auto ref = want.tensor<float, 4>();
  for (int i = 0; i < 8; ++i) {
    for (int j = 0; j < 8; ++j) {
      for (int o = 0; o < 2; ++o) {
        double acc = b.flat<float>()(o);
        for (int di = 0; di < 3; ++di) {
          for (int dj = 0; dj < 3; ++dj) {
            const int y = i + di - 1, x = j + dj - 1;
            if (y < 0 || y >= 8 || x < 0 || x >= 8) continue;
            for (int c = 0; c < 2; ++c) {
              acc += static_cast<double>(in(0, y, x, c)) * wt(di, dj, c, o);
            }
          }
        }
        ref(0, i, j, o) = acc > 0 ? static_cast<float>(acc) : 0.0f;
      }
    }
  }
  auto out = RunOk(s.get(), {{"input", input}}, {"output_0"});
  ASSERT_EQ(out.size(), 1u);
  test::ExpectTensorNear<float>(out[0], want, 1e-5);
}

TEST_P(TfGraphsSessionTest, VariableV2AssignAddTarget) {
  auto s = Open("variablev2_assign_add_target.pbtxt", GetParam());
  ASSERT_NE(s, nullptr);
  // AssignAdd before the variable is initialised.
  std::vector<Tensor> out;
  absl::Status st = s->Run({}, {}, {"AssignAdd"}, &out);
  EXPECT_EQ(st.code(), absl::StatusCode::kFailedPrecondition) << st;

  RunOk(s.get(), {}, {}, {"Variable/Assign"});
  RunOk(s.get(), {}, {}, {"AssignAdd"});
  out = RunOk(s.get(), {}, {"Variable/read"});
  ASSERT_EQ(out.size(), 1u);
  test::ExpectTensorEqual<float>(out[0], Tensor(5.0f));
}

TEST_P(TfGraphsSessionTest, Tf1WhileCounter) {
  auto s = Open("tf1_while_counter.pbtxt", GetParam());
  ASSERT_NE(s, nullptr);
  auto out = RunOk(s.get(), {}, {"while/Exit"});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].NumElements(), 1);
  EXPECT_EQ(out[0].DebugString(), Tensor(int32_t{10}).DebugString());
}

TEST_P(TfGraphsSessionTest, InvalidOutputIndexIsInvalidArgument) {
  auto s = Open("err_invalid_output_index.pbtxt", GetParam());
  ASSERT_NE(s, nullptr);
  std::vector<Tensor> out;
  absl::Status st = s->Run({}, {"input:1"}, {}, &out);
  EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument) << st;
}

TEST_P(TfGraphsSessionTest, UnknownOpRejectsTheGraph) {
  // As TensorFlow's Session: the whole graph is rejected at Create, even
  // though x_y_sum would not need the unknown op.
  absl::StatusOr<tensorflow::GraphDef> loaded =
      test::LoadTfGraph("err_unknown_op.pbtxt");
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  const tensorflow::GraphDef& gdef = *loaded;
  auto session = LocalSession::New(session_test::CpuConfig(1));
  ASSERT_TRUE(session.ok());
  absl::Status st = (*session)->Create(gdef);
  EXPECT_EQ(st.code(), absl::StatusCode::kNotFound) << st;
  EXPECT_NE(st.message().find("Op type not registered 'SomeUnknownOp'"),
            std::string::npos)
      << st;
}

TEST(TfGraphsSessionSavedModel, HalfPlusTwo) {
  // A SavedModel's graph: its save/restore and tf.Example parsing ops have
  // no kernels here, but the steps below never run them.
  absl::StatusOr<tensorflow::GraphDef> gdef =
      test::LoadTfGraph("half_plus_two_saved_model.pbtxt");
  ASSERT_TRUE(gdef.ok()) << gdef.status();
  auto session = session_test::NewSessionWithGraph(*gdef, 2);
  ASSERT_TRUE(session.ok()) << session.status();
  RunOk(session->get(), {}, {}, {"init"});
  auto out = RunOk(session->get(),
                   {{"x", test::AsTensor<float>({0, 1, 4}, {3, 1})}}, {"y"});
  ASSERT_EQ(out.size(), 1u);
  test::ExpectTensorNear<float>(
      out[0], test::AsTensor<float>({2, 2.5, 4}, {3, 1}), 1e-6);
  // The serving path through ParseExample has no kernel.
  std::vector<Tensor> none;
  EXPECT_EQ((*session)->Run({}, {"y"}, {}, &none).code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(TfGraphsSessionErrors, MalformedTextIsNotAGraphDef) {
  EXPECT_EQ(test::LoadTfGraph("err_malformed_text.pbtxt").status().code(),
            absl::StatusCode::kInvalidArgument);
}

INSTANTIATE_TEST_SUITE_P(
    Layouts, TfGraphsSessionTest, ::testing::ValuesIn(kLayouts),
    [](const ::testing::TestParamInfo<DeviceLayout>& info) {
      return absl::StrCat(info.param.num_devices, "cpu",
                          info.param.round_robin ? "_round_robin" : "",
                          info.param.rendezvous_feeds ? "_rendezvous" : "",
                          info.param.optimize ? "" : "_unoptimized");
    });

}  // namespace
}  // namespace tributary
