// _FusedConv2D and _FusedDepthwiseConv2dNative against the unfused ops run
// one after another: the Conv2D / DepthwiseConv2dNative kernel, then the
// BiasAdd kernel, then the addend and the activation by their definition (in
// double, so the reference does not lean on the activation kernels). Each
// case runs on the automatic path (oneDNN with post-ops, unless
// TRIBUTARY_CONV_BACKEND=im2col: the fused_conv2d_op_im2col_test target) and
// on the engine's forced blocked path (the unfused engine + the epilogue
// pass). Plus the constant-filter cache, the addend forwarding and errors.

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/framework/constant_buffers.h"
#include "common/framework/tensor.h"
#include "common/framework/tensor_testutil.h"
#include "common/framework/tensor_util.h"
#include "common/op/attr_value_util.h"
#include "gtest/gtest.h"
#include "kernels/nn/conv2d_im2col.h"
#include "kernels/testing/kernel_runner.h"

namespace tributary {
namespace {

using test::NodeDefBuilder;

struct ConvCase {
  std::vector<int64_t> input;   // NHWC
  std::vector<int64_t> filter;  // HWIO (depthwise: [H, W, C, multiplier])
  int64_t stride = 1;
  std::string padding = "SAME";
  std::vector<int64_t> explicit_paddings;
  bool depthwise = false;
};

std::string Describe(const ConvCase& c) {
  return absl::StrCat(c.depthwise ? "depthwise " : "conv ",
                      absl::StrJoin(c.input, "x"), " * ",
                      absl::StrJoin(c.filter, "x"), " s", c.stride, " ",
                      c.padding);
}

void SetConvAttrs(NodeDefBuilder& b, const ConvCase& c) {
  b.Attr("T", DT_FLOAT).Attr("padding", c.padding);
  b.Attr("strides", std::vector<int64_t>{1, c.stride, c.stride, 1});
  if (!c.explicit_paddings.empty()) {
    b.Attr("explicit_paddings", c.explicit_paddings);
  }
}

tensorflow::NodeDef Unfused(const ConvCase& c) {
  NodeDefBuilder b("conv", c.depthwise ? "DepthwiseConv2dNative" : "Conv2D");
  b.Input("input").Input("filter");
  SetConvAttrs(b, c);
  return b.Build();
}

tensorflow::NodeDef Fused(const ConvCase& c,
                          const std::vector<std::string>& fused_ops,
                          int num_args, float alpha = 0.2f) {
  NodeDefBuilder b("fused", c.depthwise ? "_FusedDepthwiseConv2dNative"
                                        : "_FusedConv2D");
  b.Input("input").Input("filter");
  for (int i = 0; i < num_args; ++i) b.Input(absl::StrCat("arg", i));
  SetConvAttrs(b, c);
  b.Attr("fused_ops", fused_ops).Attr("num_args", int64_t{num_args});
  b.Attr("leakyrelu_alpha", alpha).Attr("epsilon", 0.001f);
  if (!c.depthwise) {
    b.Attr("TArgs", std::vector<DataType>(num_args, DT_FLOAT));
  }
  return b.Build();
}

Tensor Random(const std::vector<int64_t>& shape, std::mt19937* rng,
              float lo = -1.f, float hi = 1.f) {
  TensorShape s;
  for (int64_t d : shape) s.AddDim(d);
  Tensor t(DT_FLOAT, s);
  std::uniform_real_distribution<float> dist(lo, hi);
  auto flat = t.flat<float>();
  for (int64_t i = 0; i < flat.size(); ++i) flat(i) = dist(*rng);
  return t;
}

double Activate(const std::string& act, double v, double alpha) {
  if (act.empty()) return v;
  if (act == "Relu") return v > 0 ? v : 0;
  if (act == "Relu6") return std::min(std::max(v, 0.0), 6.0);
  if (act == "Elu") return v < 0 ? std::exp(v) - 1 : v;
  if (act == "LeakyRelu") return v > 0 ? v : v * alpha;
  if (act == "Tanh") return std::tanh(v);
  if (act == "Sigmoid") return 1 / (1 + std::exp(-v));
  if (act == "GeluExact") return 0.5 * v * (1 + std::erf(v / std::sqrt(2.0)));
  if (act == "GeluApproximate") {
    return 0.5 * v *
           (1 + std::tanh(std::sqrt(2 / M_PI) * (v + 0.044715 * v * v * v)));
  }
  ADD_FAILURE() << "no activation " << act;
  return v;
}

// The kind of epilogue and its activation ("" for none).
struct Fusion {
  std::string kind;  // "bias", "bias_add", "bn"
  std::string act;
  std::vector<std::string> ops() const {
    std::vector<std::string> ops;
    if (kind == "bn") {
      ops.push_back("FusedBatchNorm");
    } else {
      ops.push_back("BiasAdd");
      if (kind == "bias_add") ops.push_back("Add");
    }
    if (!act.empty()) ops.push_back(act);
    return ops;
  }
  int num_args() const { return kind == "bn" ? 4 : kind == "bias_add" ? 2 : 1; }
};

// Runs the fused node and the unfused chain; expects equal outputs.
void ExpectFusedEqualsUnfused(const ConvCase& c, const Fusion& f,
                              std::mt19937* rng) {
  SCOPED_TRACE(absl::StrCat(Describe(c), " [", absl::StrJoin(f.ops(), ","),
                            "]"));
  const Tensor input = Random(c.input, rng);
  const Tensor filter = Random(c.filter, rng);
  auto conv = test::RunKernel(Unfused(c), {input, filter});
  ASSERT_TRUE(conv.ok()) << conv.status();
  const Tensor& y = (*conv)[0];
  const int64_t channels = y.dim_size(3);

  std::vector<Tensor> args;
  std::vector<Tensor> inputs = {input, filter};
  Tensor biased = y;
  if (f.kind == "bn") {
    for (int i = 0; i < 4; ++i) {
      args.push_back(i == 3 ? Random({channels}, rng, 0.1f, 2.f)
                            : Random({channels}, rng));
    }
  } else {
    args.push_back(Random({channels}, rng));
    auto b = test::RunKernel(NodeDefBuilder("bias", "BiasAdd")
                                 .Input("value")
                                 .Input("bias")
                                 .Attr("T", DT_FLOAT)
                                 .Build(),
                             {y, args[0]});
    ASSERT_TRUE(b.ok()) << b.status();
    biased = (*b)[0];
    if (f.kind == "bias_add") {
      std::vector<int64_t> shape;
      for (int d = 0; d < y.dims(); ++d) shape.push_back(y.dim_size(d));
      args.push_back(Random(shape, rng));
    }
  }
  inputs.insert(inputs.end(), args.begin(), args.end());

  const float alpha = 0.3f;
  std::vector<double> want(y.NumElements());
  for (int64_t i = 0; i < y.NumElements(); ++i) {
    const int64_t ch = i % channels;
    double v;
    if (f.kind == "bn") {
      v = (y.flat<float>()(i) - args[2].flat<float>()(ch)) /
              std::sqrt(args[3].flat<float>()(ch) + 0.001) *
              args[0].flat<float>()(ch) +
          args[1].flat<float>()(ch);
    } else {
      v = biased.flat<float>()(i);
      if (f.kind == "bias_add") v += args[1].flat<float>()(i);
    }
    want[i] = Activate(f.act, v, alpha);
  }

  for (nn::Conv2DPath path : {nn::Conv2DPath::kAuto, nn::Conv2DPath::kBlocked}) {
    SCOPED_TRACE(path == nn::Conv2DPath::kAuto ? "auto" : "blocked");
    nn::SetConv2DPathForTesting(path);
    auto got = test::RunKernel(Fused(c, f.ops(), f.num_args(), alpha), inputs);
    nn::SetConv2DPathForTesting(nn::Conv2DPath::kAuto);
    ASSERT_TRUE(got.ok()) << got.status();
    const Tensor& out = (*got)[0];
    ASSERT_EQ(out.shape(), y.shape());
    for (int64_t i = 0; i < out.NumElements(); ++i) {
      ASSERT_NEAR(out.flat<float>()(i), want[i], 1e-4 + 1e-4 * std::abs(want[i]))
          << "at " << i;
    }
  }
}

std::vector<ConvCase> Shapes() {
  return {
      {{1, 6, 7, 5}, {3, 3, 5, 7}},                        // odd channels
      {{2, 9, 8, 6}, {3, 3, 6, 12}, 2, "SAME"},            // stride 2, batch
      {{1, 7, 7, 9}, {2, 2, 9, 3}, 1, "VALID"},
      {{2, 5, 6, 16}, {1, 1, 16, 10}, 1, "VALID"},         // 1x1
      {{1, 6, 6, 4}, {3, 3, 4, 5}, 2, "EXPLICIT", {0, 0, 1, 2, 2, 0, 0, 0}},
      {{1, 8, 8, 6}, {3, 3, 6, 1}, 1, "SAME", {}, true},   // depthwise
      {{2, 9, 9, 5}, {3, 3, 5, 2}, 2, "SAME", {}, true},   // multiplier 2
      {{1, 7, 6, 3}, {5, 5, 3, 3}, 1, "VALID", {}, true},
  };
}

TEST(FusedConvTest, BiasAndActivations) {
  std::mt19937 rng(7);
  for (const ConvCase& c : Shapes()) {
    for (const char* act : {"", "Relu", "Relu6", "Elu", "LeakyRelu", "Tanh",
                            "Sigmoid", "GeluApproximate", "GeluExact"}) {
      ExpectFusedEqualsUnfused(c, {"bias", act}, &rng);
    }
  }
}

TEST(FusedConvTest, ResidualAdd) {
  std::mt19937 rng(8);
  for (const ConvCase& c : Shapes()) {
    for (const char* act : {"", "Relu", "Relu6", "Elu", "LeakyRelu"}) {
      ExpectFusedEqualsUnfused(c, {"bias_add", act}, &rng);
    }
  }
}

TEST(FusedConvTest, BatchNorm) {
  std::mt19937 rng(9);
  for (const ConvCase& c : Shapes()) {
    for (const char* act : {"", "Relu", "Relu6", "Elu", "LeakyRelu"}) {
      ExpectFusedEqualsUnfused(c, {"bn", act}, &rng);
    }
  }
}

// A Const's filter: the kernel keeps oneDNN's reordered copy; a second run,
// and a run after the constant's buffer is unregistered, still agree.
TEST(FusedConvTest, ConstantFilterCache) {
  std::mt19937 rng(10);
  const ConvCase c{{1, 8, 8, 8}, {3, 3, 8, 16}};
  const Tensor input = Random(c.input, &rng);
  const Tensor filter = Random(c.filter, &rng);
  const Tensor bias = Random({16}, &rng);
  test::KernelRunner runner;
  ASSERT_TRUE(runner.Init(Fused(c, {"BiasAdd", "Relu"}, 1)).ok());
  RegisterConstantBuffer(filter.flat<float>().data());
  auto first = runner.Run({input, filter, bias});
  ASSERT_TRUE(first.ok()) << first.status();
  const Tensor a = (*first)[0];
  auto second = runner.Run({input, filter, bias});
  ASSERT_TRUE(second.ok()) << second.status();
  UnregisterConstantBuffer(filter.flat<float>().data());
  auto third = runner.Run({input, filter, bias});
  ASSERT_TRUE(third.ok()) << third.status();
  for (int64_t i = 0; i < a.NumElements(); ++i) {
    ASSERT_EQ(a.flat<float>()(i), (*second)[0].flat<float>()(i));
    ASSERT_EQ(a.flat<float>()(i), (*third)[0].flat<float>()(i));
  }
}

// Output that could take the addend's buffer (the runner holds its own
// reference, so it is copied): the addend tensor is left untouched.
TEST(FusedConvTest, AddendIsNotOverwritten) {
  std::mt19937 rng(11);
  const ConvCase c{{1, 5, 5, 4}, {3, 3, 4, 4}};
  const Tensor addend = Random({1, 5, 5, 4}, &rng);
  const Tensor before = tensor::DeepCopy(addend);
  auto got = test::RunKernel(Fused(c, {"BiasAdd", "Add", "Relu"}, 2),
                             {Random(c.input, &rng), Random(c.filter, &rng),
                              Random({4}, &rng), addend});
  ASSERT_TRUE(got.ok()) << got.status();
  for (int64_t i = 0; i < addend.NumElements(); ++i) {
    ASSERT_EQ(addend.flat<float>()(i), before.flat<float>()(i));
  }
}

// double, half and bfloat16 take the fallback (unfused engine + epilogue):
// they agree with float's fused result to their precision.
TEST(FusedConvTest, OtherTypes) {
  std::mt19937 rng(13);
  for (bool depthwise : {false, true}) {
    ConvCase c{{2, 6, 5, 3}, {3, 3, 3, depthwise ? 2 : 5}, 2, "SAME"};
    c.depthwise = depthwise;
    const int64_t out_c = depthwise ? 6 : 5;
    const std::vector<Tensor> inputs = {
        Random(c.input, &rng), Random(c.filter, &rng), Random({out_c}, &rng),
        Random({2, 3, 3, out_c}, &rng)};
    auto want = test::RunKernel(Fused(c, {"BiasAdd", "Add", "Relu6"}, 2), inputs);
    ASSERT_TRUE(want.ok()) << want.status();
    std::vector<DataType> types = {DT_DOUBLE, DT_HALF};
    if (depthwise) types.push_back(DT_BFLOAT16);
    for (DataType type : types) {
      SCOPED_TRACE(absl::StrCat(depthwise, " ", DataTypeString(type)));
      tensorflow::NodeDef node = Fused(c, {"BiasAdd", "Add", "Relu6"}, 2);
      SetAttrValue(type, &(*node.mutable_attr())["T"]);
      if (!depthwise) {
        SetAttrValue(std::vector<DataType>(2, type),
                     &(*node.mutable_attr())["TArgs"]);
      }
      std::vector<Tensor> cast;
      for (const Tensor& t : inputs) {
        auto r = test::RunKernel(NodeDefBuilder("cast", "Cast")
                                     .Input("x")
                                     .Attr("SrcT", DT_FLOAT)
                                     .Attr("DstT", type)
                                     .Build(),
                                 {t});
        ASSERT_TRUE(r.ok()) << r.status();
        cast.push_back((*r)[0]);
      }
      auto got = test::RunKernel(node, cast);
      ASSERT_TRUE(got.ok()) << got.status();
      auto back = test::RunKernel(NodeDefBuilder("cast", "Cast")
                                      .Input("x")
                                      .Attr("SrcT", type)
                                      .Attr("DstT", DT_FLOAT)
                                      .Build(),
                                  {(*got)[0]});
      ASSERT_TRUE(back.ok()) << back.status();
      const double tol = type == DT_DOUBLE ? 1e-5 : 0.05;
      for (int64_t i = 0; i < (*want)[0].NumElements(); ++i) {
        ASSERT_NEAR((*back)[0].flat<float>()(i), (*want)[0].flat<float>()(i),
                    tol)
            << "at " << i;
      }
    }
  }
}

void ExpectError(const tensorflow::NodeDef& node,
                 const std::vector<Tensor>& inputs, absl::StatusCode code,
                 const std::vector<std::string>& parts) {
  SCOPED_TRACE(absl::StrCat(node.op(), " ", node.DebugString()));
  test::KernelRunner runner;
  absl::Status s = runner.Init(node);
  if (s.ok()) s = runner.Run(inputs).status();
  ASSERT_EQ(s.code(), code) << s;
  for (const std::string& part : parts) {
    EXPECT_TRUE(absl::StrContains(s.message(), part))
        << s << " lacks " << part;
  }
}

TEST(FusedConvTest, Errors) {
  std::mt19937 rng(12);
  for (bool depthwise : {false, true}) {
    ConvCase c{{1, 5, 5, 4}, {3, 3, 4, 1}};
    c.depthwise = depthwise;
    const int64_t out_c = depthwise ? 4 : 1;
    const Tensor x = Random(c.input, &rng), w = Random(c.filter, &rng);
    ExpectError(Fused(c, {"Relu"}, 1), {x, w, Random({out_c}, &rng)},
                absl::StatusCode::kUnimplemented,
                {"Fusion is not implemented: [Relu]", "fused"});
    ExpectError(Fused(c, {"BiasAdd", "Softplus"}, 1),
                {x, w, Random({out_c}, &rng)},
                absl::StatusCode::kUnimplemented,
                {"Fusion is not implemented: [BiasAdd,Softplus]"});
    ExpectError(Fused(c, {"BiasAdd", "Relu", "Add"}, 2),
                {x, w, Random({out_c}, &rng), Random({1, 5, 5, out_c}, &rng)},
                absl::StatusCode::kUnimplemented,
                {"[BiasAdd,Relu,Add]"});
    ExpectError(Fused(c, {}, 1), {x, w, Random({out_c}, &rng)},
                absl::StatusCode::kInvalidArgument,
                {"must have at least one fused op", "'fused'"});
    ExpectError(Fused(c, {"BiasAdd"}, 2),
                {x, w, Random({out_c}, &rng), Random({out_c}, &rng)},
                absl::StatusCode::kInvalidArgument,
                {"must have one extra argument", "'fused'"});
    ExpectError(Fused(c, {"FusedBatchNorm"}, 3),
                {x, w, Random({out_c}, &rng), Random({out_c}, &rng),
                 Random({out_c}, &rng)},
                absl::StatusCode::kInvalidArgument,
                {"four extra arguments", "'fused'"});
    ExpectError(Fused(c, {"BiasAdd"}, 1), {x, w, Random({out_c + 1}, &rng)},
                absl::StatusCode::kInvalidArgument,
                {"bias must have as many elements", "'fused'"});
    ExpectError(Fused(c, {"BiasAdd"}, 1), {x, w, Random({1, out_c}, &rng)},
                absl::StatusCode::kInvalidArgument,
                {"bias must be 1-dimensional", "'fused'"});
    ExpectError(Fused(c, {"BiasAdd", "Add"}, 2),
                {x, w, Random({out_c}, &rng), Random({1, 5, 4, out_c}, &rng)},
                absl::StatusCode::kInvalidArgument,
                {"output's shape", "[1,5,4,", "'fused'"});
  }
}

}  // namespace
}  // namespace tributary
