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

tensorflow::NodeDef Pad(DataType t, bool v2 = false) {
  NodeDefBuilder b("p", v2 ? "PadV2" : "Pad");
  b.Input("x").Input("p");
  if (v2) b.Input("c");
  return b.Attr("T", t).Attr("Tpaddings", DT_INT32).Build();
}

Tensor Paddings(const std::vector<int32_t>& v) {
  return test::AsTensor<int32_t>(v, {static_cast<int64_t>(v.size() / 2), 2});
}

template <typename T>
class PadTypedTest : public ::testing::Test {};
TYPED_TEST_SUITE(PadTypedTest, AllTypes);

TYPED_TEST(PadTypedTest, SurroundsWithZeroOrConstant) {
  const DataType t = DataTypeToEnum<TypeParam>::v();
  // [[1 2]] padded (1,0) rows and (0,1) columns with element 0 / element 5.
  const Tensor in = FromIndices<TypeParam>({1, 2}, TensorShape({1, 2}));
  // Pad's constant is T{} (0, false, ""), which Value<T> does not give.
  Tensor zero_padded =
      FromIndices<TypeParam>({0, 0, 0, 1, 2, 0}, TensorShape({2, 3}));
  for (int k : {0, 1, 2, 5}) zero_padded.flat<TypeParam>()(k) = TypeParam{};
  array_test::ExpectEqual<TypeParam>(
      RunOne(Pad(t), {in, Paddings({1, 0, 0, 1})}), zero_padded);
  array_test::ExpectEqual<TypeParam>(
      RunOne(Pad(t, true),
             {in, Paddings({1, 0, 0, 1}),
              FromIndices<TypeParam>({5}, TensorShape({}))}),
      FromIndices<TypeParam>({5, 5, 5, 1, 2, 5}, TensorShape({2, 3})));
}

TEST(PadTest, LargeMatchesReference) {
  const Tensor in = Iota<int32_t>(TensorShape({9, 33, 17}));
  const Tensor out = RunOne(Pad(DT_INT32), {in, Paddings({1, 2, 3, 0, 0, 5})});
  ASSERT_EQ(out.shape(), TensorShape({12, 36, 22}));
  auto m = out.tensor<int32_t, 3>();
  for (int a = 0; a < 12; ++a) {
    for (int b = 0; b < 36; ++b) {
      for (int c = 0; c < 22; ++c) {
        const bool inside = a >= 1 && a < 10 && b >= 3 && c < 17;
        const int32_t want = inside ? ((a - 1) * 33 + b - 3) * 17 + c : 0;
        ASSERT_EQ(m(a, b, c), want) << a << "," << b << "," << c;
      }
    }
  }
}

TEST(PadTest, IdentityForwardsInput) {
  const Tensor in = Iota<float>(TensorShape({2, 3}));
  EXPECT_TRUE(
      RunOne(Pad(DT_FLOAT), {in, Paddings({0, 0, 0, 0})}).SharesBufferWith(in));
}

TEST(PadTest, Errors) {
  const Tensor in = Iota<float>(TensorShape({2, 3}));
  EXPECT_INVALID_ARGUMENT(
      RunOp(Pad(DT_FLOAT), {in, array_test::I32({1, 1})}).status(),
      "paddings must be a matrix with 2 columns: [2]");
  EXPECT_INVALID_ARGUMENT(
      RunOp(Pad(DT_FLOAT), {in, Paddings({1, 1})}).status(),
      "The first dimension of paddings must be the rank of inputs[1,2] [2,3]");
  EXPECT_INVALID_ARGUMENT(
      RunOp(Pad(DT_FLOAT), {in, Paddings({0, 0, 2, -1})}).status(),
      "Paddings must be non-negative: 2 -1");
  EXPECT_INVALID_ARGUMENT(
      RunOp(Pad(DT_FLOAT, true),
            {in, Paddings({0, 0, 0, 0}), array_test::I32({1})})
          .status(),
      "constant_values must be a scalar. Found: [1]");
}

}  // namespace
}  // namespace tributary
