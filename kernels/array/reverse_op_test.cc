// ReverseV2: values for every tested dtype, several axes, negative axes,
// the no-op forward, and the axis errors.
#include "gtest/gtest.h"
#include "kernels/array/array_test_util.h"

namespace tributary {
namespace {

using array_test::AllTypes;
using array_test::FromIndices;
using array_test::I32;
using array_test::I64;
using array_test::Iota;
using array_test::RunOne;
using array_test::RunOp;
using test::NodeDefBuilder;

tensorflow::NodeDef Reverse(DataType t, DataType tidx = DT_INT32) {
  return NodeDefBuilder("r", "ReverseV2")
      .Input("x")
      .Input("axis")
      .Attr("T", t)
      .Attr("Tidx", tidx)
      .Build();
}

template <typename T>
class ReverseTypedTest : public ::testing::Test {};
TYPED_TEST_SUITE(ReverseTypedTest, AllTypes);

TYPED_TEST(ReverseTypedTest, ReversesListedAxes) {
  const DataType t = DataTypeToEnum<TypeParam>::v();
  const Tensor in = Iota<TypeParam>(TensorShape({2, 3}));
  // [[0 1 2] [3 4 5]]
  array_test::ExpectEqual<TypeParam>(
      RunOne(Reverse(t), {in, I32({1})}),
      FromIndices<TypeParam>({2, 1, 0, 5, 4, 3}, TensorShape({2, 3})));
  array_test::ExpectEqual<TypeParam>(
      RunOne(Reverse(t, DT_INT64), {in, I64({-2})}),
      FromIndices<TypeParam>({3, 4, 5, 0, 1, 2}, TensorShape({2, 3})));
  array_test::ExpectEqual<TypeParam>(
      RunOne(Reverse(t), {in, I32({0, -1})}),
      FromIndices<TypeParam>({5, 4, 3, 2, 1, 0}, TensorShape({2, 3})));
}

TEST(ReverseTest, MiddleAxisOfRank3) {
  const Tensor in = Iota<int32_t>(TensorShape({2, 3, 2}));
  array_test::ExpectEqual<int32_t>(
      RunOne(Reverse(DT_INT32), {in, I32({1})}),
      FromIndices<int32_t>({4, 5, 2, 3, 0, 1, 10, 11, 8, 9, 6, 7},
                           TensorShape({2, 3, 2})));
}

TEST(ReverseTest, NothingToReverseForwardsTheInput) {
  const Tensor in = Iota<float>(TensorShape({1, 3}));
  EXPECT_TRUE(RunOne(Reverse(DT_FLOAT), {in, I32({0})}).SharesBufferWith(in));
  EXPECT_TRUE(
      RunOne(Reverse(DT_FLOAT), {in, Tensor(DT_INT32, TensorShape({0}))})
          .SharesBufferWith(in));
}

TEST(ReverseTest, BadAxes) {
  const Tensor in = Iota<float>(TensorShape({2, 3}));
  EXPECT_INVALID_ARGUMENT(RunOp(Reverse(DT_FLOAT), {in, I32({2})}).status(),
                          "out of valid range [-2, 1]");
  EXPECT_INVALID_ARGUMENT(RunOp(Reverse(DT_FLOAT), {in, I32({1, -1})}).status(),
                          "axis 1 specified more than once.");
  EXPECT_INVALID_ARGUMENT(
      RunOp(Reverse(DT_FLOAT), {in, test::AsScalar<int32_t>(0)}).status(),
      "'dims' must be 1-dimension, not 0");
}

}  // namespace
}  // namespace tributary
