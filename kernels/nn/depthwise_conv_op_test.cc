// DepthwiseConv2dNative against the direct definition (a loop over output
// pixels, channels and taps, in double), on both engine paths; plus the
// errors and empty cases the kernel handles itself.

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/framework/tensor.h"
#include "common/framework/tensor_testutil.h"
#include "gtest/gtest.h"
#include "kernels/nn/conv2d_im2col.h"
#include "kernels/testing/kernel_runner.h"

namespace tributary {
namespace {

using test::NodeDefBuilder;

struct DwCase {
  std::vector<int64_t> input;   // NHWC
  std::vector<int64_t> filter;  // [H, W, in_depth, multiplier]
  int64_t stride = 1;
  std::string padding = "SAME";
  std::vector<int64_t> explicit_paddings;  // 8 values with EXPLICIT
  std::vector<int64_t> dilations = {1, 1, 1, 1};
  std::string format = "NHWC";
};

tensorflow::NodeDef Dw(DataType type, const DwCase& c) {
  NodeDefBuilder b("dw", "DepthwiseConv2dNative");
  b.Input("input").Input("filter").Attr("T", type).Attr("padding", c.padding);
  b.Attr("data_format", c.format);
  b.Attr("strides", std::vector<int64_t>{1, c.stride, c.stride, 1});
  b.Attr("dilations", c.dilations);
  if (!c.explicit_paddings.empty()) {
    b.Attr("explicit_paddings", c.explicit_paddings);
  }
  return b.Build();
}

// Output size and leading padding of one spatial dimension.
void Window(int64_t in, int64_t k, int64_t s, const DwCase& c, int64_t before,
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

// output[b, y, x, c * m + q] = sum_{i,j} input[b, y*s+i-pad, x*s+j-pad, c] *
//                                        filter[i, j, c, q]
template <typename T>
Tensor Reference(const DwCase& c, const Tensor& input, const Tensor& filter) {
  const int64_t n = c.input[0], h = c.input[1], w = c.input[2], ci = c.input[3];
  const int64_t kh = c.filter[0], kw = c.filter[1], m = c.filter[3];
  const bool ex = c.padding == "EXPLICIT";
  int64_t oh, ow, pad_top, pad_left;
  Window(h, kh, c.stride, c, ex ? c.explicit_paddings[2] : 0,
         ex ? c.explicit_paddings[3] : 0, &oh, &pad_top);
  Window(w, kw, c.stride, c, ex ? c.explicit_paddings[4] : 0,
         ex ? c.explicit_paddings[5] : 0, &ow, &pad_left);
  Tensor out(DataTypeToEnum<T>::value, TensorShape({n, oh, ow, ci * m}));
  auto in = input.flat<T>();
  auto f = filter.flat<T>();
  auto o = out.flat<T>();
  for (int64_t b = 0; b < n; ++b)
    for (int64_t y = 0; y < oh; ++y)
      for (int64_t x = 0; x < ow; ++x)
        for (int64_t ch = 0; ch < ci; ++ch)
          for (int64_t q = 0; q < m; ++q) {
            double acc = 0;
            for (int64_t i = 0; i < kh; ++i)
              for (int64_t j = 0; j < kw; ++j) {
                const int64_t iy = y * c.stride - pad_top + i;
                const int64_t ix = x * c.stride - pad_left + j;
                if (iy < 0 || iy >= h || ix < 0 || ix >= w) continue;
                acc +=
                    static_cast<double>(in(((b * h + iy) * w + ix) * ci + ch)) *
                    static_cast<double>(f(((i * kw + j) * ci + ch) * m + q));
              }
            o(((b * oh + y) * ow + x) * ci * m + ch * m + q) =
                static_cast<T>(acc);
          }
  return out;
}

template <typename T>
Tensor Random(const std::vector<int64_t>& dims, std::mt19937* rng) {
  Tensor t(DataTypeToEnum<T>::value, TensorShape(dims));
  std::uniform_int_distribution<int> dist(-4, 4);
  auto flat = t.flat<T>();
  // Small integers: exact in float and double, so the check is exact.
  for (int64_t i = 0; i < t.NumElements(); ++i)
    flat(i) = static_cast<T>(dist(*rng));
  return t;
}

template <typename T>
void Check(const DwCase& c, const std::string& label) {
  std::mt19937 rng(7);
  const Tensor input = Random<T>(c.input, &rng);
  const Tensor filter = Random<T>(c.filter, &rng);
  auto out = test::RunKernel(Dw(DataTypeToEnum<T>::value, c), {input, filter});
  ASSERT_TRUE(out.ok()) << label << ": " << out.status();
  test::ExpectTensorEqual<T>((*out)[0], Reference<T>(c, input, filter));
}

TEST(DepthwiseConv2dNativeTest, MatchesReference) {
  std::vector<std::pair<std::string, DwCase>> cases = {
      {"same_3x3_m1", {{2, 5, 6, 3}, {3, 3, 3, 1}}},
      {"same_3x3_m2", {{2, 5, 6, 3}, {3, 3, 3, 2}}},
      {"valid_3x3_m3", {{1, 7, 6, 4}, {3, 3, 4, 3}, 1, "VALID"}},
      {"same_s2", {{2, 7, 8, 5}, {3, 3, 5, 2}, 2}},
      {"valid_s2_even", {{1, 8, 9, 2}, {2, 4, 2, 1}, 2, "VALID"}},
      {"one_channel", {{1, 5, 5, 1}, {3, 3, 1, 4}}},
      {"one_by_one", {{2, 4, 4, 6}, {1, 1, 6, 2}}},
      {"whole_image", {{2, 3, 4, 3}, {3, 4, 3, 2}, 1, "VALID"}},
      {"filter_larger_same", {{1, 2, 2, 2}, {5, 5, 2, 1}}},
      {"explicit",
       {{1, 5, 6, 2}, {3, 3, 2, 2}, 2, "EXPLICIT", {0, 0, 2, 1, 0, 3, 0, 0}}},
  };
  for (nn::Conv2DPath path : {nn::Conv2DPath::kAuto, nn::Conv2DPath::kBlocked,
                              nn::Conv2DPath::kChunked}) {
    nn::SetConv2DPathForTesting(path);
    const std::string p = absl::StrCat("_path", static_cast<int>(path));
    for (const auto& [label, c] : cases) {
      Check<float>(c, label + "_f32" + p);
      Check<double>(c, label + "_f64" + p);
    }
  }
  nn::SetConv2DPathForTesting(nn::Conv2DPath::kAuto);
}

absl::Status RunStatus(const DwCase& c, const std::vector<int64_t>& in,
                       const std::vector<int64_t>& filter) {
  std::mt19937 rng(1);
  return test::RunKernel(Dw(DT_FLOAT, c),
                         {Random<float>(in, &rng), Random<float>(filter, &rng)})
      .status();
}

TEST(DepthwiseConv2dNativeTest, Errors) {
  DwCase c{{1, 5, 5, 2}, {3, 3, 2, 2}};
  absl::Status s = RunStatus(c, {1, 5, 5, 2}, {3, 3, 3, 2});
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(s.message(), "same depth: 2 vs 3")) << s;
  s = RunStatus(c, {5, 5, 2}, {3, 3, 2, 2});
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  s = RunStatus(c, {1, 5, 5, 2}, {3, 2, 2});
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  DwCase dilated = c;
  dilated.dilations = {1, 2, 2, 1};
  s = RunStatus(dilated, {1, 5, 5, 2}, {3, 3, 2, 2});
  EXPECT_EQ(s.code(), absl::StatusCode::kUnimplemented);
  EXPECT_TRUE(absl::StrContains(s.message(), "received [1 2 2 1]")) << s;
  DwCase nchw = c;
  nchw.format = "NCHW";
  s = RunStatus(nchw, {1, 2, 5, 5}, {3, 3, 2, 2});
  EXPECT_EQ(s.code(), absl::StatusCode::kUnimplemented);
  EXPECT_TRUE(RunStatus(nchw, {0, 2, 5, 5}, {3, 3, 2, 2}).ok());
}

TEST(DepthwiseConv2dNativeTest, EmptyFilterWindowGivesZeros) {
  std::mt19937 rng(3);
  DwCase c{{1, 4, 4, 2}, {0, 3, 2, 1}};
  auto out = test::RunKernel(Dw(DT_FLOAT, c), {Random<float>(c.input, &rng),
                                               Random<float>(c.filter, &rng)});
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ((*out)[0].shape(), TensorShape({1, 4, 4, 2}));
  for (int64_t i = 0; i < 32; ++i) EXPECT_EQ((*out)[0].flat<float>()(i), 0.f);
}

}  // namespace
}  // namespace tributary
