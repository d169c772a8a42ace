// TensorFlow 2.21's own outputs for a few seeded nodes, first and second step,
// pinned as bit patterns, so bit equality is checked even where the TensorFlow
// oracle cannot run (no virtualenv: random_oracle_test then only skips).
// Generated once with tf.raw_ops in a tf.compat.v1.Session, seed=1, seed2=2.

#include <cstdint>
#include <cstring>
#include <vector>

#include "common/framework/tensor.h"
#include "common/framework/tensor_testutil.h"
#include "gtest/gtest.h"
#include "kernels/testing/kernel_runner.h"

namespace tributary {
namespace {

using test::KernelRunner;
using test::NodeDefBuilder;

// Runs the (seed 1, seed2 2) node twice and compares each step's raw bits.
template <typename Bits>
void ExpectSteps(const tensorflow::NodeDef& node,
                 const std::vector<Tensor>& inputs,
                 const std::vector<std::vector<Bits>>& steps) {
  KernelRunner runner;
  ASSERT_TRUE(runner.Init(node).ok());
  for (size_t step = 0; step < steps.size(); ++step) {
    auto out = runner.Run(inputs);
    ASSERT_TRUE(out.ok()) << out.status();
    const Tensor& t = (*out)[0];
    ASSERT_EQ(t.NumElements(), static_cast<int64_t>(steps[step].size()));
    ASSERT_EQ(t.TotalBytes(), steps[step].size() * sizeof(Bits));
    std::vector<Bits> got(steps[step].size());
    std::memcpy(got.data(), t.data(), t.TotalBytes());
    EXPECT_EQ(got, steps[step]) << node.op() << " step " << step;
  }
}

tensorflow::NodeDef Node(const char* op, DataType dtype) {
  return NodeDefBuilder("r", op)
      .Input("shape")
      .Attr("dtype", dtype)
      .Attr("T", DT_INT32)
      .Attr("seed", int64_t{1})
      .Attr("seed2", int64_t{2})
      .Build();
}

TEST(TfKnownValuesTest, RandomUniformFloat) {
  ExpectSteps<uint32_t>(
      Node("RandomUniform", DT_FLOAT), {test::AsTensor<int32_t>({6})},
      {{0x3ed0133c, 0x3f5b8ba6, 0x3d62e6c0, 0x3dafddd0, 0x3ed305cc, 0x3d160a40},
       {0x3effb890, 0x3d80b5f0, 0x3eeb8dc0, 0x3e4fab00, 0x3db583d0,
        0x3f78fc54}});
}

TEST(TfKnownValuesTest, RandomUniformHalf) {
  ExpectSteps<uint16_t>(Node("RandomUniform", DT_HALF),
                        {test::AsTensor<int32_t>({5})},
                        {{0x3278, 0x374c, 0x3a6c, 0x3774, 0x35cc},
                         {0x3538, 0x3370, 0x3b7c, 0x3098, 0x3b8a}});
}

TEST(TfKnownValuesTest, RandomStandardNormalDouble) {
  ExpectSteps<uint64_t>(
      Node("RandomStandardNormal", DT_DOUBLE), {test::AsTensor<int32_t>({3})},
      {{0x3fe298089076cdd3, 0xbff8eb3aca515204, 0x3ff8e4f44037f289},
       {0x3ff6be1dd6de1a77, 0xbfd3b8842c97f9c5, 0xbfc30f689f4a4ed2}});
}

TEST(TfKnownValuesTest, TruncatedNormalFloat) {
  ExpectSteps<uint32_t>(
      Node("TruncatedNormal", DT_FLOAT), {test::AsTensor<int32_t>({5})},
      {{0xbf85fcdd, 0x3f56f6e1, 0x3f9e2fe3, 0x3e9b842a, 0x3ec7027f},
       {0x3f9abe02, 0xbfbe1ac4, 0xbe21ba9c, 0xbe89fb54, 0x3ee8173c}});
}

TEST(TfKnownValuesTest, RandomUniformInt64) {
  ExpectSteps<int64_t>(
      NodeDefBuilder("r", "RandomUniformInt")
          .Input("shape")
          .Input("minval")
          .Input("maxval")
          .Attr("Tout", DT_INT64)
          .Attr("T", DT_INT32)
          .Attr("seed", int64_t{1})
          .Attr("seed2", int64_t{2})
          .Build(),
      {test::AsTensor<int32_t>({3}), test::AsScalar<int64_t>(-1000),
       test::AsScalar<int64_t>(1000)},
      {{839, -34, 987}, {-169, 674, 486}});
}

}  // namespace
}  // namespace tributary
