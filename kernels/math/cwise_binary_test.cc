// Binary arithmetic kernels: values, broadcasting, dtypes, errors.
#include <cmath>
#include <limits>

#include "gtest/gtest.h"
#include "kernels/math/math_test_util.h"

namespace tributary {
namespace {

using test::AsScalar;
using test::AsTensor;
using test::ExpectTensorEqual;
using test::ExpectTensorNear;
using test::RunBinary;

template <typename T>
class ArithTest : public ::testing::Test {};
using NumberTypes = ::testing::Types<float, double, int32_t, int64_t>;
TYPED_TEST_SUITE(ArithTest, NumberTypes);

TYPED_TEST(ArithTest, SameShape) {
  using T = TypeParam;
  Tensor x = AsTensor<T>({1, 2, 3, 4}, {2, 2});
  Tensor y = AsTensor<T>({5, 6, 7, 8}, {2, 2});
  for (const char* op : {"Add", "AddV2"}) {
    auto out = RunBinary(op, x, y);
    ASSERT_TRUE(out.ok()) << out.status();
    ExpectTensorEqual<T>(*out, AsTensor<T>({6, 8, 10, 12}, {2, 2}));
  }
  auto sub = RunBinary("Sub", x, y);
  ASSERT_TRUE(sub.ok());
  ExpectTensorEqual<T>(*sub, AsTensor<T>({-4, -4, -4, -4}, {2, 2}));
  auto mul = RunBinary("Mul", x, y);
  ASSERT_TRUE(mul.ok());
  ExpectTensorEqual<T>(*mul, AsTensor<T>({5, 12, 21, 32}, {2, 2}));
}

TYPED_TEST(ArithTest, ScalarOnEitherSide) {
  using T = TypeParam;
  Tensor v = AsTensor<T>({1, 2, 3});
  auto left = RunBinary("Sub", AsScalar<T>(10), v);
  ASSERT_TRUE(left.ok());
  ExpectTensorEqual<T>(*left, AsTensor<T>({9, 8, 7}));
  auto right = RunBinary("Sub", v, AsScalar<T>(10));
  ASSERT_TRUE(right.ok());
  ExpectTensorEqual<T>(*right, AsTensor<T>({-9, -8, -7}));
}

TYPED_TEST(ArithTest, BroadcastRowAndColumn) {
  using T = TypeParam;
  // [2,1] + [3] -> [2,3]
  auto out = RunBinary("AddV2", AsTensor<T>({10, 20}, {2, 1}),
                       AsTensor<T>({1, 2, 3}));
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectTensorEqual<T>(*out, AsTensor<T>({11, 12, 13, 21, 22, 23}, {2, 3}));
}

TYPED_TEST(ArithTest, BroadcastThreeDims) {
  using T = TypeParam;
  // [2,1,2] * [3,1] -> [2,3,2]
  auto out = RunBinary("Mul", AsTensor<T>({1, 2, 3, 4}, {2, 1, 2}),
                       AsTensor<T>({1, 10, 100}, {3, 1}));
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectTensorEqual<T>(
      *out, AsTensor<T>({1, 2, 10, 20, 100, 200, 3, 4, 30, 40, 300, 400},
                        {2, 3, 2}));
}

TYPED_TEST(ArithTest, IncompatibleShapesNameBoth) {
  using T = TypeParam;
  auto out = RunBinary("AddV2", AsTensor<T>({1, 2, 3, 4, 5, 6}, {2, 3}),
                       AsTensor<T>({1, 2, 3, 4}));
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(out.status().message(), "Incompatible shapes: [2,3] vs. [4]");
}

TYPED_TEST(ArithTest, EmptyBroadcast) {
  using T = TypeParam;
  auto out = RunBinary("AddV2", Tensor(DataTypeToEnum<T>::v(), TensorShape({0, 3})),
                       AsTensor<T>({1, 2, 3}));
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(out->shape(), TensorShape({0, 3}));
}

TYPED_TEST(ArithTest, MaximumMinimum) {
  using T = TypeParam;
  Tensor x = AsTensor<T>({1, 5, -3});
  Tensor y = AsTensor<T>({2, 4, -3});
  auto mx = RunBinary("Maximum", x, y);
  auto mn = RunBinary("Minimum", x, y);
  ASSERT_TRUE(mx.ok() && mn.ok());
  ExpectTensorEqual<T>(*mx, AsTensor<T>({2, 5, -3}));
  ExpectTensorEqual<T>(*mn, AsTensor<T>({1, 4, -3}));
}

TYPED_TEST(ArithTest, SquaredDifferenceBroadcasts) {
  using T = TypeParam;
  auto out = RunBinary("SquaredDifference", AsTensor<T>({1, 5, -3, 0}, {2, 2}),
                       AsTensor<T>({2, -1}, {2}));
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectTensorEqual<T>(*out, AsTensor<T>({1, 36, 25, 1}, {2, 2}));
}

TYPED_TEST(ArithTest, FloorDivAndModFollowTheDivisorSign) {
  using T = TypeParam;
  Tensor x = AsTensor<T>({7, -7, 7, -7});
  Tensor y = AsTensor<T>({2, 2, -2, -2});
  auto fd = RunBinary("FloorDiv", x, y);
  auto fm = RunBinary("FloorMod", x, y);
  ASSERT_TRUE(fd.ok() && fm.ok());
  ExpectTensorEqual<T>(*fd, AsTensor<T>({3, -4, -4, 3}));
  ExpectTensorEqual<T>(*fm, AsTensor<T>({1, 1, -1, -1}));
}

TEST(DivTest, IntegerDivTruncates) {
  auto out = RunBinary("Div", AsTensor<int32_t>({7, -7}), AsTensor<int32_t>({2, 2}));
  ASSERT_TRUE(out.ok());
  ExpectTensorEqual<int32_t>(*out, AsTensor<int32_t>({3, -3}));
}

TEST(DivTest, IntegerDivisionByZero) {
  for (const char* op : {"Div", "FloorDiv", "FloorMod"}) {
    auto out = RunBinary(op, AsTensor<int64_t>({1, 2}), AsTensor<int64_t>({1, 0}));
    EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument) << op;
    EXPECT_EQ(out.status().message(), "Integer division by zero") << op;
    // Also through the scalar and broadcast paths.
    out = RunBinary(op, AsTensor<int32_t>({1, 2}), AsScalar<int32_t>(0));
    EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument) << op;
    out = RunBinary(op, AsTensor<int32_t>({1, 2, 3, 4}, {2, 2}),
                    AsTensor<int32_t>({3, 0}));
    EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument) << op;
  }
}

TEST(DivTest, IntMinByMinusOneWraps) {
  const int32_t min = std::numeric_limits<int32_t>::min();
  auto out = RunBinary("Div", AsTensor<int32_t>({min}), AsTensor<int32_t>({-1}));
  ASSERT_TRUE(out.ok());
  ExpectTensorEqual<int32_t>(*out, AsTensor<int32_t>({min}));
  auto mod = RunBinary("FloorMod", AsTensor<int32_t>({min}), AsTensor<int32_t>({-1}));
  ASSERT_TRUE(mod.ok());
  ExpectTensorEqual<int32_t>(*mod, AsTensor<int32_t>({0}));
}

TEST(DivTest, RealDivFloat) {
  auto out = RunBinary("RealDiv", AsTensor<float>({1, -1, 0}), AsTensor<float>({4, 0, 0}));
  ASSERT_TRUE(out.ok());
  auto f = out->flat<float>();
  EXPECT_FLOAT_EQ(f(0), 0.25f);
  EXPECT_TRUE(std::isinf(f(1)) && f(1) < 0);
  EXPECT_TRUE(std::isnan(f(2)));
}

TEST(DivTest, RealDivHasNoIntegerKernel) {
  auto out = RunBinary("RealDiv", AsTensor<int32_t>({1}), AsTensor<int32_t>({1}));
  EXPECT_EQ(out.status().code(), absl::StatusCode::kNotFound);
}

TEST(PowTest, FloatAndInt) {
  auto f = RunBinary("Pow", AsTensor<double>({2, 9, 4}), AsTensor<double>({3, 0.5, -1}));
  ASSERT_TRUE(f.ok());
  ExpectTensorNear<double>(*f, AsTensor<double>({8, 3, 0.25}), 1e-12);
  auto i = RunBinary("Pow", AsTensor<int64_t>({2, -3, 5}), AsTensor<int64_t>({10, 3, 0}));
  ASSERT_TRUE(i.ok());
  ExpectTensorEqual<int64_t>(*i, AsTensor<int64_t>({1024, -27, 1}));
}

TEST(PowTest, NegativeIntegerExponentIsAnError) {
  auto out = RunBinary("Pow", AsTensor<int32_t>({2}), AsTensor<int32_t>({-1}));
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(out.status().message(),
            "Integers to negative integer powers are not allowed");
}

TEST(MaximumTest, PropagatesNaN) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  auto out = RunBinary("Maximum", AsTensor<float>({nan, 1}), AsTensor<float>({1, nan}));
  ASSERT_TRUE(out.ok());
  EXPECT_TRUE(std::isnan(out->flat<float>()(0)));
  EXPECT_TRUE(std::isnan(out->flat<float>()(1)));
}

TEST(BinaryOpTest, SixAlternatingDimsUnimplemented) {
  Tensor x(DT_FLOAT, TensorShape({2, 1, 2, 1, 2, 1}));
  Tensor y(DT_FLOAT, TensorShape({1, 2, 1, 2, 1, 2}));
  x.flat<float>().setZero();
  y.flat<float>().setZero();
  auto out = RunBinary("AddV2", x, y);
  EXPECT_EQ(out.status().code(), absl::StatusCode::kUnimplemented);
}

TEST(BinaryOpTest, LargeBroadcastUsesThreadPool) {
  // Big enough for Eigen to split the work across the pool's threads.
  Tensor x(DT_FLOAT, TensorShape({512, 1024}));
  x.flat<float>().setConstant(1.0f);
  Tensor y(DT_FLOAT, TensorShape({1024}));
  for (int i = 0; i < 1024; ++i) y.flat<float>()(i) = i;
  auto out = RunBinary("AddV2", x, y);
  ASSERT_TRUE(out.ok());
  auto m = out->matrix<float>();
  EXPECT_EQ(m(0, 0), 1.0f);
  EXPECT_EQ(m(511, 1023), 1024.0f);
}

TEST(BinaryOpTest, WrongDtypeAttrHasNoKernel) {
  auto out = RunBinary("Add", Tensor(DT_STRING, TensorShape({1})),
                       Tensor(DT_STRING, TensorShape({1})));
  EXPECT_EQ(out.status().code(), absl::StatusCode::kNotFound);
}

TEST(AddNTest, SumsAllInputs) {
  for (int n : {1, 2, 3, 4, 5}) {
    std::vector<Tensor> inputs;
    for (int i = 0; i < n; ++i) inputs.push_back(AsTensor<int32_t>({i, 10 * i}));
    auto out = test::RunOne(test::NodeDefBuilder("s", "AddN")
                                .Inputs(n)
                                .Attr("N", n)
                                .Attr("T", DT_INT32)
                                .Build(),
                            inputs);
    ASSERT_TRUE(out.ok()) << out.status();
    const int total = n * (n - 1) / 2;
    ExpectTensorEqual<int32_t>(*out, AsTensor<int32_t>({total, 10 * total}));
  }
}

TEST(AddNTest, ShapeMismatchNamesBothShapes) {
  auto out = test::RunOne(
      test::NodeDefBuilder("s", "AddN").Inputs(2).Attr("N", 2).Attr("T", DT_FLOAT).Build(),
      {AsTensor<float>({1, 2}), AsTensor<float>({1, 2, 3})});
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(out.status().message().find("[2]"), std::string::npos);
  EXPECT_NE(out.status().message().find("[3]"), std::string::npos);
}

}  // namespace
}  // namespace tributary
