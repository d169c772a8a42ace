// Constant folding on small graphs: what folds, what must not, and what the
// replacement keeps (name, value, device, control edges).

#include "common/runtime/optimization/constant_folding.h"

#include <memory>
#include <string>
#include <vector>

#include "common/framework/tensor_testutil.h"
#include "common/runtime/optimization/optimization_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tributary {
namespace {

using optimization_test::ConstValueOf;
using optimization_test::ControlInputNames;
using optimization_test::DataInputs;
using optimization_test::OpOf;
using optimization_test::PlacedGraph;
using ::testing::ElementsAre;

constexpr char kScalars[] = R"pb(
  node { name: "a" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
         attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 2 } } } }
  node { name: "b" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
         attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 3 } } } }
  node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
)pb";

int Fold(Graph* g) {
  absl::StatusOr<int> n = ConstantFolding().Run(g);
  EXPECT_TRUE(n.ok()) << n.status();
  return n.ok() ? *n : -1;
}

TEST(ConstantFoldingTest, FoldsAChainAndKeepsTheName) {
  auto g = PlacedGraph(std::string(kScalars) + R"pb(
    node { name: "sum" op: "AddV2" input: "a" input: "b" attr { key: "T" value { type: DT_FLOAT } } }
    node { name: "sq" op: "Square" input: "sum" attr { key: "T" value { type: DT_FLOAT } } }
    node { name: "out" op: "Mul" input: "sq" input: "x" attr { key: "T" value { type: DT_FLOAT } } }
  )pb");
  EXPECT_EQ(Fold(g.get()), 2);
  EXPECT_EQ(OpOf(*g, "sq"), "Const");
  test::ExpectTensorEqual<float>(ConstValueOf(*g, "sq"), test::AsScalar<float>(25));
  EXPECT_EQ(OpOf(*g, "sum"), "<missing>");  // folded into sq, then unread
  EXPECT_EQ(OpOf(*g, "a"), "<missing>");
  EXPECT_THAT(DataInputs(*g, "out"), ElementsAre("sq", "x"));
  EXPECT_EQ(g->FindNodeByName("sq")->assigned_device_name(),
            optimization_test::kCpu);
}

TEST(ConstantFoldingTest, KeepsControlInputsOfTheNodeAndOfItsConstants) {
  auto g = PlacedGraph(R"pb(
    node { name: "init" op: "NoOp" }
    node { name: "gate" op: "NoOp" }
    node { name: "a" op: "Const" input: "^init" attr { key: "dtype" value { type: DT_FLOAT } }
           attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 2 } } } }
    node { name: "neg" op: "Neg" input: "a" input: "^gate" attr { key: "T" value { type: DT_FLOAT } } }
    node { name: "after" op: "NoOp" input: "^neg" }
    node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
    node { name: "out" op: "Mul" input: "neg" input: "x" attr { key: "T" value { type: DT_FLOAT } } }
  )pb");
  EXPECT_EQ(Fold(g.get()), 1);
  EXPECT_EQ(OpOf(*g, "neg"), "Const");
  EXPECT_THAT(ControlInputNames(*g, "neg"), ElementsAre("gate", "init"));
  EXPECT_THAT(ControlInputNames(*g, "after"), ElementsAre("neg"));
}

TEST(ConstantFoldingTest, LeavesStatefulPlaceholderAndVariableInputsAlone) {
  auto g = PlacedGraph(std::string(kScalars) + R"pb(
    node { name: "shape" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
           attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 1 } } int_val: 4 } } } }
    node { name: "rand" op: "RandomUniform" input: "shape"
           attr { key: "T" value { type: DT_INT32 } } attr { key: "dtype" value { type: DT_FLOAT } } }
    node { name: "px" op: "AddV2" input: "x" input: "a" attr { key: "T" value { type: DT_FLOAT } } }
  )pb");
  EXPECT_EQ(Fold(g.get()), 0);
  EXPECT_EQ(OpOf(*g, "rand"), "RandomUniform");
  EXPECT_EQ(OpOf(*g, "px"), "AddV2");
}

TEST(ConstantFoldingTest, LeavesANodeWhoseKernelFailsForTheStepToReport) {
  auto g = PlacedGraph(R"pb(
    node { name: "v" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
           attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 6 } } float_val: 1 } } } }
    node { name: "s" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
           attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 1 } } int_val: 4 } } } }
    node { name: "r" op: "Reshape" input: "v" input: "s"
           attr { key: "T" value { type: DT_FLOAT } } attr { key: "Tshape" value { type: DT_INT32 } } }
  )pb");
  EXPECT_EQ(Fold(g.get()), 0);
  EXPECT_EQ(OpOf(*g, "r"), "Reshape");
  EXPECT_EQ(OpOf(*g, "v"), "Const");
}

TEST(ConstantFoldingTest, RespectsTheSizeCap) {
  auto g = PlacedGraph(R"pb(
    node { name: "big_dims" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
           attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 2 } } int_val: 2048 int_val: 2048 } } } }
    node { name: "small_dims" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
           attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 2 } } int_val: 2 int_val: 3 } } } }
    node { name: "one" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
           attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 1 } } } }
    node { name: "big" op: "Fill" input: "big_dims" input: "one"
           attr { key: "T" value { type: DT_FLOAT } } attr { key: "index_type" value { type: DT_INT32 } } }
    node { name: "small" op: "Fill" input: "small_dims" input: "one"
           attr { key: "T" value { type: DT_FLOAT } } attr { key: "index_type" value { type: DT_INT32 } } }
  )pb");
  EXPECT_EQ(Fold(g.get()), 1);  // 2048 x 2048 floats = 16 MiB > 10 MiB
  EXPECT_EQ(OpOf(*g, "big"), "Fill");
  EXPECT_EQ(OpOf(*g, "small"), "Const");
  test::ExpectTensorEqual<float>(ConstValueOf(*g, "small"),
                                 test::AsTensor<float>({1, 1, 1, 1, 1, 1}, {2, 3}));
}

TEST(ConstantFoldingTest, FoldsEachUsedOutputOfAMultiOutputNode) {
  auto g = PlacedGraph(std::string(kScalars) + R"pb(
    node { name: "axis" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
           attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape {} int_val: 0 } } } }
    node { name: "v" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
           attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 4 } } float_val: 1 float_val: 2 float_val: 3 float_val: 4 } } } }
    node { name: "split" op: "Split" input: "axis" input: "v"
           attr { key: "T" value { type: DT_FLOAT } } attr { key: "num_split" value { i: 2 } } }
    node { name: "out" op: "Mul" input: "split:1" input: "x" attr { key: "T" value { type: DT_FLOAT } } }
  )pb");
  EXPECT_EQ(Fold(g.get()), 1);
  EXPECT_EQ(OpOf(*g, "split"), "<missing>");
  EXPECT_THAT(DataInputs(*g, "out"), ElementsAre("split/folded_1", "x"));
  test::ExpectTensorEqual<float>(ConstValueOf(*g, "split/folded_1"),
                                 test::AsTensor<float>({3, 4}));
  EXPECT_EQ(OpOf(*g, "split/folded_0"), "<missing>");  // nobody read it
}

TEST(ConstantFoldingTest, LeavesNodesOnOtherDeviceTypes) {
  auto g = PlacedGraph(std::string(kScalars) + R"pb(
    node { name: "sum" op: "AddV2" input: "a" input: "b" attr { key: "T" value { type: DT_FLOAT } } }
  )pb", "/job:localhost/replica:0/task:0/device:GPU:0");
  EXPECT_EQ(Fold(g.get()), 0);
  EXPECT_EQ(OpOf(*g, "sum"), "AddV2");
}

}  // namespace
}  // namespace tributary
