#include <cmath>
#include <limits>

#include "absl/status/status.h"
#include "common/framework/tensor.h"
#include "common/framework/tensor_testutil.h"
#include "gtest/gtest.h"
#include "kernels/testing/kernel_runner.h"

namespace tributary {
namespace {

using test::AsTensor;
using test::NodeDefBuilder;

tensorflow::NodeDef Relu(DataType type) {
  return NodeDefBuilder("relu", "Relu")
      .Input("features")
      .Attr("T", type)
      .Build();
}

tensorflow::NodeDef ReluGrad(DataType type) {
  return NodeDefBuilder("relu_grad", "ReluGrad")
      .Input("gradients")
      .Input("features")
      .Attr("T", type)
      .Build();
}

TEST(ReluTest, ClampsNegativesToZero) {
  auto out = test::RunKernel(Relu(DT_FLOAT),
                             {AsTensor<float>({-2, -0.5, 0, 0.5, 3}, {5})});
  ASSERT_TRUE(out.ok()) << out.status();
  test::ExpectTensorEqual<float>((*out)[0],
                                 AsTensor<float>({0, 0, 0, 0.5, 3}, {5}));
}

TEST(ReluTest, KeepsNaN) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  auto out = test::RunKernel(Relu(DT_FLOAT), {AsTensor<float>({nan, -1})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(std::isnan((*out)[0].flat<float>()(0)));
  EXPECT_EQ((*out)[0].flat<float>()(1), 0.0f);
}

TEST(ReluTest, IntegerTypes) {
  auto out =
      test::RunKernel(Relu(DT_INT32), {AsTensor<int32_t>({-3, 0, 7}, {1, 3})});
  ASSERT_TRUE(out.ok()) << out.status();
  test::ExpectTensorEqual<int32_t>((*out)[0],
                                   AsTensor<int32_t>({0, 0, 7}, {1, 3}));
}

TEST(ReluGradTest, PassesGradientWhereFeaturePositive) {
  auto out = test::RunKernel(ReluGrad(DT_DOUBLE),
                             {AsTensor<double>({1, 2, 3, 4}, {2, 2}),
                              AsTensor<double>({-1, 0, 0.1, 5}, {2, 2})});
  ASSERT_TRUE(out.ok()) << out.status();
  test::ExpectTensorEqual<double>((*out)[0],
                                  AsTensor<double>({0, 0, 3, 4}, {2, 2}));
}

TEST(ReluGradTest, ShapesMustMatch) {
  auto out = test::RunKernel(ReluGrad(DT_FLOAT),
                             {AsTensor<float>({1, 2, 3, 4, 5, 6}, {2, 3}),
                              AsTensor<float>({1, 2, 3, 4, 5, 6}, {3, 2})});
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(out.status().message(),
            "Inputs to operation relu_grad of type ReluGrad must have the same "
            "size and shape.  Input 0: [2,3] != input 1: [3,2]");
}

TEST(Relu6Test, ClampsToZeroAndSix) {
  auto out = test::RunKernel(
      NodeDefBuilder("relu6", "Relu6").Input("features").Attr("T", DT_INT64)
          .Build(),
      {AsTensor<int64_t>({-3, 0, 4, 6, 9}, {5})});
  ASSERT_TRUE(out.ok()) << out.status();
  test::ExpectTensorEqual<int64_t>((*out)[0],
                                   AsTensor<int64_t>({0, 0, 4, 6, 6}, {5}));
}

TEST(Relu6GradTest, PassesGradientStrictlyBetweenZeroAndSix) {
  auto out = test::RunKernel(NodeDefBuilder("relu6_grad", "Relu6Grad")
                                 .Input("gradients")
                                 .Input("features")
                                 .Attr("T", DT_FLOAT)
                                 .Build(),
                             {AsTensor<float>({1, 2, 3, 4, 5}, {5}),
                              AsTensor<float>({-1, 0, 3, 6, 7}, {5})});
  ASSERT_TRUE(out.ok()) << out.status();
  test::ExpectTensorEqual<float>((*out)[0],
                                 AsTensor<float>({0, 0, 3, 0, 0}, {5}));
}

}  // namespace
}  // namespace tributary
