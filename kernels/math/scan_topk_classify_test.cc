// IsFinite/IsNan/IsInf, Cumsum (exclusive/reverse, axes) and TopKV2 (tie
// order, k = 0, errors).
#include <cmath>
#include <limits>

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

}  // namespace
}  // namespace tributary
