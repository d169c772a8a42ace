// SpaceToBatchND / BatchToSpaceND: a worked 1-D and 2-D example, padding,
// the round trip, int64 index inputs, and the errors.
#include "gtest/gtest.h"
#include "kernels/array/array_test_util.h"

namespace tributary {
namespace {

using array_test::I32;
using array_test::I64;
using array_test::RunOne;
using array_test::RunOp;
using test::AsTensor;
using test::NodeDefBuilder;

tensorflow::NodeDef Node(const char* op, DataType t, DataType idx = DT_INT32) {
  const bool to_batch = std::string(op) == "SpaceToBatchND";
  return NodeDefBuilder("s2b", op)
      .Input("input")
      .Input("block_shape")
      .Input(to_batch ? "paddings" : "crops")
      .Attr("T", t)
      .Attr("Tblock_shape", idx)
      .Attr(to_batch ? "Tpaddings" : "Tcrops", idx)
      .Build();
}

TEST(SpaceToBatchNDTest, OneDimensionWithPadding) {
  // [1, 5, 1] padded by (1, 2) to 8, blocks of 2: even positions to batch 0.
  const Tensor out = RunOne(
      Node("SpaceToBatchND", DT_FLOAT),
      {AsTensor<float>({1, 2, 3, 4, 5}, {1, 5, 1}), I32({2}),
       AsTensor<int32_t>({1, 2}, {1, 2})});
  test::ExpectTensorEqual<float>(
      out, AsTensor<float>({0, 2, 4, 0, 1, 3, 5, 0}, {2, 4, 1}));
}

TEST(SpaceToBatchNDTest, TwoDimensions) {
  // [[1 2] [3 4]] with 2x2 blocks: one pixel per batch, row-major offsets.
  const Tensor out = RunOne(
      Node("SpaceToBatchND", DT_INT32, DT_INT64),
      {AsTensor<int32_t>({1, 2, 3, 4}, {1, 2, 2, 1}), I64({2, 2}),
       AsTensor<int64_t>({0, 0, 0, 0}, {2, 2})});
  test::ExpectTensorEqual<int32_t>(
      out, AsTensor<int32_t>({1, 2, 3, 4}, {4, 1, 1, 1}));
}

TEST(SpaceToBatchNDTest, RoundTripWithBatchAndDepth) {
  std::vector<double> v(2 * 3 * 5 * 2);
  for (size_t i = 0; i < v.size(); ++i) v[i] = i;
  const Tensor in = AsTensor<double>(v, {2, 3, 5, 2});
  const Tensor pads = AsTensor<int32_t>({1, 2, 0, 1}, {2, 2});
  const Tensor batched =
      RunOne(Node("SpaceToBatchND", DT_DOUBLE), {in, I32({3, 2}), pads});
  EXPECT_EQ(batched.shape(), TensorShape({12, 2, 3, 2}));
  const Tensor back =
      RunOne(Node("BatchToSpaceND", DT_DOUBLE), {batched, I32({3, 2}), pads});
  test::ExpectTensorEqual<double>(back, in);
}

TEST(SpaceToBatchNDTest, Errors) {
  const Tensor x = AsTensor<float>(std::vector<float>(32), {2, 4, 4, 1});
  EXPECT_INVALID_ARGUMENT(
      RunOp(Node("SpaceToBatchND", DT_FLOAT),
            {x, I32({3, 2}), AsTensor<int32_t>({0, 0, 0, 0}, {2, 2})})
          .status(),
      "padded_shape[0]=4 is not divisible by block_shape[0]=3");
  EXPECT_INVALID_ARGUMENT(
      RunOp(Node("SpaceToBatchND", DT_FLOAT),
            {x, I32({2, 2}), AsTensor<int32_t>({0, 0}, {1, 2})})
          .status(),
      "paddings should have shape [2, 2] instead of [1,2]");
  EXPECT_INVALID_ARGUMENT(
      RunOp(Node("SpaceToBatchND", DT_FLOAT),
            {x, I32({0, 2}), AsTensor<int32_t>({0, 0, 0, 0}, {2, 2})})
          .status(),
      "All values in block_shape must be positive, got value, 0 at index 0.");
  EXPECT_INVALID_ARGUMENT(
      RunOp(Node("BatchToSpaceND", DT_FLOAT),
            {AsTensor<float>(std::vector<float>(48), {3, 4, 4, 1}), I32({2, 1}),
             AsTensor<int32_t>({0, 0, 0, 0}, {2, 2})})
          .status(),
      "Input batch dimension (3) is not divisible by product of block sizes "
      "(2)");
  EXPECT_INVALID_ARGUMENT(
      RunOp(Node("BatchToSpaceND", DT_FLOAT),
            {x, I32({2, 2}), AsTensor<int32_t>({-1, 0, 0, 0}, {2, 2})})
          .status(),
      "Crops must be non-negative");
}

}  // namespace
}  // namespace tributary
