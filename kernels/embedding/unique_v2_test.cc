// UniqueV2 / UniqueWithCountsV2: distinct slices along an axis (values
// checked against TensorFlow 2.21's outputs), the empty axis (1-D only),
// negative axes, empty slices, -0.0 == 0.0, strings, and TensorFlow's
// errors.
#include <string>
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
using test::NodeDefBuilder;

tensorflow::NodeDef UniqueV2(DataType t, bool counts = false,
                             DataType taxis = DT_INT64,
                             DataType idx = DT_INT32) {
  return NodeDefBuilder("u", counts ? "UniqueWithCountsV2" : "UniqueV2")
      .Inputs(2)
      .Attr("T", t)
      .Attr("Taxis", taxis)
      .Attr("out_idx", idx)
      .Build();
}

const Tensor kX = AsTensor<int32_t>({1, 0, 1, 2, 0, 2, 1, 0, 1}, {3, 3});

TEST(UniqueV2Test, RowsAndColumns) {
  std::vector<Tensor> rows =
      RunNode(UniqueV2(DT_INT32), {kX, AsTensor<int64_t>({0})});
  ExpectTensorEqual<int32_t>(rows[0],
                             AsTensor<int32_t>({1, 0, 1, 2, 0, 2}, {2, 3}));
  ExpectTensorEqual<int32_t>(rows[1], AsTensor<int32_t>({0, 1, 0}));
  std::vector<Tensor> cols = RunNode(UniqueV2(DT_INT32, true, DT_INT32, DT_INT64),
                                     {kX, AsTensor<int32_t>({-1})});
  ExpectTensorEqual<int32_t>(cols[0],
                             AsTensor<int32_t>({1, 0, 2, 0, 1, 0}, {3, 2}));
  ExpectTensorEqual<int64_t>(cols[1], AsTensor<int64_t>({0, 1, 0}));
  ExpectTensorEqual<int64_t>(cols[2], AsTensor<int64_t>({2, 1}));
}

TEST(UniqueV2Test, EmptyAxisIsVectorUnique) {
  std::vector<Tensor> out =
      RunNode(UniqueV2(DT_INT32, true),
              {AsTensor<int32_t>({3, 1, 3}), Tensor(DT_INT64, {0})});
  ExpectTensorEqual<int32_t>(out[0], AsTensor<int32_t>({3, 1}));
  ExpectTensorEqual<int32_t>(out[1], AsTensor<int32_t>({0, 1, 0}));
  ExpectTensorEqual<int32_t>(out[2], AsTensor<int32_t>({2, 1}));
}

TEST(UniqueV2Test, EmptySlicesSignedZeroAndStrings) {
  // [2, 0] along axis 0: both (empty) rows are equal.
  std::vector<Tensor> e = RunNode(
      UniqueV2(DT_FLOAT), {Tensor(DT_FLOAT, {2, 0}), AsTensor<int64_t>({0})});
  EXPECT_EQ(e[0].shape(), TensorShape({1, 0}));
  ExpectTensorEqual<int32_t>(e[1], AsTensor<int32_t>({0, 0}));
  std::vector<Tensor> z = RunNode(
      UniqueV2(DT_FLOAT), {Tensor(DT_FLOAT, {2, 0}), AsTensor<int64_t>({1})});
  EXPECT_EQ(z[0].shape(), TensorShape({2, 0}));
  EXPECT_EQ(z[1].NumElements(), 0);
  std::vector<Tensor> s = RunNode(
      UniqueV2(DT_FLOAT),
      {AsTensor<float>({0.0f, -0.0f, -0.0f, 0.0f, 1, 2}, {3, 2}),
       AsTensor<int64_t>({0})});
  ExpectTensorEqual<int32_t>(s[1], AsTensor<int32_t>({0, 0, 1}));
  std::vector<Tensor> str = RunNode(
      UniqueV2(DT_STRING),
      {AsTensor<std::string>({"a", "b", "a", "b"}, {2, 2}),
       AsTensor<int64_t>({0})});
  ExpectTensorEqual<std::string>(str[0],
                                 AsTensor<std::string>({"a", "b"}, {1, 2}));
}

TEST(UniqueV2Test, ErrorsAreTensorFlows) {
  ExpectInvalid(UniqueV2(DT_INT32), {kX, Tensor(DT_INT64, {0})},
                "unique expects a 1D vector.");
  ExpectInvalid(UniqueV2(DT_INT32), {kX, AsTensor<int64_t>({2})},
                "axis has to be between [0, 2)");
  ExpectInvalid(UniqueV2(DT_INT32), {kX, AsTensor<int64_t>({-3})},
                "axis has to be between [0, 2)");
  ExpectInvalid(UniqueV2(DT_INT32), {kX, AsTensor<int64_t>({0, 1})},
                "axis does not support input tensors larger than 1 elements");
  ExpectInvalid(UniqueV2(DT_INT32), {kX, AsScalar<int64_t>(0)},
                "axis expects a 1D vector.");
  ExpectInvalid(UniqueV2(DT_INT32), {AsScalar<int32_t>(5), AsTensor<int64_t>({0})},
                "axis has to be between [0, 0)");
}

}  // namespace
}  // namespace tributary
