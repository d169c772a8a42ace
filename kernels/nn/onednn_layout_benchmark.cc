// Whether a layout pass would pay (issue 16): oneDNN's forward convolution on
// NHWC activations, which our kernels use, against the blocked layout
// (nChw8c/nChw16c) oneDNN picks when left free (format_tag::any), for the
// convolutions of ResNet50 and MobileNetV2, printed as a table.
//
//   bazel run -c opt //kernels/nn:onednn_layout_benchmark -- [THREADS] [ROUNDS]
//
// Weights are reordered once, outside the timing, on both sides (as our
// kernels cache them for constant filters). "blocked" is the convolution
// alone, as a graph converted end to end would run it; "reorders" is what
// converting one layer's input and output between NHWC and the blocked
// layout costs, which a layout pass pays wherever a blocked region meets
// an op that only takes NHWC (pooling, padding, concatenation, the
// depthwise convolutions' and the residual Add's neighbours ...).

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <unordered_map>
#include <vector>

#include "dnnl.hpp"

namespace {

using dims = dnnl::memory::dims;
using dt = dnnl::memory::data_type;
using tag = dnnl::memory::format_tag;

struct Shape {
  const char* name;
  int64_t batch, rows, cols, in_c, out_c, k, stride, groups;
};

// Representative layers (input size, channels, kernel, stride).
const Shape kShapes[] = {
    {"ResNet50 conv1 7x7/2", 1, 224, 224, 3, 64, 7, 2, 1},
    {"ResNet50 res2 1x1", 1, 56, 56, 64, 256, 1, 1, 1},
    {"ResNet50 res2 3x3", 1, 56, 56, 64, 64, 3, 1, 1},
    {"ResNet50 res3 3x3", 1, 28, 28, 128, 128, 3, 1, 1},
    {"ResNet50 res4 1x1", 1, 14, 14, 256, 1024, 1, 1, 1},
    {"ResNet50 res5 3x3", 1, 7, 7, 512, 512, 3, 1, 1},
    {"ResNet50 res3 3x3, batch 8", 8, 28, 28, 128, 128, 3, 1, 1},
    {"MobileNetV2 expand 1x1", 1, 56, 56, 24, 144, 1, 1, 1},
    {"MobileNetV2 depthwise 3x3", 1, 56, 56, 144, 144, 3, 1, 144},
    {"MobileNetV2 project 1x1", 1, 28, 28, 192, 32, 1, 1, 1},
};

double Millis(std::chrono::steady_clock::time_point a,
              std::chrono::steady_clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

struct Result {
  double nhwc_ms, blocked_ms, reorder_ms;
  std::string blocked_format;
};

std::string FormatOf(const dnnl::memory::desc& d) {
  const dnnl_memory_desc_t& c = d.data;
  if (c.format_kind != dnnl_blocked) return "other";
  std::string s = "blocked";
  for (int i = 0; i < c.format_desc.blocking.inner_nblks; ++i) {
    s += std::to_string(c.format_desc.blocking.inner_blks[i]);
    s += "abcd"[c.format_desc.blocking.inner_idxs[i]];
  }
  return s == "blocked" ? "plain" : s;
}

// Median of `rounds` executions of `run`.
template <typename F>
double Time(int rounds, F run) {
  std::vector<double> t;
  for (int i = 0; i < rounds; ++i) {
    const auto a = std::chrono::steady_clock::now();
    run();
    t.push_back(Millis(a, std::chrono::steady_clock::now()));
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

Result Measure(const dnnl::engine& eng, dnnl::stream& s, const Shape& sh,
               int rounds) {
  const int64_t pad = (sh.k - 1) / 2;
  const int64_t out_rows = (sh.rows + 2 * pad - sh.k) / sh.stride + 1;
  const int64_t out_cols = (sh.cols + 2 * pad - sh.k) / sh.stride + 1;
  const dims src_dims{sh.batch, sh.in_c, sh.rows, sh.cols};
  const dims dst_dims{sh.batch, sh.out_c, out_rows, out_cols};
  const dims w_dims =
      sh.groups == 1
          ? dims{sh.out_c, sh.in_c, sh.k, sh.k}
          : dims{sh.groups, sh.out_c / sh.groups, sh.in_c / sh.groups, sh.k, sh.k};
  const dims strides{sh.stride, sh.stride}, padding{pad, pad};

  auto run_conv = [&](tag act, std::string* format, double* reorder_ms) {
    const dnnl::memory::desc src_md(src_dims, dt::f32, act);
    const dnnl::memory::desc dst_md(dst_dims, dt::f32, act);
    const dnnl::memory::desc w_md(w_dims, dt::f32, tag::any);
    dnnl::convolution_forward::desc desc(
        dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct,
        src_md, w_md, dst_md, strides, padding, padding);
    dnnl::convolution_forward::primitive_desc pd(desc, eng);
    dnnl::memory src(pd.src_desc(), eng), dst(pd.dst_desc(), eng),
        w(pd.weights_desc(), eng);
    std::fill_n(static_cast<float*>(src.get_data_handle()),
                pd.src_desc().get_size() / sizeof(float), 0.5f);
    std::fill_n(static_cast<float*>(w.get_data_handle()),
                pd.weights_desc().get_size() / sizeof(float), 0.01f);
    dnnl::convolution_forward conv(pd);
    std::unordered_map<int, dnnl::memory> args = {
        {DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, w}, {DNNL_ARG_DST, dst}};
    auto once = [&] {
      conv.execute(s, args);
      s.wait();
    };
    once();  // warm-up: JIT and first touch
    if (format != nullptr) *format = FormatOf(pd.src_desc());
    if (reorder_ms != nullptr) {
      // NHWC in -> blocked, blocked out -> NHWC.
      dnnl::memory nhwc_in({src_dims, dt::f32, tag::nhwc}, eng);
      dnnl::memory nhwc_out({dst_dims, dt::f32, tag::nhwc}, eng);
      dnnl::reorder to_blocked(nhwc_in, src), to_nhwc(dst, nhwc_out);
      auto both = [&] {
        to_blocked.execute(s, nhwc_in, src);
        to_nhwc.execute(s, dst, nhwc_out);
        s.wait();
      };
      both();
      *reorder_ms = Time(rounds, both);
    }
    return Time(rounds, once);
  };
  Result r;
  r.nhwc_ms = run_conv(tag::nhwc, nullptr, nullptr);
  r.blocked_ms = run_conv(tag::any, &r.blocked_format, &r.reorder_ms);
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  const int threads = argc > 1 ? std::atoi(argv[1]) : 2;
  const int rounds = argc > 2 ? std::atoi(argv[2]) : 50;
  omp_set_num_threads(threads > 0 ? threads : 1);
  dnnl::engine eng(dnnl::engine::kind::cpu, 0);
  dnnl::stream s(eng);
  const dnnl_version_t* v = dnnl_version();
  std::printf("oneDNN %d.%d.%d, %d threads, median of %d runs\n\n", v->major,
              v->minor, v->patch, threads, rounds);
  std::printf(
      "| layer | NHWC ms | blocked ms (layout) | blocked / NHWC | reorders in+out "
      "ms |\n|---|---|---|---|---|\n");
  double nhwc_total = 0, blocked_total = 0, reorder_total = 0;
  for (const Shape& sh : kShapes) {
    const Result r = Measure(eng, s, sh, rounds);
    nhwc_total += r.nhwc_ms;
    blocked_total += r.blocked_ms;
    reorder_total += r.reorder_ms;
    std::printf("| %s | %.3f | %.3f (%s) | %.2fx | %.3f |\n", sh.name, r.nhwc_ms,
                r.blocked_ms, r.blocked_format.c_str(), r.blocked_ms / r.nhwc_ms,
                r.reorder_ms);
  }
  std::printf("| all layers above | %.3f | %.3f | %.2fx | %.3f |\n", nhwc_total,
              blocked_total, blocked_total / nhwc_total, reorder_total);
  return 0;
}
