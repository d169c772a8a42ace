// Conv2DBackpropInput / Conv2DBackpropFilter against the definition of the
// convolution's gradients (direct loops, accumulated in double), on shapes
// that take one block and several blocks of the engines, plus the attribute
// errors TensorFlow reports at construction (which its shape functions keep
// the oracle from reaching). Both schedules of the input gradient are forced
// in turn.

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "common/framework/tensor.h"
#include "common/framework/tensor_testutil.h"
#include "gtest/gtest.h"
#include "kernels/nn/conv2d_im2col.h"
#include "kernels/testing/kernel_runner.h"

namespace tributary {
namespace {

using test::AsTensor;
using test::NodeDefBuilder;

struct Case {
  std::vector<int64_t> input;   // NHWC
  std::vector<int64_t> filter;  // HWIO
  int64_t stride_h = 1, stride_w = 1;
  std::string padding = "SAME";
  int64_t pad_top = 0, pad_bottom = 0, pad_left = 0, pad_right = 0;  // EXPLICIT
};

tensorflow::NodeDef Node(const char* op, DataType type, const Case& c,
                         const std::string& format = "NHWC",
                         std::vector<int64_t> dilations = {1, 1, 1, 1}) {
  NodeDefBuilder b("grad", op);
  b.Input("a").Input("b").Input("c").Attr("T", type).Attr("padding", c.padding);
  b.Attr("data_format", format);
  b.Attr("strides", std::vector<int64_t>{1, c.stride_h, c.stride_w, 1});
  b.Attr("dilations", dilations);
  if (c.padding == "EXPLICIT") {
    b.Attr("explicit_paddings",
           std::vector<int64_t>{0, 0, c.pad_top, c.pad_bottom, c.pad_left,
                                c.pad_right, 0, 0});
  }
  return b.Build();
}

// Output size and leading padding of one spatial dimension.
void Window(const Case& c, int64_t in, int64_t k, int64_t s, int64_t before,
            int64_t after, int64_t* out, int64_t* pad) {
  if (c.padding == "VALID") {
    *out = (in - k + s) / s;
    *pad = 0;
  } else if (c.padding == "SAME") {
    *out = (in + s - 1) / s;
    *pad = std::max<int64_t>(0, (*out - 1) * s + k - in) / 2;
  } else {
    *out = (in + before + after - k + s) / s;
    *pad = before;
  }
}

struct Geometry {
  int64_t n, h, w, ci, kh, kw, co, oh, ow, pad_top, pad_left;
};

Geometry Geom(const Case& c) {
  Geometry g{c.input[0],
             c.input[1],
             c.input[2],
             c.input[3],
             c.filter[0],
             c.filter[1],
             c.filter[3],
             0,
             0,
             0,
             0};
  Window(c, g.h, g.kh, c.stride_h, c.pad_top, c.pad_bottom, &g.oh, &g.pad_top);
  Window(c, g.w, g.kw, c.stride_w, c.pad_left, c.pad_right, &g.ow, &g.pad_left);
  return g;
}

// Calls fn(input index, filter index, output index) for every in-image tap
// of the forward convolution.
template <typename Fn>
void ForEachTap(const Case& c, const Geometry& g, Fn fn) {
  for (int64_t b = 0; b < g.n; ++b)
    for (int64_t y = 0; y < g.oh; ++y)
      for (int64_t x = 0; x < g.ow; ++x)
        for (int64_t i = 0; i < g.kh; ++i)
          for (int64_t j = 0; j < g.kw; ++j) {
            const int64_t iy = y * c.stride_h - g.pad_top + i;
            const int64_t ix = x * c.stride_w - g.pad_left + j;
            if (iy < 0 || iy >= g.h || ix < 0 || ix >= g.w) continue;
            for (int64_t ci = 0; ci < g.ci; ++ci)
              for (int64_t co = 0; co < g.co; ++co)
                fn(((b * g.h + iy) * g.w + ix) * g.ci + ci,
                   ((i * g.kw + j) * g.ci + ci) * g.co + co,
                   ((b * g.oh + y) * g.ow + x) * g.co + co);
          }
}

Tensor Random(const std::vector<int64_t>& dims, std::mt19937* rng) {
  Tensor t(DT_FLOAT, TensorShape(dims));
  std::uniform_real_distribution<float> dist(-1, 1);
  for (int64_t i = 0; i < t.NumElements(); ++i) t.flat<float>()(i) = dist(*rng);
  return t;
}

Tensor Sizes(const std::vector<int64_t>& dims) {
  std::vector<int32_t> v(dims.begin(), dims.end());
  return AsTensor<int32_t>(v, {static_cast<int64_t>(v.size())});
}

void CheckCase(const Case& c) {
  SCOPED_TRACE(testing::Message()
               << "input " << c.input[1] << "x" << c.input[2] << "x"
               << c.input[3] << " filter " << c.filter[0] << "x" << c.filter[1]
               << " " << c.padding);
  const Geometry g = Geom(c);
  std::mt19937 rng(7);
  const Tensor x = Random(c.input, &rng);
  const Tensor w = Random(c.filter, &rng);
  const Tensor dy = Random({g.n, g.oh, g.ow, g.co}, &rng);
  std::vector<double> dx(x.NumElements(), 0.0), dw(w.NumElements(), 0.0);
  ForEachTap(c, g, [&](int64_t xi, int64_t wi, int64_t yi) {
    dx[xi] += double(w.flat<float>()(wi)) * dy.flat<float>()(yi);
    dw[wi] += double(x.flat<float>()(xi)) * dy.flat<float>()(yi);
  });

  auto in_grad = test::RunKernel(Node("Conv2DBackpropInput", DT_FLOAT, c),
                                 {Sizes(c.input), w, dy});
  ASSERT_TRUE(in_grad.ok()) << in_grad.status();
  auto filter_grad = test::RunKernel(Node("Conv2DBackpropFilter", DT_FLOAT, c),
                                     {x, Sizes(c.filter), dy});
  ASSERT_TRUE(filter_grad.ok()) << filter_grad.status();
  const Tensor& got_dx = (*in_grad)[0];
  const Tensor& got_dw = (*filter_grad)[0];
  ASSERT_EQ(got_dx.shape(), x.shape());
  ASSERT_EQ(got_dw.shape(), w.shape());
  for (int64_t i = 0; i < x.NumElements(); ++i) {
    ASSERT_NEAR(got_dx.flat<float>()(i), dx[i], 1e-4 * (1 + std::abs(dx[i])))
        << "dx " << i;
  }
  for (int64_t i = 0; i < w.NumElements(); ++i) {
    ASSERT_NEAR(got_dw.flat<float>()(i), dw[i], 1e-4 * (1 + std::abs(dw[i])))
        << "dw " << i;
  }
}

TEST(Conv2DBackpropTest, MatchesDefinition) {
  Case same{{2, 5, 6, 3}, {3, 3, 3, 4}};
  Case valid{{2, 7, 7, 2}, {2, 3, 2, 5}, 2, 3, "VALID"};
  Case strided_same{{3, 9, 8, 2}, {3, 3, 2, 3}, 2, 2, "SAME"};
  Case explicit_pad{{2, 5, 5, 2}, {3, 3, 2, 3}, 2, 1, "EXPLICIT", 1, 2, 0, 1};
  Case sparse{{1, 9, 9, 2}, {2, 2, 2, 2}, 3, 3, "VALID"};
  // A patch of 3*3*1024 floats fills a block with 48 rows: 100 pixels per
  // image take three blocks, so the blocks' accumulation is covered too.
  Case multi_block{{2, 10, 10, 1024}, {3, 3, 1024, 2}};
  // 800 rows of 36 KiB patches: the chunked input gradient takes two 16 MiB
  // chunks of 455 rows, the first ending inside the second image.
  Case multi_chunk{{2, 20, 20, 1024}, {3, 3, 1024, 2}};
  // The input gradient's two schedules (by image, chunked), each forced.
  for (nn::Conv2DPath path : {nn::Conv2DPath::kAuto, nn::Conv2DPath::kBlocked,
                              nn::Conv2DPath::kChunked}) {
    SCOPED_TRACE(testing::Message() << "path " << static_cast<int>(path));
    nn::SetConv2DPathForTesting(path);
    for (const Case& c : {same, valid, strided_same, explicit_pad, sparse,
                          multi_block, multi_chunk}) {
      CheckCase(c);
    }
  }
  nn::SetConv2DPathForTesting(nn::Conv2DPath::kAuto);
}

TEST(Conv2DBackpropTest, AttributeErrors) {
  const Case c{{1, 3, 3, 1}, {1, 1, 1, 1}};
  auto nchw =
      test::RunKernel(Node("Conv2DBackpropInput", DT_FLOAT, c, "NCHW"),
                      {Sizes({1, 1, 3, 3}), Tensor(DT_FLOAT, {1, 1, 1, 1}),
                       Tensor(DT_FLOAT, {1, 1, 3, 3})});
  ASSERT_FALSE(nchw.ok());
  EXPECT_EQ(nchw.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(nchw.status().message(),
                                "Conv2DCustomBackpropInputOp only supports "
                                "NHWC."))
      << nchw.status();
  auto dilated = test::RunKernel(
      Node("Conv2DBackpropFilter", DT_FLOAT, c, "NHWC", {1, 2, 2, 1}),
      {Tensor(DT_FLOAT, {1, 3, 3, 1}), Sizes({1, 1, 1, 1}),
       Tensor(DT_FLOAT, {1, 3, 3, 1})});
  ASSERT_FALSE(dilated.ok());
  EXPECT_TRUE(absl::StrContains(dilated.status().message(),
                                "do not yet support dilation rates larger "
                                "than 1"))
      << dilated.status();
}

}  // namespace
}  // namespace tributary
