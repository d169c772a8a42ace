// SparseSegment{Sum,Mean,SqrtN}GradV2 and SparseFillEmptyRowsGrad: values
// (checked against TensorFlow 2.21's outputs for the same inputs), empty
// inputs, int64 indices, and TensorFlow's errors for bad shapes and
// out-of-range indices.
#include <cmath>
#include <vector>

#include "gtest/gtest.h"
#include "kernels/embedding/embedding_test_util.h"

namespace tributary {
namespace {

using embedding_test::ExpectInvalid;
using embedding_test::RunNode;
using test::AsScalar;
using test::AsTensor;
using test::ExpectTensorEqual;
using test::ExpectTensorNear;
using test::NodeDefBuilder;

tensorflow::NodeDef GradV2(const char* op, DataType t = DT_FLOAT,
                           DataType tidx = DT_INT32) {
  return NodeDefBuilder("g", op)
      .Inputs(4)
      .Attr("T", t)
      .Attr("Tidx", tidx)
      .Attr("Tsegmentids", DT_INT32)
      .Build();
}

const Tensor kGrad = AsTensor<float>({1, 2, 3, 4, 5, 6}, {3, 2});

TEST(SparseSegmentGradV2Test, SumMeanSqrtN) {
  const std::vector<Tensor> in = {kGrad, AsTensor<int32_t>({4, 1, 4, 0}),
                                  AsTensor<int32_t>({0, 0, 1, 2}),
                                  AsScalar<int32_t>(6)};
  std::vector<Tensor> sum = RunNode(GradV2("SparseSegmentSumGradV2"), in);
  ExpectTensorNear<float>(sum[0], AsTensor<float>({5, 6, 1, 2, 4, 6}, {3, 2}),
                          1e-6);
  ExpectTensorEqual<int32_t>(sum[1], AsTensor<int32_t>({0, 1, 4}));
  std::vector<Tensor> mean = RunNode(GradV2("SparseSegmentMeanGradV2"), in);
  ExpectTensorNear<float>(
      mean[0], AsTensor<float>({5, 6, 0.5, 1, 3.5, 5}, {3, 2}), 1e-6);
  std::vector<Tensor> sqrtn = RunNode(GradV2("SparseSegmentSqrtNGradV2"), in);
  const float r = 1.0f / std::sqrt(2.0f);
  ExpectTensorNear<float>(
      sqrtn[0], AsTensor<float>({5, 6, r, 2 * r, 3 + r, 4 + 2 * r}, {3, 2}),
      1e-6);
}

TEST(SparseSegmentGradV2Test, UnsortedSegmentsInt64IndicesAndEmpty) {
  std::vector<Tensor> out = RunNode(
      GradV2("SparseSegmentSumGradV2", DT_DOUBLE, DT_INT64),
      {AsTensor<double>({1, 2, 3, 4, 5, 6}, {3, 2}),
       AsTensor<int64_t>({4, 1, 2}), AsTensor<int32_t>({0, 1, 0}),
       AsScalar<int32_t>(6)});
  ExpectTensorNear<double>(out[0], AsTensor<double>({3, 4, 1, 2, 1, 2}, {3, 2}),
                           1e-12);
  ExpectTensorEqual<int64_t>(out[1], AsTensor<int64_t>({1, 2, 4}));
  std::vector<Tensor> empty =
      RunNode(GradV2("SparseSegmentSumGradV2"),
              {kGrad, Tensor(DT_INT32, {0}), Tensor(DT_INT32, {0}),
               AsScalar<int32_t>(6)});
  EXPECT_EQ(empty[0].shape(), TensorShape({0, 2}));
  EXPECT_EQ(empty[1].shape(), TensorShape({0}));
}

TEST(SparseSegmentGradV2Test, ErrorsAreTensorFlows) {
  const auto op = GradV2("SparseSegmentSumGradV2");
  ExpectInvalid(op, {kGrad, AsTensor<int32_t>({4, 1, 7}),
                     AsTensor<int32_t>({0, 0, 1}), AsScalar<int32_t>(6)},
                "Index 7 out of range [0, 6).");
  ExpectInvalid(op, {kGrad, AsTensor<int32_t>({4, 1, -1}),
                     AsTensor<int32_t>({0, 0, 1}), AsScalar<int32_t>(6)},
                "Index -1 out of range [0, 6).");
  ExpectInvalid(op, {kGrad, AsTensor<int32_t>({4, 1, 2}),
                     AsTensor<int32_t>({0, 0, 3}), AsScalar<int32_t>(6)},
                "Invalid number of segments");
  ExpectInvalid(op, {kGrad, AsTensor<int32_t>({4, 1}),
                     AsTensor<int32_t>({0, 0, 1}), AsScalar<int32_t>(6)},
                "segment_ids and indices should have same size.");
  ExpectInvalid(op, {kGrad, AsTensor<int32_t>({4, 1}, {1, 2}),
                     AsTensor<int32_t>({0, 0}), AsScalar<int32_t>(6)},
                "indices should be a vector.");
  ExpectInvalid(op, {kGrad, AsTensor<int32_t>({4, 1}),
                     AsTensor<int32_t>({0, 0}, {1, 2}), AsScalar<int32_t>(6)},
                "segment_ids should be a vector.");
  ExpectInvalid(op, {kGrad, AsTensor<int32_t>({4, 1}),
                     AsTensor<int32_t>({0, 0}), AsTensor<int32_t>({6})},
                "dense_output_dim0 should be a scalar.");
  ExpectInvalid(op, {kGrad, AsTensor<int32_t>({4, 1}),
                     AsTensor<int32_t>({0, 0}), AsScalar<int32_t>(-1)},
                "Expected a non-negative size, got -1");
}

tensorflow::NodeDef FillGrad(DataType t) {
  return NodeDefBuilder("f", "SparseFillEmptyRowsGrad")
      .Inputs(2)
      .Attr("T", t)
      .Build();
}

TEST(SparseFillEmptyRowsGradTest, ValuesAndDefault) {
  std::vector<Tensor> out =
      RunNode(FillGrad(DT_FLOAT), {AsTensor<int64_t>({0, 2, 3}),
                                   AsTensor<float>({1, 2, 3, 4, 5})});
  ExpectTensorEqual<float>(out[0], AsTensor<float>({1, 3, 4}));
  ExpectTensorEqual<float>(out[1], AsScalar<float>(7));
  // A repeated entry: rows 0 and 2 are unnamed.
  std::vector<Tensor> rep = RunNode(
      FillGrad(DT_INT32), {AsTensor<int64_t>({1, 1}), AsTensor<int32_t>({1, 2, 3})});
  ExpectTensorEqual<int32_t>(rep[0], AsTensor<int32_t>({2, 2}));
  ExpectTensorEqual<int32_t>(rep[1], AsScalar<int32_t>(4));
  std::vector<Tensor> empty = RunNode(
      FillGrad(DT_DOUBLE), {Tensor(DT_INT64, {0}), Tensor(DT_DOUBLE, {0})});
  EXPECT_EQ(empty[0].shape(), TensorShape({0}));
  ExpectTensorEqual<double>(empty[1], AsScalar<double>(0));
}

TEST(SparseFillEmptyRowsGradTest, ErrorsAreTensorFlows) {
  ExpectInvalid(FillGrad(DT_FLOAT),
                {AsTensor<int64_t>({0, 5}), AsTensor<float>({1, 2, 3})},
                "Elements in reverse index must be in [0, 3) but got 5");
  ExpectInvalid(FillGrad(DT_FLOAT),
                {AsTensor<int64_t>({0, -1}), AsTensor<float>({1, 2, 3})},
                "Elements in reverse index must be in [0, 3) but got -1");
  ExpectInvalid(FillGrad(DT_FLOAT),
                {AsTensor<int64_t>({0}, {1, 1}), AsTensor<float>({1, 2, 3})},
                "reverse_index_map must be a vector, saw: [1,1]");
  ExpectInvalid(FillGrad(DT_FLOAT),
                {AsTensor<int64_t>({0}), AsTensor<float>({1, 2, 3}, {1, 3})},
                "grad_values must be a vector, saw: [1,3]");
}

}  // namespace
}  // namespace tributary
