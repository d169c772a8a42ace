// Unary kernels, comparisons and logical ops.
#include <cmath>

#include "gtest/gtest.h"
#include "kernels/math/math_test_util.h"

namespace tributary {
namespace {

using test::AsScalar;
using test::AsTensor;
using test::ExpectTensorEqual;
using test::ExpectTensorNear;
using test::RunBinary;
using test::RunUnary;

template <typename T>
class UnaryNumberTest : public ::testing::Test {};
using NumberTypes = ::testing::Types<float, double, int32_t, int64_t>;
TYPED_TEST_SUITE(UnaryNumberTest, NumberTypes);

TYPED_TEST(UnaryNumberTest, NegAbsSquare) {
  using T = TypeParam;
  Tensor x = AsTensor<T>({-2, 0, 3}, {3});
  auto neg = RunUnary("Neg", x);
  auto abs = RunUnary("Abs", x);
  auto sq = RunUnary("Square", x);
  ASSERT_TRUE(neg.ok() && abs.ok() && sq.ok());
  ExpectTensorEqual<T>(*neg, AsTensor<T>({2, 0, -3}));
  ExpectTensorEqual<T>(*abs, AsTensor<T>({2, 0, 3}));
  ExpectTensorEqual<T>(*sq, AsTensor<T>({4, 0, 9}));
}

TYPED_TEST(UnaryNumberTest, ScalarAndEmpty) {
  using T = TypeParam;
  auto s = RunUnary("Neg", AsScalar<T>(5));
  ASSERT_TRUE(s.ok());
  ExpectTensorEqual<T>(*s, AsScalar<T>(-5));
  auto e = RunUnary("Abs", Tensor(DataTypeToEnum<T>::v(), TensorShape({0, 4})));
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e->shape(), TensorShape({0, 4}));
}

template <typename T>
class UnaryFloatTest : public ::testing::Test {};
using FloatTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(UnaryFloatTest, FloatTypes);

TYPED_TEST(UnaryFloatTest, Transcendentals) {
  using T = TypeParam;
  const double tol = std::is_same<T, float>::value ? 1e-6 : 1e-12;
  Tensor x = AsTensor<T>({0.25, 1, 4});
  struct Case {
    const char* op;
    double (*f)(double);
  };
  const Case ops[] = {
      {"Sqrt", [](double v) { return std::sqrt(v); }},
      {"Rsqrt", [](double v) { return 1 / std::sqrt(v); }},
      {"Exp", [](double v) { return std::exp(v); }},
      {"Log", [](double v) { return std::log(v); }},
      {"Log1p", [](double v) { return std::log1p(v); }},
      {"Reciprocal", [](double v) { return 1 / v; }},
      {"Expm1", [](double v) { return std::expm1(v); }},
      {"Tanh", [](double v) { return std::tanh(v); }},
      {"Sigmoid", [](double v) { return 1 / (1 + std::exp(-v)); }},
      {"Erf", [](double v) { return std::erf(v); }},
      {"Erfc", [](double v) { return std::erfc(v); }},
  };
  for (const Case& c : ops) {
    absl::StatusOr<Tensor> out = RunUnary(c.op, x);
    ASSERT_TRUE(out.ok()) << c.op << ": " << out.status();
    Tensor expected = AsTensor<T>({T(c.f(0.25)), T(c.f(1)), T(c.f(4))});
    const Tensor& got = *out;
    for (int i = 0; i < 3; ++i) {
      EXPECT_NEAR(got.flat<T>()(i), expected.flat<T>()(i),
                  tol * std::max(1.0, std::abs(double(expected.flat<T>()(i)))))
          << c.op << " element " << i;
    }
  }
}

TEST(UnaryFloatTest, SqrtOfNegativeIsNaNLogOfZeroIsMinusInf) {
  auto s = RunUnary("Sqrt", AsTensor<float>({-1}));
  ASSERT_TRUE(s.ok());
  EXPECT_TRUE(std::isnan(s->flat<float>()(0)));
  auto l = RunUnary("Log", AsTensor<double>({0}));
  ASSERT_TRUE(l.ok());
  EXPECT_TRUE(std::isinf(l->flat<double>()(0)) && l->flat<double>()(0) < 0);
}

TEST(UnaryFloatTest, NoIntegerTranscendentals) {
  // The op itself only admits floating/complex T: rejected before kernel
  // lookup.
  EXPECT_EQ(RunUnary("Exp", AsTensor<int32_t>({1})).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TYPED_TEST(UnaryFloatTest, RoundingAndTrigonometry) {
  using T = TypeParam;
  Tensor x = AsTensor<T>({-1.5, -0.25, 0, 0.5, 2.75});
  auto floor = RunUnary("Floor", x);
  auto ceil = RunUnary("Ceil", x);
  auto sign = RunUnary("Sign", x);
  auto cos = RunUnary("Cos", x);
  auto sin = RunUnary("Sin", x);
  ASSERT_TRUE(floor.ok() && ceil.ok() && sign.ok() && cos.ok() && sin.ok());
  ExpectTensorEqual<T>(*floor, AsTensor<T>({-2, -1, 0, 0, 2}));
  ExpectTensorEqual<T>(*ceil, AsTensor<T>({-1, -0.0, 0, 1, 3}));
  ExpectTensorEqual<T>(*sign, AsTensor<T>({-1, -1, 0, 1, 1}));
  const Tensor& c = *cos;
  const Tensor& s = *sin;
  for (int i = 0; i < 5; ++i) {
    const double v = x.flat<T>()(i);
    EXPECT_NEAR(c.flat<T>()(i), std::cos(v), 1e-6);
    EXPECT_NEAR(s.flat<T>()(i), std::sin(v), 1e-6);
  }
  auto sign_nan = RunUnary("Sign", AsTensor<T>({T(NAN)}));
  ASSERT_TRUE(sign_nan.ok());
  const Tensor& n = *sign_nan;
  EXPECT_TRUE(std::isnan(n.flat<T>()(0)));
}

TYPED_TEST(UnaryNumberTest, Sign) {
  using T = TypeParam;
  auto sign = RunUnary("Sign", AsTensor<T>({-7, 0, 3}));
  ASSERT_TRUE(sign.ok());
  ExpectTensorEqual<T>(*sign, AsTensor<T>({-1, 0, 1}));
}

TEST(UnaryFloatTest, NoIntegerFloorOrCos) {
  EXPECT_EQ(RunUnary("Floor", AsTensor<int32_t>({1})).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(RunUnary("Cos", AsTensor<int64_t>({1})).status().code(),
            absl::StatusCode::kInvalidArgument);
}

template <typename T>
class CompareTest : public ::testing::Test {};
TYPED_TEST_SUITE(CompareTest, NumberTypes);

TYPED_TEST(CompareTest, AllComparisonsWithBroadcast) {
  using T = TypeParam;
  Tensor x = AsTensor<T>({1, 2, 3, 4, 5, 6}, {2, 3});
  Tensor y = AsTensor<T>({2, 2, 4});
  struct Case {
    const char* op;
    std::vector<bool> expected;
  };
  const Case ops[] = {
      {"Equal", {false, true, false, false, false, false}},
      {"NotEqual", {true, false, true, true, true, true}},
      {"Less", {true, false, true, false, false, false}},
      {"LessEqual", {true, true, true, false, false, false}},
      {"Greater", {false, false, false, true, true, true}},
      {"GreaterEqual", {false, true, false, true, true, true}},
  };
  for (const Case& c : ops) {
    absl::StatusOr<Tensor> out = RunBinary(c.op, x, y);
    ASSERT_TRUE(out.ok()) << c.op << ": " << out.status();
    ASSERT_EQ(out->dtype(), DT_BOOL);
    ExpectTensorEqual<bool>(*out, AsTensor<bool>(c.expected, {2, 3}));
  }
}

TYPED_TEST(CompareTest, IncompatibleShapes) {
  using T = TypeParam;
  auto out = RunBinary("Less", AsTensor<T>({1, 2}), AsTensor<T>({1, 2, 3}));
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(out.status().message(), "Incompatible shapes: [2] vs. [3]");
}

TEST(EqualTest, BoolAndNaN) {
  auto b = RunBinary("Equal", AsTensor<bool>({true, false}), AsScalar<bool>(true));
  ASSERT_TRUE(b.ok());
  ExpectTensorEqual<bool>(*b, AsTensor<bool>({true, false}));
  const float nan = std::nanf("");
  auto n = RunBinary("NotEqual", AsTensor<float>({nan}), AsTensor<float>({nan}));
  ASSERT_TRUE(n.ok());
  ExpectTensorEqual<bool>(*n, AsTensor<bool>({true}));
}

TEST(EqualTest, NoIncompatibleShapeErrorGivesScalar) {
  for (const char* op : {"Equal", "NotEqual"}) {
    auto out = test::RunOne(test::NodeDefBuilder("e", op)
                                .Input("x")
                                .Input("y")
                                .Attr("T", DT_INT32)
                                .Attr("incompatible_shape_error", false)
                                .Build(),
                            {AsTensor<int32_t>({1, 2}), AsTensor<int32_t>({1, 2, 3})});
    ASSERT_TRUE(out.ok()) << out.status();
    ExpectTensorEqual<bool>(*out, AsScalar<bool>(std::string(op) == "NotEqual"));
  }
}

TEST(EqualTest, StringsBroadcast) {
  Tensor words(DT_STRING, TensorShape({2, 2}));
  const char* v[] = {"a", "", "bc", ""};
  for (int i = 0; i < 4; ++i) words.flat<std::string>()(i) = v[i];
  Tensor empty(DT_STRING, TensorShape({}));
  Tensor column(DT_STRING, TensorShape({2, 1}));
  column.flat<std::string>()(0) = "a";
  column.flat<std::string>()(1) = "";
  for (const char* op : {"Equal", "NotEqual"}) {
    const bool ne = std::string(op) == "NotEqual";
    auto node = test::NodeDefBuilder("e", op)
                    .Input("x")
                    .Input("y")
                    .Attr("T", DT_STRING)
                    .Build();
    auto out = test::RunOne(node, {words, empty});
    ASSERT_TRUE(out.ok()) << out.status();
    ExpectTensorEqual<bool>(*out, AsTensor<bool>({ne, !ne, ne, !ne}, {2, 2}));
    out = test::RunOne(node, {words, column});
    ASSERT_TRUE(out.ok()) << out.status();
    ExpectTensorEqual<bool>(*out, AsTensor<bool>({!ne, ne, ne, !ne}, {2, 2}));
    out = test::RunOne(node, {words, words});
    ASSERT_TRUE(out.ok()) << out.status();
    ExpectTensorEqual<bool>(*out, AsTensor<bool>({!ne, !ne, !ne, !ne}, {2, 2}));
    Tensor three(DT_STRING, TensorShape({3}));
    EXPECT_EQ(test::RunOne(node, {words, three}).status().code(),
              absl::StatusCode::kInvalidArgument);
  }
}

TEST(LogicalTest, AndOrNot) {
  Tensor x = AsTensor<bool>({true, true, false, false});
  Tensor y = AsTensor<bool>({true, false, true, false});
  auto a = test::RunOne(test::NodeDefBuilder("a", "LogicalAnd").Inputs(2).Build(), {x, y});
  auto o = test::RunOne(test::NodeDefBuilder("o", "LogicalOr").Inputs(2).Build(), {x, y});
  auto n = test::RunOne(test::NodeDefBuilder("n", "LogicalNot").Inputs(1).Build(), {x});
  ASSERT_TRUE(a.ok() && o.ok() && n.ok());
  ExpectTensorEqual<bool>(*a, AsTensor<bool>({true, false, false, false}));
  ExpectTensorEqual<bool>(*o, AsTensor<bool>({true, true, true, false}));
  ExpectTensorEqual<bool>(*n, AsTensor<bool>({false, false, true, true}));
  auto bc = test::RunOne(test::NodeDefBuilder("a", "LogicalAnd").Inputs(2).Build(),
                         {AsTensor<bool>({true, false}, {2, 1}), AsTensor<bool>({true, false})});
  ASSERT_TRUE(bc.ok());
  ExpectTensorEqual<bool>(*bc, AsTensor<bool>({true, false, false, false}, {2, 2}));
}

}  // namespace
}  // namespace tributary
