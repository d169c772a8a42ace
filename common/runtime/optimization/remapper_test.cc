// The remapper on small graphs: which chains become fused ops, what the
// folded filter and bias hold, and what is left alone.

#include "common/runtime/optimization/remapper.h"

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
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

}  // namespace
}  // namespace tributary
