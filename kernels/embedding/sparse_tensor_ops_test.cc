// SparseReshape (inferred dimension, bad sizes) and SparseFillEmptyRows
// (empty rows filled, reverse map, unordered input, bad rows).
#include <vector>

#include "common/framework/tensor_testutil.h"
#include "gtest/gtest.h"
#include "kernels/testing/kernel_runner.h"

namespace tributary {
namespace {

using test::NodeDefBuilder;

Tensor I64Matrix(const std::vector<int64_t>& v, int64_t cols) {
  Tensor t(DT_INT64, TensorShape({static_cast<int64_t>(v.size()) / cols, cols}));
  for (size_t i = 0; i < v.size(); ++i) t.flat<int64_t>()(i) = v[i];
  return t;
}

std::vector<int64_t> Values(const Tensor& t) {
  std::vector<int64_t> out(t.NumElements());
  for (size_t i = 0; i < out.size(); ++i) out[i] = t.flat<int64_t>()(i);
  return out;
}

tensorflow::NodeDef Reshape() {
  return NodeDefBuilder("r", "SparseReshape")
      .Input("i")
      .Input("s")
      .Input("n")
      .Build();
}

TEST(SparseReshapeTest, InfersTheMissingDimension) {
  // [2, 3] -> [3, -1] = [3, 2]: (0,2) is 2 -> (1,0); (1,1) is 4 -> (2,0).
  auto out = test::RunKernel(
      Reshape(), {I64Matrix({0, 2, 1, 1}, 2), test::AsTensor<int64_t>({2, 3}),
                  test::AsTensor<int64_t>({3, -1})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values((*out)[0]), (std::vector<int64_t>{1, 0, 2, 0}));
  EXPECT_EQ(Values((*out)[1]), (std::vector<int64_t>{3, 2}));
  // Rank change: [2, 1] dense [2, 3] -> [6].
  out = test::RunKernel(Reshape(), {I64Matrix({1, 2}, 2),
                                    test::AsTensor<int64_t>({2, 3}),
                                    test::AsTensor<int64_t>({6})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values((*out)[0]), (std::vector<int64_t>{5}));
}

TEST(SparseReshapeTest, SizeMismatchIsInvalidArgument) {
  auto out = test::RunKernel(Reshape(), {I64Matrix({0, 0}, 2),
                                         test::AsTensor<int64_t>({2, 3}),
                                         test::AsTensor<int64_t>({4, -1})});
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  out = test::RunKernel(Reshape(), {I64Matrix({0, 0}, 2),
                                    test::AsTensor<int64_t>({2, 3}),
                                    test::AsTensor<int64_t>({-1, -1})});
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
}

tensorflow::NodeDef Fill(DataType t) {
  return NodeDefBuilder("f", "SparseFillEmptyRows")
      .Input("i")
      .Input("v")
      .Input("s")
      .Input("d")
      .Attr("T", t)
      .Build();
}

TEST(SparseFillEmptyRowsTest, FillsEmptyRowsAndMapsBack) {
  // Rows 0 and 3 have entries (given out of order), rows 1, 2 and 4 none.
  auto out = test::RunKernel(
      Fill(DT_FLOAT), {I64Matrix({3, 1, 0, 0, 0, 2}, 2),
                       test::AsTensor<float>({30, 0, 2}),
                       test::AsTensor<int64_t>({5, 4}),
                       test::AsScalar<float>(-1)});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values((*out)[0]),
            (std::vector<int64_t>{0, 0, 0, 2, 1, 0, 2, 0, 3, 1, 4, 0}));
  test::ExpectTensorEqual<float>((*out)[1],
                                 test::AsTensor<float>({0, 2, -1, -1, 30, -1}));
  const Tensor& empty = (*out)[2];
  ASSERT_EQ(empty.NumElements(), 5);
  const bool want[] = {false, true, true, false, true};
  for (int r = 0; r < 5; ++r) EXPECT_EQ(empty.flat<bool>()(r), want[r]) << r;
  EXPECT_EQ(Values((*out)[3]), (std::vector<int64_t>{4, 0, 1}));
}

TEST(SparseFillEmptyRowsTest, StringsAndErrors) {
  Tensor words(DT_STRING, TensorShape({1}));
  words.flat<std::string>()(0) = "w";
  Tensor fill(DT_STRING, TensorShape({}));
  fill.flat<std::string>()(0) = "";
  auto out = test::RunKernel(
      Fill(DT_STRING),
      {I64Matrix({1, 0}, 2), words, test::AsTensor<int64_t>({2, 1}), fill});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[1].flat<std::string>()(0), "");
  EXPECT_EQ((*out)[1].flat<std::string>()(1), "w");
  auto bad = test::RunKernel(
      Fill(DT_FLOAT), {I64Matrix({2, 0}, 2), test::AsTensor<float>({1}),
                       test::AsTensor<int64_t>({2, 1}), test::AsScalar<float>(0)});
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace tributary
