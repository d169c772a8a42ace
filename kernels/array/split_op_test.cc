#include "gtest/gtest.h"
#include "kernels/array/array_test_util.h"

namespace tributary {
namespace {

using array_test::AllTypes;
using array_test::FromIndices;
using array_test::I32Scalar;
using array_test::I64;
using array_test::Iota;
using array_test::RunOp;
using test::NodeDefBuilder;

tensorflow::NodeDef Split(DataType t, int n) {
  return NodeDefBuilder("s", "Split")
      .Input("d")
      .Input("x")
      .Attr("T", t)
      .Attr("num_split", n)
      .Build();
}

tensorflow::NodeDef SplitV(DataType t, int n) {
  return NodeDefBuilder("s", "SplitV")
      .Input("x")
      .Input("sizes")
      .Input("d")
      .Attr("T", t)
      .Attr("num_split", n)
      .Attr("Tlen", DT_INT64)
      .Build();
}

template <typename T>
class SplitTypedTest : public ::testing::Test {};
TYPED_TEST_SUITE(SplitTypedTest, AllTypes);

TYPED_TEST(SplitTypedTest, EqualAndSizedPieces) {
  const DataType t = DataTypeToEnum<TypeParam>::v();
  // [[0 1 2 3] [4 5 6 7]] split along dim 1.
  const Tensor in = Iota<TypeParam>(TensorShape({2, 4}));
  auto equal = RunOp(Split(t, 2), {I32Scalar(-1), in});
  ASSERT_TRUE(equal.ok()) << equal.status();
  array_test::ExpectEqual<TypeParam>(
      (*equal)[0], FromIndices<TypeParam>({0, 1, 4, 5}, TensorShape({2, 2})));
  array_test::ExpectEqual<TypeParam>(
      (*equal)[1], FromIndices<TypeParam>({2, 3, 6, 7}, TensorShape({2, 2})));
  auto sized = RunOp(SplitV(t, 2), {in, I64({1, -1}), I32Scalar(1)});
  ASSERT_TRUE(sized.ok()) << sized.status();
  array_test::ExpectEqual<TypeParam>(
      (*sized)[0], FromIndices<TypeParam>({0, 4}, TensorShape({2, 1})));
  array_test::ExpectEqual<TypeParam>(
      (*sized)[1],
      FromIndices<TypeParam>({1, 2, 3, 5, 6, 7}, TensorShape({2, 3})));
}

TEST(SplitTest, Errors) {
  const Tensor in = Iota<float>(TensorShape({4, 6}));
  EXPECT_INVALID_ARGUMENT(RunOp(Split(DT_FLOAT, 4), {I32Scalar(1), in}).status(),
                          "but got split_dim 1 (size = 6) and num_split 4");
  EXPECT_INVALID_ARGUMENT(RunOp(Split(DT_FLOAT, 2), {I32Scalar(2), in}).status(),
                          "-input rank(-2) <= split_dim < input rank (2), but "
                          "got 2");
  EXPECT_INVALID_ARGUMENT(
      RunOp(SplitV(DT_FLOAT, 2), {in, I64({-1, -1}), I32Scalar(1)}).status(),
      "There can only be one -1 in the input.");
  EXPECT_INVALID_ARGUMENT(
      RunOp(SplitV(DT_FLOAT, 2), {in, I64({2, 3}), I32Scalar(1)}).status(),
      "Got: 5");
}

}  // namespace
}  // namespace tributary
