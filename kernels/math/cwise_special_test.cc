// The gradient ops (SqrtGrad, RsqrtGrad, ReciprocalGrad, InvGrad), Inv,
// rounding, trigonometric and special functions, truncating division and
// remainders, the zero-guarded products and the bitwise ops: values,
// TensorFlow's edge cases, broadcasting, empty tensors and errors.
#include <cmath>
#include <cstdint>
#include <limits>

#include "absl/status/status.h"
#include "gtest/gtest.h"
#include "kernels/math/math_test_util.h"

namespace tributary {
namespace {

using test::AsScalar;
using test::AsTensor;
using test::ExpectTensorEqual;
using test::ExpectTensorNear;
using test::RunBinary;
using test::RunOne;
using test::RunUnary;

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

absl::StatusOr<Tensor> RunGrad(const std::string& op, const Tensor& y,
                               const Tensor& dy) {
  return RunOne(test::NodeDefBuilder("g", op)
                    .Input("y")
                    .Input("dy")
                    .Attr("T", y.dtype())
                    .Build(),
                {y, dy});
}

TEST(GradTest, Values) {
  // y = sqrt(x), rsqrt(x), 1/x at x = 4: dx = dy/(2y), -dy*y^3/2, -dy*y^2.
  const Tensor y = AsTensor<float>({2.0f, 0.5f, 0.25f});
  const Tensor dy = AsTensor<float>({3.0f, 3.0f, 3.0f});
  auto sq = RunGrad("SqrtGrad", y, dy);
  ASSERT_TRUE(sq.ok()) << sq.status();
  ExpectTensorNear<float>(*sq, AsTensor<float>({0.75f, 3.0f, 6.0f}), 1e-6);
  auto rs = RunGrad("RsqrtGrad", y, dy);
  ASSERT_TRUE(rs.ok()) << rs.status();
  ExpectTensorNear<float>(*rs, AsTensor<float>({-12.0f, -0.1875f, -0.0234375f}),
                          1e-6);
  for (const char* op : {"ReciprocalGrad", "InvGrad"}) {
    auto inv = RunGrad(op, y, dy);
    ASSERT_TRUE(inv.ok()) << inv.status();
    ExpectTensorNear<float>(*inv, AsTensor<float>({-12.0f, -0.75f, -0.1875f}),
                            1e-6);
  }
}

TEST(GradTest, ZeroGradientGivesZeroEvenForInfiniteY) {
  // TensorFlow's mul_no_nan: no NaN from inf * 0 or 0 / 0. Long enough for
  // the packet path and a scalar tail.
  std::vector<float> ys(19, kInf), dys(19, 0.0f);
  ys[0] = 0.0f;
  ys[18] = 0.0f;
  const Tensor y = AsTensor<float>(ys), dy = AsTensor<float>(dys);
  for (const char* op : {"SqrtGrad", "RsqrtGrad", "ReciprocalGrad"}) {
    auto out = RunGrad(op, y, dy);
    ASSERT_TRUE(out.ok()) << op << ": " << out.status();
    for (int i = 0; i < 19; ++i) {
      EXPECT_EQ(out->flat<float>()(i), 0.0f) << op << " " << i;
    }
  }
}

TEST(GradTest, NeedsEqualElementCountsNotShapes) {
  auto ok = RunGrad("RsqrtGrad", AsTensor<double>({1, 2, 3, 4}, {2, 2}),
                    AsTensor<double>({1, 1, 1, 1}, {4}));
  ASSERT_TRUE(ok.ok()) << ok.status();
  EXPECT_EQ(ok->shape(), TensorShape({2, 2}));
  auto bad = RunGrad("SqrtGrad", AsTensor<float>({1, 2, 3}),
                     AsTensor<float>({1, 2}));
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(bad.status().message().find(
                "must have same number of elements, got 3 and 2"),
            std::string::npos)
      << bad.status();
  auto empty = RunGrad("SqrtGrad", AsTensor<float>({}, {0, 3}),
                       AsTensor<float>({}, {0, 3}));
  ASSERT_TRUE(empty.ok()) << empty.status();
  EXPECT_EQ(empty->shape(), TensorShape({0, 3}));
}

TEST(GradTest, HalfAndBfloat16) {
  auto h = RunGrad("SqrtGrad", AsTensor<Eigen::half>({Eigen::half(2.0f)}),
                   AsTensor<Eigen::half>({Eigen::half(3.0f)}));
  ASSERT_TRUE(h.ok()) << h.status();
  EXPECT_EQ(static_cast<float>(h->flat<Eigen::half>()(0)), 0.75f);
  auto b = RunGrad("RsqrtGrad", AsTensor<Eigen::bfloat16>({Eigen::bfloat16(2.0f)}),
                   AsTensor<Eigen::bfloat16>({Eigen::bfloat16(1.0f)}));
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(static_cast<float>(b->flat<Eigen::bfloat16>()(0)), -4.0f);
}

TEST(UnaryTest, InvAndRoundHalfToEven) {
  auto inv = RunUnary("Inv", AsTensor<float>({2, -4, 0}));
  ASSERT_TRUE(inv.ok()) << inv.status();
  ExpectTensorEqual<float>(*inv, AsTensor<float>({0.5f, -0.25f, kInf}));
  const Tensor x =
      AsTensor<float>({0.5f, 1.5f, 2.5f, -0.5f, -1.5f, -2.5f, 2.6f, -2.4f});
  const Tensor want =
      AsTensor<float>({0.0f, 2.0f, 2.0f, -0.0f, -2.0f, -2.0f, 3.0f, -2.0f});
  for (const char* op : {"Round", "Rint"}) {
    auto out = RunUnary(op, x);
    ASSERT_TRUE(out.ok()) << op << ": " << out.status();
    ExpectTensorEqual<float>(*out, want);
  }
  // Integers round to themselves.
  auto ints = RunUnary("Round", AsTensor<int64_t>({3, -4, 0}));
  ASSERT_TRUE(ints.ok()) << ints.status();
  ExpectTensorEqual<int64_t>(*ints, AsTensor<int64_t>({3, -4, 0}));
}

TEST(UnaryTest, TrigAndSpecialFunctions) {
  const std::vector<std::pair<const char*, double (*)(double)>> fns = {
      {"Tan", [](double v) { return std::tan(v); }},
      {"Asin", [](double v) { return std::asin(v); }},
      {"Acos", [](double v) { return std::acos(v); }},
      {"Atan", [](double v) { return std::atan(v); }},
      {"Sinh", [](double v) { return std::sinh(v); }},
      {"Cosh", [](double v) { return std::cosh(v); }},
      {"Asinh", [](double v) { return std::asinh(v); }},
      {"Atanh", [](double v) { return std::atanh(v); }},
      {"Lgamma", [](double v) { return std::lgamma(v); }},
  };
  const std::vector<double> xs = {-0.9, -0.3, 0.0, 0.2, 0.7};
  for (const auto& [op, fn] : fns) {
    auto out = RunUnary(op, AsTensor<double>(xs));
    ASSERT_TRUE(out.ok()) << op << ": " << out.status();
    for (size_t i = 0; i < xs.size(); ++i) {
      const double want = fn(xs[i]);  // lgamma(0) = inf
      if (std::isinf(want)) {
        EXPECT_EQ(out->flat<double>()(i), want) << op << " " << xs[i];
      } else {
        EXPECT_NEAR(out->flat<double>()(i), want, 1e-12) << op << " " << xs[i];
      }
    }
  }
  auto acosh = RunUnary("Acosh", AsTensor<double>({1.0, 2.0}));
  ASSERT_TRUE(acosh.ok());
  EXPECT_NEAR(acosh->flat<double>()(1), std::acosh(2.0), 1e-15);
  // erf(erfinv(x)) == x; ndtri is the normal quantile.
  auto erfinv = RunUnary("Erfinv", AsTensor<double>(xs));
  ASSERT_TRUE(erfinv.ok()) << erfinv.status();
  for (size_t i = 0; i < xs.size(); ++i) {
    EXPECT_NEAR(std::erf(erfinv->flat<double>()(i)), xs[i], 1e-14);
  }
  auto ndtri = RunUnary("Ndtri", AsTensor<double>({0.5, 0.975, 0.0, 1.0}));
  ASSERT_TRUE(ndtri.ok()) << ndtri.status();
  EXPECT_NEAR(ndtri->flat<double>()(0), 0.0, 1e-15);
  EXPECT_NEAR(ndtri->flat<double>()(1), 1.959963984540054, 1e-12);
  EXPECT_EQ(ndtri->flat<double>()(2), -std::numeric_limits<double>::infinity());
  EXPECT_EQ(ndtri->flat<double>()(3), std::numeric_limits<double>::infinity());
  // Outside their domains: NaN, as in TensorFlow.
  auto ndtri_out = RunUnary("Ndtri", AsTensor<float>({-0.5f, 2.0f, kInf}));
  ASSERT_TRUE(ndtri_out.ok()) << ndtri_out.status();
  auto erfinv_out = RunUnary("Erfinv", AsTensor<float>({-1.5f, 2.0f, -kInf}));
  ASSERT_TRUE(erfinv_out.ok()) << erfinv_out.status();
  for (int i = 0; i < 3; ++i) {
    EXPECT_TRUE(std::isnan(ndtri_out->flat<float>()(i))) << i;
    EXPECT_TRUE(std::isnan(erfinv_out->flat<float>()(i))) << i;
  }
  auto digamma = RunUnary("Digamma", AsTensor<float>({1.0f}));
  ASSERT_TRUE(digamma.ok()) << digamma.status();
  EXPECT_NEAR(digamma->flat<float>()(0), -0.5772156649f, 1e-6);
}

TEST(BinaryTest, TruncatingDivisionAndRemainders) {
  const Tensor x = AsTensor<int32_t>({7, -7, 7, -7});
  const Tensor y = AsTensor<int32_t>({2, 2, -2, -2});
  auto div = RunBinary("TruncateDiv", x, y);
  ASSERT_TRUE(div.ok()) << div.status();
  ExpectTensorEqual<int32_t>(*div, AsTensor<int32_t>({3, -3, -3, 3}));
  for (const char* op : {"TruncateMod", "Mod"}) {
    auto mod = RunBinary(op, x, y);
    ASSERT_TRUE(mod.ok()) << op << ": " << mod.status();
    ExpectTensorEqual<int32_t>(*mod, AsTensor<int32_t>({1, -1, 1, -1}));
  }
  auto fdiv = RunBinary("TruncateDiv", AsTensor<float>({7.5f, -7.5f}),
                        AsScalar<float>(2.0f));
  ASSERT_TRUE(fdiv.ok()) << fdiv.status();
  ExpectTensorEqual<float>(*fdiv, AsTensor<float>({3.0f, -3.0f}));
  auto fmod = RunBinary("TruncateMod", AsTensor<double>({7.5, -7.5}),
                        AsScalar<double>(2.0));
  ASSERT_TRUE(fmod.ok()) << fmod.status();
  ExpectTensorEqual<double>(*fmod, AsTensor<double>({1.5, -1.5}));
  auto u8 = RunBinary("TruncateDiv", AsTensor<uint8_t>({200, 7}),
                      AsTensor<uint8_t>({3, 2}));
  ASSERT_TRUE(u8.ok()) << u8.status();
  ExpectTensorEqual<uint8_t>(*u8, AsTensor<uint8_t>({66, 3}));
}

TEST(BinaryTest, IntegerDivisionByZeroIsAnErrorNotATrap) {
  // Mod reports it as TensorFlow's Div does; TruncateDiv/TruncateMod with
  // TensorFlow's catch-all Internal error (its own codes and messages).
  auto mod = RunBinary("Mod", AsTensor<int64_t>({1, 2}), AsScalar<int64_t>(0));
  ASSERT_FALSE(mod.ok());
  EXPECT_EQ(mod.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(mod.status().message(), "Integer division by zero");
  for (const char* op : {"TruncateDiv", "TruncateMod"}) {
    auto out = RunBinary(op, AsTensor<int32_t>({1, 2}), AsTensor<int32_t>({1, 0}));
    ASSERT_FALSE(out.ok()) << op;
    EXPECT_EQ(out.status().code(), absl::StatusCode::kInternal) << op;
  }
  // INT_MIN / -1 and INT_MIN % -1 wrap / give 0 instead of SIGFPE.
  const int32_t kMin = std::numeric_limits<int32_t>::min();
  auto div = RunBinary("TruncateDiv", AsTensor<int32_t>({kMin}),
                       AsTensor<int32_t>({-1}));
  ASSERT_TRUE(div.ok()) << div.status();
  EXPECT_EQ(div->flat<int32_t>()(0), kMin);
  auto mod2 = RunBinary("TruncateMod", AsTensor<int32_t>({kMin}),
                        AsScalar<int32_t>(-1));
  ASSERT_TRUE(mod2.ok()) << mod2.status();
  EXPECT_EQ(mod2->flat<int32_t>()(0), 0);
}

TEST(BinaryTest, ZeroGuardedProducts) {
  const Tensor x = AsTensor<float>({0, 0, 2, kNaN, kInf, 3});
  const Tensor y = AsTensor<float>({0, kNaN, 1, 0, 0, 2});
  auto xlogy = RunBinary("Xlogy", x, y);
  ASSERT_TRUE(xlogy.ok()) << xlogy.status();
  EXPECT_EQ(xlogy->flat<float>()(0), 0.0f);
  EXPECT_EQ(xlogy->flat<float>()(1), 0.0f);
  EXPECT_EQ(xlogy->flat<float>()(2), 0.0f);
  EXPECT_NEAR(xlogy->flat<float>()(5), 3 * std::log(2.0f), 1e-6);
  auto xdivy = RunBinary("Xdivy", x, y);
  ASSERT_TRUE(xdivy.ok()) << xdivy.status();
  EXPECT_EQ(xdivy->flat<float>()(0), 0.0f);
  EXPECT_EQ(xdivy->flat<float>()(5), 1.5f);
  auto xlog1py = RunBinary("Xlog1py", x, y);
  ASSERT_TRUE(xlog1py.ok()) << xlog1py.status();
  EXPECT_EQ(xlog1py->flat<float>()(1), 0.0f);
  EXPECT_NEAR(xlog1py->flat<float>()(5), 3 * std::log1p(2.0f), 1e-6);
  auto mnn = RunBinary("MulNoNan", x, y);
  ASSERT_TRUE(mnn.ok()) << mnn.status();
  EXPECT_EQ(mnn->flat<float>()(3), 0.0f);  // NaN * 0
  EXPECT_EQ(mnn->flat<float>()(4), 0.0f);  // inf * 0
  EXPECT_TRUE(std::isnan(mnn->flat<float>()(1)));  // 0 * NaN: y is not 0
  // Broadcasting like the other binary ops.
  auto b = RunBinary("MulNoNan", AsTensor<double>({1, 2}, {2, 1}),
                     AsTensor<double>({0, 3, 4}));
  ASSERT_TRUE(b.ok()) << b.status();
  ExpectTensorEqual<double>(*b, AsTensor<double>({0, 3, 4, 0, 6, 8}, {2, 3}));
  auto bad = RunBinary("Xlogy", AsTensor<float>({1, 2, 3}), AsTensor<float>({1, 2}));
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(BinaryTest, Atan2Quadrants) {
  auto out = RunBinary("Atan2", AsTensor<double>({1, 1, -1, -1, 0.0}),
                       AsTensor<double>({1, -1, 1, -1, -1}));
  ASSERT_TRUE(out.ok()) << out.status();
  const double pi = std::acos(-1.0);
  ExpectTensorNear<double>(
      *out, AsTensor<double>({pi / 4, 3 * pi / 4, -pi / 4, -3 * pi / 4, pi}),
      1e-15);
}

template <typename T>
class BitwiseTest : public ::testing::Test {};
using IntTypes = ::testing::Types<int8_t, int16_t, int32_t, int64_t, uint8_t,
                                  uint16_t, uint32_t, uint64_t>;
TYPED_TEST_SUITE(BitwiseTest, IntTypes);

TYPED_TEST(BitwiseTest, LogicShiftsInvertPopcount) {
  using T = TypeParam;
  constexpr int kBits = sizeof(T) * 8;
  const Tensor x = AsTensor<T>({T(12), T(10), T(1), T(-1)});
  const Tensor y = AsTensor<T>({T(10), T(6), T(0), T(1)});
  auto a = RunBinary("BitwiseAnd", x, y);
  auto o = RunBinary("BitwiseOr", x, y);
  auto e = RunBinary("BitwiseXor", x, y);
  ASSERT_TRUE(a.ok() && o.ok() && e.ok());
  ExpectTensorEqual<T>(*a, AsTensor<T>({T(8), T(2), T(0), T(1)}));
  ExpectTensorEqual<T>(*o, AsTensor<T>({T(14), T(14), T(1), T(-1)}));
  ExpectTensorEqual<T>(*e, AsTensor<T>({T(6), T(12), T(1), T(T(-1) ^ T(1))}));
  auto inv = RunUnary("Invert", x);
  ASSERT_TRUE(inv.ok()) << inv.status();
  ExpectTensorEqual<T>(*inv, AsTensor<T>({T(~T(12)), T(~T(10)), T(~T(1)), T(0)}));
  auto pc = RunUnary("PopulationCount", x);
  ASSERT_TRUE(pc.ok()) << pc.status();
  ExpectTensorEqual<uint8_t>(*pc, AsTensor<uint8_t>({2, 2, 1, uint8_t(kBits)}));
  // Counts past the width clamp to width - 1; negative counts to 0.
  const T big = T(kBits + 3);
  auto ls = RunBinary("LeftShift", AsTensor<T>({T(1), T(1), T(3)}),
                      AsTensor<T>({big, T(2), T(kBits - 1)}));
  ASSERT_TRUE(ls.ok()) << ls.status();
  const T top = T(T(1) << (kBits - 1));
  ExpectTensorEqual<T>(*ls, AsTensor<T>({top, T(4), top}));
  auto rs = RunBinary("RightShift", AsTensor<T>({top, T(64)}), AsTensor<T>({big, T(3)}));
  ASSERT_TRUE(rs.ok()) << rs.status();
  // A signed top bit shifts arithmetically to all ones.
  ExpectTensorEqual<T>(*rs, AsTensor<T>({std::is_signed<T>::value ? T(-1) : T(1), T(8)}));
  if (std::is_signed<T>::value) {
    auto neg = RunBinary("LeftShift", AsTensor<T>({T(5)}), AsScalar<T>(T(-3)));
    ASSERT_TRUE(neg.ok()) << neg.status();
    ExpectTensorEqual<T>(*neg, AsTensor<T>({T(5)}));
  }
  auto empty = RunBinary("BitwiseAnd", AsTensor<T>({}, {0, 2}), AsTensor<T>({T(1), T(2)}));
  ASSERT_TRUE(empty.ok()) << empty.status();
  EXPECT_EQ(empty->shape(), TensorShape({0, 2}));
}

}  // namespace
}  // namespace tributary
