// The remapper on small graphs: which chains become fused ops, what the
// folded filter and bias hold, and what is left alone.

#include "common/runtime/optimization/remapper.h"

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "common/framework/tensor_testutil.h"
#include "common/op/node_def_util.h"
#include "common/runtime/optimization/optimization_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tributary {
namespace {

using optimization_test::ConstValueOf;
using optimization_test::DataInputs;
using optimization_test::OpOf;
using optimization_test::PlacedGraph;
using optimization_test::ShapedPlaceholder;
using ::testing::ElementsAre;

std::string FloatConst(const std::string& name, const std::vector<int>& shape,
                       const std::vector<float>& values) {
  std::string dims, vals;
  for (int d : shape) absl::StrAppend(&dims, "dim { size: ", d, " } ");
  for (float v : values) absl::StrAppend(&vals, "float_val: ", v, " ");
  return absl::StrCat(
      "node { name: '", name, "' op: 'Const' attr { key: 'dtype' value { type: "
      "DT_FLOAT } } attr { key: 'value' value { tensor { dtype: DT_FLOAT "
      "tensor_shape { ", dims, "} ", vals, "} } } }\n");
}

std::string Unary(const std::string& name, const std::string& op,
                  const std::string& in) {
  return absl::StrCat("node { name: '", name, "' op: '", op, "' input: '", in,
                      "' attr { key: 'T' value { type: DT_FLOAT } } }\n");
}

std::string Binary(const std::string& name, const std::string& op,
                   const std::string& a, const std::string& b) {
  return absl::StrCat("node { name: '", name, "' op: '", op, "' input: '", a,
                      "' input: '", b,
                      "' attr { key: 'T' value { type: DT_FLOAT } } }\n");
}

std::string Conv(const std::string& name, const std::string& op,
                 const std::string& format = "NHWC") {
  return absl::StrCat(
      "node { name: '", name, "' op: '", op, "' input: 'x' input: 'w' ",
      "attr { key: 'T' value { type: DT_FLOAT } } ",
      "attr { key: 'strides' value { list { i: 1 i: 1 i: 1 i: 1 } } } ",
      "attr { key: 'padding' value { s: 'SAME' } } ",
      "attr { key: 'data_format' value { s: '", format, "' } } }\n");
}

constexpr char kInput[] =
    "node { name: 'x' op: 'Placeholder' attr { key: 'dtype' value { type: "
    "DT_FLOAT } } }\n";

int Remap(Graph* g) {
  absl::StatusOr<int> n = Remapper().Run(g);
  EXPECT_TRUE(n.ok()) << n.status();
  return n.ok() ? *n : -1;
}

std::vector<std::string> FusedOps(const Graph& g, const std::string& name) {
  std::vector<std::string> ops;
  Node* n = g.FindNodeByName(name);
  if (n != nullptr) (void)GetNodeAttr(n->attrs(), "fused_ops", &ops);
  return ops;
}

TEST(RemapperTest, FoldsFrozenBatchNormIntoTheConvolution) {
  // 1x1 conv, 2 input channels, 3 output channels; then x*s + a, Relu6.
  auto g = PlacedGraph(std::string(kInput) +
                       FloatConst("w", {1, 1, 2, 3}, {1, 2, 3, 4, 5, 6}) +
                       FloatConst("s", {3}, {10, 100, 1000}) +
                       FloatConst("a", {1, 1, 1, 3}, {1, 2, 3}) +
                       Conv("conv", "Conv2D") + Binary("mul", "Mul", "conv", "s") +
                       Binary("add", "AddV2", "a", "mul") +
                       Unary("act", "Relu6", "add") + Unary("out", "Identity", "act"));
  EXPECT_EQ(Remap(g.get()), 1);
  EXPECT_EQ(OpOf(*g, "act"), "_FusedConv2D");
  EXPECT_THAT(FusedOps(*g, "act"), ElementsAre("BiasAdd", "Relu6"));
  for (const char* gone : {"conv", "mul", "add", "w", "s", "a"}) {
    EXPECT_EQ(OpOf(*g, gone), "<missing>") << gone;
  }
  EXPECT_THAT(DataInputs(*g, "act"),
              ElementsAre("x", "conv/scaled_filter", "act/fused_bias"));
  test::ExpectTensorEqual<float>(
      ConstValueOf(*g, "conv/scaled_filter"),
      test::AsTensor<float>({10, 200, 3000, 40, 500, 6000}, {1, 1, 2, 3}));
  test::ExpectTensorEqual<float>(ConstValueOf(*g, "act/fused_bias"),
                                 test::AsTensor<float>({1, 2, 3}));
  EXPECT_THAT(DataInputs(*g, "out"), ElementsAre("act"));
}

TEST(RemapperTest, ScalesAnExistingBiasToo) {
  auto g = PlacedGraph(std::string(kInput) +
                       FloatConst("w", {1, 1, 1, 2}, {1, 1}) +
                       FloatConst("b", {2}, {1, 2}) + FloatConst("s", {2}, {3, 4}) +
                       FloatConst("a", {2}, {5, 6}) + Conv("conv", "Conv2D") +
                       Binary("bias", "BiasAdd", "conv", "b") +
                       Binary("mul", "Mul", "bias", "s") +
                       Binary("add", "AddV2", "mul", "a"));
  EXPECT_EQ(Remap(g.get()), 1);
  EXPECT_EQ(OpOf(*g, "add"), "_FusedConv2D");
  EXPECT_THAT(FusedOps(*g, "add"), ElementsAre("BiasAdd"));
  // (conv + b) * s + a = conv * s + (b * s + a)
  test::ExpectTensorEqual<float>(ConstValueOf(*g, "add/fused_bias"),
                                 test::AsTensor<float>({8, 14}));
}

TEST(RemapperTest, DepthwiseScalesEachChannelTimesMultiplier) {
  // [1, 1, C=2, M=2] filter: output channel c * 2 + m.
  auto g = PlacedGraph(std::string(kInput) +
                       FloatConst("w", {1, 1, 2, 2}, {1, 1, 1, 1}) +
                       FloatConst("s", {4}, {1, 2, 3, 4}) +
                       FloatConst("a", {}, {0.5}) +
                       Conv("dw", "DepthwiseConv2dNative") +
                       Binary("mul", "Mul", "dw", "s") +
                       Binary("add", "Add", "mul", "a") + Unary("act", "Relu", "add"));
  EXPECT_EQ(Remap(g.get()), 1);
  EXPECT_EQ(OpOf(*g, "act"), "_FusedDepthwiseConv2dNative");
  test::ExpectTensorEqual<float>(ConstValueOf(*g, "dw/scaled_filter"),
                                 test::AsTensor<float>({1, 2, 3, 4}, {1, 1, 2, 2}));
  test::ExpectTensorEqual<float>(ConstValueOf(*g, "act/fused_bias"),
                                 test::AsTensor<float>({0.5, 0.5, 0.5, 0.5}));
}

TEST(RemapperTest, DenseLayerBecomesFusedMatMulWithItsOwnBias) {
  auto g = PlacedGraph(
      std::string(kInput) + FloatConst("w", {2, 3}, {1, 2, 3, 4, 5, 6}) +
      FloatConst("b", {3}, {1, 2, 3}) +
      "node { name: 'mm' op: 'MatMul' input: 'x' input: 'w' attr { key: 'T' "
      "value { type: DT_FLOAT } } }\n" +
      Binary("bias", "BiasAdd", "mm", "b") + Unary("act", "Tanh", "bias"));
  EXPECT_EQ(Remap(g.get()), 1);
  EXPECT_EQ(OpOf(*g, "act"), "_FusedMatMul");
  EXPECT_THAT(FusedOps(*g, "act"), ElementsAre("BiasAdd", "Tanh"));
  EXPECT_THAT(DataInputs(*g, "act"), ElementsAre("x", "w", "b"));
}

TEST(RemapperTest, StopsWhereAnIntermediateHasAnotherReader) {
  auto g = PlacedGraph(std::string(kInput) +
                       FloatConst("w", {1, 1, 1, 2}, {1, 1}) +
                       FloatConst("b", {2}, {1, 2}) + Conv("conv", "Conv2D") +
                       Binary("bias", "BiasAdd", "conv", "b") +
                       Unary("act", "Relu", "bias") + Unary("peek", "Identity", "bias"));
  EXPECT_EQ(Remap(g.get()), 1);
  EXPECT_EQ(OpOf(*g, "bias"), "_FusedConv2D");
  EXPECT_THAT(FusedOps(*g, "bias"), ElementsAre("BiasAdd"));
  EXPECT_EQ(OpOf(*g, "act"), "Relu");
  EXPECT_THAT(DataInputs(*g, "peek"), ElementsAre("bias"));
}

TEST(RemapperTest, LeavesNchwAndVariableScalesAlone) {
  auto g = PlacedGraph(std::string(kInput) +
                       FloatConst("w", {1, 1, 1, 2}, {1, 1}) +
                       Conv("conv", "Conv2D", "NCHW") + Unary("act", "Relu", "conv") +
                       Conv("conv2", "Conv2D") + Binary("mul", "Mul", "conv2", "x"));
  EXPECT_EQ(Remap(g.get()), 0);
  EXPECT_EQ(OpOf(*g, "conv"), "Conv2D");
  EXPECT_EQ(OpOf(*g, "mul"), "Mul");
}

TEST(RemapperTest, AnActivationAloneGetsAZeroBias) {
  auto g = PlacedGraph(std::string(kInput) +
                       FloatConst("w", {1, 1, 1, 2}, {1, 1}) +
                       Conv("conv", "Conv2D") + Unary("act", "Elu", "conv"));
  EXPECT_EQ(Remap(g.get()), 1);
  EXPECT_THAT(FusedOps(*g, "act"), ElementsAre("BiasAdd", "Elu"));
  test::ExpectTensorEqual<float>(ConstValueOf(*g, "act/fused_bias"),
                                 test::AsTensor<float>({0, 0}));
}

// A ResNet identity block's end: conv + bias, plus the block's input, Relu.
TEST(RemapperTest, ResidualAddJoinsTheConvolution) {
  auto g = PlacedGraph(ShapedPlaceholder("x", {-1, 4, 4, 2}) +
                       FloatConst("w", {1, 1, 2, 2}, {1, 0, 0, 1}) +
                       FloatConst("b", {2}, {1, 2}) + Conv("conv", "Conv2D") +
                       Binary("bias", "BiasAdd", "conv", "b") +
                       Binary("add", "AddV2", "bias", "x") +
                       Unary("relu", "Relu", "add") + Unary("out", "Identity", "relu"));
  EXPECT_EQ(Remap(g.get()), 1);
  EXPECT_EQ(OpOf(*g, "relu"), "_FusedConv2D");
  EXPECT_THAT(FusedOps(*g, "relu"), ElementsAre("BiasAdd", "Add", "Relu"));
  EXPECT_THAT(DataInputs(*g, "relu"), ElementsAre("x", "w", "b", "x"));
  for (const char* gone : {"conv", "bias", "add"}) {
    EXPECT_EQ(OpOf(*g, gone), "<missing>") << gone;
  }
  EXPECT_THAT(DataInputs(*g, "out"), ElementsAre("relu"));
}

// The side input first, no activation, and a frozen batch norm folded in
// front of the Add: fused_ops [BiasAdd, Add] with the folded bias.
TEST(RemapperTest, ResidualAddOnEitherSideAfterFoldedBatchNorm) {
  auto g = PlacedGraph(
      ShapedPlaceholder("x", {1, 3, 3, 1}) + ShapedPlaceholder("shortcut", {1, 3, 3, 2}) +
      FloatConst("w", {1, 1, 1, 2}, {1, 1}) + FloatConst("s", {2}, {2, 3}) +
      FloatConst("a", {2}, {5, 6}) + Conv("conv", "Conv2D") +
      Binary("mul", "Mul", "conv", "s") + Binary("shift", "AddV2", "mul", "a") +
      Binary("add", "Add", "shortcut", "shift"));
  EXPECT_EQ(Remap(g.get()), 1);
  EXPECT_EQ(OpOf(*g, "add"), "_FusedConv2D");
  EXPECT_THAT(FusedOps(*g, "add"), ElementsAre("BiasAdd", "Add"));
  EXPECT_THAT(DataInputs(*g, "add"),
              ElementsAre("x", "conv/scaled_filter", "add/fused_bias",
                          "shortcut"));
  test::ExpectTensorEqual<float>(ConstValueOf(*g, "add/fused_bias"),
                                 test::AsTensor<float>({5, 6}));
}

// A projection shortcut: two convolution chains meet at the Add. One takes
// the Add (and the Relu) with the other's result as its side input.
TEST(RemapperTest, ProjectionShortcutFusesBothBranches) {
  auto g = PlacedGraph(
      ShapedPlaceholder("x", {-1, 4, 4, 2}) + FloatConst("w", {1, 1, 2, 2}, {1, 0, 0, 1}) +
      FloatConst("b", {2}, {1, 2}) + Conv("main", "Conv2D") +
      Binary("main_bias", "BiasAdd", "main", "b") + Conv("proj", "Conv2D") +
      Binary("proj_bias", "BiasAdd", "proj", "b") +
      Binary("add", "AddV2", "main_bias", "proj_bias") +
      Unary("relu", "Relu", "add"));
  EXPECT_EQ(Remap(g.get()), 2);
  EXPECT_EQ(OpOf(*g, "relu"), "_FusedConv2D");
  EXPECT_THAT(FusedOps(*g, "relu"), ElementsAre("BiasAdd", "Add", "Relu"));
  const std::vector<std::string> inputs = DataInputs(*g, "relu");
  ASSERT_EQ(inputs.size(), 4u);
  EXPECT_EQ(OpOf(*g, inputs[3]), "_FusedConv2D");
  EXPECT_THAT(FusedOps(*g, inputs[3]), ElementsAre("BiasAdd"));
}

// Adds that may broadcast, or whose operand's shape is not known to match,
// stay: the chain ends before them.
TEST(RemapperTest, LeavesAddsOfUnprovableShapeAlone) {
  auto g = PlacedGraph(
      ShapedPlaceholder("x", {-1, 4, 4, 2}) + ShapedPlaceholder("other", {-1, 4, 4, 2}) +
      ShapedPlaceholder("row", {2}) + ShapedPlaceholder("small", {1, 4, 4, 2}) +
      std::string(
          "node { name: 'free' op: 'Placeholder' attr { key: 'dtype' value "
          "{ type: DT_FLOAT } } }\n") +
      FloatConst("w", {1, 1, 2, 2}, {1, 0, 0, 1}) + FloatConst("b", {2}, {1, 2}) +
      Conv("c1", "Conv2D") + Binary("b1", "BiasAdd", "c1", "b") +
      Binary("add1", "AddV2", "b1", "row") +      // broadcasts [2]
      Conv("c2", "Conv2D") + Binary("b2", "BiasAdd", "c2", "b") +
      Binary("add2", "AddV2", "b2", "free") +     // shape unknown
      Conv("c3", "Conv2D") + Binary("b3", "BiasAdd", "c3", "b") +
      Binary("add3", "AddV2", "other", "b3") +    // another unknown batch
      Conv("c4", "Conv2D") + Binary("b4", "BiasAdd", "c4", "b") +
      Binary("add4", "AddV2", "b4", "small"));    // batch 1 vs unknown
  EXPECT_EQ(Remap(g.get()), 4);
  for (const char* add : {"add1", "add2", "add3", "add4"}) {
    EXPECT_EQ(OpOf(*g, add), "AddV2") << add;
  }
  for (const char* fused : {"b1", "b2", "b3", "b4"}) {
    EXPECT_THAT(FusedOps(*g, fused), ElementsAre("BiasAdd")) << fused;
  }
}

// A FusedBatchNorm* of `input` whose parameters are the nodes `<p>scale`,
// `<p>offset`, `<p>mean` and `<p>var`.
std::string BatchNormOf(const std::string& name, const std::string& op,
                        const std::string& input, bool training,
                        const std::string& p = "",
                        const std::string& format = "NHWC") {
  return absl::StrCat(
      "node { name: '", name, "' op: '", op, "' input: '", input,
      "' input: '", p, "scale' input: '", p, "offset' input: '", p,
      "mean' input: '", p, "var' attr { key: 'T' value { type: DT_FLOAT } } ",
      op == "FusedBatchNorm" ? "" : "attr { key: 'U' value { type: DT_FLOAT } } ",
      "attr { key: 'epsilon' value { f: 0.001 } } attr { key: 'is_training' "
      "value { b: ", training ? "true" : "false",
      " } } attr { key: 'data_format' value { s: '", format, "' } } }\n");
}

std::string BatchNorm(const std::string& name, const std::string& op,
                      bool training, const std::string& format = "NHWC") {
  return BatchNormOf(name, op, "x", training, "", format);
}

std::string BatchNormInputs() {
  return ShapedPlaceholder("x", {-1, 4, 4, 2}) + FloatConst("scale", {2}, {1, 2}) +
         FloatConst("offset", {2}, {0, 1}) + FloatConst("mean", {2}, {0, 0}) +
         FloatConst("var", {2}, {1, 1});
}

std::string ActivationMode(const Graph& g, const std::string& name) {
  std::string mode;
  Node* n = g.FindNodeByName(name);
  if (n != nullptr) (void)GetNodeAttr(n->attrs(), "activation_mode", &mode);
  return mode;
}

TEST(RemapperTest, InferenceBatchNormReluBecomesFusedBatchNormEx) {
  auto g = PlacedGraph(BatchNormInputs() + BatchNorm("bn", "FusedBatchNormV3", false) +
                       Unary("relu", "Relu", "bn") + Unary("out", "Identity", "relu") +
                       Unary("peek", "Identity", "bn:1"));
  EXPECT_EQ(Remap(g.get()), 1);
  EXPECT_EQ(OpOf(*g, "relu"), "_FusedBatchNormEx");
  EXPECT_EQ(OpOf(*g, "bn"), "<missing>");
  EXPECT_EQ(ActivationMode(*g, "relu"), "Relu");
  EXPECT_THAT(DataInputs(*g, "relu"),
              ElementsAre("x", "scale", "offset", "mean", "var"));
  EXPECT_THAT(DataInputs(*g, "out"), ElementsAre("relu"));
  // Inference statistics are the given mean: the reader moves over.
  EXPECT_THAT(DataInputs(*g, "peek"), ElementsAre("relu:1"));
}

TEST(RemapperTest, BatchNormSideInputReluBecomesFusedBatchNormEx) {
  // Training (V1), statistics unread; the side input is x itself, the one
  // tensor whose unknown batch is provably the batch norm's.
  auto g = PlacedGraph(BatchNormInputs() + BatchNorm("bn", "FusedBatchNorm", true) +
                       Binary("add", "AddV2", "x", "bn") + Unary("relu", "Relu", "add"));
  EXPECT_EQ(Remap(g.get()), 1);
  EXPECT_EQ(OpOf(*g, "relu"), "_FusedBatchNormEx");
  EXPECT_THAT(DataInputs(*g, "relu"),
              ElementsAre("x", "scale", "offset", "mean", "var", "x"));
  int64_t sides = 0;
  EXPECT_TRUE(GetNodeAttr(g->FindNodeByName("relu")->attrs(), "num_side_inputs",
                          &sides)
                  .ok());
  EXPECT_EQ(sides, 1);
}

TEST(RemapperTest, LeavesBatchNormsTheKernelCannotTake) {
  auto g = PlacedGraph(
      BatchNormInputs() + ShapedPlaceholder("other", {-1, 4, 4, 2}) +
      // Training with its statistics read (a moving-average update).
      BatchNorm("bn1", "FusedBatchNormV3", true) + Unary("r1", "Relu", "bn1") +
      Unary("stat", "Identity", "bn1:1") +
      // A side input whose batch is not provably x's.
      BatchNorm("bn2", "FusedBatchNormV3", false) +
      Binary("add2", "AddV2", "bn2", "other") + Unary("r2", "Relu", "add2") +
      // No Relu after the Add.
      BatchNorm("bn3", "FusedBatchNormV3", false) + Binary("add3", "AddV2", "bn3", "x") +
      // NCHW.
      BatchNorm("bn4", "FusedBatchNormV3", false, "NCHW") + Unary("r4", "Relu", "bn4"));
  EXPECT_EQ(Remap(g.get()), 0);
  for (const char* bn : {"bn1", "bn2", "bn3", "bn4"}) {
    EXPECT_EQ(OpOf(*g, bn), "FusedBatchNormV3") << bn;
  }
}

// Constant batch norm parameters `<p>scale` (gamma), `<p>offset` (beta),
// `<p>mean`, `<p>var`, for BatchNormOf (epsilon 0.001).
std::string BatchNormParams(const std::string& p, const std::vector<float>& gamma,
                            const std::vector<float>& beta,
                            const std::vector<float>& mean,
                            const std::vector<float>& var) {
  const int c = static_cast<int>(gamma.size());
  return FloatConst(p + "scale", {c}, gamma) + FloatConst(p + "offset", {c}, beta) +
         FloatConst(p + "mean", {c}, mean) + FloatConst(p + "var", {c}, var);
}

// gamma / sqrt(var + 0.001) = {1, 6}; beta - mean * that = {-0.5, -13}.
std::string FoldableParams(const std::string& p = "") {
  return BatchNormParams(p, {2, 3}, {0.5, -1}, {1, 2}, {3.999, 0.249});
}

// A TF1 frozen model's conv + BiasAdd + tf.nn.fused_batch_norm + Relu.
TEST(RemapperTest, InferenceFusedBatchNormFoldsIntoTheConvolution) {
  auto g = PlacedGraph(std::string(kInput) + FloatConst("w", {1, 1, 1, 2}, {1, 2}) +
                       FloatConst("b", {2}, {1, 1}) + FoldableParams() +
                       Conv("conv", "Conv2D") + Binary("bias", "BiasAdd", "conv", "b") +
                       BatchNormOf("bn", "FusedBatchNormV3", "bias", false) +
                       Unary("relu", "Relu", "bn") + Unary("out", "Identity", "relu"));
  EXPECT_EQ(Remap(g.get()), 1);
  EXPECT_EQ(OpOf(*g, "relu"), "_FusedConv2D");
  EXPECT_THAT(FusedOps(*g, "relu"), ElementsAre("BiasAdd", "Relu"));
  EXPECT_THAT(DataInputs(*g, "relu"),
              ElementsAre("x", "conv/scaled_filter", "relu/fused_bias"));
  for (const char* gone : {"conv", "bias", "bn", "w", "b", "scale", "offset",
                           "mean", "var"}) {
    EXPECT_EQ(OpOf(*g, gone), "<missing>") << gone;
  }
  test::ExpectTensorNear<float>(ConstValueOf(*g, "conv/scaled_filter"),
                                test::AsTensor<float>({1, 12}, {1, 1, 1, 2}), 1e-5);
  // (conv + b) * scale + shift = conv * scale + (b * scale + shift)
  test::ExpectTensorNear<float>(ConstValueOf(*g, "relu/fused_bias"),
                                test::AsTensor<float>({0.5, -7}), 1e-5);
  EXPECT_THAT(DataInputs(*g, "out"), ElementsAre("relu"));
}

TEST(RemapperTest, FusedBatchNormFoldsIntoADepthwiseConvolution) {
  // [1, 1, C=1, M=2] filter, through Identity as a frozen variable reads.
  auto g = PlacedGraph(std::string(kInput) + FloatConst("w", {1, 1, 1, 2}, {1, 2}) +
                       Unary("w/read", "Identity", "w") + FoldableParams() +
                       absl::StrReplaceAll(Conv("dw", "DepthwiseConv2dNative"),
                                           {{"input: 'w'", "input: 'w/read'"}}) +
                       BatchNormOf("bn", "FusedBatchNorm", "dw", false) +
                       Unary("act", "Relu6", "bn"));
  EXPECT_EQ(Remap(g.get()), 1);
  EXPECT_EQ(OpOf(*g, "act"), "_FusedDepthwiseConv2dNative");
  EXPECT_THAT(FusedOps(*g, "act"), ElementsAre("BiasAdd", "Relu6"));
  EXPECT_EQ(OpOf(*g, "bn"), "<missing>");
  test::ExpectTensorNear<float>(ConstValueOf(*g, "dw/scaled_filter"),
                                test::AsTensor<float>({1, 12}, {1, 1, 1, 2}), 1e-5);
  test::ExpectTensorNear<float>(ConstValueOf(*g, "act/fused_bias"),
                                test::AsTensor<float>({-0.5, -13}), 1e-5);
}

// No activation: the chain ends at the batch norm, whose name the fused
// node takes; its readers and the later heads' loop see the fused node.
TEST(RemapperTest, FusedBatchNormWithoutActivationStillFolds) {
  auto g = PlacedGraph(std::string(kInput) + FloatConst("w", {1, 1, 1, 2}, {1, 2}) +
                       FoldableParams() + Conv("conv", "Conv2D") +
                       BatchNormOf("bn", "FusedBatchNormV2", "conv", false) +
                       Unary("out", "Identity", "bn"));
  EXPECT_EQ(Remap(g.get()), 1);
  EXPECT_EQ(OpOf(*g, "bn"), "_FusedConv2D");
  EXPECT_THAT(FusedOps(*g, "bn"), ElementsAre("BiasAdd"));
  EXPECT_THAT(DataInputs(*g, "bn"),
              ElementsAre("x", "conv/scaled_filter", "bn/fused_bias"));
  test::ExpectTensorNear<float>(ConstValueOf(*g, "bn/fused_bias"),
                                test::AsTensor<float>({-0.5, -13}), 1e-5);
  EXPECT_THAT(DataInputs(*g, "out"), ElementsAre("bn"));
}

// A ResNet v1 block's end in a TF1 model: conv + batch norm + shortcut, Relu.
TEST(RemapperTest, FusedBatchNormThenResidualAddJoinTheConvolution) {
  auto g = PlacedGraph(ShapedPlaceholder("x", {-1, 4, 4, 2}) +
                       FloatConst("w", {1, 1, 2, 2}, {1, 0, 0, 1}) + FoldableParams() +
                       Conv("conv", "Conv2D") +
                       BatchNormOf("bn", "FusedBatchNormV3", "conv", false) +
                       Binary("add", "AddV2", "bn", "x") + Unary("relu", "Relu", "add"));
  EXPECT_EQ(Remap(g.get()), 1);
  EXPECT_EQ(OpOf(*g, "relu"), "_FusedConv2D");
  EXPECT_THAT(FusedOps(*g, "relu"), ElementsAre("BiasAdd", "Add", "Relu"));
  EXPECT_THAT(DataInputs(*g, "relu"),
              ElementsAre("x", "conv/scaled_filter", "relu/fused_bias", "x"));
  for (const char* gone : {"conv", "bn", "add"}) {
    EXPECT_EQ(OpOf(*g, gone), "<missing>") << gone;
  }
}

// Batch norms that are not a fixed per-channel affine map of the
// convolution's output, or whose other outputs someone reads, stay; so does
// the convolution (no Relu after them: the _FusedBatchNormEx path stays out).
TEST(RemapperTest, LeavesBatchNormsThatCannotFoldAlone) {
  auto g = PlacedGraph(
      std::string(kInput) + FloatConst("w", {1, 1, 1, 2}, {1, 2}) + FoldableParams() +
      // Training: the statistics come from the batch.
      Conv("c1", "Conv2D") + BatchNormOf("bn1", "FusedBatchNormV3", "c1", true) +
      Unary("o1", "Identity", "bn1") +
      // Inference with batch_mean read.
      Conv("c2", "Conv2D") + BatchNormOf("bn2", "FusedBatchNormV3", "c2", false) +
      Unary("o2", "Identity", "bn2") + Unary("stat", "Identity", "bn2:1") +
      // A variance that is not a constant.
      FloatConst("p/scale", {2}, {1, 1}) + FloatConst("p/offset", {2}, {0, 0}) +
      FloatConst("p/mean", {2}, {0, 0}) + ShapedPlaceholder("p/var", {2}) +
      Conv("c3", "Conv2D") + BatchNormOf("bn3", "FusedBatchNormV3", "c3", false, "p/") +
      Unary("o3", "Identity", "bn3") +
      // An NCHW batch norm (of an NHWC convolution: the batch norm's own
      // layout is checked).
      Conv("c4", "Conv2D") +
      BatchNormOf("bn4", "FusedBatchNormV3", "c4", false, "", "NCHW") +
      Unary("o4", "Identity", "bn4"));
  EXPECT_EQ(Remap(g.get()), 0);
  for (const char* conv : {"c1", "c2", "c3", "c4"}) {
    EXPECT_EQ(OpOf(*g, conv), "Conv2D") << conv;
  }
  for (const char* bn : {"bn1", "bn2", "bn3", "bn4"}) {
    EXPECT_EQ(OpOf(*g, bn), "FusedBatchNormV3") << bn;
  }
  EXPECT_THAT(DataInputs(*g, "stat"), ElementsAre("bn2:1"));
}

}  // namespace
}  // namespace tributary
