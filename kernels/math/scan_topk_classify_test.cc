// IsFinite/IsNan/IsInf, CheckNumerics(V2), Cumsum/Cumprod/
// CumulativeLogsumexp (exclusive/reverse, axes), TopKV2 (tie order, k = 0,
// errors) and InTopKV2.
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "common/framework/tensor.h"
#include "common/framework/tensor_testutil.h"
#include "gtest/gtest.h"
#include "kernels/testing/kernel_runner.h"

namespace tributary {
namespace {

using test::AsScalar;
using test::AsTensor;
using test::NodeDefBuilder;

TEST(ClassifyTest, FiniteNanInf) {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const Tensor x = AsTensor<float>({0, -1.5, inf, -inf, nan}, {5});
  const std::vector<std::pair<const char*, std::vector<bool>>> expected = {
      {"IsFinite", {true, true, false, false, false}},
      {"IsNan", {false, false, false, false, true}},
      {"IsInf", {false, false, true, true, false}}};
  for (const auto& [op, want] : expected) {
    auto out = test::RunKernel(
        NodeDefBuilder("c", op).Input("x").Attr("T", DT_FLOAT).Build(), {x});
    ASSERT_TRUE(out.ok()) << op << ": " << out.status();
    ASSERT_EQ((*out)[0].dtype(), DT_BOOL);
    for (int i = 0; i < 5; ++i) {
      EXPECT_EQ((*out)[0].flat<bool>()(i), want[i]) << op << " " << i;
    }
  }
  auto half = test::RunKernel(
      NodeDefBuilder("c", "IsFinite").Input("x").Attr("T", DT_HALF).Build(),
      {AsTensor<Eigen::half>({Eigen::half(1.0f),
                              Eigen::half(std::numeric_limits<float>::infinity())})});
  ASSERT_TRUE(half.ok()) << half.status();
  EXPECT_TRUE((*half)[0].flat<bool>()(0));
  EXPECT_FALSE((*half)[0].flat<bool>()(1));
}

tensorflow::NodeDef Cumsum(DataType t, bool exclusive, bool reverse,
                           DataType tidx = DT_INT32) {
  return NodeDefBuilder("cumsum", "Cumsum")
      .Input("x")
      .Input("axis")
      .Attr("T", t)
      .Attr("Tidx", tidx)
      .Attr("exclusive", exclusive)
      .Attr("reverse", reverse)
      .Build();
}

TEST(CumsumTest, ExclusiveAndReverse) {
  const Tensor x = AsTensor<int32_t>({1, 2, 3, 4, 5, 6}, {2, 3});
  const struct {
    bool exclusive, reverse;
    int axis;
    std::vector<int32_t> want;
  } cases[] = {
      {false, false, 1, {1, 3, 6, 4, 9, 15}},
      {true, false, 1, {0, 1, 3, 0, 4, 9}},
      {false, true, 1, {6, 5, 3, 15, 11, 6}},
      {true, true, -1, {5, 3, 0, 11, 6, 0}},
      {false, false, 0, {1, 2, 3, 5, 7, 9}},
      {true, true, 0, {4, 5, 6, 0, 0, 0}},
  };
  for (const auto& c : cases) {
    auto out = test::RunKernel(Cumsum(DT_INT32, c.exclusive, c.reverse),
                               {x, AsScalar<int32_t>(c.axis)});
    ASSERT_TRUE(out.ok()) << out.status();
    test::ExpectTensorEqual<int32_t>((*out)[0], AsTensor<int32_t>(c.want, {2, 3}));
  }
  auto out = test::RunKernel(Cumsum(DT_DOUBLE, false, false, DT_INT64),
                             {AsTensor<double>({0.5, 0.25}), AsScalar<int64_t>(0)});
  ASSERT_TRUE(out.ok()) << out.status();
  test::ExpectTensorEqual<double>((*out)[0], AsTensor<double>({0.5, 0.75}));
}

TEST(CumsumTest, AxisOutOfRange) {
  auto out = test::RunKernel(Cumsum(DT_FLOAT, false, false),
                             {AsTensor<float>({1, 2}), AsScalar<int32_t>(1)});
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(out.status().message(),
            "ScanOp: Expected scan axis in the range [-1, 1), but got 1");
}

tensorflow::NodeDef TopK(DataType t) {
  return NodeDefBuilder("topk", "TopKV2")
      .Input("input")
      .Input("k")
      .Attr("T", t)
      .Attr("Tk", DT_INT32)
      .Attr("index_type", DT_INT32)
      .Attr("sorted", true)
      .Build();
}

TEST(TopKV2Test, TiesKeepLowerIndexFirst) {
  auto out = test::RunKernel(
      TopK(DT_FLOAT), {AsTensor<float>({1, 3, 3, 2, 3, 0, 5, 5}, {2, 4}),
                       AsScalar<int32_t>(3)});
  ASSERT_TRUE(out.ok()) << out.status();
  test::ExpectTensorEqual<float>((*out)[0],
                                 AsTensor<float>({3, 3, 2, 5, 5, 3}, {2, 3}));
  test::ExpectTensorEqual<int32_t>((*out)[1],
                                   AsTensor<int32_t>({1, 2, 3, 2, 3, 0}, {2, 3}));
}

TEST(TopKV2Test, KOneAndZero) {
  auto one = test::RunKernel(TopK(DT_INT64), {AsTensor<int64_t>({4, 9, 9, 1}),
                                              AsScalar<int32_t>(1)});
  ASSERT_TRUE(one.ok()) << one.status();
  test::ExpectTensorEqual<int64_t>((*one)[0], AsTensor<int64_t>({9}));
  test::ExpectTensorEqual<int32_t>((*one)[1], AsTensor<int32_t>({1}));
  auto zero = test::RunKernel(TopK(DT_DOUBLE), {AsTensor<double>({1, 2}, {1, 2}),
                                                AsScalar<int32_t>(0)});
  ASSERT_TRUE(zero.ok()) << zero.status();
  EXPECT_EQ((*zero)[0].shape(), TensorShape({1, 0}));
}

TEST(TopKV2Test, Errors) {
  auto big = test::RunKernel(TopK(DT_FLOAT), {AsTensor<float>({1, 2, 3}, {1, 3}),
                                              AsScalar<int32_t>(4)});
  EXPECT_EQ(big.status().message(),
            "input must have at least k columns. Had 3, needed 4");
  auto neg = test::RunKernel(TopK(DT_FLOAT), {AsTensor<float>({1, 2, 3}, {1, 3}),
                                              AsScalar<int32_t>(-1)});
  EXPECT_EQ(neg.status().message(), "Need k >= 0, got -1");
}

tensorflow::NodeDef Scan(const char* op, DataType t, bool exclusive = false,
                         bool reverse = false) {
  return NodeDefBuilder("scan", op)
      .Input("x")
      .Input("axis")
      .Attr("T", t)
      .Attr("Tidx", DT_INT32)
      .Attr("exclusive", exclusive)
      .Attr("reverse", reverse)
      .Build();
}

TEST(CumprodTest, ExclusiveReverseAndAxis) {
  const Tensor x = AsTensor<int32_t>({1, 2, 3, 4, 5, 6}, {2, 3});
  auto plain = test::RunKernel(Scan("Cumprod", DT_INT32), {x, AsScalar<int32_t>(1)});
  ASSERT_TRUE(plain.ok()) << plain.status();
  test::ExpectTensorEqual<int32_t>((*plain)[0],
                                   AsTensor<int32_t>({1, 2, 6, 4, 20, 120}, {2, 3}));
  auto er = test::RunKernel(Scan("Cumprod", DT_INT32, true, true),
                            {x, AsScalar<int32_t>(-1)});
  ASSERT_TRUE(er.ok()) << er.status();
  test::ExpectTensorEqual<int32_t>((*er)[0],
                                   AsTensor<int32_t>({6, 3, 1, 30, 6, 1}, {2, 3}));
  auto axis0 = test::RunKernel(Scan("Cumprod", DT_DOUBLE),
                               {AsTensor<double>({1, 2, 3, 4}, {2, 2}),
                                AsScalar<int32_t>(0)});
  ASSERT_TRUE(axis0.ok()) << axis0.status();
  test::ExpectTensorEqual<double>((*axis0)[0], AsTensor<double>({1, 2, 3, 8}, {2, 2}));
  auto bad = test::RunKernel(Scan("Cumprod", DT_FLOAT),
                             {AsTensor<float>({1, 2}), AsScalar<int32_t>(1)});
  EXPECT_EQ(bad.status().message(),
            "ScanOp: Expected scan axis in the range [-1, 1), but got 1");
}

TEST(CumulativeLogsumexpTest, StableAndStartsFromMinusInfinity) {
  const float inf = std::numeric_limits<float>::infinity();
  // Large values would overflow exp(); the max + log1p(exp(min - max)) form
  // does not.
  auto out = test::RunKernel(Scan("CumulativeLogsumexp", DT_FLOAT),
                             {AsTensor<float>({1000, 1000, -inf}),
                              AsScalar<int32_t>(0)});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].flat<float>()(0), 1000.0f);
  EXPECT_NEAR((*out)[0].flat<float>()(1), 1000.0f + std::log(2.0f), 1e-3);
  EXPECT_EQ((*out)[0].flat<float>()(2), (*out)[0].flat<float>()(1));
  auto ex = test::RunKernel(Scan("CumulativeLogsumexp", DT_DOUBLE, true),
                            {AsTensor<double>({0, 0}), AsScalar<int32_t>(0)});
  ASSERT_TRUE(ex.ok()) << ex.status();
  EXPECT_EQ((*ex)[0].flat<double>()(0), -std::numeric_limits<double>::infinity());
  EXPECT_EQ((*ex)[0].flat<double>()(1), 0.0);
  // -inf with -inf stays -inf (TensorFlow's guard); +inf with +inf is NaN.
  auto infs = test::RunKernel(Scan("CumulativeLogsumexp", DT_FLOAT),
                              {AsTensor<float>({-inf, -inf, inf, inf}),
                               AsScalar<int32_t>(0)});
  ASSERT_TRUE(infs.ok()) << infs.status();
  EXPECT_EQ((*infs)[0].flat<float>()(1), -inf);
  EXPECT_EQ((*infs)[0].flat<float>()(2), inf);
  EXPECT_TRUE(std::isnan((*infs)[0].flat<float>()(3)));
}

tensorflow::NodeDef InTopK(DataType t) {
  return NodeDefBuilder("intopk", "InTopKV2")
      .Input("predictions")
      .Input("targets")
      .Input("k")
      .Attr("T", t)
      .Build();
}

TEST(InTopKV2Test, TiesOutOfRangeAndNonFinite) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const Tensor p = AsTensor<float>({1, 2, 3, 3, 3, 1, nan, 1, 2, 4, 5, 6}, {4, 3});
  // Row 1: a tie with the best counts for the target. Row 2: a NaN in the
  // row makes it false. Row 3: target out of range.
  auto out = test::RunKernel(InTopK(DT_INT32), {p, AsTensor<int32_t>({2, 1, 2, 3}),
                                                AsScalar<int32_t>(1)});
  ASSERT_TRUE(out.ok()) << out.status();
  test::ExpectTensorEqual<bool>((*out)[0], AsTensor<bool>({true, true, false, false}));
  auto k2 = test::RunKernel(InTopK(DT_INT64), {AsTensor<float>({1, 2, 3}, {1, 3}),
                                               AsTensor<int64_t>({1}),
                                               AsScalar<int64_t>(2)});
  ASSERT_TRUE(k2.ok()) << k2.status();
  test::ExpectTensorEqual<bool>((*k2)[0], AsTensor<bool>({true}));
  auto mismatch = test::RunKernel(InTopK(DT_INT32), {AsTensor<float>({1, 2, 3}, {1, 3}),
                                                     AsTensor<int32_t>({0, 1}),
                                                     AsScalar<int32_t>(1)});
  EXPECT_EQ(mismatch.status().message(),
            "First dimension of predictions 1 must match length of targets 2");
  auto rank = test::RunKernel(InTopK(DT_INT32), {AsTensor<float>({1, 2, 3}),
                                                 AsTensor<int32_t>({0}),
                                                 AsScalar<int32_t>(1)});
  EXPECT_EQ(rank.status().message(), "predictions must be 2-dimensional");
}

TEST(CheckNumericsTest, PassesThroughOrNamesWhatItFound) {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  auto node = [](const char* op, DataType t) {
    return NodeDefBuilder("check", op).Input("tensor").Attr("T", t)
        .Attr("message", std::string("grads")).Build();
  };
  auto ok = test::RunKernel(node("CheckNumerics", DT_FLOAT), {AsTensor<float>({1, -2})});
  ASSERT_TRUE(ok.ok()) << ok.status();
  test::ExpectTensorEqual<float>((*ok)[0], AsTensor<float>({1, -2}));
  const struct {
    std::vector<float> v;
    const char* v1;
    const char* v2;
  } cases[] = {
      {{1, inf}, "grads : Tensor had Inf values", "grads : Tensor had +Inf values"},
      {{-inf, nan}, "grads : Tensor had Inf and NaN values",
       "grads : Tensor had -Inf and NaN values"},
      {{inf, -inf}, "grads : Tensor had Inf values",
       "grads : Tensor had -Inf and +Inf values"},
      {{nan, inf, -inf}, "grads : Tensor had Inf and NaN values",
       "grads : Tensor had -Inf, +Inf, and NaN values"},
  };
  for (const auto& c : cases) {
    auto v1 = test::RunKernel(node("CheckNumerics", DT_FLOAT), {AsTensor<float>(c.v)});
    EXPECT_EQ(v1.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_EQ(v1.status().message(), c.v1);
    auto v2 = test::RunKernel(node("CheckNumericsV2", DT_FLOAT), {AsTensor<float>(c.v)});
    EXPECT_EQ(v2.status().message(), c.v2);
  }
  auto half = test::RunKernel(node("CheckNumerics", DT_HALF),
                              {AsTensor<Eigen::half>({Eigen::half(nan)})});
  EXPECT_EQ(half.status().message(), "grads : Tensor had NaN values");
}

}  // namespace
}  // namespace tributary
