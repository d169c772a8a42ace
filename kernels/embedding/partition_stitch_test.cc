// Unique, DynamicPartition and (Parallel)DynamicStitch: values, dtypes,
// empty inputs and TensorFlow's errors.
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "kernels/embedding/embedding_test_util.h"

namespace tributary {
namespace {

using embedding_test::ExpectInvalid;
using embedding_test::RunNode;
using test::AsTensor;
using test::ExpectTensorEqual;
using test::NodeDefBuilder;

tensorflow::NodeDef Unique(DataType t, DataType idx = DT_INT32,
                           bool counts = false) {
  return NodeDefBuilder("u", counts ? "UniqueWithCounts" : "Unique")
      .Input("x")
      .Attr("T", t)
      .Attr("out_idx", idx)
      .Build();
}

TEST(UniqueTest, FirstAppearanceOrder) {
  std::vector<Tensor> out =
      RunNode(Unique(DT_INT64), {AsTensor<int64_t>({7, 3, 7, 9, 3, 3})});
  ASSERT_EQ(out.size(), 2u);
  ExpectTensorEqual<int64_t>(out[0], AsTensor<int64_t>({7, 3, 9}));
  ExpectTensorEqual<int32_t>(out[1], AsTensor<int32_t>({0, 1, 0, 2, 1, 1}));
}

TEST(UniqueTest, WithCountsInt64Index) {
  std::vector<Tensor> out =
      RunNode(Unique(DT_FLOAT, DT_INT64, true),
              {AsTensor<float>({0.5f, -0.0f, 0.0f, 0.5f})});
  ASSERT_EQ(out.size(), 3u);
  // -0.0 == 0.0: one entry, the first seen.
  ExpectTensorEqual<float>(out[0], AsTensor<float>({0.5f, -0.0f}));
  ExpectTensorEqual<int64_t>(out[1], AsTensor<int64_t>({0, 1, 1, 0}));
  ExpectTensorEqual<int64_t>(out[2], AsTensor<int64_t>({2, 2}));
}

TEST(UniqueTest, StringsAndEmpty) {
  std::vector<Tensor> out =
      RunNode(Unique(DT_STRING), {AsTensor<std::string>({"b", "a", "b"})});
  ExpectTensorEqual<std::string>(out[0], AsTensor<std::string>({"b", "a"}));
  out = RunNode(Unique(DT_INT32), {Tensor(DT_INT32, TensorShape({0}))});
  EXPECT_EQ(out[0].shape(), TensorShape({0}));
  EXPECT_EQ(out[1].shape(), TensorShape({0}));
}

TEST(UniqueTest, RejectsNonVector) {
  ExpectInvalid(Unique(DT_INT32), {AsTensor<int32_t>({1, 2}, {1, 2})},
                "unique expects a 1D vector.");
}

tensorflow::NodeDef Partition(DataType t, int n) {
  return NodeDefBuilder("p", "DynamicPartition")
      .Inputs(2)
      .Attr("T", t)
      .Attr("num_partitions", n)
      .Build();
}

TEST(DynamicPartitionTest, RowsByPartition) {
  // data [4,2], partitions [4].
  std::vector<Tensor> out =
      RunNode(Partition(DT_FLOAT, 3),
              {AsTensor<float>({0, 1, 2, 3, 4, 5, 6, 7}, {4, 2}),
               AsTensor<int32_t>({2, 0, 2, 2})});
  ASSERT_EQ(out.size(), 3u);
  ExpectTensorEqual<float>(out[0], AsTensor<float>({2, 3}, {1, 2}));
  EXPECT_EQ(out[1].shape(), TensorShape({0, 2}));
  ExpectTensorEqual<float>(out[2], AsTensor<float>({0, 1, 4, 5, 6, 7}, {3, 2}));
}

TEST(DynamicPartitionTest, MatrixPartitionsAndStrings) {
  std::vector<Tensor> out =
      RunNode(Partition(DT_STRING, 2),
              {AsTensor<std::string>({"a", "b", "c", "d"}, {2, 2}),
               AsTensor<int32_t>({1, 0, 0, 1}, {2, 2})});
  ExpectTensorEqual<std::string>(out[0], AsTensor<std::string>({"b", "c"}));
  ExpectTensorEqual<std::string>(out[1], AsTensor<std::string>({"a", "d"}));
}

TEST(DynamicPartitionTest, Errors) {
  ExpectInvalid(Partition(DT_INT32, 2),
                {AsTensor<int32_t>({1, 2, 3}), AsTensor<int32_t>({0, 2, 1})},
                "partitions[1] = 2 is not in [0, 2)");
  ExpectInvalid(Partition(DT_INT32, 2),
                {AsTensor<int32_t>({1, 2, 3}), AsTensor<int32_t>({0, -1, 1})},
                "is not in [0, 2)");
  ExpectInvalid(Partition(DT_INT32, 2),
                {AsTensor<int32_t>({1, 2, 3}), AsTensor<int32_t>({0, 1})},
                "data.shape must start with partitions.shape");
}

tensorflow::NodeDef Stitch(DataType t, int n, bool parallel = false) {
  return NodeDefBuilder("s",
                        parallel ? "ParallelDynamicStitch" : "DynamicStitch")
      .Inputs(2 * n)
      .Attr("T", t)
      .Attr("N", n)
      .Build();
}

TEST(DynamicStitchTest, InvertsPartition) {
  for (bool parallel : {false, true}) {
    Tensor merged =
        RunNode(Stitch(DT_DOUBLE, 2, parallel),
                {AsTensor<int32_t>({1, 3}), AsTensor<int32_t>({0, 2}),
                 AsTensor<double>({10, 11, 30, 31}, {2, 2}),
                 AsTensor<double>({0, 1, 20, 21}, {2, 2})})[0];
    ExpectTensorEqual<double>(
        merged, AsTensor<double>({0, 1, 10, 11, 20, 21, 30, 31}, {4, 2}));
  }
}

TEST(DynamicStitchTest, LaterWinsAndEmpty) {
  Tensor merged =
      RunNode(Stitch(DT_INT64, 2),
              {AsTensor<int32_t>({0, 1}), AsTensor<int32_t>({1}),
               AsTensor<int64_t>({5, 6}), AsTensor<int64_t>({7})})[0];
  ExpectTensorEqual<int64_t>(merged, AsTensor<int64_t>({5, 7}));
  merged =
      RunNode(Stitch(DT_FLOAT, 1), {Tensor(DT_INT32, TensorShape({0})),
                                    Tensor(DT_FLOAT, TensorShape({0, 3}))})[0];
  EXPECT_EQ(merged.shape(), TensorShape({0, 3}));
}

TEST(DynamicStitchTest, Errors) {
  ExpectInvalid(Stitch(DT_FLOAT, 1),
                {AsTensor<int32_t>({0, -1}), AsTensor<float>({1, 2})},
                "indices[1] is out of range");
  ExpectInvalid(Stitch(DT_FLOAT, 1),
                {AsTensor<int32_t>({0, 1}), AsTensor<float>({1, 2, 3})},
                "does not start with indices[0].shape");
  ExpectInvalid(Stitch(DT_FLOAT, 2),
                {AsTensor<int32_t>({0}), AsTensor<int32_t>({1}),
                 AsTensor<float>({1, 2}, {1, 2}), AsTensor<float>({1}, {1, 1})},
                "Need data[0].shape[1:] = data[1].shape[1:]");
}

}  // namespace
}  // namespace tributary
