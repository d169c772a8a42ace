// FusedBatchNormV3 / FusedBatchNormGradV3 unit tests: a hand-computed case,
// and bfloat16 against float on the same (bf16-rounded) inputs, since the
// TensorFlow oracle (nn_oracle_test.py) cannot feed bfloat16 from numpy;
// _FusedBatchNormEx against V3 followed by the Add and the Relu.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "common/framework/tensor.h"
#include "common/framework/tensor_testutil.h"
#include "gtest/gtest.h"
#include "kernels/testing/kernel_runner.h"

namespace tributary {
namespace {

using test::AsTensor;
using test::NodeDefBuilder;

tensorflow::NodeDef BatchNorm(DataType t, bool training,
                              const std::string& format = "NHWC") {
  return NodeDefBuilder("bn", "FusedBatchNormV3")
      .Inputs(5)
      .Attr("T", t)
      .Attr("U", DT_FLOAT)
      .Attr("epsilon", 0.001f)
      .Attr("is_training", training)
      .Attr("data_format", format)
      .Build();
}

tensorflow::NodeDef BatchNormGrad(DataType t, bool training) {
  return NodeDefBuilder("bn_grad", "FusedBatchNormGradV3")
      .Inputs(6)
      .Attr("T", t)
      .Attr("U", DT_FLOAT)
      .Attr("epsilon", 0.001f)
      .Attr("is_training", training)
      .Build();
}

TEST(FusedBatchNormTest, HandComputedTraining) {
  // One channel, four elements: mean 2.5, biased variance 1.25, the running
  // estimate 1.25 * 4 / 3.
  auto out = test::RunKernel(
      BatchNorm(DT_FLOAT, true),
      {AsTensor<float>({1, 2, 3, 4}, {4, 1, 1, 1}), AsTensor<float>({2}, {1}),
       AsTensor<float>({0.5}, {1}), AsTensor<float>(std::vector<float>(), {0}),
       AsTensor<float>(std::vector<float>(), {0})});
  ASSERT_TRUE(out.ok()) << out.status();
  const float inv = 1.0f / std::sqrt(1.25f + 0.001f);
  test::ExpectTensorNear<float>((*out)[0],
                                AsTensor<float>({-3 * inv + 0.5f, -inv + 0.5f,
                                                 inv + 0.5f, 3 * inv + 0.5f},
                                                {4, 1, 1, 1}),
                                1e-6);
  test::ExpectTensorNear<float>((*out)[1], AsTensor<float>({2.5}, {1}), 1e-6);
  test::ExpectTensorNear<float>((*out)[2],
                                AsTensor<float>({1.25f * 4 / 3}, {1}), 1e-6);
  test::ExpectTensorNear<float>((*out)[3], AsTensor<float>({2.5}, {1}), 1e-6);
  test::ExpectTensorNear<float>((*out)[4], AsTensor<float>({1.25}, {1}), 1e-6);
  EXPECT_EQ((*out)[5].dims(), 0);  // V3's scalar placeholder
}

// Values exactly representable in bfloat16, so both dtypes see one input.
std::vector<float> Inputs(int n, float scale) {
  std::vector<float> v(n);
  for (int i = 0; i < n; ++i)
    v[i] = scale * static_cast<float>((i * 7) % 11 - 5);
  return v;
}

template <typename T>
Tensor Cast(const std::vector<float>& v, const TensorShape& shape) {
  std::vector<T> out(v.begin(), v.end());
  return AsTensor<T>(out, shape);
}

Tensor ToFloat(const Tensor& t) {
  std::vector<float> v(t.NumElements());
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    v[i] = static_cast<float>(t.flat<bfloat16>()(i));
  }
  return AsTensor<float>(v, t.shape());
}

TEST(FusedBatchNormTest, BFloat16MatchesFloat) {
  const TensorShape shape({2, 3, 2, 4});
  const std::vector<float> x = Inputs(48, 0.5f);
  const std::vector<Tensor> params = {AsTensor<float>({1, 0.5, 2, -1}, {4}),
                                      AsTensor<float>({0, 1, -1, 2}, {4}),
                                      AsTensor<float>({0.5, 0, 1, -1}, {4}),
                                      AsTensor<float>({1, 2, 0.5, 4}, {4})};
  for (bool training : {true, false}) {
    std::vector<Tensor> f_in = {Cast<float>(x, shape)};
    std::vector<Tensor> b_in = {Cast<bfloat16>(x, shape)};
    f_in.insert(f_in.end(), params.begin(), params.end());
    b_in.insert(b_in.end(), params.begin(), params.end());
    auto f = test::RunKernel(BatchNorm(DT_FLOAT, training), f_in);
    auto b = test::RunKernel(BatchNorm(DT_BFLOAT16, training), b_in);
    ASSERT_TRUE(f.ok()) << f.status();
    ASSERT_TRUE(b.ok()) << b.status();
    // y rounds to bfloat16 (8 significant bits); statistics stay float.
    test::ExpectTensorNear<float>(ToFloat((*b)[0]), (*f)[0], 0.05);
    for (int i = 1; i < 5; ++i) {
      test::ExpectTensorNear<float>((*b)[i], (*f)[i], 1e-6);
    }

    const std::vector<float> dy = Inputs(48, 0.25f);
    std::vector<Tensor> fg_in = {Cast<float>(dy, shape),
                                 Cast<float>(x, shape),
                                 params[0],
                                 (*f)[3],
                                 (*f)[4],
                                 (*f)[5]};
    std::vector<Tensor> bg_in = {Cast<bfloat16>(dy, shape),
                                 Cast<bfloat16>(x, shape),
                                 params[0],
                                 (*f)[3],
                                 (*f)[4],
                                 (*f)[5]};
    auto fg = test::RunKernel(BatchNormGrad(DT_FLOAT, training), fg_in);
    auto bg = test::RunKernel(BatchNormGrad(DT_BFLOAT16, training), bg_in);
    ASSERT_TRUE(fg.ok()) << fg.status();
    ASSERT_TRUE(bg.ok()) << bg.status();
    test::ExpectTensorNear<float>(ToFloat((*bg)[0]), (*fg)[0], 0.05);
    test::ExpectTensorNear<float>((*bg)[1], (*fg)[1], 1e-5);
    test::ExpectTensorNear<float>((*bg)[2], (*fg)[2], 1e-5);
  }
}

// Many outer rows (several shards on the runner's 4 threads), both layouts:
// the sharded sums and the parallel passes against a direct definition.
TEST(FusedBatchNormTest, ShardedMatchesDefinition) {
  const int n = 16, h = 5, w = 3, channels = 3;
  std::vector<float> x(n * h * w * channels);
  for (size_t i = 0; i < x.size(); ++i) {
    x[i] = std::sin(0.37f * static_cast<float>(i)) * 3 + 1;
  }
  for (const std::string format : {"NHWC", "NCHW"}) {
    const bool nchw = format == "NCHW";
    const TensorShape shape = nchw ? TensorShape({n, channels, h, w})
                                   : TensorShape({n, h, w, channels});
    auto channel_of = [&](size_t i) {
      return nchw ? static_cast<int>((i / (h * w)) % channels)
                  : static_cast<int>(i % channels);
    };
    std::vector<double> sum(channels, 0), sq(channels, 0);
    for (size_t i = 0; i < x.size(); ++i) sum[channel_of(i)] += x[i];
    const double count = n * h * w;
    for (size_t i = 0; i < x.size(); ++i) {
      const double d = x[i] - sum[channel_of(i)] / count;
      sq[channel_of(i)] += d * d;
    }
    auto out = test::RunKernel(
        BatchNorm(DT_FLOAT, true, format),
        {AsTensor<float>(x, shape), AsTensor<float>({1, 2, 3}, {3}),
         AsTensor<float>({0, 0, 0}, {3}), AsTensor<float>({0, 0, 0}, {3}),
         AsTensor<float>({1, 1, 1}, {3})});
    ASSERT_TRUE(out.ok()) << out.status();
    std::vector<float> y(x.size()), mean(channels), var(channels);
    for (int c = 0; c < channels; ++c) {
      mean[c] = static_cast<float>(sum[c] / count);
      var[c] = static_cast<float>(sq[c] / count);
    }
    for (size_t i = 0; i < x.size(); ++i) {
      const int c = channel_of(i);
      y[i] = (x[i] - mean[c]) * (c + 1) / std::sqrt(var[c] + 0.001f);
    }
    test::ExpectTensorNear<float>((*out)[0], AsTensor<float>(y, shape), 1e-5);
    test::ExpectTensorNear<float>((*out)[3], AsTensor<float>(mean, {3}), 1e-6);
    test::ExpectTensorNear<float>((*out)[4], AsTensor<float>(var, {3}), 1e-5);
  }
}


// _FusedBatchNormEx against FusedBatchNormV3 followed by the side input's
// Add and the Relu, by their definition.
tensorflow::NodeDef BatchNormEx(bool training, int side_inputs,
                                const std::string& activation) {
  return NodeDefBuilder("bn_ex", "_FusedBatchNormEx")
      .Inputs(5 + side_inputs)
      .Attr("T", DT_FLOAT)
      .Attr("U", DT_FLOAT)
      .Attr("epsilon", 0.001f)
      .Attr("is_training", training)
      .Attr("num_side_inputs", int64_t{side_inputs})
      .Attr("activation_mode", activation)
      .Build();
}

Tensor Pattern(const TensorShape& shape, float scale, float shift) {
  Tensor t(DT_FLOAT, shape);
  auto v = t.flat<float>();
  for (int64_t i = 0; i < v.size(); ++i) {
    v(i) = std::sin(0.7f * static_cast<float>(i)) * scale + shift;
  }
  return t;
}

TEST(FusedBatchNormExTest, MatchesBatchNormThenAddThenRelu) {
  const TensorShape shape({2, 3, 3, 4});
  const std::vector<Tensor> bn_inputs = {
      Pattern(shape, 2, 0.5), AsTensor<float>({1, 2, 0.5, -1}, {4}),
      AsTensor<float>({0.1, -0.2, 0.3, 0}, {4}),
      AsTensor<float>({0.5, 0, -0.5, 1}, {4}),
      AsTensor<float>({1, 2, 0.5, 4}, {4})};
  const Tensor side = Pattern(shape, 1, -0.25);
  for (bool training : {false, true}) {
    for (int sides : {0, 1}) {
      for (const char* act : {"Identity", "Relu"}) {
        SCOPED_TRACE(testing::Message() << "training " << training << " sides "
                                        << sides << " " << act);
        auto want = test::RunKernel(BatchNorm(DT_FLOAT, training), bn_inputs);
        ASSERT_TRUE(want.ok()) << want.status();
        std::vector<Tensor> inputs = bn_inputs;
        if (sides == 1) inputs.push_back(side);
        auto got = test::RunKernel(BatchNormEx(training, sides, act), inputs);
        ASSERT_TRUE(got.ok()) << got.status();
        ASSERT_EQ(got->size(), 6u);
        Tensor y = (*want)[0];
        auto yv = y.flat<float>();
        for (int64_t i = 0; i < yv.size(); ++i) {
          if (sides == 1) yv(i) += side.flat<float>()(i);
          if (std::string(act) == "Relu") yv(i) = std::max(yv(i), 0.0f);
        }
        test::ExpectTensorNear<float>((*got)[0], y, 1e-5);
        for (int o = 1; o < 6; ++o) {
          test::ExpectTensorEqual<float>((*got)[o], (*want)[o]);
        }
      }
    }
  }
}

TEST(FusedBatchNormExTest, Errors) {
  const TensorShape shape({1, 2, 2, 2});
  std::vector<Tensor> inputs = {
      Pattern(shape, 1, 0), AsTensor<float>({1, 1}, {2}),
      AsTensor<float>({0, 0}, {2}), AsTensor<float>({0, 0}, {2}),
      AsTensor<float>({1, 1}, {2})};
  // A broadcasting side input is refused, not broadcast.
  std::vector<Tensor> with_row = inputs;
  with_row.push_back(AsTensor<float>({1, 2}, {2}));
  auto s = test::RunKernel(BatchNormEx(false, 1, "Relu"), with_row).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_NE(s.message().find("side_input must have the shape of x"),
            std::string::npos)
      << s;
  std::vector<Tensor> two = inputs;
  two.push_back(Pattern(shape, 1, 0));
  two.push_back(Pattern(shape, 1, 0));
  s = test::RunKernel(BatchNormEx(false, 2, "Relu"), two).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_NE(s.message().find("at most one side input"), std::string::npos) << s;
  s = test::RunKernel(BatchNormEx(false, 0, "Elu"), inputs).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_NE(s.message().find("activation_mode"), std::string::npos) << s;
}

}  // namespace
}  // namespace tributary
