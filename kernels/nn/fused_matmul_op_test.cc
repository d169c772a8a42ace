// _FusedMatMul against the unfused ops: the MatMul kernel, the BiasAdd
// kernel, then the addend and the activation by their definition (double).

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/framework/tensor.h"
#include "common/framework/tensor_testutil.h"
#include "gtest/gtest.h"
#include "kernels/testing/kernel_runner.h"

namespace tributary {
namespace {

using test::NodeDefBuilder;

Tensor Random(const std::vector<int64_t>& shape, std::mt19937* rng) {
  TensorShape s;
  for (int64_t d : shape) s.AddDim(d);
  Tensor t(DT_FLOAT, s);
  std::uniform_real_distribution<float> dist(-1.f, 1.f);
  for (int64_t i = 0; i < t.NumElements(); ++i) t.flat<float>()(i) = dist(*rng);
  return t;
}

tensorflow::NodeDef Fused(const std::vector<std::string>& ops, int num_args,
                          bool ta, bool tb, DataType type = DT_FLOAT) {
  NodeDefBuilder b("fused", "_FusedMatMul");
  b.Input("a").Input("b");
  for (int i = 0; i < num_args; ++i) b.Input(absl::StrCat("arg", i));
  b.Attr("T", type).Attr("transpose_a", ta).Attr("transpose_b", tb);
  b.Attr("fused_ops", ops).Attr("num_args", int64_t{num_args});
  b.Attr("leakyrelu_alpha", 0.25f);
  return b.Build();
}

double Activate(const std::string& act, double v) {
  if (act.empty()) return v;
  if (act == "Relu") return v > 0 ? v : 0;
  if (act == "Relu6") return std::min(std::max(v, 0.0), 6.0);
  if (act == "Elu") return v < 0 ? std::exp(v) - 1 : v;
  if (act == "LeakyRelu") return v > 0 ? v : v * 0.25;
  if (act == "Tanh") return std::tanh(v);
  if (act == "Sigmoid") return 1 / (1 + std::exp(-v));
  if (act == "GeluExact") return 0.5 * v * (1 + std::erf(v / std::sqrt(2.0)));
  if (act == "GeluApproximate") {
    return 0.5 * v *
           (1 + std::tanh(std::sqrt(2 / M_PI) * (v + 0.044715 * v * v * v)));
  }
  ADD_FAILURE() << act;
  return v;
}

TEST(FusedMatMulTest, EqualsUnfused) {
  std::mt19937 rng(3);
  struct Shape {
    int64_t m, k, n;
    bool ta, tb;
  };
  for (const Shape& s : {Shape{3, 5, 7, false, false}, Shape{17, 33, 9, true, false},
                         Shape{64, 40, 130, false, true}, Shape{1, 8, 3, true, true}}) {
    const Tensor a = Random(s.ta ? std::vector<int64_t>{s.k, s.m}
                                 : std::vector<int64_t>{s.m, s.k}, &rng);
    const Tensor b = Random(s.tb ? std::vector<int64_t>{s.n, s.k}
                                 : std::vector<int64_t>{s.k, s.n}, &rng);
    const Tensor bias = Random({s.n}, &rng);
    const Tensor addend = Random({s.m, s.n}, &rng);
    auto mm = test::RunKernel(NodeDefBuilder("mm", "MatMul")
                                  .Input("a").Input("b")
                                  .Attr("T", DT_FLOAT)
                                  .Attr("transpose_a", s.ta)
                                  .Attr("transpose_b", s.tb)
                                  .Build(),
                              {a, b});
    ASSERT_TRUE(mm.ok()) << mm.status();
    auto biased = test::RunKernel(NodeDefBuilder("bias", "BiasAdd")
                                      .Input("v").Input("b")
                                      .Attr("T", DT_FLOAT).Build(),
                                  {(*mm)[0], bias});
    ASSERT_TRUE(biased.ok()) << biased.status();
    for (bool add : {false, true}) {
      for (const char* act : {"", "Relu", "Relu6", "Elu", "LeakyRelu", "Tanh",
                              "Sigmoid", "GeluApproximate", "GeluExact"}) {
        std::vector<std::string> ops = {"BiasAdd"};
        if (add) ops.push_back("Add");
        if (*act != '\0') ops.push_back(act);
        SCOPED_TRACE(absl::StrCat(s.m, "x", s.k, "x", s.n, " [",
                                  absl::StrJoin(ops, ","), "]"));
        std::vector<Tensor> inputs = {a, b, bias};
        if (add) inputs.push_back(addend);
        auto got = test::RunKernel(Fused(ops, add ? 2 : 1, s.ta, s.tb), inputs);
        ASSERT_TRUE(got.ok()) << got.status();
        const Tensor& out = (*got)[0];
        ASSERT_EQ(out.shape(), (*mm)[0].shape());
        for (int64_t i = 0; i < out.NumElements(); ++i) {
          double v = (*biased)[0].flat<float>()(i);
          if (add) v += addend.flat<float>()(i);
          const double want = Activate(act, v);
          ASSERT_NEAR(out.flat<float>()(i), want, 1e-4 + 1e-4 * std::abs(want));
        }
      }
    }
  }
}

TEST(FusedMatMulTest, Errors) {
  std::mt19937 rng(4);
  const Tensor a = Random({2, 3}, &rng), b = Random({3, 4}, &rng);
  auto code = [&](const tensorflow::NodeDef& node, std::vector<Tensor> in,
                  absl::StatusCode want, const std::string& part) {
    SCOPED_TRACE(part);
    test::KernelRunner runner;
    absl::Status s = runner.Init(node);
    if (s.ok()) s = runner.Run(in).status();
    EXPECT_EQ(s.code(), want) << s;
    EXPECT_TRUE(absl::StrContains(s.message(), part)) << s;
    EXPECT_TRUE(absl::StrContains(s.message(), "fused")) << s;
  };
  code(Fused({"FusedBatchNorm"}, 4, false, false),
       {a, b, Random({4}, &rng), Random({4}, &rng), Random({4}, &rng),
        Random({4}, &rng)},
       absl::StatusCode::kUnimplemented,
       "Fusion is not implemented: [FusedBatchNorm]");
  code(Fused({"Relu"}, 1, false, false), {a, b, Random({4}, &rng)},
       absl::StatusCode::kUnimplemented, "Fusion is not implemented: [Relu]");
  code(Fused({"BiasAdd"}, 2, false, false),
       {a, b, Random({4}, &rng), Random({4}, &rng)},
       absl::StatusCode::kInvalidArgument, "one extra argument");
  code(Fused({"BiasAdd"}, 1, false, false), {a, b, Random({3}, &rng)},
       absl::StatusCode::kInvalidArgument, "bias must have as many elements");
  code(Fused({"BiasAdd", "Add"}, 2, false, false),
       {a, b, Random({4}, &rng), Random({4, 2}, &rng)},
       absl::StatusCode::kInvalidArgument, "output's shape");
}

}  // namespace
}  // namespace tributary
