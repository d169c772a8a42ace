// Common subgraph elimination on small graphs: what merges (duplicates,
// whole duplicated chains, equal constants), what must not (stateful ops,
// feeds, control flow, other devices, attrs or control inputs, float
// operands in the other order), and where readers end up.

#include "common/runtime/optimization/common_subgraph_elimination.h"

#include <memory>
#include <string>
#include <vector>

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
using ::testing::IsEmpty;

constexpr char kInputs[] = R"pb(
  node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
  node { name: "y" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
  node { name: "i" op: "Placeholder" attr { key: "dtype" value { type: DT_INT32 } } }
  node { name: "j" op: "Placeholder" attr { key: "dtype" value { type: DT_INT32 } } }
)pb";

std::string Op(const std::string& name, const std::string& op,
               const std::vector<std::string>& inputs,
               const std::string& type = "DT_FLOAT", const std::string& attrs = "") {
  std::string s = absl::StrCat("node { name: '", name, "' op: '", op, "' ");
  for (const std::string& in : inputs) absl::StrAppend(&s, "input: '", in, "' ");
  return absl::StrCat(s, "attr { key: 'T' value { type: ", type, " } } ", attrs, "}\n");
}

std::string ScalarConst(const std::string& name, float v, const std::string& extra = "") {
  return absl::StrCat("node { name: '", name, "' op: 'Const' ", extra,
                      " attr { key: 'dtype' value { type: DT_FLOAT } } attr { key: 'value' "
                      "value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: ",
                      v, " } } } }\n");
}

int Cse(Graph* g) {
  absl::StatusOr<int> n = CommonSubgraphElimination().Run(g);
  EXPECT_TRUE(n.ok()) << n.status();
  return n.ok() ? *n : -1;
}

TEST(CommonSubgraphEliminationTest, CollapsesADuplicatedChainInOneRun) {
  auto g = PlacedGraph(std::string(kInputs) + Op("a1", "Square", {"x"}) +
                       Op("a2", "Square", {"x"}) + Op("b1", "Neg", {"a1"}) +
                       Op("b2", "Neg", {"a2"}) + Op("out", "AddV2", {"b1", "b2"}) +
                       Op("ret", "_Retval", {"b2"}, "DT_FLOAT",
                          "attr { key: 'index' value { i: 0 } } "));
  EXPECT_EQ(Cse(g.get()), 2);
  EXPECT_EQ(OpOf(*g, "a2"), "<missing>");
  EXPECT_EQ(OpOf(*g, "b2"), "<missing>");
  EXPECT_THAT(DataInputs(*g, "b1"), ElementsAre("a1"));
  EXPECT_THAT(DataInputs(*g, "out"), ElementsAre("b1", "b1"));
  // The fetch reads the survivor, which computes the same value.
  EXPECT_THAT(DataInputs(*g, "ret"), ElementsAre("b1"));
  EXPECT_EQ(Cse(g.get()), 0);  // nothing left to merge
}

TEST(CommonSubgraphEliminationTest, CollapsesLongChainsAtScale) {
  // Two copies of a 2000-node chain: the second folds onto the first.
  std::string text(kInputs);
  for (const char* copy : {"p", "q"}) {
    std::string prev = "x";
    for (int k = 0; k < 2000; ++k) {
      const std::string name = absl::StrCat(copy, k);
      text += Op(name, k % 2 ? "Neg" : "Exp", {prev});
      prev = name;
    }
  }
  text += Op("out", "AddV2", {"p1999", "q1999"});
  auto g = PlacedGraph(text);
  EXPECT_EQ(Cse(g.get()), 2000);
  EXPECT_THAT(DataInputs(*g, "out"), ElementsAre("p1999", "p1999"));
  EXPECT_EQ(g->num_op_nodes(), 4 + 2000 + 1);
}

TEST(CommonSubgraphEliminationTest, SortsOperandsOnlyWhereThatIsExact) {
  auto g = PlacedGraph(std::string(kInputs) + Op("ij", "AddV2", {"i", "j"}, "DT_INT32") +
                       Op("ji", "AddV2", {"j", "i"}, "DT_INT32") +
                       Op("isum", "AddV2", {"ij", "ji"}, "DT_INT32") +
                       Op("xy", "Mul", {"x", "y"}) + Op("yx", "Mul", {"y", "x"}) +
                       Op("mx", "Maximum", {"x", "y"}) + Op("my", "Maximum", {"y", "x"}) +
                       Op("fsum", "AddN", {"xy", "yx", "mx", "my"}, "DT_FLOAT",
                          "attr { key: 'N' value { i: 4 } } "));
  EXPECT_EQ(Cse(g.get()), 1);
  EXPECT_EQ(OpOf(*g, "ji"), "<missing>");
  EXPECT_THAT(DataInputs(*g, "isum"), ElementsAre("ij", "ij"));
  // Float products and maxima in the other order may differ in a NaN's
  // payload or a zero's sign.
  EXPECT_THAT(DataInputs(*g, "fsum"), ElementsAre("xy", "yx", "mx", "my"));
}

TEST(CommonSubgraphEliminationTest, MergesEqualSmallConstantsOnly) {
  std::string big_values;
  for (int k = 0; k < 300; ++k) absl::StrAppend(&big_values, "float_val: ", k, " ");
  auto big = [&](const std::string& name) {
    return absl::StrCat("node { name: '", name, "' op: 'Const' attr { key: 'dtype' value { "
                        "type: DT_FLOAT } } attr { key: 'value' value { tensor { dtype: "
                        "DT_FLOAT tensor_shape { dim { size: 300 } } ", big_values, "} } } }\n");
  };
  auto g = PlacedGraph(std::string(kInputs) + ScalarConst("c1", 2) + ScalarConst("c2", 2) +
                       ScalarConst("c3", 3) + ScalarConst("negzero", -0.0f) +
                       ScalarConst("zero", 0) + big("w1") + big("w2") +
                       Op("s", "AddN", {"c1", "c2", "c3", "negzero", "zero"}, "DT_FLOAT",
                          "attr { key: 'N' value { i: 5 } } ") +
                       Op("w", "AddV2", {"w1", "w2"}));
  EXPECT_EQ(Cse(g.get()), 1);
  EXPECT_THAT(DataInputs(*g, "s"), ElementsAre("c1", "c1", "c3", "negzero", "zero"));
  EXPECT_THAT(DataInputs(*g, "w"), ElementsAre("w1", "w2"));  // over kMaxConstBytes
}

TEST(CommonSubgraphEliminationTest, LeavesStatefulFeedsAndControlFlowAlone) {
  auto g = PlacedGraph(std::string(kInputs) + R"pb(
    node { name: "shape" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
           attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 1 } } int_val: 4 } } } }
    node { name: "r1" op: "RandomUniform" input: "shape"
           attr { key: "T" value { type: DT_INT32 } } attr { key: "dtype" value { type: DT_FLOAT } } }
    node { name: "r2" op: "RandomUniform" input: "shape"
           attr { key: "T" value { type: DT_INT32 } } attr { key: "dtype" value { type: DT_FLOAT } } }
    node { name: "p" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
    node { name: "pred" op: "Placeholder" attr { key: "dtype" value { type: DT_BOOL } } }
    node { name: "s1" op: "Switch" input: "x" input: "pred" attr { key: "T" value { type: DT_FLOAT } } }
    node { name: "s2" op: "Switch" input: "x" input: "pred" attr { key: "T" value { type: DT_FLOAT } } }
    node { name: "n1" op: "NoOp" input: "^x" }
    node { name: "n2" op: "NoOp" input: "^x" }
  )pb");
  EXPECT_EQ(Cse(g.get()), 0);
  for (const char* name : {"r1", "r2", "p", "y", "s1", "s2", "n1", "n2"}) {
    EXPECT_NE(OpOf(*g, name), "<missing>") << name;
  }
}

TEST(CommonSubgraphEliminationTest, NeedsTheSameDeviceAttrsAndControlInputs) {
  auto g = PlacedGraph(std::string(kInputs) + R"pb(
    node { name: "gate" op: "NoOp" }
    node { name: "axis" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
           attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape {} int_val: 0 } } } }
  )pb" + Op("on_cpu", "Exp", {"x"}) + Op("on_gpu", "Exp", {"x"}) +
                       Op("gated", "Exp", {"x"}, "DT_FLOAT", "input: '^gate' ") +
                       Op("keep", "Sum", {"x", "axis"}, "DT_FLOAT",
                          "attr { key: 'keep_dims' value { b: true } } ") +
                       Op("drop", "Sum", {"x", "axis"}, "DT_FLOAT",
                          "attr { key: 'keep_dims' value { b: false } } "));
  g->FindNodeByName("on_gpu")->set_assigned_device_name(
      "/job:localhost/replica:0/task:0/device:GPU:0");
  EXPECT_EQ(Cse(g.get()), 0);
  for (const char* name : {"on_cpu", "on_gpu", "gated", "keep", "drop"}) {
    EXPECT_NE(OpOf(*g, name), "<missing>") << name;
  }
}

TEST(CommonSubgraphEliminationTest, MergesEqualControlInputsAndMovesControlSuccessors) {
  auto g = PlacedGraph(std::string(kInputs) + "node { name: 'g1' op: 'NoOp' }\n"
                       "node { name: 'g2' op: 'NoOp' }\n" +
                       Op("e1", "Exp", {"x"}, "DT_FLOAT", "input: '^g1' input: '^g2' ") +
                       Op("e2", "Exp", {"x"}, "DT_FLOAT", "input: '^g2' input: '^g1' ") +
                       "node { name: 'after' op: 'NoOp' input: '^e2' }\n" +
                       Op("out", "Neg", {"e2"}));
  EXPECT_EQ(Cse(g.get()), 1);
  EXPECT_EQ(OpOf(*g, "e2"), "<missing>");
  EXPECT_THAT(ControlInputNames(*g, "e1"), ElementsAre("g1", "g2"));
  EXPECT_THAT(ControlInputNames(*g, "after"), ElementsAre("e1"));
  EXPECT_THAT(DataInputs(*g, "out"), ElementsAre("e1"));
}

TEST(CommonSubgraphEliminationTest, KeepsAConstantAnchoredElsewhere) {
  auto g = PlacedGraph(std::string(kInputs) + "node { name: 'pivot' op: 'NoOp' }\n" +
                       ScalarConst("root", 1) + ScalarConst("anchored", 1, "input: '^pivot'") +
                       Op("sum", "AddV2", {"root", "anchored"}));
  EXPECT_EQ(Cse(g.get()), 0);
  EXPECT_THAT(DataInputs(*g, "sum"), ElementsAre("root", "anchored"));
  EXPECT_THAT(ControlInputNames(*g, "root"), IsEmpty());
}

}  // namespace
}  // namespace tributary
