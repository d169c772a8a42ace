// The oneDNN convolution backend called directly: it must take the shapes
// the models use (plain, strided, padded, dilated, grouped, depthwise) and
// give the definition's result. Inputs are small integers, so float sums
// are exact and the comparison is equality.

#include "kernels/nn/onednn_conv.h"

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "common/framework/constant_buffers.h"
#include "gtest/gtest.h"

namespace tributary {
namespace nn {
namespace {

// The definition, NHWC input, HWIO filter (I = patch depth), NHWC output.
std::vector<float> Reference(const Conv2DGeometry& g,
                             const std::vector<float>& in,
                             const std::vector<float>& f) {
  std::vector<float> out(g.out_pixels() * g.out_depth, 0.f);
  const int64_t group_out = g.out_depth / g.groups();
  for (int64_t b = 0; b < g.batch; ++b)
    for (int64_t y = 0; y < g.out_rows; ++y)
      for (int64_t x = 0; x < g.out_cols; ++x)
        for (int64_t oc = 0; oc < g.out_depth; ++oc) {
          double acc = 0;
          const int64_t group = oc / group_out;
          for (int64_t ky = 0; ky < g.filter_rows; ++ky)
            for (int64_t kx = 0; kx < g.filter_cols; ++kx) {
              const int64_t iy =
                  y * g.stride_rows - g.pad_top + ky * g.dilation_rows;
              const int64_t ix =
                  x * g.stride_cols - g.pad_left + kx * g.dilation_cols;
              if (iy < 0 || iy >= g.in_rows || ix < 0 || ix >= g.in_cols)
                continue;
              for (int64_t ic = 0; ic < g.patch_depth; ++ic) {
                acc += in[((b * g.in_rows + iy) * g.in_cols + ix) * g.in_depth +
                          group * g.patch_depth + ic] *
                       f[((ky * g.filter_cols + kx) * g.patch_depth + ic) *
                             g.out_depth +
                         oc];
              }
            }
          out[((b * g.out_rows + y) * g.out_cols + x) * g.out_depth + oc] =
              static_cast<float>(acc);
        }
  return out;
}

Conv2DGeometry Geometry(int64_t n, int64_t h, int64_t w, int64_t c, int64_t k,
                        int64_t patch_depth, int64_t o, int64_t stride,
                        int64_t dilation, int64_t pad) {
  Conv2DGeometry g;
  g.batch = n;
  g.in_rows = h;
  g.in_cols = w;
  g.in_depth = c;
  g.filter_rows = g.filter_cols = k;
  g.patch_depth = patch_depth;
  g.out_depth = o;
  g.stride_rows = g.stride_cols = stride;
  g.dilation_rows = g.dilation_cols = dilation;
  g.pad_top = g.pad_left = pad;
  g.pad_bottom = g.pad_right = pad;
  const int64_t eff = (k - 1) * dilation + 1;
  g.out_rows = (h + 2 * pad - eff) / stride + 1;
  g.out_cols = (w + 2 * pad - eff) / stride + 1;
  return g;
}

TEST(OneDnnConvTest, MatchesTheDefinition) {
  if (!OneDnnConvEnabled()) {
    GTEST_SKIP() << ConvBackendDescription();
  }
  const std::vector<std::pair<std::string, Conv2DGeometry>> cases = {
      {"1x1", Geometry(2, 5, 6, 16, 1, 16, 8, 1, 1, 0)},
      {"3x3_same", Geometry(1, 7, 7, 8, 3, 8, 16, 1, 1, 1)},
      {"7x7_stride2", Geometry(2, 16, 16, 3, 7, 3, 8, 2, 1, 3)},
      {"1x1_stride2", Geometry(1, 8, 8, 16, 1, 16, 32, 2, 1, 0)},
      {"dilated", Geometry(1, 9, 9, 4, 3, 4, 4, 1, 2, 2)},
      {"grouped", Geometry(2, 5, 5, 6, 3, 2, 9, 1, 1, 1)},
      {"depthwise", Geometry(1, 8, 8, 12, 3, 1, 12, 1, 1, 1)},
      {"depthwise_mult2_stride2", Geometry(1, 9, 9, 5, 3, 1, 10, 2, 1, 1)},
  };
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> dist(-4, 4);
  for (const auto& [label, g] : cases) {
    std::vector<float> in(g.batch * g.in_rows * g.in_cols * g.in_depth);
    std::vector<float> f(g.filter_rows * g.filter_cols * g.patch_depth *
                         g.out_depth);
    for (float& v : in) v = dist(rng);
    for (float& v : f) v = dist(rng);
    std::vector<float> out(g.out_pixels() * g.out_depth, -1.f);
    ASSERT_TRUE(OneDnnConv2D(g, in.data(), f.data(), out.data(), 2)) << label;
    EXPECT_EQ(out, Reference(g, in, f)) << label;
  }
}

// The kernel's cache keeps a reordered filter only while the filter is a
// registered constant buffer: a variable's filter that changed between
// calls is read again, and a constant re-registered at the same address
// (another Const) gets a new id and is reordered again.
TEST(OneDnnConvTest, WeightsCacheFollowsTheFilter) {
  if (!OneDnnConvEnabled()) {
    GTEST_SKIP() << ConvBackendDescription();
  }
  const Conv2DGeometry g = Geometry(1, 6, 6, 8, 3, 8, 16, 1, 1, 1);
  std::vector<float> in(6 * 6 * 8), f(3 * 3 * 8 * 16);
  std::mt19937 rng(3);
  std::uniform_int_distribution<int> dist(-4, 4);
  for (float& v : in) v = dist(rng);
  for (float& v : f) v = dist(rng);
  std::vector<float> out(6 * 6 * 16);
  OneDnnWeightsCache cache;

  // Not a constant: every call sees the current values.
  ASSERT_TRUE(OneDnnConv2D(g, in.data(), f.data(), out.data(), 2, &cache));
  EXPECT_EQ(out, Reference(g, in, f));
  for (float& v : f) v = -v;
  ASSERT_TRUE(OneDnnConv2D(g, in.data(), f.data(), out.data(), 2, &cache));
  EXPECT_EQ(out, Reference(g, in, f));

  // A constant: cached, and the cached copy gives the same result.
  RegisterConstantBuffer(f.data());
  ASSERT_TRUE(OneDnnConv2D(g, in.data(), f.data(), out.data(), 2, &cache));
  EXPECT_EQ(out, Reference(g, in, f));
  ASSERT_TRUE(OneDnnConv2D(g, in.data(), f.data(), out.data(), 2, &cache));
  EXPECT_EQ(out, Reference(g, in, f));

  // Another constant at the same address: a new id, so reordered again.
  UnregisterConstantBuffer(f.data());
  for (float& v : f) v = dist(rng);
  RegisterConstantBuffer(f.data());
  ASSERT_TRUE(OneDnnConv2D(g, in.data(), f.data(), out.data(), 2, &cache));
  EXPECT_EQ(out, Reference(g, in, f));
  UnregisterConstantBuffer(f.data());
}

// The fused convolutions' post-ops: oneDNN must take them (not decline to
// the fallback) on the model shapes, and give
// act(((conv + bias) * scale + shift) + addend).
TEST(OneDnnConvTest, PostOpsAreFused) {
  if (!OneDnnConvEnabled()) {
    GTEST_SKIP() << ConvBackendDescription();
  }
  using A = OneDnnPostOps::Activation;
  const std::vector<std::pair<std::string, Conv2DGeometry>> cases = {
      {"1x1", Geometry(2, 5, 6, 16, 1, 16, 8, 1, 1, 0)},
      {"3x3_odd", Geometry(1, 7, 7, 5, 3, 5, 7, 2, 1, 1)},
      {"depthwise", Geometry(1, 8, 8, 12, 3, 1, 12, 1, 1, 1)},
  };
  std::mt19937 rng(11);
  std::uniform_int_distribution<int> dist(-4, 4);
  for (const auto& [label, g] : cases) {
    std::vector<float> in(g.batch * g.in_rows * g.in_cols * g.in_depth);
    std::vector<float> f(g.filter_rows * g.filter_cols * g.patch_depth *
                         g.out_depth);
    std::vector<float> bias(g.out_depth), scale(g.out_depth),
        shift(g.out_depth), addend(g.out_pixels() * g.out_depth);
    for (auto* v : {&in, &f, &bias, &scale, &shift, &addend}) {
      for (float& x : *v) x = dist(rng);
    }
    const std::vector<float> conv = Reference(g, in, f);
    for (int variant = 0; variant < 4; ++variant) {
      OneDnnPostOps post;
      std::vector<float> out(conv.size(), 0.f);
      if (variant == 0) {
        post.bias = bias.data();
        post.activation = A::kRelu;
      } else if (variant == 1) {
        post.bias = bias.data();
        post.sum = true;
        post.activation = A::kRelu6;
        out = addend;
      } else if (variant == 2) {
        post.scale = scale.data();
        post.shift = shift.data();
        post.activation = A::kLeakyRelu;
        post.alpha = 0.5f;
      } else {
        post.bias = bias.data();
      }
      ASSERT_TRUE(
          OneDnnConv2D(g, in.data(), f.data(), out.data(), 2, nullptr, &post))
          << label << " variant " << variant;
      for (size_t i = 0; i < out.size(); ++i) {
        const int64_t c = i % g.out_depth;
        float v = conv[i];
        if (post.bias != nullptr) v += bias[c];
        if (post.scale != nullptr) v = v * scale[c] + shift[c];
        if (post.sum) v += addend[i];
        if (variant == 0) v = std::max(v, 0.f);
        if (variant == 1) v = std::min(std::max(v, 0.f), 6.f);
        if (variant == 2) v = v > 0 ? v : 0.5f * v;
        ASSERT_EQ(out[i], v) << label << " variant " << variant << " at " << i;
      }
    }
  }
}

}  // namespace
}  // namespace nn
}  // namespace tributary
