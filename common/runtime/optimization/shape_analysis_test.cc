// ShapeAnalysis on small graphs: what it proves the same, and what it
// refuses to (unknown ops, different placeholders, broadcasts, windows that
// shrink an unknown dimension).

#include "common/runtime/optimization/shape_analysis.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/runtime/optimization/optimization_test_util.h"
#include "gtest/gtest.h"

namespace tributary {
namespace {

using optimization_test::PlacedGraph;
using optimization_test::ShapedPlaceholder;

std::string Filter(const std::string& name, const std::vector<int>& shape) {
  std::string dims;
  for (int d : shape) absl::StrAppend(&dims, "dim { size: ", d, " } ");
  return absl::StrCat(
      "node { name: '", name, "' op: 'Const' attr { key: 'dtype' value { type: "
      "DT_FLOAT } } attr { key: 'value' value { tensor { dtype: DT_FLOAT "
      "tensor_shape { ", dims, "} float_val: 1 } } } }\n");
}

std::string Conv(const std::string& name, const std::string& in,
                 const std::string& w, int stride, const std::string& padding) {
  return absl::StrCat(
      "node { name: '", name, "' op: 'Conv2D' input: '", in, "' input: '", w,
      "' attr { key: 'T' value { type: DT_FLOAT } } ",
      "attr { key: 'strides' value { list { i: 1 i: ", stride, " i: ", stride,
      " i: 1 } } } attr { key: 'padding' value { s: '", padding, "' } } }\n");
}

std::string Binary(const std::string& name, const std::string& op,
                   const std::string& a, const std::string& b) {
  return absl::StrCat("node { name: '", name, "' op: '", op, "' input: '", a,
                      "' input: '", b,
                      "' attr { key: 'T' value { type: DT_FLOAT } } }\n");
}

std::string Dims(const ShapeAnalysis& s, const std::string& node) {
  const SymbolicShape* shape = s.Shape(node, 0);
  if (shape == nullptr) return "?";
  std::string out;
  for (const SymbolicDim& d : *shape) {
    absl::StrAppend(&out, out.empty() ? "" : ",",
                    d.known() ? absl::StrCat(d.size)
                              : (d.unknown() ? std::string("?") : "s"));
  }
  return out;
}

TEST(ShapeAnalysisTest, KnownSizesThroughConvolutionsAndPads) {
  auto g = PlacedGraph(
      ShapedPlaceholder("x", {2, 9, 9, 3}) + Filter("w3", {3, 3, 3, 8}) +
      Filter("w1", {1, 1, 3, 8}) + Conv("same", "x", "w3", 2, "SAME") +
      Conv("valid", "x", "w1", 2, "VALID") + Conv("shrink", "x", "w3", 1, "VALID") +
      "node { name: 'pads' op: 'Const' attr { key: 'dtype' value { type: "
      "DT_INT32 } } attr { key: 'value' value { tensor { dtype: DT_INT32 "
      "tensor_shape { dim { size: 4 } dim { size: 2 } } int_val: 0 int_val: 0 "
      "int_val: 1 int_val: 2 int_val: 1 int_val: 2 int_val: 0 int_val: 0 } } } "
      "}\n"
      "node { name: 'pad' op: 'Pad' input: 'x' input: 'pads' attr { key: 'T' "
      "value { type: DT_FLOAT } } }\n");
  const ShapeAnalysis s(*g);
  EXPECT_EQ(Dims(s, "same"), "2,5,5,8");
  EXPECT_EQ(Dims(s, "valid"), "2,5,5,8");
  EXPECT_EQ(Dims(s, "shrink"), "2,7,7,8");
  EXPECT_EQ(Dims(s, "pad"), "2,12,12,3");
  EXPECT_TRUE(s.ProvablySame("same", 0, "valid", 0));
  EXPECT_FALSE(s.ProvablySame("same", 0, "shrink", 0));
}

TEST(ShapeAnalysisTest, UnknownDimensionsAreSymbols) {
  // Unknown batch and spatial sizes: a SAME stride-2 3x3 and a VALID
  // stride-2 1x1 both give ceil(H / 2); a VALID 3x3 gives something else.
  auto g = PlacedGraph(
      ShapedPlaceholder("x", {-1, -1, -1, 3}) + ShapedPlaceholder("y", {-1, -1, -1, 3}) +
      Filter("w3", {3, 3, 3, 8}) + Filter("w1", {1, 1, 3, 8}) +
      Conv("same", "x", "w3", 2, "SAME") + Conv("valid", "x", "w1", 2, "VALID") +
      Conv("twice", "same", "w1", 1, "SAME") +
      Conv("shrink", "x", "w3", 1, "VALID") + Conv("other", "y", "w3", 2, "SAME") +
      Binary("relu_in", "AddV2", "same", "valid"));
  const ShapeAnalysis s(*g);
  EXPECT_EQ(Dims(s, "same"), "s,s,s,8");
  EXPECT_TRUE(s.ProvablySame("same", 0, "valid", 0));
  EXPECT_TRUE(s.ProvablySame("same", 0, "twice", 0));
  EXPECT_TRUE(s.ProvablySame("same", 0, "relu_in", 0));
  EXPECT_EQ(Dims(s, "shrink"), "s,?,?,8");
  EXPECT_FALSE(s.ProvablySame("shrink", 0, "shrink", 0));  // unknown dims
  EXPECT_FALSE(s.ProvablySame("same", 0, "other", 0));     // another input
  EXPECT_FALSE(s.ProvablySame("x", 0, "same", 0));
}

TEST(ShapeAnalysisTest, BroadcastsAndUnknownOps) {
  auto g = PlacedGraph(
      ShapedPlaceholder("x", {-1, 4, 4, 3}) + ShapedPlaceholder("c", {3}) +
      ShapedPlaceholder("any", {}) +
      "node { name: 'free' op: 'Placeholder' attr { key: 'dtype' value { "
      "type: DT_FLOAT } } }\n" +
      Binary("bcast", "Mul", "x", "c") + Binary("scalar", "AddV2", "any", "x") +
      Binary("unknown", "AddV2", "x", "free"));
  const ShapeAnalysis s(*g);
  EXPECT_TRUE(s.ProvablySame("x", 0, "bcast", 0));
  EXPECT_TRUE(s.ProvablySame("x", 0, "scalar", 0));
  EXPECT_EQ(Dims(s, "free"), "?");
  EXPECT_EQ(Dims(s, "unknown"), "?");
  EXPECT_FALSE(s.ProvablySame("x", 0, "c", 0));
}

}  // namespace
}  // namespace tributary
