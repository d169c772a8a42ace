// Dead-branch removal on small tf.cond-shaped graphs: which branch goes, what
// the Switch and Merge become, and every case that must be left alone.

#include "common/runtime/optimization/dead_branch_removal.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "common/runtime/optimization/optimization_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tributary {
namespace {

using optimization_test::ControlInputNames;
using optimization_test::DataInputs;
using optimization_test::OpOf;
using optimization_test::PlacedGraph;
using ::testing::ElementsAre;

constexpr char kFloat[] = "attr { key: 'T' value { type: DT_FLOAT } } ";

std::string Pred(const std::string& name, bool value) {
  return absl::StrCat(
      "node { name: '", name, "' op: 'Const' attr { key: 'dtype' value { type: DT_BOOL } } ",
      "attr { key: 'value' value { tensor { dtype: DT_BOOL tensor_shape {} bool_val: ",
      value ? "true" : "false", " } } } }\n");
}

std::string Node1(const std::string& name, const std::string& op,
                  const std::string& inputs) {
  return absl::StrCat("node { name: '", name, "' op: '", op, "' ", inputs, " ", kFloat,
                      "}\n");
}

// tf.cond(pred, lambda: -x, lambda: |y^2|) feeding `out`.
std::string Cond(const std::string& pred, const std::string& extra = "") {
  return pred +
         "node { name: 'x' op: 'Placeholder' attr { key: 'dtype' value { type: DT_FLOAT } } }\n"
         "node { name: 'y' op: 'Placeholder' attr { key: 'dtype' value { type: DT_FLOAT } } }\n" +
         Node1("sw_x", "Switch", "input: 'x' input: 'p'") +
         Node1("sw_y", "Switch", "input: 'y' input: 'p'") +
         Node1("t", "Neg", "input: 'sw_x:1'") + Node1("f", "Square", "input: 'sw_y'") +
         Node1("f2", "Abs", "input: 'f'") +
         "node { name: 'm' op: 'Merge' input: 'f2' input: 't' " + kFloat +
         "attr { key: 'N' value { i: 2 } } }\n" + Node1("out", "Identity", "input: 'm'") +
         extra;
}

int Remove(Graph* g) {
  absl::StatusOr<int> n = DeadBranchRemoval().Run(g);
  EXPECT_TRUE(n.ok()) << n.status();
  return n.ok() ? *n : -1;
}

TEST(DeadBranchRemovalTest, TrueConstantKeepsTheTrueBranchOnly) {
  auto g = PlacedGraph(Cond(Pred("p", true)));
  EXPECT_GT(Remove(g.get()), 0);
  EXPECT_EQ(OpOf(*g, "f"), "<missing>");
  EXPECT_EQ(OpOf(*g, "f2"), "<missing>");
  EXPECT_EQ(OpOf(*g, "m"), "Identity");
  EXPECT_THAT(DataInputs(*g, "m"), ElementsAre("t"));
  EXPECT_EQ(OpOf(*g, "sw_x"), "Identity");
  EXPECT_THAT(DataInputs(*g, "sw_x"), ElementsAre("x"));
  EXPECT_THAT(DataInputs(*g, "t"), ElementsAre("sw_x"));
  EXPECT_THAT(DataInputs(*g, "out"), ElementsAre("m"));
  EXPECT_EQ(g->FindNodeByName("m")->assigned_device_name(), optimization_test::kCpu);
}

TEST(DeadBranchRemovalTest, FalseConstantKeepsTheFalseBranchOnly) {
  auto g = PlacedGraph(Cond(Pred("p", false)));
  EXPECT_GT(Remove(g.get()), 0);
  EXPECT_EQ(OpOf(*g, "t"), "<missing>");
  EXPECT_EQ(OpOf(*g, "f2"), "Abs");
  EXPECT_THAT(DataInputs(*g, "m"), ElementsAre("f2"));
  EXPECT_THAT(DataInputs(*g, "f"), ElementsAre("sw_y"));
  EXPECT_THAT(DataInputs(*g, "sw_y"), ElementsAre("y"));
}

TEST(DeadBranchRemovalTest, ControlEdgesFromTheDeadBranchKillTheirTargets) {
  // A NoOp ordered after the dead branch never runs either; a node ordered
  // after the live branch keeps its edge (now from the Identity).
  auto g = PlacedGraph(Cond(Pred("p", true), "node { name: 'after_f' op: 'NoOp' input: '^f' }\n"
                                             "node { name: 'after_t' op: 'NoOp' input: '^t' }\n"
                                             "node { name: 'after_m' op: 'NoOp' input: '^m' }\n"));
  EXPECT_GT(Remove(g.get()), 0);
  EXPECT_EQ(OpOf(*g, "after_f"), "<missing>");
  EXPECT_THAT(ControlInputNames(*g, "after_t"), ElementsAre("t"));
  EXPECT_THAT(ControlInputNames(*g, "after_m"), ElementsAre("m"));
}

TEST(DeadBranchRemovalTest, VariablePredicateIsLeftAlone) {
  auto g = PlacedGraph(Cond(
      "node { name: 'p' op: 'Placeholder' attr { key: 'dtype' value { type: DT_BOOL } } }\n"));
  EXPECT_EQ(Remove(g.get()), 0);
  EXPECT_EQ(OpOf(*g, "f"), "Square");
  EXPECT_EQ(OpOf(*g, "m"), "Merge");
}

TEST(DeadBranchRemovalTest, AFetchedDeadNodeKeepsTheGroupAsItIs) {
  // Fetching a tensor of the untaken branch is an error the step reports.
  auto g = PlacedGraph(Cond(Pred("p", true),
                            "node { name: 'ret' op: '_Retval' input: 'f' " + std::string(kFloat) +
                                "attr { key: 'index' value { i: 0 } } }\n"));
  EXPECT_EQ(Remove(g.get()), 0);
  EXPECT_EQ(OpOf(*g, "f"), "Square");
  EXPECT_EQ(OpOf(*g, "sw_x"), "Switch");
}

TEST(DeadBranchRemovalTest, ReadValueIndexKeepsTheMerge) {
  auto g = PlacedGraph(Cond(Pred("p", true),
                            "node { name: 'which' op: 'Identity' input: 'm:1' "
                            "attr { key: 'T' value { type: DT_INT32 } } }\n"));
  EXPECT_EQ(Remove(g.get()), 0);
  EXPECT_EQ(OpOf(*g, "m"), "Merge");
}

TEST(DeadBranchRemovalTest, DeadControlInputOfAMergeKeepsTheGroup) {
  auto g = PlacedGraph(Cond(Pred("p", true),
                            Node1("m2", "Merge", "input: 't' input: '^f' attr { key: 'N' value { i: 1 } }")));
  EXPECT_EQ(Remove(g.get()), 0);
  EXPECT_EQ(OpOf(*g, "f"), "Square");
}

TEST(DeadBranchRemovalTest, NestedCondOnTheSamePredicateGoesWithTheOuter) {
  // The inner Switch reads the dead branch: it dies with it.
  auto g = PlacedGraph(Cond(Pred("p", true),
                            Node1("inner", "Switch", "input: 'f2' input: 'p'") +
                                Node1("inner_use", "Neg", "input: 'inner:1'")));
  EXPECT_GT(Remove(g.get()), 0);
  EXPECT_EQ(OpOf(*g, "inner"), "<missing>");
  EXPECT_EQ(OpOf(*g, "inner_use"), "<missing>");
  EXPECT_EQ(OpOf(*g, "m"), "Identity");
}

TEST(DeadBranchRemovalTest, ALoopFrameNodeInTheDeadBranchKeepsTheGroup) {
  auto g = PlacedGraph(Cond(Pred("p", true),
                            Node1("enter", "Enter", "input: 'f' attr { key: 'frame_name' "
                                                    "value { s: 'loop' } }")));
  EXPECT_EQ(Remove(g.get()), 0);
  EXPECT_EQ(OpOf(*g, "sw_y"), "Switch");
}

}  // namespace
}  // namespace tributary
