// The Poisson kernels' own rules, without TensorFlow: rates TensorFlow's
// sampler would loop on forever (NaN, infinite, larger than the output type
// holds) are INVALID_ARGUMENT naming the rate; a rate just inside the output
// type still samples; the outputs do not depend on the thread count. Bit
// equality with TensorFlow is poisson_oracle_test's job.

#include <cmath>
#include <cstdint>
#include <limits>

#include "common/framework/tensor.h"
#include "common/framework/tensor_testutil.h"
#include "gtest/gtest.h"
#include "kernels/testing/kernel_runner.h"

namespace tributary {
namespace {

using test::KernelRunner;
using test::NodeDefBuilder;

tensorflow::NodeDef PoissonV2(DataType rate, DataType out) {
  return NodeDefBuilder("p", "RandomPoissonV2")
      .Input("shape")
      .Input("rate")
      .Attr("S", DT_INT32)
      .Attr("R", rate)
      .Attr("dtype", out)
      .Attr("seed", int64_t{5})
      .Attr("seed2", int64_t{6})
      .Build();
}

tensorflow::NodeDef StatelessPoisson(DataType out) {
  return NodeDefBuilder("p", "StatelessRandomPoisson")
      .Input("shape")
      .Input("seed")
      .Input("lam")
      .Attr("T", DT_INT32)
      .Attr("Tseed", DT_INT64)
      .Attr("Rtype", DT_DOUBLE)
      .Attr("dtype", out)
      .Build();
}

void ExpectRefused(KernelRunner* runner, const std::vector<Tensor>& inputs) {
  auto out = runner->Run(inputs);
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(out.status().message().find("Poisson rate"), std::string::npos)
      << out.status();
}

TEST(PoissonSamplerTest, RefusesRatesThatWouldNeverBeAccepted) {
  KernelRunner runner;
  ASSERT_TRUE(runner.Init(PoissonV2(DT_DOUBLE, DT_HALF)).ok());
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  for (double rate : {nan, inf, 1e6}) {
    ExpectRefused(&runner, {test::AsTensor<int32_t>({3}),
                            test::AsTensor<double>({2.0, rate})});
  }
  // 60000 fits in half (largest 65504): sampled, near the rate.
  auto ok = runner.Run(
      {test::AsTensor<int32_t>({50}), test::AsTensor<double>({60000.0})});
  ASSERT_TRUE(ok.ok()) << ok.status();
  const Tensor& samples = (*ok)[0];
  for (int i = 0; i < 50; ++i) {
    const float v = static_cast<float>(samples.flat<half>()(i));
    EXPECT_GT(v, 58000.0f);
    EXPECT_LT(v, 62000.0f);
  }

  KernelRunner stateless;
  ASSERT_TRUE(stateless.Init(StatelessPoisson(DT_INT32)).ok());
  ExpectRefused(&stateless,
                {test::AsTensor<int32_t>({2}), test::AsTensor<int64_t>({1, 2}),
                 test::AsScalar<double>(1e10)});
  ExpectRefused(&stateless,
                {test::AsTensor<int32_t>({2}), test::AsTensor<int64_t>({1, 2}),
                 test::AsScalar<double>(-inf)});
}

// V1 (deprecated at GraphDef version 25, so TensorFlow cannot be asked) is
// V2 with rate and output of the rate's type.
TEST(PoissonSamplerTest, VersionOneEqualsVersionTwo) {
  KernelRunner v1, v2;
  ASSERT_TRUE(v1.Init(NodeDefBuilder("p", "RandomPoisson")
                          .Input("shape")
                          .Input("rate")
                          .Attr("S", DT_INT32)
                          .Attr("dtype", DT_FLOAT)
                          .Attr("seed", int64_t{5})
                          .Attr("seed2", int64_t{6})
                          .Build())
                  .ok());
  ASSERT_TRUE(v2.Init(PoissonV2(DT_FLOAT, DT_FLOAT)).ok());
  const std::vector<Tensor> inputs = {
      test::AsTensor<int32_t>({40}),
      test::AsTensor<float>({0.3f, 9.0f, 75.0f})};
  for (int step = 0; step < 2; ++step) {
    auto a = v1.Run(inputs);
    auto b = v2.Run(inputs);
    ASSERT_TRUE(a.ok() && b.ok());
    test::ExpectTensorEqual<float>((*a)[0], (*b)[0]);
  }
}

TEST(PoissonSamplerTest, OutputsDoNotDependOnThreads) {
  KernelRunner one(1), four(4);
  ASSERT_TRUE(one.Init(StatelessPoisson(DT_INT64)).ok());
  ASSERT_TRUE(four.Init(StatelessPoisson(DT_INT64)).ok());
  const std::vector<Tensor> inputs = {
      test::AsTensor<int32_t>({5000, 3}), test::AsTensor<int64_t>({9, 4}),
      test::AsTensor<double>({0.5, 12.0, 300.0})};
  auto a = one.Run(inputs);
  auto b = four.Run(inputs);
  ASSERT_TRUE(a.ok() && b.ok());
  test::ExpectTensorEqual<int64_t>((*a)[0], (*b)[0]);
  // The mean of each column is near its rate.
  for (int r = 0; r < 3; ++r) {
    double sum = 0;
    for (int s = 0; s < 5000; ++s) sum += (*a)[0].flat<int64_t>()(s * 3 + r);
    const double rate = r == 0 ? 0.5 : r == 1 ? 12.0 : 300.0;
    EXPECT_NEAR(sum / 5000, rate, 5 * std::sqrt(rate / 5000));
  }
}

}  // namespace
}  // namespace tributary
