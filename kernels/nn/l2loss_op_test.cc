// L2Loss: sum(t^2)/2 of any shape, a scalar; empty is 0.
#include "common/framework/tensor.h"
#include "common/framework/tensor_testutil.h"
#include "gtest/gtest.h"
#include "kernels/testing/kernel_runner.h"

namespace tributary {
namespace {

using test::AsTensor;
using test::NodeDefBuilder;

absl::StatusOr<std::vector<Tensor>> RunL2Loss(const Tensor& t) {
  return test::RunKernel(
      NodeDefBuilder("l2", "L2Loss").Input("t").Attr("T", t.dtype()).Build(),
      {t});
}

TEST(L2LossTest, HalfTheSumOfSquares) {
  auto f = RunL2Loss(AsTensor<float>({1, -2, 3, 0.5}, {2, 2}));
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_EQ((*f)[0].dims(), 0);
  EXPECT_FLOAT_EQ((*f)[0].scalar<float>()(), 7.125f);
  auto d = RunL2Loss(AsTensor<double>({3, 4}));
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_DOUBLE_EQ((*d)[0].scalar<double>()(), 12.5);
}

TEST(L2LossTest, EmptyIsZero) {
  auto f = RunL2Loss(Tensor(DT_FLOAT, TensorShape({0, 3})));
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_EQ((*f)[0].scalar<float>()(), 0.0f);
}

}  // namespace
}  // namespace tributary
