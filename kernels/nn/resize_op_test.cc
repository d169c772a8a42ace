// ResizeNearestNeighborGrad: gradients summed into the source pixels the
// forward copied from, for each coordinate mapping, and its errors.
// ResizeBilinearGrad in float64: terms summed in double, as TensorFlow does.
// (The forward ops are checked against TensorFlow in
// tests/interop/einsum_resize_session_test.py.)

#include "absl/status/status.h"
#include "common/framework/tensor.h"
#include "common/framework/tensor_testutil.h"
#include "gtest/gtest.h"
#include "kernels/testing/kernel_runner.h"

namespace tributary {
namespace {

using test::AsTensor;
using test::NodeDefBuilder;

tensorflow::NodeDef Grad(DataType t, bool align, bool half) {
  return NodeDefBuilder("rnn_grad", "ResizeNearestNeighborGrad")
      .Input("grads")
      .Input("size")
      .Attr("T", t)
      .Attr("align_corners", align)
      .Attr("half_pixel_centers", half)
      .Build();
}

TEST(ResizeNearestNeighborGradTest, UpsampledByTwoSumsEachBlock) {
  // 4x4 gradient of a 2x -> 4x upsampling: each source pixel gets its 2x2.
  std::vector<float> g(16);
  for (int i = 0; i < 16; ++i) g[i] = i;
  for (bool half : {false, true}) {
    auto out = test::RunKernel(Grad(DT_FLOAT, false, half),
                               {AsTensor<float>(g, {1, 4, 4, 1}),
                                AsTensor<int32_t>({2, 2})});
    ASSERT_TRUE(out.ok()) << out.status();
    test::ExpectTensorEqual<float>(
        (*out)[0], AsTensor<float>({0 + 1 + 4 + 5, 2 + 3 + 6 + 7,
                                    8 + 9 + 12 + 13, 10 + 11 + 14 + 15},
                                   {1, 2, 2, 1}));
  }
}

TEST(ResizeNearestNeighborGradTest, AlignCornersRounds) {
  // 3 -> 2 with align_corners: scale (3-1)/(2-1) = 2, sources 0 and 2.
  auto out = test::RunKernel(Grad(DT_INT32, true, false),
                             {AsTensor<int32_t>({1, 2}, {1, 1, 2, 1}),
                              AsTensor<int32_t>({1, 3})});
  ASSERT_TRUE(out.ok()) << out.status();
  test::ExpectTensorEqual<int32_t>((*out)[0],
                                   AsTensor<int32_t>({1, 0, 2}, {1, 1, 3, 1}));
}

TEST(ResizeNearestNeighborGradTest, Errors) {
  auto rank = test::RunKernel(Grad(DT_FLOAT, false, false),
                              {AsTensor<float>({1, 2}, {1, 2}),
                               AsTensor<int32_t>({2, 2})});
  EXPECT_EQ(rank.status().message(), "input must be 4-dimensional[1,2]");
  auto size = test::RunKernel(Grad(DT_FLOAT, false, false),
                              {AsTensor<float>({1, 2}, {1, 1, 2, 1}),
                               AsTensor<int32_t>({0, 2})});
  EXPECT_EQ(size.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(size.status().message(), "shape_t's elements must be positive");
}

TEST(ResizeBilinearGradTest, Float64SumsInDouble) {
  // Width 1 -> 3: every term lands on the one original pixel. In float the
  // 1e8 would swallow the small terms; TensorFlow sums float64 in double.
  auto out = test::RunKernel(NodeDefBuilder("rb_grad", "ResizeBilinearGrad")
                                 .Input("grads")
                                 .Input("original_image")
                                 .Attr("T", DT_DOUBLE)
                                 .Attr("align_corners", false)
                                 .Attr("half_pixel_centers", false)
                                 .Build(),
                             {AsTensor<float>({1e8f, 1.0f, 1.0f}, {1, 1, 3, 1}),
                              AsTensor<double>({0.0}, {1, 1, 1, 1})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_NEAR((*out)[0].flat<double>()(0), 1e8 + 2.0, 1e-6);
}

}  // namespace
}  // namespace tributary
