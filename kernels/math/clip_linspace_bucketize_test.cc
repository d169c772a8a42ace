// ClipByValue (scalar and tensor bounds, NaN, errors), LinSpace (endpoints,
// num = 1, errors) and Bucketize (edges, NaN, unsorted boundaries).
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "absl/status/status.h"
#include "gtest/gtest.h"
#include "kernels/math/math_test_util.h"

namespace tributary {
namespace {

using test::AsScalar;
using test::AsTensor;
using test::ExpectTensorEqual;
using test::NodeDefBuilder;
using test::RunOne;

absl::StatusOr<Tensor> Clip(const Tensor& t, const Tensor& lo, const Tensor& hi) {
  return RunOne(NodeDefBuilder("c", "ClipByValue")
                    .Input("t")
                    .Input("lo")
                    .Input("hi")
                    .Attr("T", t.dtype())
                    .Build(),
                {t, lo, hi});
}

TEST(ClipByValueTest, ScalarAndTensorBounds) {
  const Tensor t = AsTensor<float>({-3, 0, 2, 5}, {2, 2});
  auto s = Clip(t, AsScalar<float>(-1), AsScalar<float>(3));
  ASSERT_TRUE(s.ok()) << s.status();
  ExpectTensorEqual<float>(*s, AsTensor<float>({-1, 0, 2, 3}, {2, 2}));
  auto lo_t = Clip(t, AsTensor<float>({0, 1, 3, 0}, {2, 2}), AsScalar<float>(4));
  ASSERT_TRUE(lo_t.ok()) << lo_t.status();
  ExpectTensorEqual<float>(*lo_t, AsTensor<float>({0, 1, 3, 4}, {2, 2}));
  auto hi_t = Clip(t, AsScalar<float>(-10), AsTensor<float>({-5, -1, 1, 9}, {2, 2}));
  ASSERT_TRUE(hi_t.ok()) << hi_t.status();
  ExpectTensorEqual<float>(*hi_t, AsTensor<float>({-5, -1, 1, 5}, {2, 2}));
  auto ints = Clip(AsTensor<int64_t>({-9, 4, 9}), AsScalar<int64_t>(0),
                   AsScalar<int64_t>(5));
  ASSERT_TRUE(ints.ok()) << ints.status();
  ExpectTensorEqual<int64_t>(*ints, AsTensor<int64_t>({0, 4, 5}));
}

TEST(ClipByValueTest, NaNAndInvertedBounds) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  auto out = Clip(AsTensor<float>({nan, 1, 5}), AsScalar<float>(0),
                  AsScalar<float>(2));
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(std::isnan(out->flat<float>()(0)));
  EXPECT_EQ(out->flat<float>()(2), 2.0f);
  // min > max: the lower bound wins (max is applied last).
  auto inv = Clip(AsTensor<float>({1, 4}), AsScalar<float>(3), AsScalar<float>(2));
  ASSERT_TRUE(inv.ok()) << inv.status();
  ExpectTensorEqual<float>(*inv, AsTensor<float>({3, 3}));
}

TEST(ClipByValueTest, BoundsMustMatchOrBeScalars) {
  auto bad = Clip(AsTensor<float>({1, 2, 3, 4}, {2, 2}), AsTensor<float>({1, 2, 3}),
                  AsScalar<float>(3));
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(bad.status().message().find(
                "input shape: [2,2]clip_value_min shape: [3]clip_value_max shape: []"),
            std::string::npos)
      << bad.status();
  auto empty = Clip(AsTensor<float>({}, {0}), AsScalar<float>(0), AsScalar<float>(1));
  ASSERT_TRUE(empty.ok()) << empty.status();
  EXPECT_EQ(empty->NumElements(), 0);
}

absl::StatusOr<Tensor> LinSpace(const Tensor& start, const Tensor& stop,
                                const Tensor& num) {
  return RunOne(NodeDefBuilder("l", "LinSpace")
                    .Input("start")
                    .Input("stop")
                    .Input("num")
                    .Attr("T", start.dtype())
                    .Attr("Tidx", num.dtype())
                    .Build(),
                {start, stop, num});
}

TEST(LinSpaceTest, EndpointsAndSteps) {
  auto out = LinSpace(AsScalar<float>(0), AsScalar<float>(1), AsScalar<int32_t>(7));
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->NumElements(), 7);
  const float step = 1.0f / 6.0f;
  for (int i = 0; i < 6; ++i) EXPECT_EQ(out->flat<float>()(i), 0.0f + step * i);
  EXPECT_EQ(out->flat<float>()(6), 1.0f);
  auto one = LinSpace(AsScalar<double>(3), AsScalar<double>(9), AsScalar<int64_t>(1));
  ASSERT_TRUE(one.ok()) << one.status();
  ExpectTensorEqual<double>(*one, AsTensor<double>({3}));
  auto down = LinSpace(AsScalar<double>(1), AsScalar<double>(-1), AsScalar<int64_t>(3));
  ASSERT_TRUE(down.ok()) << down.status();
  ExpectTensorEqual<double>(*down, AsTensor<double>({1, 0, -1}));
}

TEST(LinSpaceTest, Errors) {
  auto zero = LinSpace(AsScalar<float>(0), AsScalar<float>(1), AsScalar<int32_t>(0));
  ASSERT_FALSE(zero.ok());
  EXPECT_EQ(zero.status().message(), "Requires num > 0: 0");
  auto vec = LinSpace(AsTensor<float>({0}), AsScalar<float>(1), AsScalar<int32_t>(2));
  ASSERT_FALSE(vec.ok());
  EXPECT_EQ(vec.status().message(), "start must be a scalar, not shape [1]");
}

absl::StatusOr<Tensor> Bucketize(const Tensor& x, std::vector<float> boundaries) {
  return RunOne(NodeDefBuilder("b", "Bucketize")
                    .Input("input")
                    .Attr("T", x.dtype())
                    .Attr("boundaries", boundaries)
                    .Build(),
                {x});
}

TEST(BucketizeTest, EdgesBelongToTheUpperBucket) {
  auto out = Bucketize(
      AsTensor<float>({-1, 0, 0.5f, 1, 5, 10, 11, std::nanf("")}, {2, 4}),
      {0, 1, 5, 10});
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectTensorEqual<int32_t>(*out, AsTensor<int32_t>({0, 1, 1, 2, 3, 4, 4, 4}, {2, 4}));
  auto ints = Bucketize(AsTensor<int64_t>({-5, 2, 7}), {0.5f, 2.0f});
  ASSERT_TRUE(ints.ok()) << ints.status();
  ExpectTensorEqual<int32_t>(*ints, AsTensor<int32_t>({0, 2, 2}));
  auto none = Bucketize(AsTensor<double>({1, 2}), {});
  ASSERT_TRUE(none.ok()) << none.status();
  ExpectTensorEqual<int32_t>(*none, AsTensor<int32_t>({0, 0}));
}

TEST(BucketizeTest, UnsortedBoundariesAreRejected) {
  auto out = Bucketize(AsTensor<float>({1}), {2, 1});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(out.status().message().find("Expected sorted boundaries"),
            std::string::npos);
}

}  // namespace
}  // namespace tributary
