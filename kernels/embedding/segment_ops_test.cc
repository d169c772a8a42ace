// Sorted, unsorted and sparse segment reductions and the sparse segment
// gradients: values, empty segments, dropped negative ids, errors.
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

tensorflow::NodeDef Sorted(const char* op, DataType t,
                           DataType ids = DT_INT32) {
  return NodeDefBuilder("s", op)
      .Inputs(2)
      .Attr("T", t)
      .Attr("Tindices", ids)
      .Build();
}

tensorflow::NodeDef Unsorted(const char* op, DataType t,
                             DataType ids = DT_INT32) {
  return NodeDefBuilder("u", op)
      .Inputs(3)
      .Attr("T", t)
      .Attr("Tindices", ids)
      .Attr("Tnumsegments", DT_INT32)
      .Build();
}

TEST(SegmentTest, SortedReductionsWithGap) {
  // Rows 0,1 -> segment 0; rows 2,3 -> segment 2; segment 1 empty.
  const Tensor data = AsTensor<float>({1, 2, 3, 4, 5, 6, 7, 8}, {4, 2});
  const Tensor ids = AsTensor<int32_t>({0, 0, 2, 2});
  ExpectTensorEqual<float>(
      RunNode(Sorted("SegmentSum", DT_FLOAT), {data, ids})[0],
      AsTensor<float>({4, 6, 0, 0, 12, 14}, {3, 2}));
  ExpectTensorEqual<float>(
      RunNode(Sorted("SegmentMean", DT_FLOAT), {data, ids})[0],
      AsTensor<float>({2, 3, 0, 0, 6, 7}, {3, 2}));
  ExpectTensorEqual<float>(
      RunNode(Sorted("SegmentProd", DT_FLOAT), {data, ids})[0],
      AsTensor<float>({3, 8, 1, 1, 35, 48}, {3, 2}));
  ExpectTensorEqual<float>(
      RunNode(Sorted("SegmentMax", DT_FLOAT), {data, ids})[0],
      AsTensor<float>({3, 4, 0, 0, 7, 8}, {3, 2}));
  ExpectTensorEqual<float>(
      RunNode(Sorted("SegmentMin", DT_FLOAT), {data, ids})[0],
      AsTensor<float>({1, 2, 0, 0, 5, 6}, {3, 2}));
}

TEST(SegmentTest, SortedErrorsAndEmpty) {
  ExpectInvalid(Sorted("SegmentSum", DT_INT32),
                {AsTensor<int32_t>({1, 2, 3}), AsTensor<int32_t>({0, 2, 1})},
                "segment ids are not increasing");
  ExpectInvalid(Sorted("SegmentSum", DT_INT32),
                {AsTensor<int32_t>({1, 2}), AsTensor<int32_t>({-1, 0})},
                "Segment id -1 out of range [0, 1)");
  ExpectInvalid(Sorted("SegmentSum", DT_INT32),
                {AsTensor<int32_t>({1, 2}), AsTensor<int32_t>({0})},
                "segment_ids should be the same size as dimension 0 of input.");
  EXPECT_EQ(RunNode(Sorted("SegmentSum", DT_DOUBLE, DT_INT64),
                    {Tensor(DT_DOUBLE, TensorShape({0, 4})),
                     Tensor(DT_INT64, TensorShape({0}))})[0]
                .shape(),
            TensorShape({0, 4}));
}

TEST(UnsortedSegmentTest, DropsNegativeIdsAndFillsIdentity) {
  const Tensor data = AsTensor<int32_t>({1, 2, 3, 4, 5});
  const Tensor ids = AsTensor<int64_t>({2, -1, 0, 2, -5});
  const Tensor num = AsScalar<int32_t>(4);
  ExpectTensorEqual<int32_t>(
      RunNode(Unsorted("UnsortedSegmentSum", DT_INT32, DT_INT64),
              {data, ids, num})[0],
      AsTensor<int32_t>({3, 0, 5, 0}));
  ExpectTensorEqual<int32_t>(
      RunNode(Unsorted("UnsortedSegmentProd", DT_INT32, DT_INT64),
              {data, ids, num})[0],
      AsTensor<int32_t>({3, 1, 4, 1}));
  const int32_t lo = std::numeric_limits<int32_t>::lowest();
  const int32_t hi = std::numeric_limits<int32_t>::max();
  ExpectTensorEqual<int32_t>(
      RunNode(Unsorted("UnsortedSegmentMax", DT_INT32, DT_INT64),
              {data, ids, num})[0],
      AsTensor<int32_t>({3, lo, 4, lo}));
  ExpectTensorEqual<int32_t>(
      RunNode(Unsorted("UnsortedSegmentMin", DT_INT32, DT_INT64),
              {data, ids, num})[0],
      AsTensor<int32_t>({3, hi, 1, hi}));
}

TEST(UnsortedSegmentTest, MatrixIdsAndErrors) {
  // ids [2,2] over data [2,2,2]: output [3,2].
  ExpectTensorEqual<float>(
      RunNode(
          Unsorted("UnsortedSegmentSum", DT_FLOAT),
          {AsTensor<float>({1, 2, 3, 4, 5, 6, 7, 8}, {2, 2, 2}),
           AsTensor<int32_t>({0, 2, 2, 0}, {2, 2}), AsScalar<int32_t>(3)})[0],
      AsTensor<float>({8, 10, 0, 0, 8, 10}, {3, 2}));
  ExpectInvalid(Unsorted("UnsortedSegmentSum", DT_FLOAT),
                {AsTensor<float>({1, 2}), AsTensor<int32_t>({0, 3}),
                 AsScalar<int32_t>(3)},
                "segment_ids[1] = 3 is out of range [0, 3)");
  ExpectInvalid(
      Unsorted("UnsortedSegmentSum", DT_FLOAT),
      {AsTensor<float>({1, 2}), AsTensor<int32_t>({0}), AsScalar<int32_t>(3)},
      "does not start with segment_ids.shape");
  ExpectInvalid(
      Unsorted("UnsortedSegmentMax", DT_FLOAT),
      {AsTensor<float>({1}), AsTensor<int32_t>({0}), AsScalar<int32_t>(-1)},
      "Input num_segments == -1 must not be negative.");
}

tensorflow::NodeDef Sparse(const char* op, DataType t, bool num = false) {
  NodeDefBuilder b("ss", op);
  b.Inputs(num ? 4 : 3)
      .Attr("T", t)
      .Attr("Tidx", DT_INT64)
      .Attr("Tsegmentids", DT_INT32);
  if (num) b.Attr("Tnumsegments", DT_INT32);
  return b.Build();
}

TEST(SparseSegmentTest, SumMeanSqrtN) {
  const Tensor data = AsTensor<float>({1, 2, 3, 4, 5, 6}, {3, 2});
  const Tensor idx = AsTensor<int64_t>({0, 2, 2, 1});
  const Tensor seg = AsTensor<int32_t>({0, 0, 2, 2});
  ExpectTensorEqual<float>(
      RunNode(Sparse("SparseSegmentSum", DT_FLOAT), {data, idx, seg})[0],
      AsTensor<float>({6, 8, 0, 0, 8, 10}, {3, 2}));
  ExpectTensorEqual<float>(
      RunNode(Sparse("SparseSegmentMean", DT_FLOAT), {data, idx, seg})[0],
      AsTensor<float>({3, 4, 0, 0, 4, 5}, {3, 2}));
  const float r = 1.0f / std::sqrt(2.0f);
  ExpectTensorNear<float>(
      RunNode(Sparse("SparseSegmentSqrtN", DT_FLOAT), {data, idx, seg})[0],
      AsTensor<float>({6 * r, 8 * r, 0, 0, 8 * r, 10 * r}, {3, 2}), 1e-6);
  // num_segments pads with empty (zero) segments.
  ExpectTensorEqual<float>(
      RunNode(Sparse("SparseSegmentSumWithNumSegments", DT_FLOAT, true),
              {data, idx, seg, AsScalar<int32_t>(4)})[0],
      AsTensor<float>({6, 8, 0, 0, 8, 10, 0, 0}, {4, 2}));
  // Empty indices: no rows, or num_segments zero rows.
  EXPECT_EQ(RunNode(Sparse("SparseSegmentMean", DT_FLOAT),
                    {data, Tensor(DT_INT64, TensorShape({0})),
                     Tensor(DT_INT32, TensorShape({0}))})[0]
                .shape(),
            TensorShape({0, 2}));
}

TEST(SparseSegmentTest, Errors) {
  const Tensor data = AsTensor<float>({1, 2, 3});
  ExpectInvalid(Sparse("SparseSegmentSum", DT_FLOAT),
                {data, AsTensor<int64_t>({0, 3}), AsTensor<int32_t>({0, 1})},
                "Bad: indices[1] == 3 out of range [0, 3)");
  ExpectInvalid(Sparse("SparseSegmentSum", DT_FLOAT),
                {data, AsTensor<int64_t>({0, 1}), AsTensor<int32_t>({1, 0})},
                "segment ids are not increasing");
  ExpectInvalid(Sparse("SparseSegmentSum", DT_FLOAT),
                {data, AsTensor<int64_t>({0, 1}), AsTensor<int32_t>({0})},
                "segment_ids and indices should have same size.");
  ExpectInvalid(Sparse("SparseSegmentSumWithNumSegments", DT_FLOAT, true),
                {data, AsTensor<int64_t>({0, 1}), AsTensor<int32_t>({0, 3}),
                 AsScalar<int32_t>(3)},
                "segment ids must be < num_segments");
}

tensorflow::NodeDef Grad(const char* op) {
  return NodeDefBuilder("g", op)
      .Inputs(4)
      .Attr("T", DT_DOUBLE)
      .Attr("Tidx", DT_INT32)
      .Attr("Tsegmentids", DT_INT64)
      .Build();
}

TEST(SparseSegmentGradTest, ScatterScaledRows) {
  // Forward: indices [0,2,2,1], segments [0,0,2,2] over 4 data rows.
  const Tensor grad = AsTensor<double>({1, 10, 100}, {3, 1});
  const Tensor idx = AsTensor<int32_t>({0, 2, 2, 1});
  const Tensor seg = AsTensor<int64_t>({0, 0, 2, 2});
  const Tensor dim0 = AsScalar<int32_t>(4);
  ExpectTensorEqual<double>(
      RunNode(Grad("SparseSegmentSumGrad"), {grad, idx, seg, dim0})[0],
      AsTensor<double>({1, 100, 101, 0}, {4, 1}));
  ExpectTensorEqual<double>(
      RunNode(Grad("SparseSegmentMeanGrad"), {grad, idx, seg, dim0})[0],
      AsTensor<double>({0.5, 50, 50.5, 0}, {4, 1}));
  const double r = 1 / std::sqrt(2.0);
  ExpectTensorNear<double>(
      RunNode(Grad("SparseSegmentSqrtNGrad"), {grad, idx, seg, dim0})[0],
      AsTensor<double>({r, 100 * r, 101 * r, 0}, {4, 1}), 1e-12);
  ExpectInvalid(Grad("SparseSegmentSumGrad"),
                {grad, AsTensor<int32_t>({4}), AsTensor<int64_t>({0}), dim0},
                "Index 4 out of range [0, 4)");
  ExpectInvalid(Grad("SparseSegmentSumGrad"),
                {grad, AsTensor<int32_t>({0}), AsTensor<int64_t>({3}), dim0},
                "Invalid number of segments");
}

}  // namespace
}  // namespace tributary
