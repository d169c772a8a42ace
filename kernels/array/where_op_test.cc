// Where: the row-major coordinates of true/non-zero elements, [count, rank]
// int64, for bool and numeric inputs, scalars and empty results.
#include "gtest/gtest.h"
#include "kernels/array/array_test_util.h"

namespace tributary {
namespace {

using array_test::FromIndices;
using array_test::RunOne;
using test::NodeDefBuilder;

tensorflow::NodeDef Where(DataType t) {
  return NodeDefBuilder("w", "Where").Input("x").Attr("T", t).Build();
}

TEST(WhereTest, BoolMatrix) {
  // [[T, F, T], [F, F, T]] -> (0,0), (0,2), (1,2).
  Tensor x(DT_BOOL, TensorShape({2, 3}));
  const bool v[] = {true, false, true, false, false, true};
  for (int i = 0; i < 6; ++i) x.flat<bool>()(i) = v[i];
  array_test::ExpectEqual<int64_t>(
      RunOne(Where(DT_BOOL), {x}),
      FromIndices<int64_t>({0, 0, 0, 2, 1, 2}, TensorShape({3, 2})));
}

TEST(WhereTest, NumbersRankThreeAndEmpty) {
  Tensor x(DT_FLOAT, TensorShape({2, 1, 2}));
  const float v[] = {0, -1.5, 0, 2};
  for (int i = 0; i < 4; ++i) x.flat<float>()(i) = v[i];
  array_test::ExpectEqual<int64_t>(
      RunOne(Where(DT_FLOAT), {x}),
      FromIndices<int64_t>({0, 0, 1, 1, 0, 1}, TensorShape({2, 3})));
  Tensor zeros(DT_INT32, TensorShape({4}));
  for (int i = 0; i < 4; ++i) zeros.flat<int32_t>()(i) = 0;
  EXPECT_EQ(RunOne(Where(DT_INT32), {zeros}).shape(), TensorShape({0, 1}));
  Tensor none(DT_INT64, TensorShape({0, 3}));
  EXPECT_EQ(RunOne(Where(DT_INT64), {none}).shape(), TensorShape({0, 2}));
}

TEST(WhereTest, Scalar) {
  Tensor t(true);
  EXPECT_EQ(RunOne(Where(DT_BOOL), {t}).shape(), TensorShape({1, 0}));
  Tensor f(false);
  EXPECT_EQ(RunOne(Where(DT_BOOL), {f}).shape(), TensorShape({0, 0}));
}

}  // namespace
}  // namespace tributary
