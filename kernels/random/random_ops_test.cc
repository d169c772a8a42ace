// The random kernels' own rules, without TensorFlow: outputs equal the
// distribution applied group by group to the reserved generator whatever the
// thread count, successive steps continue the stream 256 samples per output
// further on, unseeded kernels differ, and bad inputs fail as TensorFlow's do.
// Bit equality with TensorFlow itself is random_oracle_test's job.

#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "common/framework/tensor.h"
#include "common/framework/tensor_testutil.h"
#include "gtest/gtest.h"
#include "kernels/random/distributions.h"
#include "kernels/random/fill_philox.h"
#include "kernels/random/philox.h"
#include "kernels/testing/kernel_runner.h"

namespace tributary {
namespace {

using test::KernelRunner;
using test::NodeDefBuilder;

tensorflow::NodeDef RandomNode(const char* op, DataType dtype, int64_t seed,
                               int64_t seed2) {
  return NodeDefBuilder("r", op)
      .Input("shape")
      .Attr("dtype", dtype)
      .Attr("T", DT_INT32)
      .Attr("seed", seed)
      .Attr("seed2", seed2)
      .Build();
}

// What a step of a (seed, seed2) node must give for `n` outputs when the
// node's generator has already handed out `skipped` samples.
template <class Distribution>
std::vector<typename Distribution::ResultElementType> Expected(
    int64_t seed, int64_t seed2, uint64_t skipped, int64_t n,
    const Distribution& dist) {
  random::PhiloxRandom gen(seed, seed2);
  gen.Skip(skipped);
  std::vector<typename Distribution::ResultElementType> out(n);
  constexpr int kGroup = Distribution::kResultElementCount;
  random::FillPhiloxGroups(gen, dist, out.data(), n, 0,
                           (n + kGroup - 1) / kGroup);
  return out;
}

template <typename T>
void ExpectBits(const Tensor& got, const std::vector<T>& want) {
  ASSERT_EQ(got.NumElements(), static_cast<int64_t>(want.size()));
  EXPECT_EQ(
      std::memcmp(got.flat<T>().data(), want.data(), want.size() * sizeof(T)),
      0);
}

// A multi-threaded fill of many groups, twice: both steps match the
// single-threaded reference, the second one 256 samples per output later.
template <class Distribution>
void CheckTwoSteps(const char* op, DataType dtype) {
  using T = typename Distribution::ResultElementType;
  const int64_t n = 40003;  // many groups, a partial last one
  KernelRunner runner;
  ASSERT_TRUE(runner.Init(RandomNode(op, dtype, 11, 12)).ok());
  for (int step = 0; step < 2; ++step) {
    auto out = runner.Run({test::AsTensor<int32_t>({n})});
    ASSERT_TRUE(out.ok()) << out.status();
    ExpectBits<T>((*out)[0], Expected(11, 12, uint64_t{256} * n * step, n,
                                      Distribution()));
  }
}

TEST(RandomOpsTest, UniformStepsAndThreads) {
  CheckTwoSteps<random::Uniform<float>>("RandomUniform", DT_FLOAT);
  CheckTwoSteps<random::Uniform<double>>("RandomUniform", DT_DOUBLE);
  CheckTwoSteps<random::Uniform<half>>("RandomUniform", DT_HALF);
}

TEST(RandomOpsTest, NormalStepsAndThreads) {
  CheckTwoSteps<random::Normal<float>>("RandomStandardNormal", DT_FLOAT);
  CheckTwoSteps<random::Normal<bfloat16>>("RandomStandardNormal", DT_BFLOAT16);
}

TEST(RandomOpsTest, TruncatedNormalStepsAndThreads) {
  CheckTwoSteps<random::TruncatedNormal<float>>("TruncatedNormal", DT_FLOAT);
  CheckTwoSteps<random::TruncatedNormal<double>>("TruncatedNormal", DT_DOUBLE);
}

TEST(RandomOpsTest, TruncatedNormalStaysWithinTwo) {
  KernelRunner runner;
  ASSERT_TRUE(runner.Init(RandomNode("TruncatedNormal", DT_FLOAT, 1, 1)).ok());
  auto out = runner.Run({test::AsTensor<int32_t>({10000})});
  ASSERT_TRUE(out.ok()) << out.status();
  const float* v = (*out)[0].flat<float>().data();
  for (int i = 0; i < 10000; ++i) EXPECT_LT(std::abs(v[i]), 2.0f) << i;
}

TEST(RandomOpsTest, UnseededKernelsDiffer) {
  KernelRunner a, b;
  ASSERT_TRUE(a.Init(RandomNode("RandomUniform", DT_FLOAT, 0, 0)).ok());
  ASSERT_TRUE(b.Init(RandomNode("RandomUniform", DT_FLOAT, 0, 0)).ok());
  auto x = a.Run({test::AsTensor<int32_t>({8})});
  auto y = b.Run({test::AsTensor<int32_t>({8})});
  ASSERT_TRUE(x.ok() && y.ok());
  EXPECT_NE(std::memcmp((*x)[0].flat<float>().data(),
                        (*y)[0].flat<float>().data(), 8 * sizeof(float)),
            0);
}

TEST(RandomOpsTest, UniformIntStepsAndErrors) {
  KernelRunner runner;
  ASSERT_TRUE(runner
                  .Init(NodeDefBuilder("r", "RandomUniformInt")
                            .Input("shape")
                            .Input("minval")
                            .Input("maxval")
                            .Attr("Tout", DT_INT64)
                            .Attr("T", DT_INT64)
                            .Attr("seed", int64_t{3})
                            .Attr("seed2", int64_t{4})
                            .Build())
                  .ok());
  for (int step = 0; step < 2; ++step) {
    auto out =
        runner.Run({test::AsTensor<int64_t>({1001}),
                    test::AsScalar<int64_t>(-10), test::AsScalar<int64_t>(90)});
    ASSERT_TRUE(out.ok()) << out.status();
    ExpectBits<int64_t>((*out)[0],
                        Expected(3, 4, uint64_t{256} * 1001 * step, 1001,
                                 random::UniformInt<int64_t>(-10, 90)));
  }
  auto bad =
      runner.Run({test::AsTensor<int64_t>({2}), test::AsScalar<int64_t>(5),
                  test::AsScalar<int64_t>(5)});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(bad.status().message(), "Need minval < maxval: 5 >= 5");
  auto empty =
      runner.Run({test::AsTensor<int64_t>({0}), test::AsScalar<int64_t>(5),
                  test::AsScalar<int64_t>(5)});
  EXPECT_TRUE(empty.ok()) << empty.status();
}

TEST(RandomOpsTest, BadShapes) {
  KernelRunner runner;
  ASSERT_TRUE(runner.Init(RandomNode("RandomUniform", DT_FLOAT, 1, 2)).ok());
  auto negative = runner.Run({test::AsTensor<int32_t>({2, -1})});
  ASSERT_FALSE(negative.ok());
  EXPECT_EQ(negative.status().code(), absl::StatusCode::kInvalidArgument);
  auto matrix = runner.Run({test::AsTensor<int32_t>({1, 2}, {1, 2})});
  ASSERT_FALSE(matrix.ok());
  EXPECT_EQ(matrix.status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace tributary
