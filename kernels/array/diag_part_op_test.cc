// DiagPart: the diagonal of [n, n] and [a, b, a, b] inputs for each dtype
// family; odd rank and mismatched halves are INVALID_ARGUMENT.
#include "gtest/gtest.h"
#include "kernels/array/array_test_util.h"

namespace tributary {
namespace {

using array_test::FromIndices;
using array_test::Iota;
using array_test::RunOne;
using array_test::RunOp;
using test::NodeDefBuilder;

tensorflow::NodeDef DiagPart(DataType t) {
  return NodeDefBuilder("d", "DiagPart").Input("x").Attr("T", t).Build();
}

template <typename T>
class DiagPartTypedTest : public ::testing::Test {};
using Types = ::testing::Types<float, double, int32_t, int64_t>;
TYPED_TEST_SUITE(DiagPartTypedTest, Types);

TYPED_TEST(DiagPartTypedTest, MatrixAndRankFour) {
  const DataType t = DataTypeToEnum<TypeParam>::v();
  array_test::ExpectEqual<TypeParam>(
      RunOne(DiagPart(t), {Iota<TypeParam>({3, 3})}),
      FromIndices<TypeParam>({0, 4, 8}, TensorShape({3})));
  // [2, 3, 2, 3]: out[i, j] = in[i, j, i, j] = in flat[(i*3+j) * 7].
  array_test::ExpectEqual<TypeParam>(
      RunOne(DiagPart(t), {Iota<TypeParam>({2, 3, 2, 3})}),
      FromIndices<TypeParam>({0, 7, 14, 21, 28, 35}, TensorShape({2, 3})));
}

TEST(DiagPartTest, BadShapesAreInvalidArgument) {
  EXPECT_EQ(RunOp(DiagPart(DT_FLOAT), {Iota<float>({2, 2, 2})}).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(RunOp(DiagPart(DT_FLOAT), {Iota<float>({2, 3})}).status().code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace tributary
