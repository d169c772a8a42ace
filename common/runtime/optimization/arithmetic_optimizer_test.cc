// The arithmetic optimizer on small graphs: each rule where it applies and
// where it must not (values that are not exact identities, broadcasting,
// unknown shapes, other devices, refs, control flow), and what a rewrite
// keeps (control inputs, names, fetches).

#include "common/runtime/optimization/arithmetic_optimizer.h"

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

constexpr char kGpu[] = "/job:localhost/replica:0/task:0/device:GPU:0";

// x: float of unknown shape; m: float [2,3] known from `_output_shapes`;
// i: int32.
constexpr char kInputs[] = R"pb(
  node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
  node { name: "p" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
  node { name: "m" op: "Exp" input: "p" attr { key: "T" value { type: DT_FLOAT } }
         attr { key: "_output_shapes" value { list { shape { dim { size: 2 } dim { size: 3 } } } } } }
  node { name: "i" op: "Placeholder" attr { key: "dtype" value { type: DT_INT32 } } }
)pb";

std::string Op(const std::string& name, const std::string& op,
               const std::vector<std::string>& inputs,
               const std::string& type = "DT_FLOAT", const std::string& attrs = "") {
  std::string s = absl::StrCat("node { name: '", name, "' op: '", op, "' ");
  for (const std::string& in : inputs) absl::StrAppend(&s, "input: '", in, "' ");
  return absl::StrCat(s, "attr { key: 'T' value { type: ", type, " } } ", attrs, "}\n");
}

// A Const of `dtype` (DT_FLOAT or DT_INT32) with `shape`, every element `v`.
std::string Fill(const std::string& name, const std::string& dtype,
                 const std::vector<int>& shape, const std::string& v,
                 const std::string& extra = "") {
  std::string dims;
  for (int d : shape) absl::StrAppend(&dims, "dim { size: ", d, " } ");
  const std::string field = dtype == "DT_FLOAT" ? "float_val" : "int_val";
  return absl::StrCat("node { name: '", name, "' op: 'Const' ", extra,
                      " attr { key: 'dtype' value { type: ", dtype,
                      " } } attr { key: 'value' value { tensor { dtype: ", dtype,
                      " tensor_shape { ", dims, "} ", field, ": ", v, " } } } }\n");
}

std::string IntVector(const std::string& name, const std::vector<int>& values) {
  std::string vals;
  for (int v : values) absl::StrAppend(&vals, "int_val: ", v, " ");
  return absl::StrCat("node { name: '", name, "' op: 'Const' attr { key: 'dtype' value { type: "
                      "DT_INT32 } } attr { key: 'value' value { tensor { dtype: DT_INT32 "
                      "tensor_shape { dim { size: ",
                      values.size(), " } } ", vals, "} } } }\n");
}

std::string Reader(const std::string& name, const std::string& in,
                   const std::string& type = "DT_FLOAT") {
  return Op(name, "Square", {in}, type);
}

int Optimize(Graph* g) {
  absl::StatusOr<int> n = ArithmeticOptimizer().Run(g);
  EXPECT_TRUE(n.ok()) << n.status();
  return n.ok() ? *n : -1;
}

TEST(ArithmeticOptimizerTest, MultiplyingByOneOnlyWhenNothingBroadcasts) {
  auto g = PlacedGraph(std::string(kInputs) + Fill("one", "DT_FLOAT", {}, "1") +
                       Fill("ones13", "DT_FLOAT", {1, 3}, "1") + Fill("two", "DT_FLOAT", {}, "2") +
                       Op("a", "Mul", {"x", "one"}) + Op("b", "Mul", {"one", "x"}) +
                       Op("c", "Mul", {"m", "ones13"}) + Op("d", "Mul", {"x", "ones13"}) +
                       Op("e", "Mul", {"x", "two"}) + Reader("ra", "a") + Reader("rb", "b") +
                       Reader("rc", "c") + Reader("rd", "d") + Reader("re", "e"));
  EXPECT_EQ(Optimize(g.get()), 3);
  EXPECT_THAT(DataInputs(*g, "ra"), ElementsAre("x"));
  EXPECT_THAT(DataInputs(*g, "rb"), ElementsAre("x"));
  EXPECT_THAT(DataInputs(*g, "rc"), ElementsAre("m"));  // [2,3] * [1,3] is [2,3]
  EXPECT_EQ(OpOf(*g, "a"), "<missing>");
  // x's rank is unknown: x * ones[1,3] may have another shape than x.
  EXPECT_EQ(OpOf(*g, "d"), "Mul");
  EXPECT_EQ(OpOf(*g, "e"), "Mul");
  EXPECT_EQ(OpOf(*g, "one"), "<missing>");  // left unread
  EXPECT_EQ(OpOf(*g, "ones13"), "Const");   // d still reads it
}

TEST(ArithmeticOptimizerTest, AddsAndSubtractsOnlyExactZeros) {
  auto g = PlacedGraph(std::string(kInputs) + Fill("pz", "DT_FLOAT", {}, "0") +
                       Fill("nz", "DT_FLOAT", {}, "-0") + Fill("iz", "DT_INT32", {}, "0") +
                       Op("x_pz", "AddV2", {"x", "pz"}) + Op("nz_x", "Add", {"nz", "x"}) +
                       Op("i_iz", "AddV2", {"i", "iz"}, "DT_INT32") +
                       Op("x_m_pz", "Sub", {"x", "pz"}) + Op("x_m_nz", "Sub", {"x", "nz"}) +
                       Op("pz_m_x", "Sub", {"pz", "x"}) + Op("i_m_iz", "Sub", {"i", "iz"}, "DT_INT32") +
                       Reader("r1", "x_pz") + Reader("r2", "nz_x") + Reader("r3", "i_iz", "DT_INT32") +
                       Reader("r4", "x_m_pz") + Reader("r5", "x_m_nz") + Reader("r6", "pz_m_x") +
                       Reader("r7", "i_m_iz", "DT_INT32"));
  EXPECT_EQ(Optimize(g.get()), 4);
  // -0 + (+0) is +0: x + 0 is not x for floats.
  EXPECT_EQ(OpOf(*g, "x_pz"), "AddV2");
  EXPECT_THAT(DataInputs(*g, "r2"), ElementsAre("x"));
  EXPECT_THAT(DataInputs(*g, "r3"), ElementsAre("i"));
  EXPECT_THAT(DataInputs(*g, "r4"), ElementsAre("x"));
  EXPECT_EQ(OpOf(*g, "x_m_nz"), "Sub");  // x - (-0) is x + 0
  EXPECT_EQ(OpOf(*g, "pz_m_x"), "Sub");  // 0 - x is -x
  EXPECT_THAT(DataInputs(*g, "r7"), ElementsAre("i"));
}

TEST(ArithmeticOptimizerTest, KeepsControlInputsAsAnIdentity) {
  auto g = PlacedGraph(std::string(kInputs) + "node { name: 'gate' op: 'NoOp' }\n"
                       "node { name: 'pivot' op: 'NoOp' }\n" +
                       Fill("one", "DT_FLOAT", {}, "1", "input: '^pivot'") +
                       Op("a", "Mul", {"x", "one"}, "DT_FLOAT", "input: '^gate' ") +
                       Reader("ra", "a") + "node { name: 'after' op: 'NoOp' input: '^a' }\n");
  EXPECT_EQ(Optimize(g.get()), 1);
  EXPECT_EQ(OpOf(*g, "a"), "Identity");
  EXPECT_THAT(DataInputs(*g, "a"), ElementsAre("x"));
  EXPECT_THAT(ControlInputNames(*g, "a"), ElementsAre("gate", "pivot"));
  EXPECT_THAT(DataInputs(*g, "ra"), ElementsAre("a"));
  EXPECT_THAT(ControlInputNames(*g, "after"), ElementsAre("a"));
}

TEST(ArithmeticOptimizerTest, DoubleNegation) {
  auto g = PlacedGraph(std::string(kInputs) + Op("n1", "Neg", {"x"}) + Op("n2", "Neg", {"n1"}) +
                       Op("lone", "Neg", {"i"}, "DT_INT32") + Reader("r", "n2") +
                       Reader("rl", "lone", "DT_INT32"));
  EXPECT_EQ(Optimize(g.get()), 1);
  EXPECT_THAT(DataInputs(*g, "r"), ElementsAre("x"));
  EXPECT_EQ(OpOf(*g, "n1"), "<missing>");
  EXPECT_EQ(OpOf(*g, "n2"), "<missing>");
  EXPECT_EQ(OpOf(*g, "lone"), "Neg");
}

TEST(ArithmeticOptimizerTest, BypassesIdentityChainsAndMovesFetchesAndControlEdges) {
  auto g = PlacedGraph(std::string(kInputs) + Op("id1", "Identity", {"x"}) +
                       Op("id2", "Identity", {"id1"}) + Reader("r", "id2") +
                       "node { name: 'after' op: 'NoOp' input: '^id2' }\n" +
                       Op("ret", "_Retval", {"id2"}, "DT_FLOAT",
                          "attr { key: 'index' value { i: 0 } } ") +
                       "node { name: 'idn' op: 'IdentityN' input: 'x' input: 'i' "
                       "attr { key: 'T' value { list { type: DT_FLOAT type: DT_INT32 } } } }\n" +
                       Reader("rn0", "idn") + Reader("rn1", "idn:1", "DT_INT32"));
  EXPECT_EQ(Optimize(g.get()), 3);
  EXPECT_THAT(DataInputs(*g, "r"), ElementsAre("x"));
  EXPECT_THAT(DataInputs(*g, "ret"), ElementsAre("x"));
  EXPECT_THAT(ControlInputNames(*g, "after"), ElementsAre("x"));
  EXPECT_THAT(DataInputs(*g, "rn0"), ElementsAre("x"));
  EXPECT_THAT(DataInputs(*g, "rn1"), ElementsAre("i"));
  EXPECT_EQ(OpOf(*g, "id1"), "<missing>");
  EXPECT_EQ(OpOf(*g, "idn"), "<missing>");
}

TEST(ArithmeticOptimizerTest, KeepsCopiesOrderedIdentitiesRefReadsAndControlFlow) {
  auto g = PlacedGraph(std::string(kInputs) + R"pb(
    node { name: "gate" op: "NoOp" }
    node { name: "pred" op: "Placeholder" attr { key: "dtype" value { type: DT_BOOL } } }
    node { name: "sw" op: "Switch" input: "x" input: "pred" attr { key: "T" value { type: DT_FLOAT } } }
    node { name: "var" op: "VariableV2" attr { key: "dtype" value { type: DT_FLOAT } }
           attr { key: "shape" value { shape { } } } }
  )pb" + Op("copy", "Identity", {"x"}) + Op("ordered", "Identity", {"x"}, "DT_FLOAT", "input: '^gate' ") +
                       Op("pivot", "Identity", {"sw:1"}) + Op("read", "Identity", {"var"}) +
                       Reader("r1", "copy") + Reader("r2", "ordered") + Reader("r3", "pivot") +
                       Reader("r4", "read"));
  g->FindNodeByName("copy")->set_assigned_device_name(kGpu);
  EXPECT_EQ(Optimize(g.get()), 0);
  for (const char* name : {"copy", "ordered", "pivot", "read"}) {
    EXPECT_EQ(OpOf(*g, name), "Identity") << name;
  }
}

TEST(ArithmeticOptimizerTest, RewritesOnlyWithinOneDevice) {
  auto g = PlacedGraph(std::string(kInputs) + Fill("one", "DT_FLOAT", {}, "1") +
                       Op("a", "Mul", {"x", "one"}) + Reader("ra", "a") +
                       Op("n1", "Neg", {"x"}) + Op("n2", "Neg", {"n1"}) + Reader("rn", "n2"));
  g->FindNodeByName("one")->set_assigned_device_name(kGpu);
  g->FindNodeByName("n1")->set_assigned_device_name(kGpu);
  EXPECT_EQ(Optimize(g.get()), 0);
  EXPECT_EQ(OpOf(*g, "a"), "Mul");
  EXPECT_EQ(OpOf(*g, "n2"), "Neg");
}

TEST(ArithmeticOptimizerTest, ReshapeToTheKnownShape) {
  auto g = PlacedGraph(std::string(kInputs) + IntVector("s23", {2, 3}) +
                       IntVector("s2m1", {2, -1}) + IntVector("s32", {3, 2}) +
                       "node { name: 'arg' op: '_Arg' attr { key: 'T' value { type: DT_FLOAT } } "
                       "attr { key: 'index' value { i: 0 } } }\n" +
                       Op("fed", "Exp", {"arg"}, "DT_FLOAT",
                          "attr { key: '_output_shapes' value { list { shape { dim { size: 2 } "
                          "dim { size: 3 } } } } } ") +
                       Op("same", "Reshape", {"m", "s23"}, "DT_FLOAT") +
                       Op("inferred", "Reshape", {"m", "s2m1"}) +
                       Op("other", "Reshape", {"m", "s32"}) +
                       Op("untrusted", "Reshape", {"fed", "s23"}) + Op("unknown", "Reshape", {"x", "s23"}) +
                       Reader("r1", "same") + Reader("r2", "inferred") + Reader("r3", "other") +
                       Reader("r4", "untrusted") + Reader("r5", "unknown"));
  EXPECT_EQ(Optimize(g.get()), 2);
  EXPECT_THAT(DataInputs(*g, "r1"), ElementsAre("m"));
  EXPECT_THAT(DataInputs(*g, "r2"), ElementsAre("m"));
  EXPECT_EQ(OpOf(*g, "other"), "Reshape");
  // The client may feed another shape than the annotation says.
  EXPECT_EQ(OpOf(*g, "untrusted"), "Reshape");
  EXPECT_EQ(OpOf(*g, "unknown"), "Reshape");
}

TEST(ArithmeticOptimizerTest, CollapsesReshapeOfReshapeWhenErrorsAgree) {
  auto g = PlacedGraph(std::string(kInputs) + IntVector("s6", {6}) + IntVector("s23", {2, 3}) +
                       IntVector("s4", {4}) + IntVector("sm1", {-1}) +
                       Op("r6", "Reshape", {"x", "s6"}) + Op("r23", "Reshape", {"r6", "s23"}) +
                       Op("bad", "Reshape", {"x", "s4"}) + Op("bad23", "Reshape", {"bad", "s23"}) +
                       Op("flat", "Reshape", {"x", "sm1"}) + Op("flat23", "Reshape", {"flat", "s23"}) +
                       Reader("a", "r23") + Reader("b", "bad23") + Reader("c", "flat23"));
  EXPECT_EQ(Optimize(g.get()), 2);
  EXPECT_THAT(DataInputs(*g, "r23"), ElementsAre("x", "s23"));
  EXPECT_EQ(OpOf(*g, "r6"), "<missing>");
  EXPECT_EQ(OpOf(*g, "s6"), "<missing>");
  EXPECT_THAT(DataInputs(*g, "flat23"), ElementsAre("x", "s23"));
  // x of 6 elements: Reshape(x, [4]) fails, Reshape(x, [2,3]) would not.
  EXPECT_THAT(DataInputs(*g, "bad23"), ElementsAre("bad", "s23"));
}

TEST(ArithmeticOptimizerTest, IdentityTransposeNeedsTheRank) {
  auto g = PlacedGraph(std::string(kInputs) + IntVector("id", {0, 1}) + IntVector("swap", {1, 0}) +
                       Op("t", "Transpose", {"m", "id"}) + Op("swapped", "Transpose", {"m", "swap"}) +
                       Op("unranked", "Transpose", {"x", "id"}) + Reader("r1", "t") +
                       Reader("r2", "swapped") + Reader("r3", "unranked"));
  EXPECT_EQ(Optimize(g.get()), 1);
  EXPECT_THAT(DataInputs(*g, "r1"), ElementsAre("m"));
  EXPECT_EQ(OpOf(*g, "swapped"), "Transpose");
  // A perm of another length than x's rank is an error the step reports.
  EXPECT_EQ(OpOf(*g, "unranked"), "Transpose");
}

TEST(ArithmeticOptimizerTest, AddNOfOneInput) {
  auto g = PlacedGraph(std::string(kInputs) +
                       Op("one", "AddN", {"x"}, "DT_FLOAT", "attr { key: 'N' value { i: 1 } } ") +
                       Op("two", "AddN", {"x", "x"}, "DT_FLOAT", "attr { key: 'N' value { i: 2 } } ") +
                       Reader("r1", "one") + Reader("r2", "two"));
  EXPECT_EQ(Optimize(g.get()), 1);
  EXPECT_THAT(DataInputs(*g, "r1"), ElementsAre("x"));
  EXPECT_EQ(OpOf(*g, "two"), "AddN");
  EXPECT_THAT(ControlInputNames(*g, "r1"), IsEmpty());
}

}  // namespace
}  // namespace tributary
