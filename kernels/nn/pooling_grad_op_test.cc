// MaxPoolGrad / AvgPoolGrad on hand-computed cases: TensorFlow's tie rule
// (the first max of the window takes the gradient), overlapping windows
// accumulating, and AvgPool's in-image tap count under SAME padding.

#include <cstdint>
#include <string>
#include <vector>

#include "common/framework/tensor.h"
#include "common/framework/tensor_testutil.h"
#include "gtest/gtest.h"
#include "kernels/testing/kernel_runner.h"

namespace tributary {
namespace {

using test::AsTensor;
using test::NodeDefBuilder;

tensorflow::NodeDef Pool(const char* op, int inputs, int64_t k, int64_t s,
                         const std::string& padding) {
  NodeDefBuilder b("grad", op);
  for (int i = 0; i < inputs; ++i) b.Input("in");
  return b.Attr("T", DT_FLOAT)
      .Attr("ksize", std::vector<int64_t>{1, k, k, 1})
      .Attr("strides", std::vector<int64_t>{1, s, s, 1})
      .Attr("padding", padding)
      .Build();
}

TEST(MaxPoolGradTest, FirstMaxOfTheWindowTakesTheGradient) {
  // One 2x2 window whose four values are equal: all to the top-left.
  auto out = test::RunKernel(
      Pool("MaxPoolGrad", 3, 2, 2, "VALID"),
      {AsTensor<float>({5, 5, 5, 5}, {1, 2, 2, 1}),
       AsTensor<float>({5}, {1, 1, 1, 1}), AsTensor<float>({3}, {1, 1, 1, 1})});
  ASSERT_TRUE(out.ok()) << out.status();
  test::ExpectTensorEqual<float>((*out)[0],
                                 AsTensor<float>({3, 0, 0, 0}, {1, 2, 2, 1}));
}

TEST(MaxPoolGradTest, OverlappingWindowsAccumulate) {
  // A 1x3 image, 1x2 windows, stride 1: [1, 9, 2] -> both windows pick the 9.
  NodeDefBuilder b("grad", "MaxPoolGrad");
  auto node = b.Input("a")
                  .Input("b")
                  .Input("c")
                  .Attr("T", DT_FLOAT)
                  .Attr("ksize", std::vector<int64_t>{1, 1, 2, 1})
                  .Attr("strides", std::vector<int64_t>{1, 1, 1, 1})
                  .Attr("padding", "VALID")
                  .Build();
  auto out = test::RunKernel(node, {AsTensor<float>({1, 9, 2}, {1, 1, 3, 1}),
                                    AsTensor<float>({9, 9}, {1, 1, 2, 1}),
                                    AsTensor<float>({10, 20}, {1, 1, 2, 1})});
  ASSERT_TRUE(out.ok()) << out.status();
  test::ExpectTensorEqual<float>((*out)[0],
                                 AsTensor<float>({0, 30, 0}, {1, 1, 3, 1}));
}

TEST(AvgPoolGradTest, SamePaddingDividesByInImageTaps) {
  // 3x3 image, 2x2 windows, stride 2, SAME: windows of 4, 2, 2 and 1 taps.
  auto out = test::RunKernel(Pool("AvgPoolGrad", 2, 2, 2, "SAME"),
                             {AsTensor<int32_t>({1, 3, 3, 1}, {4}),
                              AsTensor<float>({4, 2, 2, 1}, {1, 2, 2, 1})});
  ASSERT_TRUE(out.ok()) << out.status();
  test::ExpectTensorEqual<float>(
      (*out)[0], AsTensor<float>({1, 1, 1, 1, 1, 1, 1, 1, 1}, {1, 3, 3, 1}));
}

}  // namespace
}  // namespace tributary
