// DepthwiseConv2dNativeBackpropInput and ...BackpropFilter against the direct
// definition: the forward loop run backwards, scattering every output
// gradient onto the input pixels of its window, and onto the filter taps
// times the input under them (in double).

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "common/framework/tensor.h"
#include "common/framework/tensor_testutil.h"
#include "gtest/gtest.h"
#include "kernels/testing/kernel_runner.h"

namespace tributary {
namespace {

using test::AsTensor;
using test::NodeDefBuilder;

struct GradCase {
  std::vector<int64_t> input;   // NHWC
  std::vector<int64_t> filter;  // [H, W, in_depth, multiplier]
  int64_t stride = 1;
  std::string padding = "SAME";
  std::vector<int64_t> explicit_paddings;  // 8 values with EXPLICIT
};

tensorflow::NodeDef Grad(DataType type, const GradCase& c,
                         bool filter_grad = false) {
  NodeDefBuilder b("grad", filter_grad ? "DepthwiseConv2dNativeBackpropFilter"
                                       : "DepthwiseConv2dNativeBackpropInput");
  b.Input("a").Input("b").Input("out_backprop");
  b.Attr("T", type).Attr("padding", c.padding);
  b.Attr("strides", std::vector<int64_t>{1, c.stride, c.stride, 1});
  if (!c.explicit_paddings.empty()) {
    b.Attr("explicit_paddings", c.explicit_paddings);
  }
  return b.Build();
}

void Window(int64_t in, int64_t k, int64_t s, const GradCase& c, int64_t before,
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

template <typename T>
Tensor Random(const std::vector<int64_t>& dims, std::mt19937* rng) {
  Tensor t(DataTypeToEnum<T>::value, TensorShape(dims));
  std::uniform_int_distribution<int> dist(-4, 4);
  auto flat = t.flat<T>();
  // Small integers: sums are exact in float and double.
  for (int64_t i = 0; i < t.NumElements(); ++i)
    flat(i) = static_cast<T>(dist(*rng));
  return t;
}

template <typename T>
void Check(const GradCase& c, const std::string& label) {
  const int64_t n = c.input[0], h = c.input[1], w = c.input[2], ci = c.input[3];
  const int64_t kh = c.filter[0], kw = c.filter[1], m = c.filter[3];
  const bool ex = c.padding == "EXPLICIT";
  int64_t oh, ow, pad_top, pad_left;
  Window(h, kh, c.stride, c, ex ? c.explicit_paddings[2] : 0,
         ex ? c.explicit_paddings[3] : 0, &oh, &pad_top);
  Window(w, kw, c.stride, c, ex ? c.explicit_paddings[4] : 0,
         ex ? c.explicit_paddings[5] : 0, &ow, &pad_left);
  std::mt19937 rng(11);
  const Tensor filter = Random<T>(c.filter, &rng);
  const Tensor input = Random<T>(c.input, &rng);
  const Tensor dy = Random<T>({n, oh, ow, ci * m}, &rng);
  std::vector<double> dx(n * h * w * ci, 0.0);
  std::vector<double> df(kh * kw * ci * m, 0.0);
  auto f = filter.flat<T>();
  auto xin = input.flat<T>();
  auto g = dy.flat<T>();
  for (int64_t b = 0; b < n; ++b)
    for (int64_t y = 0; y < oh; ++y)
      for (int64_t x = 0; x < ow; ++x)
        for (int64_t ch = 0; ch < ci; ++ch)
          for (int64_t q = 0; q < m; ++q)
            for (int64_t i = 0; i < kh; ++i)
              for (int64_t j = 0; j < kw; ++j) {
                const int64_t iy = y * c.stride - pad_top + i;
                const int64_t ix = x * c.stride - pad_left + j;
                if (iy < 0 || iy >= h || ix < 0 || ix >= w) continue;
                const double grad = static_cast<double>(
                    g(((b * oh + y) * ow + x) * ci * m + ch * m + q));
                dx[((b * h + iy) * w + ix) * ci + ch] +=
                    grad *
                    static_cast<double>(f(((i * kw + j) * ci + ch) * m + q));
                df[((i * kw + j) * ci + ch) * m + q] +=
                    grad *
                    static_cast<double>(xin(((b * h + iy) * w + ix) * ci + ch));
              }
  Tensor expected(DataTypeToEnum<T>::value, TensorShape(c.input));
  for (size_t i = 0; i < dx.size(); ++i)
    expected.flat<T>()(i) = static_cast<T>(dx[i]);
  std::vector<int32_t> sizes(c.input.begin(), c.input.end());
  auto out = test::RunKernel(Grad(DataTypeToEnum<T>::value, c),
                             {AsTensor<int32_t>(sizes), filter, dy});
  ASSERT_TRUE(out.ok()) << label << ": " << out.status();
  test::ExpectTensorEqual<T>((*out)[0], expected);

  Tensor expected_filter(DataTypeToEnum<T>::value, TensorShape(c.filter));
  for (size_t i = 0; i < df.size(); ++i)
    expected_filter.flat<T>()(i) = static_cast<T>(df[i]);
  std::vector<int32_t> filter_sizes(c.filter.begin(), c.filter.end());
  auto fout =
      test::RunKernel(Grad(DataTypeToEnum<T>::value, c, /*filter_grad=*/true),
                      {input, AsTensor<int32_t>(filter_sizes), dy});
  ASSERT_TRUE(fout.ok()) << label << " (filter): " << fout.status();
  test::ExpectTensorEqual<T>((*fout)[0], expected_filter);
}

TEST(DepthwiseConv2dNativeBackpropTest, InputAndFilterMatchReference) {
  std::vector<std::pair<std::string, GradCase>> cases = {
      {"same_3x3_m1", {{2, 5, 6, 3}, {3, 3, 3, 1}}},
      {"same_3x3_m2", {{2, 5, 6, 3}, {3, 3, 3, 2}}},
      {"valid_m3", {{1, 7, 6, 4}, {3, 3, 4, 3}, 1, "VALID"}},
      {"same_s2", {{2, 9, 8, 5}, {3, 3, 5, 2}, 2}},
      {"valid_s3_even", {{1, 10, 11, 2}, {2, 4, 2, 2}, 3, "VALID"}},
      {"filter_larger_same", {{1, 2, 2, 2}, {5, 5, 2, 1}}},
      {"explicit_s2",
       {{2, 7, 7, 3}, {3, 2, 3, 1}, 2, "EXPLICIT", {0, 0, 1, 2, 3, 0, 0, 0}}},
  };
  for (const auto& [label, c] : cases) {
    Check<float>(c, label + "_f32");
    Check<double>(c, label + "_f64");
  }
}

TEST(DepthwiseConv2dNativeBackpropInputTest, OutDepthMismatch) {
  GradCase c{{1, 5, 5, 2}, {3, 3, 2, 2}};
  std::mt19937 rng(2);
  auto out =
      test::RunKernel(Grad(DT_FLOAT, c), {AsTensor<int32_t>({1, 5, 5, 2}),
                                          Random<float>({3, 3, 2, 2}, &rng),
                                          Random<float>({1, 5, 5, 3}, &rng)});
  ASSERT_FALSE(out.ok());
  EXPECT_TRUE(
      absl::StrContains(out.status().message(), "depth_multiplier * in_depth"))
      << out.status();
}

}  // namespace
}  // namespace tributary
