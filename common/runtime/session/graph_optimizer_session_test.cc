// The optimizer's passes through a real local session: every graph runs with
// the passes on (the default) and off (disable_meta_optimizer) and both give
// the same values (bit for bit where only constant folding applies, float
// rounding where a fusion reorders sums); fed values are never folded away,
// a kernel error in a constant subgraph still reaches the step with its
// code, and a trace names the fused op. Common subgraph elimination and the
// arithmetic rewrites must be exact: their graphs are compared bit for bit,
// on inputs holding -0, NaN with a payload, a denormal and infinities.

#include <cmath>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/framework/tensor.h"
#include "common/framework/tensor_testutil.h"
#include "common/runtime/session/local_session.h"
#include "common/runtime/session/session_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "protos/config.pb.h"

namespace tributary {
namespace {

std::string FloatConst(const std::string& name, const std::vector<int>& shape,
                       uint32_t seed, float lo = -1, float hi = 1) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  int64_t n = 1;
  std::string dims, vals;
  for (int d : shape) {
    absl::StrAppend(&dims, "dim { size: ", d, " } ");
    n *= d;
  }
  for (int64_t i = 0; i < n; ++i) absl::StrAppend(&vals, "float_val: ", dist(rng), " ");
  return absl::StrCat("node { name: '", name,
                      "' op: 'Const' attr { key: 'dtype' value { type: DT_FLOAT } } "
                      "attr { key: 'value' value { tensor { dtype: DT_FLOAT tensor_shape { ",
                      dims, "} ", vals, "} } } }\n");
}

std::string Op(const std::string& name, const std::string& op,
               const std::vector<std::string>& inputs, const std::string& attrs = "") {
  std::string s = absl::StrCat("node { name: '", name, "' op: '", op, "' ");
  for (const std::string& in : inputs) absl::StrAppend(&s, "input: '", in, "' ");
  return absl::StrCat(s, "attr { key: 'T' value { type: DT_FLOAT } } ", attrs, "}\n");
}

constexpr char kConvAttrs[] =
    "attr { key: 'strides' value { list { i: 1 i: 2 i: 2 i: 1 } } } "
    "attr { key: 'padding' value { s: 'SAME' } } ";

// Keras' frozen batch norm: x * (rsqrt(var + eps) * gamma) + (beta - mean * that),
// every factor a constant subgraph the folding pass collapses first.
std::string FrozenBatchNorm(const std::string& prefix, const std::string& x, int c) {
  return FloatConst(prefix + "/var", {c}, 11) + FloatConst(prefix + "/gamma", {c}, 12) +
         FloatConst(prefix + "/beta", {c}, 13) + FloatConst(prefix + "/mean", {c}, 14) +
         Op(prefix + "/abs", "Abs", {prefix + "/var"}) +
         Op(prefix + "/rsqrt", "Rsqrt", {prefix + "/abs"}) +
         Op(prefix + "/scale", "Mul", {prefix + "/rsqrt", prefix + "/gamma"}) +
         Op(prefix + "/mul_1", "Mul", {x, prefix + "/scale"}) +
         Op(prefix + "/mul_2", "Mul", {prefix + "/mean", prefix + "/scale"}) +
         Op(prefix + "/shift", "Sub", {prefix + "/beta", prefix + "/mul_2"}) +
         Op(prefix + "/out", "AddV2", {prefix + "/mul_1", prefix + "/shift"});
}

std::unique_ptr<LocalSession> Session(const std::string& text, bool optimize) {
  tensorflow::ConfigProto config;
  config.mutable_graph_options()->mutable_rewrite_options()->set_disable_meta_optimizer(
      !optimize);
  auto s = session_test::NewSessionWithGraph(session_test::ParseGraph(text), 1, config);
  EXPECT_TRUE(s.ok()) << s.status();
  return s.ok() ? std::move(s).value() : nullptr;
}

Tensor RandomImage(const std::vector<int64_t>& shape) {
  Tensor t(DT_FLOAT, TensorShape(shape));
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-1, 1);
  auto v = t.flat<float>();
  for (int64_t i = 0; i < v.size(); ++i) v(i) = dist(rng);
  return t;
}

// Runs `fetch` on and off; returns both.
std::pair<Tensor, Tensor> OnAndOff(const std::string& text, const NamedTensorList& feeds,
                                   const std::string& fetch) {
  std::pair<Tensor, Tensor> out;
  for (bool optimize : {true, false}) {
    auto session = Session(text, optimize);
    if (session == nullptr) return out;
    std::vector<Tensor> fetched;
    absl::Status s = session->Run(feeds, {fetch}, {}, &fetched);
    EXPECT_TRUE(s.ok()) << s;
    if (!s.ok()) return out;
    (optimize ? out.first : out.second) = fetched[0];
  }
  return out;
}

constexpr char kImage[] =
    "node { name: 'x' op: 'Placeholder' attr { key: 'dtype' value { type: DT_FLOAT } } }\n";

TEST(GraphOptimizerSessionTest, ConvBatchNormRelu6EqualsTheUnfusedGraph) {
  const std::string text =
      std::string(kImage) + FloatConst("w", {3, 3, 5, 7}, 1) +
      Op("w/read", "Identity", {"w"}) + Op("conv", "Conv2D", {"x", "w/read"}, kConvAttrs) +
      FrozenBatchNorm("bn", "conv", 7) + Op("act", "Relu6", {"bn/out"});
  auto [on, off] = OnAndOff(text, {{"x", RandomImage({2, 9, 9, 5})}}, "act:0");
  test::ExpectTensorNear<float>(on, off, 1e-5);
}

TEST(GraphOptimizerSessionTest, DepthwiseBiasReluEqualsTheUnfusedGraph) {
  const std::string text =
      std::string(kImage) + FloatConst("w", {3, 3, 4, 2}, 2) + FloatConst("b", {8}, 3) +
      Op("dw", "DepthwiseConv2dNative", {"x", "w"}, kConvAttrs) +
      FrozenBatchNorm("bn", "dw", 8) + Op("bias", "AddV2", {"bn/out", "b"}) +
      Op("act", "Relu", {"bias"});
  // AddV2 after the batch norm's AddV2 is not per-channel-fused (one Add per
  // chain); what remains must still compute the same.
  auto [on, off] = OnAndOff(text, {{"x", RandomImage({1, 8, 8, 4})}}, "act:0");
  test::ExpectTensorNear<float>(on, off, 1e-5);
}

TEST(GraphOptimizerSessionTest, DenseLayersEqualTheUnfusedGraph) {
  std::string text = std::string(kImage) + FloatConst("w1", {6, 5}, 4) +
                     FloatConst("b1", {5}, 5) + FloatConst("w2", {5, 3}, 6) +
                     FloatConst("b2", {3}, 7);
  text += Op("mm1", "MatMul", {"x", "w1"}) + Op("z1", "BiasAdd", {"mm1", "b1"}) +
          Op("h1", "Tanh", {"z1"}) + Op("mm2", "MatMul", {"h1", "w2"}) +
          Op("z2", "BiasAdd", {"mm2", "b2"}) + Op("h2", "LeakyRelu", {"z2"},
                                                 "attr { key: 'alpha' value { f: 0.3 } } ");
  auto [on, off] = OnAndOff(text, {{"x", RandomImage({4, 6})}}, "h2:0");
  test::ExpectTensorNear<float>(on, off, 1e-5);
}

// A ResNet bottleneck's end: conv + frozen batch norm, plus the block's
// input (x, declared [-1, 4, 4, 4]: the remapper proves the Add does not
// broadcast), then Relu; and a projection shortcut (stride 2 on both sides).
std::string ResidualBlocks() {
  constexpr char kStride1[] =
      "attr { key: 'strides' value { list { i: 1 i: 1 i: 1 i: 1 } } } "
      "attr { key: 'padding' value { s: 'SAME' } } ";
  constexpr char kProjection[] =
      "attr { key: 'strides' value { list { i: 1 i: 2 i: 2 i: 1 } } } "
      "attr { key: 'padding' value { s: 'VALID' } } ";
  return "node { name: 'x' op: 'Placeholder' attr { key: 'dtype' value { type: "
         "DT_FLOAT } } attr { key: 'shape' value { shape { dim { size: -1 } dim { "
         "size: 4 } dim { size: 4 } dim { size: 4 } } } } }\n" +
         FloatConst("w1", {3, 3, 4, 4}, 1) + Op("conv1", "Conv2D", {"x", "w1"}, kStride1) +
         FrozenBatchNorm("bn1", "conv1", 4) + Op("add1", "AddV2", {"bn1/out", "x"}) +
         Op("relu1", "Relu", {"add1"}) + FloatConst("w2", {3, 3, 4, 6}, 2) +
         Op("conv2", "Conv2D", {"relu1", "w2"}, kConvAttrs) + FrozenBatchNorm("bn2", "conv2", 6) +
         FloatConst("w3", {1, 1, 4, 6}, 3) +
         Op("conv3", "Conv2D", {"relu1", "w3"}, kProjection) + FloatConst("b3", {6}, 4) +
         Op("bias3", "BiasAdd", {"conv3", "b3"}) + Op("add2", "AddV2", {"bias3", "bn2/out"}) +
         Op("relu2", "Relu", {"add2"});
}

TEST(GraphOptimizerSessionTest, ResidualAddsEqualTheUnfusedGraph) {
  auto [on, off] = OnAndOff(ResidualBlocks(), {{"x", RandomImage({2, 4, 4, 4})}}, "relu2:0");
  test::ExpectTensorNear<float>(on, off, 1e-5);
}

// The proof rests on the Placeholder's declared shape, as TensorFlow's shape
// inference does. A feed that breaks it (a batch of 2 where the graph says 1,
// which the unfused Add would broadcast) fails with the fused kernel's
// message rather than computing something else.
TEST(GraphOptimizerSessionTest, AFeedBreakingTheDeclaredShapeFailsClearly) {
  const std::string text =
      "node { name: 'x' op: 'Placeholder' attr { key: 'dtype' value { type: DT_FLOAT } } "
      "attr { key: 'shape' value { shape { dim { size: 2 } dim { size: 4 } dim { size: 4 } "
      "dim { size: 3 } } } } }\n"
      "node { name: 'side' op: 'Placeholder' attr { key: 'dtype' value { type: DT_FLOAT } } "
      "attr { key: 'shape' value { shape { dim { size: 2 } dim { size: 4 } dim { size: 4 } "
      "dim { size: 4 } } } } }\n" +
      FloatConst("w", {1, 1, 3, 4}, 1) + FloatConst("b", {4}, 2) +
      Op("conv", "Conv2D", {"x", "w"},
         "attr { key: 'strides' value { list { i: 1 i: 1 i: 1 i: 1 } } } "
         "attr { key: 'padding' value { s: 'SAME' } } ") +
      Op("bias", "BiasAdd", {"conv", "b"}) + Op("add", "AddV2", {"bias", "side"});
  auto session = Session(text, true);
  ASSERT_NE(session, nullptr);
  std::vector<Tensor> out;
  absl::Status s = session->Run(
      {{"x", RandomImage({2, 4, 4, 3})}, {"side", RandomImage({1, 4, 4, 4})}}, {"add:0"}, {},
      &out);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_THAT(std::string(s.message()), ::testing::HasSubstr("output's shape"));
}

TEST(GraphOptimizerSessionTest, FoldedConstantsAreBitExactAndFeedsWin) {
  const std::string text = FloatConst("a", {4}, 8) + FloatConst("b", {4}, 9) +
                           Op("e", "Exp", {"a"}) + Op("sum", "AddV2", {"e", "b"}) +
                           Op("out", "Mul", {"sum", "sum"});
  auto [on, off] = OnAndOff(text, {}, "out:0");
  test::ExpectTensorEqual<float>(on, off);
  // Feeding a node of the constant subgraph replaces its value.
  Tensor fed = test::AsTensor<float>({1, 2, 3, 4});
  auto [fed_on, fed_off] = OnAndOff(text, {{"sum", fed}}, "out:0");
  test::ExpectTensorEqual<float>(fed_on, test::AsTensor<float>({1, 4, 9, 16}));
  test::ExpectTensorEqual<float>(fed_off, fed_on);
}

TEST(GraphOptimizerSessionTest, AConstantSubgraphsErrorStillReachesTheStep) {
  const std::string text =
      FloatConst("v", {6}, 10) +
      "node { name: 's' op: 'Const' attr { key: 'dtype' value { type: DT_INT32 } } "
      "attr { key: 'value' value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 1 } "
      "} int_val: 4 } } } }\n"
      "node { name: 'r' op: 'Reshape' input: 'v' input: 's' attr { key: 'T' value { type: "
      "DT_FLOAT } } attr { key: 'Tshape' value { type: DT_INT32 } } }\n" +
      Op("out", "Neg", {"r"});
  for (bool optimize : {true, false}) {
    auto session = Session(text, optimize);
    ASSERT_NE(session, nullptr);
    std::vector<Tensor> out;
    absl::Status s = session->Run({}, {"out:0"}, {}, &out);
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
    EXPECT_THAT(std::string(s.message()), ::testing::HasSubstr("r"));
  }
}

TEST(GraphOptimizerSessionTest, TraceNamesTheFusedOp) {
  const std::string text = std::string(kImage) + FloatConst("w", {1, 1, 3, 4}, 1) +
                           FloatConst("b", {4}, 2) +
                           Op("conv", "Conv2D", {"x", "w"}, kConvAttrs) +
                           Op("bias", "BiasAdd", {"conv", "b"}) + Op("act", "Relu", {"bias"});
  auto session = Session(text, true);
  ASSERT_NE(session, nullptr);
  tensorflow::RunOptions options;
  options.set_trace_level(tensorflow::RunOptions::FULL_TRACE);
  tensorflow::RunMetadata metadata;
  std::vector<Tensor> out;
  ASSERT_TRUE(session
                  ->Run(options, {{"x", RandomImage({1, 4, 4, 3})}}, {"act:0"}, {}, &out,
                        &metadata)
                  .ok());
  std::vector<std::string> labels;
  for (const auto& dev : metadata.step_stats().dev_stats()) {
    for (const auto& node : dev.node_stats()) labels.push_back(node.timeline_label());
  }
  EXPECT_THAT(labels, ::testing::Contains(::testing::HasSubstr("act = _FusedConv2D(")));
  EXPECT_THAT(labels, ::testing::Not(::testing::Contains(::testing::HasSubstr("Relu("))));
}

// A TF1 frozen model's inference batch norm (tf.nn.fused_batch_norm,
// is_training=False) of `x`, with C constant parameters and a variance in
// [0.1, 2).
std::string FusedBatchNorm(const std::string& name, const std::string& op,
                           const std::string& x, int c, uint32_t seed) {
  return FloatConst(name + "/gamma", {c}, seed) + FloatConst(name + "/beta", {c}, seed + 1) +
         FloatConst(name + "/mean", {c}, seed + 2) +
         FloatConst(name + "/var", {c}, seed + 3, 0.1, 2) +
         Op(name, op,
            {x, name + "/gamma", name + "/beta", name + "/mean", name + "/var"},
            absl::StrCat(op == "FusedBatchNorm" ? "" : "attr { key: 'U' value { type: DT_FLOAT } } ",
                         "attr { key: 'epsilon' value { f: 0.001 } } "
                         "attr { key: 'is_training' value { b: false } } "
                         "attr { key: 'data_format' value { s: 'NHWC' } } "));
}

// Conv2D + FusedBatchNormV3 + the block's input + Relu; a depthwise
// convolution + BiasAdd + FusedBatchNorm + Relu6; a 1x1 convolution +
// FusedBatchNormV2 with nothing after it. Each folds into its convolution
// and computes what the unfolded graph does, to float rounding.
TEST(GraphOptimizerSessionTest, FoldedFusedBatchNormsEqualTheUnfusedGraph) {
  constexpr char kStride1[] =
      "attr { key: 'strides' value { list { i: 1 i: 1 i: 1 i: 1 } } } "
      "attr { key: 'padding' value { s: 'SAME' } } ";
  const std::string text =
      "node { name: 'x' op: 'Placeholder' attr { key: 'dtype' value { type: "
      "DT_FLOAT } } attr { key: 'shape' value { shape { dim { size: -1 } dim { "
      "size: 4 } dim { size: 4 } dim { size: 4 } } } } }\n" +
      FloatConst("w1", {3, 3, 4, 4}, 1) + Op("conv1", "Conv2D", {"x", "w1"}, kStride1) +
      FusedBatchNorm("bn1", "FusedBatchNormV3", "conv1", 4, 10) +
      Op("add1", "AddV2", {"x", "bn1"}) + Op("relu1", "Relu", {"add1"}) +
      FloatConst("w2", {3, 3, 4, 2}, 2) + FloatConst("b2", {8}, 3) +
      Op("dw2", "DepthwiseConv2dNative", {"relu1", "w2"}, kConvAttrs) +
      Op("bias2", "BiasAdd", {"dw2", "b2"}) +
      FusedBatchNorm("bn2", "FusedBatchNorm", "bias2", 8, 20) + Op("act2", "Relu6", {"bn2"}) +
      FloatConst("w3", {1, 1, 8, 6}, 4) + Op("conv3", "Conv2D", {"act2", "w3"}, kStride1) +
      FusedBatchNorm("bn3", "FusedBatchNormV2", "conv3", 6, 30);
  const Tensor image = RandomImage({2, 4, 4, 4});
  auto [on, off] = OnAndOff(text, {{"x", image}}, "bn3:0");
  ASSERT_EQ(on.shape(), off.shape());
  ASSERT_EQ(on.shape(), TensorShape({2, 2, 2, 6}));
  const auto a = on.flat<float>();
  const auto b = off.flat<float>();
  for (int64_t i = 0; i < a.size(); ++i) {
    EXPECT_NEAR(a(i), b(i), 1e-5 + 1e-5 * std::abs(b(i))) << i;
  }

  // And they did fold: the trace shows the fused convolutions, no batch norm.
  auto session = Session(text, true);
  ASSERT_NE(session, nullptr);
  tensorflow::RunOptions options;
  options.set_trace_level(tensorflow::RunOptions::FULL_TRACE);
  tensorflow::RunMetadata metadata;
  std::vector<Tensor> out;
  ASSERT_TRUE(session->Run(options, {{"x", image}}, {"bn3:0"}, {}, &out, &metadata).ok());
  std::vector<std::string> labels;
  for (const auto& dev : metadata.step_stats().dev_stats()) {
    for (const auto& node : dev.node_stats()) labels.push_back(node.timeline_label());
  }
  for (const char* fused : {"relu1 = _FusedConv2D(", "act2 = _FusedDepthwiseConv2dNative(",
                            "bn3 = _FusedConv2D("}) {
    EXPECT_THAT(labels, ::testing::Contains(::testing::HasSubstr(fused)));
  }
  EXPECT_THAT(labels,
              ::testing::Not(::testing::Contains(::testing::HasSubstr("FusedBatchNorm"))));
}

std::string Scalar(const std::string& name, float v) {
  return absl::StrCat("node { name: '", name,
                      "' op: 'Const' attr { key: 'dtype' value { type: DT_FLOAT } } "
                      "attr { key: 'value' value { tensor { dtype: DT_FLOAT tensor_shape {} "
                      "float_val: ", v, " } } } }\n");
}

std::string IntVector(const std::string& name, const std::vector<int>& values) {
  std::string vals;
  for (int v : values) absl::StrAppend(&vals, "int_val: ", v, " ");
  return absl::StrCat("node { name: '", name,
                      "' op: 'Const' attr { key: 'dtype' value { type: DT_INT32 } } "
                      "attr { key: 'value' value { tensor { dtype: DT_INT32 tensor_shape { "
                      "dim { size: ", values.size(), " } } ", vals, "} } } }\n");
}

constexpr char kShapeAttr[] = "attr { key: 'Tshape' value { type: DT_INT32 } } ";

// -0, a NaN with a payload, a denormal, -inf, and two plain values.
Tensor AwkwardFloats() {
  Tensor t(DT_FLOAT, TensorShape({2, 3}));
  auto v = t.flat<float>();
  const uint32_t nan_bits = 0x7fc00123;
  float nan;
  std::memcpy(&nan, &nan_bits, sizeof(nan));
  v(0) = -0.0f;
  v(1) = nan;
  v(2) = 1e-40f;
  v(3) = -INFINITY;
  v(4) = 3.5f;
  v(5) = -2.0f;
  return t;
}

void ExpectBitEqual(const Tensor& a, const Tensor& b, const std::string& what) {
  ASSERT_EQ(a.dtype(), b.dtype()) << what;
  ASSERT_EQ(a.shape(), b.shape()) << what;
  EXPECT_EQ(a.tensor_data(), b.tensor_data()) << what;
}

// Runs `fetches` with the passes on and off; expects identical bits, and
// returns the trace's node labels of the optimized run.
std::vector<std::string> ExpectExactOnAndOff(const std::string& text,
                                             const NamedTensorList& feeds,
                                             const std::vector<std::string>& fetches) {
  std::vector<Tensor> results[2];
  std::vector<std::string> labels;
  for (bool optimize : {true, false}) {
    auto session = Session(text, optimize);
    if (session == nullptr) return labels;
    tensorflow::RunOptions options;
    options.set_trace_level(tensorflow::RunOptions::FULL_TRACE);
    tensorflow::RunMetadata metadata;
    absl::Status s =
        session->Run(options, feeds, fetches, {}, &results[optimize ? 0 : 1], &metadata);
    EXPECT_TRUE(s.ok()) << s;
    if (!s.ok()) return labels;
    if (!optimize) continue;
    for (const auto& dev : metadata.step_stats().dev_stats()) {
      for (const auto& node : dev.node_stats()) labels.push_back(node.timeline_label());
    }
  }
  for (size_t i = 0; i < fetches.size(); ++i) {
    ExpectBitEqual(results[0][i], results[1][i], fetches[i]);
  }
  return labels;
}

TEST(GraphOptimizerSessionTest, ArithmeticRewritesAndSharedSubgraphsAreBitExact) {
  const std::string text =
      std::string(kImage) + Scalar("one", 1) + Scalar("nz", -0.0f) + Scalar("pz", 0) +
      IntVector("s6", {6}) + IntVector("s23", {2, 3}) + Op("a", "Mul", {"x", "one"}) +
      Op("b", "AddV2", {"nz", "a"}) + Op("c", "Sub", {"b", "pz"}) + Op("n1", "Neg", {"c"}) +
      Op("n2", "Neg", {"n1"}) + Op("id", "Identity", {"n2"}) +
      Op("addn", "AddN", {"id"}, "attr { key: 'N' value { i: 1 } } ") +
      // x + (+0) turns -0 into +0: it must stay.
      Op("plus_zero", "AddV2", {"x", "pz"}) + Op("r6", "Reshape", {"x", "s6"}, kShapeAttr) +
      Op("r23", "Reshape", {"r6", "s23"}, kShapeAttr) + Op("sq1", "Square", {"x"}) +
      Op("sq2", "Square", {"x"}) + Op("sum", "AddV2", {"sq1", "sq2"});
  // Bit-exact for every value but a denormal: kernels flush denormal inputs
  // to zero (as TensorFlow's do), so x * 1 reads 1e-40 as 0, while its
  // rewrite to x passes 1e-40 through (TensorFlow's Grappler removes
  // multiplications by one the same way). DenormalThroughARemovedMulByOne
  // states that case; here the feed holds a small normal number instead.
  Tensor x = AwkwardFloats();
  x.flat<float>()(2) = 1e-30f;
  std::vector<std::string> labels = ExpectExactOnAndOff(
      text, {{"x", x}},
      {"id:0", "b:0", "addn:0", "plus_zero:0", "r23:0", "sum:0"});
  // What the optimized step no longer computes.
  for (const char* gone : {"a = ", "b = ", "n1 = ", "n2 = ", "id = ", "r6 = ", "sq2 = "}) {
    EXPECT_THAT(labels, ::testing::Not(::testing::Contains(::testing::StartsWith(gone))))
        << gone;
  }
  EXPECT_THAT(labels, ::testing::Contains(::testing::StartsWith("plus_zero = AddV2(")));
}

// A denormal input: the unoptimized Mul(x, 1) runs with denormals flushed
// and gives 0; the optimized graph no longer multiplies and passes x through.
TEST(GraphOptimizerSessionTest, DenormalThroughARemovedMulByOne) {
  const std::string text = std::string(kImage) + Scalar("one", 1) +
                           Op("a", "Mul", {"x", "one"}) +
                           Op("id", "Identity", {"a"});
  const Tensor x = AwkwardFloats();
  for (bool optimize : {true, false}) {
    SCOPED_TRACE(optimize);
    auto session = Session(text, optimize);
    ASSERT_NE(session, nullptr);
    std::vector<Tensor> out;
    ASSERT_TRUE(session->Run({{"x", x}}, {"id:0"}, {}, &out).ok());
    EXPECT_EQ(out[0].flat<float>()(2), optimize ? 1e-40f : 0.0f);
    EXPECT_EQ(out[0].flat<float>()(4), 3.5f);
  }
}

TEST(GraphOptimizerSessionTest, RewritesFromKnownShapesAreBitExact) {
  const std::string text =
      IntVector("shape", {2, 3}) + IntVector("perm", {0, 1}) +
      "node { name: 'rand' op: 'RandomUniform' input: 'shape' "
      "attr { key: 'T' value { type: DT_INT32 } } attr { key: 'dtype' value { type: DT_FLOAT } } "
      "attr { key: 'seed' value { i: 1 } } attr { key: 'seed2' value { i: 2 } } "
      "attr { key: '_output_shapes' value { list { shape { dim { size: 2 } dim { size: 3 } } } } } "
      "}\n" +
      Op("t", "Transpose", {"rand", "perm"}, "attr { key: 'Tperm' value { type: DT_INT32 } } ") +
      Op("rs", "Reshape", {"rand", "shape"}, kShapeAttr) + Op("out", "Mul", {"t", "rs"});
  std::vector<std::string> labels = ExpectExactOnAndOff(text, {}, {"out:0", "t:0", "rs:0"});
  for (const char* gone : {"t = ", "rs = "}) {
    EXPECT_THAT(labels, ::testing::Not(::testing::Contains(::testing::StartsWith(gone))))
        << gone;
  }
}

TEST(GraphOptimizerSessionTest, AReshapeErrorSurvivesTheRewrites) {
  // x has 6 elements: Reshape(x, [4]) fails; Reshape(x, [2, 3]) alone would not.
  const std::string text = std::string(kImage) + IntVector("s4", {4}) +
                           IntVector("s23", {2, 3}) +
                           Op("r4", "Reshape", {"x", "s4"}, kShapeAttr) +
                           Op("r23", "Reshape", {"r4", "s23"}, kShapeAttr);
  for (bool optimize : {true, false}) {
    auto session = Session(text, optimize);
    ASSERT_NE(session, nullptr);
    std::vector<Tensor> out;
    absl::Status s = session->Run({{"x", AwkwardFloats()}}, {"r23:0"}, {}, &out);
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  }
}

}  // namespace
}  // namespace tributary
