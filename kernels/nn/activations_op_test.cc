// Elu, Selu, LeakyRelu, Softplus, Softsign and their gradients against the
// formulas in double; nn_oracle_test.py compares with TensorFlow itself.

#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "common/framework/tensor.h"
#include "common/framework/tensor_testutil.h"
#include "gtest/gtest.h"
#include "kernels/testing/kernel_runner.h"

namespace tributary {
namespace {

using test::AsTensor;
using test::NodeDefBuilder;

constexpr double kScale = 1.0507009873554804934193349852946;
constexpr double kAlpha = 1.6732632423543772848170429916717;

tensorflow::NodeDef Forward(const std::string& op, DataType type,
                            float alpha = -1) {
  NodeDefBuilder b("act", op);
  b.Input("features").Attr("T", type);
  if (alpha >= 0) b.Attr("alpha", alpha);
  return b.Build();
}

tensorflow::NodeDef Grad(const std::string& op, DataType type,
                         float alpha = -1) {
  NodeDefBuilder b("act_grad", op);
  b.Input("gradients").Input("other").Attr("T", type);
  if (alpha >= 0) b.Attr("alpha", alpha);
  return b.Build();
}

const std::vector<double> kX = {-30, -3, -1, -0.25, 0, 0.5, 2, 20, 40};

void ExpectForward(const std::string& op, std::function<double(double)> f,
                   float alpha = -1) {
  auto out = test::RunKernel(Forward(op, DT_DOUBLE, alpha),
                             {AsTensor<double>(kX)});
  ASSERT_TRUE(out.ok()) << op << ": " << out.status();
  for (size_t i = 0; i < kX.size(); ++i) {
    EXPECT_NEAR((*out)[0].flat<double>()(i), f(kX[i]),
                1e-12 * std::max(1.0, std::abs(f(kX[i]))))
        << op << "(" << kX[i] << ")";
  }
  // float agrees with the double result to float precision.
  std::vector<float> xf(kX.begin(), kX.end());
  auto outf = test::RunKernel(Forward(op, DT_FLOAT, alpha),
                              {AsTensor<float>(xf)});
  ASSERT_TRUE(outf.ok()) << op << ": " << outf.status();
  for (size_t i = 0; i < kX.size(); ++i) {
    EXPECT_NEAR((*outf)[0].flat<float>()(i), f(kX[i]),
                1e-6 * std::max(1.0, std::abs(f(kX[i]))))
        << op << "<float>(" << kX[i] << ")";
  }
}

TEST(ActivationsTest, Elu) {
  ExpectForward("Elu", [](double x) { return x < 0 ? std::expm1(x) : x; });
}

TEST(ActivationsTest, Selu) {
  ExpectForward("Selu", [](double x) {
    return x < 0 ? kScale * kAlpha * std::expm1(x) : kScale * x;
  });
}

TEST(ActivationsTest, LeakyReluDefaultAndExplicitAlpha) {
  // alpha is a float attr: double kernels use 0.2f widened, as TensorFlow.
  ExpectForward("LeakyRelu",
                [](double x) { return x > 0 ? x : double{0.2f} * x; });
  ExpectForward("LeakyRelu",
                [](double x) { return x > 0 ? x : double{1.5f} * x; }, 1.5f);
}

TEST(ActivationsTest, Softplus) {
  ExpectForward("Softplus", [](double x) {
    return x > 0 ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x));
  });
}

TEST(ActivationsTest, Softsign) {
  ExpectForward("Softsign", [](double x) { return x / (std::abs(x) + 1); });
}

TEST(ActivationsTest, SoftplusThresholdsFollowEpsilon) {
  // float: t = log(2^-23) + 2 ~ -13.94. Above -t the input itself, below t
  // exp(x), exactly as TensorFlow computes it.
  auto out = test::RunKernel(Forward("Softplus", DT_FLOAT),
                             {AsTensor<float>({15.f, -15.f, 100.f, -100.f})});
  ASSERT_TRUE(out.ok()) << out.status();
  auto v = (*out)[0].flat<float>();
  EXPECT_EQ(v(0), 15.f);
  EXPECT_EQ(v(1), std::exp(-15.f));
  EXPECT_EQ(v(2), 100.f);
  // exp(-100) = 3.8e-44 is a denormal: kernels run with denormals flushed,
  // as TensorFlow's do, so it is 0 (TensorFlow's Softplus(-100) is 0 too).
  EXPECT_EQ(v(3), 0.f);
}

TEST(ActivationsTest, HalfAndBfloat16) {
  for (const char* op : {"Elu", "Selu", "LeakyRelu", "Softplus", "Softsign"}) {
    auto h = test::RunKernel(
        Forward(op, DT_HALF),
        {AsTensor<Eigen::half>({Eigen::half(-1.0f), Eigen::half(2.0f)})});
    ASSERT_TRUE(h.ok()) << op << ": " << h.status();
    auto b = test::RunKernel(
        Forward(op, DT_BFLOAT16),
        {AsTensor<Eigen::bfloat16>(
            {Eigen::bfloat16(-1.0f), Eigen::bfloat16(2.0f)})});
    ASSERT_TRUE(b.ok()) << op << ": " << b.status();
  }
  auto h = test::RunKernel(
      Forward("Elu", DT_HALF),
      {AsTensor<Eigen::half>({Eigen::half(-1.0f), Eigen::half(2.0f)})});
  EXPECT_NEAR(static_cast<float>((*h)[0].flat<Eigen::half>()(0)),
              std::expm1(-1.0f), 1e-3);
  EXPECT_EQ(static_cast<float>((*h)[0].flat<Eigen::half>()(1)), 2.0f);
}

TEST(ActivationsTest, NaNPropagates) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (const char* op : {"Elu", "Selu", "LeakyRelu", "Softplus", "Softsign"}) {
    auto out = test::RunKernel(Forward(op, DT_FLOAT), {AsTensor<float>({nan})});
    ASSERT_TRUE(out.ok()) << op << ": " << out.status();
    EXPECT_TRUE(std::isnan((*out)[0].flat<float>()(0))) << op;
  }
}

void ExpectGrad(const std::string& op, std::function<double(double, double)> f,
                const std::vector<double>& other, float alpha = -1) {
  std::vector<double> g;
  for (size_t i = 0; i < other.size(); ++i) g.push_back(0.5 + i);
  auto out = test::RunKernel(Grad(op, DT_DOUBLE, alpha),
                             {AsTensor<double>(g), AsTensor<double>(other)});
  ASSERT_TRUE(out.ok()) << op << ": " << out.status();
  for (size_t i = 0; i < other.size(); ++i) {
    EXPECT_NEAR((*out)[0].flat<double>()(i), f(g[i], other[i]),
                1e-12 * std::max(1.0, std::abs(f(g[i], other[i]))))
        << op << " at " << other[i];
  }
}

TEST(ActivationGradsTest, EluGradUsesOutputs) {
  ExpectGrad("EluGrad",
             [](double dy, double y) { return y < 0 ? dy * (y + 1) : dy; },
             {-0.9, -0.5, 0, 0.5, 3});
}

TEST(ActivationGradsTest, SeluGradUsesOutputs) {
  ExpectGrad("SeluGrad",
             [](double dy, double y) {
               return y < 0 ? dy * (y + kScale * kAlpha) : dy * kScale;
             },
             {-1.5, -0.5, 0, 0.5, 3});
}

TEST(ActivationGradsTest, LeakyReluGrad) {
  ExpectGrad("LeakyReluGrad",
             [](double dy, double x) { return x > 0 ? dy : dy * double{0.2f}; },
             {-2, 0, 0.5});
  ExpectGrad("LeakyReluGrad",
             [](double dy, double x) { return x > 0 ? dy : dy * 0.5; },
             {-2, 0, 0.5}, 0.5f);
}

TEST(ActivationGradsTest, SoftplusGradIsSigmoid) {
  ExpectGrad("SoftplusGrad",
             [](double dy, double x) { return dy / (std::exp(-x) + 1); },
             {-20, -1, 0, 1, 20});
}

TEST(ActivationGradsTest, SoftsignGrad) {
  ExpectGrad("SoftsignGrad",
             [](double dy, double x) {
               return dy / ((std::abs(x) + 1) * (std::abs(x) + 1));
             },
             {-3, -0.5, 0, 2});
}

TEST(ActivationGradsTest, ShapesMustMatch) {
  auto out = test::RunKernel(Grad("EluGrad", DT_FLOAT),
                             {AsTensor<float>({1, 2, 3, 4, 5, 6}, {2, 3}),
                              AsTensor<float>({1, 2, 3, 4, 5, 6}, {3, 2})});
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(out.status().message(),
            "Inputs to operation act_grad of type EluGrad must have the same "
            "size and shape.  Input 0: [2,3] != input 1: [3,2]");
}

}  // namespace
}  // namespace tributary
