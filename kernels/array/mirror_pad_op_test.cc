#include "gtest/gtest.h"
#include "kernels/array/array_test_util.h"

namespace tributary {
namespace {

using array_test::AllTypes;
using array_test::FromIndices;
using array_test::Iota;
using array_test::RunOne;
using array_test::RunOp;
using test::NodeDefBuilder;

tensorflow::NodeDef MirrorPad(DataType t, const char* mode) {
  return NodeDefBuilder("m", "MirrorPad")
      .Input("x")
      .Input("p")
      .Attr("T", t)
      .Attr("Tpaddings", DT_INT32)
      .Attr("mode", mode)
      .Build();
}

Tensor Paddings(const std::vector<int32_t>& v) {
  return test::AsTensor<int32_t>(v, {static_cast<int64_t>(v.size() / 2), 2});
}

template <typename T>
class MirrorPadTypedTest : public ::testing::Test {};
TYPED_TEST_SUITE(MirrorPadTypedTest, AllTypes);

TYPED_TEST(MirrorPadTypedTest, ReflectAndSymmetric) {
  const DataType t = DataTypeToEnum<TypeParam>::v();
  // [[0 1 2] [3 4 5]]: rows padded (1, 0), columns (2, 1).
  const Tensor in = Iota<TypeParam>(TensorShape({2, 3}));
  array_test::ExpectEqual<TypeParam>(
      RunOne(MirrorPad(t, "REFLECT"), {in, Paddings({1, 0, 2, 1})}),
      FromIndices<TypeParam>({5, 4, 3, 4, 5, 4, 2, 1, 0, 1, 2, 1, 5, 4, 3, 4,
                              5, 4},
                             TensorShape({3, 6})));
  array_test::ExpectEqual<TypeParam>(
      RunOne(MirrorPad(t, "SYMMETRIC"), {in, Paddings({1, 0, 2, 1})}),
      FromIndices<TypeParam>({1, 0, 0, 1, 2, 2, 1, 0, 0, 1, 2, 2, 4, 3, 3, 4,
                              5, 5},
                             TensorShape({3, 6})));
}

TEST(MirrorPadTest, Errors) {
  const Tensor in = Iota<float>(TensorShape({2, 3}));
  EXPECT_INVALID_ARGUMENT(
      RunOp(MirrorPad(DT_FLOAT, "REFLECT"), {in, Paddings({2, 1, 0, 0})})
          .status(),
      "paddings must be less than the dimension size: 2, 1 not less than 2");
  EXPECT_INVALID_ARGUMENT(
      RunOp(MirrorPad(DT_FLOAT, "SYMMETRIC"), {in, Paddings({0, 0, 4, 0})})
          .status(),
      "paddings must be no greater than the dimension size: 4, 0 greater "
      "than 3");
  EXPECT_INVALID_ARGUMENT(
      RunOp(MirrorPad(DT_FLOAT, "REFLECT"), {in, Paddings({0, -1, 0, 0})})
          .status(),
      "paddings must be non-negative: 0 -1");
}

}  // namespace
}  // namespace tributary
