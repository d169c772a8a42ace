// GatherNd: whole-index tuples (elements), partial tuples (slices), strings
// (what feature columns gather) and out-of-range tuples.
#include "gtest/gtest.h"
#include "kernels/array/array_test_util.h"

namespace tributary {
namespace {

using array_test::FromIndices;
using array_test::I64;
using array_test::Iota;
using array_test::RunOne;
using array_test::RunOp;
using test::NodeDefBuilder;

tensorflow::NodeDef GatherNd(DataType t, DataType ti) {
  return NodeDefBuilder("g", "GatherNd")
      .Input("p")
      .Input("i")
      .Attr("Tparams", t)
      .Attr("Tindices", ti)
      .Build();
}

Tensor Reshaped(const Tensor& t, const TensorShape& shape) {
  Tensor out(t.dtype(), shape);
  for (int64_t k = 0; k < t.NumElements(); ++k) {
    out.flat<int64_t>()(k) = t.flat<int64_t>()(k);
  }
  return out;
}

TEST(GatherNdTest, ElementsAndSlices) {
  // params [3, 4] = 0..11; indices [[2, 1], [0, 3]] -> [9, 3].
  array_test::ExpectEqual<float>(
      RunOne(GatherNd(DT_FLOAT, DT_INT64),
             {Iota<float>({3, 4}), Reshaped(I64({2, 1, 0, 3}), {2, 2})}),
      FromIndices<float>({9, 3}, TensorShape({2})));
  // indices [[2], [0]] (shape [2, 1]) -> rows 2 and 0, shape [2, 4].
  Tensor rows(DT_INT32, TensorShape({2, 1}));
  rows.flat<int32_t>()(0) = 2;
  rows.flat<int32_t>()(1) = 0;
  array_test::ExpectEqual<int32_t>(
      RunOne(GatherNd(DT_INT32, DT_INT32), {Iota<int32_t>({3, 4}), rows}),
      FromIndices<int32_t>({8, 9, 10, 11, 0, 1, 2, 3}, TensorShape({2, 4})));
}

TEST(GatherNdTest, Strings) {
  Tensor words(DT_STRING, TensorShape({2, 2}));
  const char* v[] = {"a", "", "bc", "d"};
  for (int i = 0; i < 4; ++i) words.flat<std::string>()(i) = v[i];
  Tensor out = RunOne(GatherNd(DT_STRING, DT_INT64),
                      {words, Reshaped(I64({1, 0, 0, 0, 1, 1}), {3, 2})});
  ASSERT_EQ(out.shape(), TensorShape({3}));
  EXPECT_EQ(out.flat<std::string>()(0), "bc");
  EXPECT_EQ(out.flat<std::string>()(1), "a");
  EXPECT_EQ(out.flat<std::string>()(2), "d");
}

TEST(GatherNdTest, OutOfRangeIsInvalidArgument) {
  EXPECT_INVALID_ARGUMENT(
      RunOp(GatherNd(DT_FLOAT, DT_INT64),
            {Iota<float>({3, 4}), Reshaped(I64({0, 0, 3, 0}), {2, 2})})
          .status(),
      "does not index into param shape");
  EXPECT_INVALID_ARGUMENT(
      RunOp(GatherNd(DT_FLOAT, DT_INT64),
            {Iota<float>({3}), Reshaped(I64({0, 0}), {1, 2})}).status(),
      "index innermost dimension");
}

}  // namespace
}  // namespace tributary
