// OneHot: axis placement, out-of-range indices, index dtypes and errors.
#include "gtest/gtest.h"
#include "kernels/array/array_test_util.h"

namespace tributary {
namespace {

using array_test::RunOne;
using array_test::RunOp;
using test::AsScalar;
using test::AsTensor;
using test::NodeDefBuilder;

tensorflow::NodeDef OneHot(DataType t, DataType ti, int64_t axis = -1) {
  return NodeDefBuilder("one_hot", "OneHot")
      .Input("indices")
      .Input("depth")
      .Input("on_value")
      .Input("off_value")
      .Attr("T", t)
      .Attr("TI", ti)
      .Attr("axis", axis)
      .Build();
}

TEST(OneHotTest, LastAxisWithOutOfRangeIndices) {
  const Tensor out = RunOne(OneHot(DT_FLOAT, DT_INT64),
                            {AsTensor<int64_t>({0, 2, -1, 3}), AsScalar<int32_t>(3),
                             AsScalar<float>(5), AsScalar<float>(-1)});
  test::ExpectTensorEqual<float>(
      out, AsTensor<float>({5, -1, -1, -1, -1, 5, -1, -1, -1, -1, -1, -1},
                           {4, 3}));
}

TEST(OneHotTest, AxisZero) {
  const Tensor out = RunOne(OneHot(DT_INT32, DT_UINT8, 0),
                            {AsTensor<uint8_t>({1, 0}), AsScalar<int32_t>(2),
                             AsScalar<int32_t>(1), AsScalar<int32_t>(0)});
  test::ExpectTensorEqual<int32_t>(out, AsTensor<int32_t>({0, 1, 1, 0}, {2, 2}));
}

TEST(OneHotTest, MiddleAxis) {
  // indices [2, 2], axis 1: out[i, d, j] = indices[i, j] == d.
  const Tensor out = RunOne(OneHot(DT_DOUBLE, DT_INT32, 1),
                            {AsTensor<int32_t>({0, 1, 1, 1}, {2, 2}),
                             AsScalar<int32_t>(2), AsScalar<double>(1),
                             AsScalar<double>(0)});
  test::ExpectTensorEqual<double>(
      out, AsTensor<double>({1, 0, 0, 1, 0, 0, 1, 1}, {2, 2, 2}));
}

TEST(OneHotTest, Errors) {
  EXPECT_INVALID_ARGUMENT(
      RunOp(OneHot(DT_FLOAT, DT_INT32),
            {AsTensor<int32_t>({1}), AsScalar<int32_t>(-1), AsScalar<float>(1),
             AsScalar<float>(0)})
          .status(),
      "depth must be non-negative, got: -1");
  EXPECT_INVALID_ARGUMENT(
      RunOp(OneHot(DT_FLOAT, DT_INT32, 2),
            {AsTensor<int32_t>({1}), AsScalar<int32_t>(2), AsScalar<float>(1),
             AsScalar<float>(0)})
          .status(),
      "Expected axis to be -1 or between [0, 2).  But received: 2");
  EXPECT_INVALID_ARGUMENT(
      RunOp(OneHot(DT_FLOAT, DT_INT32),
            {AsTensor<int32_t>({1}), AsScalar<int32_t>(2), AsTensor<float>({1}),
             AsScalar<float>(0)})
          .status(),
      "on_value must be a scalar, but got: [1]");
}

}  // namespace
}  // namespace tributary
