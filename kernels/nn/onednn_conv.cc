// oneDNN forward convolution (see onednn_conv.h for the contract).

#include "kernels/nn/onednn_conv.h"

#include <omp.h>

#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>
#include <unordered_map>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "common/framework/constant_buffers.h"
#include "dnnl.hpp"

namespace tributary {
namespace nn {
namespace {

struct Backend {
  bool enabled = false;
  std::string description;
  std::unique_ptr<dnnl::engine> engine;
};

const Backend& TheBackend() {
  static const Backend* backend = [] {
    auto* b = new Backend;
    const char* env = std::getenv("TRIBUTARY_CONV_BACKEND");
    const std::string request =
        absl::AsciiStrToLower(env == nullptr ? "" : env);
    if (request == "im2col") {
      b->description =
          "conv: im2col + Eigen GEMM (TRIBUTARY_CONV_BACKEND=im2col)";
      return b;
    }
    try {
      b->engine = std::make_unique<dnnl::engine>(dnnl::engine::kind::cpu, 0);
      const dnnl_version_t* v = dnnl_version();
      b->enabled = true;
      b->description =
          absl::StrCat("conv: oneDNN ", v->major, ".", v->minor, ".", v->patch,
                       " (float32; im2col + Eigen GEMM for the rest)");
    } catch (const dnnl::error& e) {
      b->description = absl::StrCat(
          "conv: im2col + Eigen GEMM (oneDNN unavailable: ", e.what(), ")");
    }
    return b;
  }();
  return *backend;
}

// A cached primitive for one geometry. With `reorder`, the primitive wants
// its weights in its own (blocked) layout, which its direct JIT kernels need:
// the HWIO filter is reordered into it, once per call, or once for good when
// the filter is a constant and the kernel has an OneDnnWeightsCache.
struct Primitive {
  dnnl::convolution_forward::primitive_desc pd;
  dnnl::convolution_forward conv;
  bool reorder = false;
  dnnl::reorder weights_reorder;
};

using Key = std::tuple<int64_t, int64_t, int64_t, int64_t, int64_t, int64_t,
                       int64_t, int64_t, int64_t, int64_t, int64_t, int64_t,
                       int64_t, int64_t, int64_t, int64_t, int64_t, int64_t>;

// What of OneDnnPostOps shapes the primitive: bias, scale/shift, sum,
// activation, alpha.
using PostKey = std::tuple<bool, bool, bool, int, float>;

PostKey PostKeyOf(const OneDnnPostOps* post) {
  if (post == nullptr) return PostKey(false, false, false, 0, 0.f);
  const bool alpha_matters =
      post->activation == OneDnnPostOps::Activation::kLeakyRelu;
  return PostKey(post->bias != nullptr, post->scale != nullptr, post->sum,
                 static_cast<int>(post->activation),
                 alpha_matters ? post->alpha : 0.f);
}

Key KeyOf(const Conv2DGeometry& g) {
  return Key(g.batch, g.in_rows, g.in_cols, g.in_depth, g.filter_rows,
             g.filter_cols, g.patch_depth, g.out_depth, g.out_rows, g.out_cols,
             g.stride_rows, g.stride_cols, g.dilation_rows, g.dilation_cols,
             g.pad_top, g.pad_left, g.pad_bottom, g.pad_right);
}

using dims = dnnl::memory::dims;
using dt = dnnl::memory::data_type;

// NHWC activations as oneDNN's logical NCHW with strides.
dnnl::memory::desc Nhwc(int64_t n, int64_t h, int64_t w, int64_t c) {
  return dnnl::memory::desc(dims{n, c, h, w}, dt::f32,
                            dims{h * w * c, 1, w * c, c});
}

// The HWIO filter (I = patch depth, O = all output channels; output channel
// group * O/G + o belongs to group `group`) as oneDNN's [G,] O, I, KH, KW.
dnnl::memory::desc Hwio(const Conv2DGeometry& g) {
  const int64_t groups = g.groups();
  const int64_t i = g.patch_depth, o = g.out_depth;
  const int64_t kh = g.filter_rows, kw = g.filter_cols;
  if (groups == 1) {
    return dnnl::memory::desc(dims{o, i, kh, kw}, dt::f32,
                              dims{1, o, kw * i * o, i * o});
  }
  return dnnl::memory::desc(dims{groups, o / groups, i, kh, kw}, dt::f32,
                            dims{o / groups, 1, o, kw * i * o, i * o});
}

// The eltwise post-op for an activation: algorithm, alpha, beta.
bool EltwiseOf(const OneDnnPostOps& post, dnnl::algorithm* alg, float* alpha,
               float* beta) {
  using A = OneDnnPostOps::Activation;
  *alpha = 0.f;
  *beta = 0.f;
  switch (post.activation) {
    case A::kNone:
      return false;
    case A::kRelu:
      *alg = dnnl::algorithm::eltwise_relu;
      return true;
    case A::kRelu6:
      *alg = dnnl::algorithm::eltwise_clip;
      *beta = 6.f;
      return true;
    case A::kElu:
      *alg = dnnl::algorithm::eltwise_elu;
      *alpha = 1.f;
      return true;
    case A::kLeakyRelu:
      *alg = dnnl::algorithm::eltwise_relu;
      *alpha = post.alpha;
      return true;
    case A::kTanh:
      *alg = dnnl::algorithm::eltwise_tanh;
      return true;
    case A::kSigmoid:
      *alg = dnnl::algorithm::eltwise_logistic;
      return true;
    case A::kGeluApproximate:
      *alg = dnnl::algorithm::eltwise_gelu_tanh;
      return true;
    case A::kGeluExact:
      *alg = dnnl::algorithm::eltwise_gelu_erf;
      return true;
  }
  return false;
}

// A per-channel vector as a binary post-op's broadcast operand.
dnnl::memory::desc PerChannel(int64_t channels) {
  return dnnl::memory::desc(dims{1, channels, 1, 1}, dt::f32,
                            dnnl::memory::format_tag::abcd);
}

std::shared_ptr<const Primitive> GetPrimitive(const Backend& backend,
                                              const Conv2DGeometry& g,
                                              const OneDnnPostOps* post) {
  static std::mutex mu;
  static auto* cache =
      new std::map<std::pair<Key, PostKey>, std::shared_ptr<const Primitive>>;
  const std::pair<Key, PostKey> key(KeyOf(g), PostKeyOf(post));
  {
    std::lock_guard<std::mutex> lock(mu);
    auto it = cache->find(key);
    if (it != cache->end()) return it->second;
  }
  std::shared_ptr<const Primitive> made;
  try {
    const dnnl::memory::desc plain_weights = Hwio(g);
    const dnnl::memory::desc any_weights(plain_weights.dims(), dt::f32,
                                         dnnl::memory::format_tag::any);
    const bool with_bias = post != nullptr && post->bias != nullptr;
    const dnnl::memory::desc src_desc =
        Nhwc(g.batch, g.in_rows, g.in_cols, g.in_depth);
    const dnnl::memory::desc dst_desc =
        Nhwc(g.batch, g.out_rows, g.out_cols, g.out_depth);
    const dims strides{g.stride_rows, g.stride_cols};
    const dims dilates{g.dilation_rows - 1, g.dilation_cols - 1};
    const dims pad_l{g.pad_top, g.pad_left}, pad_r{g.pad_bottom, g.pad_right};
    const dnnl::convolution_forward::desc desc =
        with_bias
            ? dnnl::convolution_forward::desc(
                  dnnl::prop_kind::forward_inference,
                  dnnl::algorithm::convolution_direct, src_desc, any_weights,
                  dnnl::memory::desc(dims{g.out_depth}, dt::f32,
                                     dnnl::memory::format_tag::a),
                  dst_desc, strides, dilates, pad_l, pad_r)
            : dnnl::convolution_forward::desc(
                  dnnl::prop_kind::forward_inference,
                  dnnl::algorithm::convolution_direct, src_desc, any_weights,
                  dst_desc, strides, dilates, pad_l, pad_r);
    dnnl::primitive_attr attr;
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    if (post != nullptr) {
      // Applied in order: (conv + bias) * scale + shift, += dst, activation.
      dnnl::post_ops ops;
      if (post->scale != nullptr) {
        ops.append_binary(dnnl::algorithm::binary_mul,
                          PerChannel(g.out_depth));
        ops.append_binary(dnnl::algorithm::binary_add,
                          PerChannel(g.out_depth));
      }
      if (post->sum) ops.append_sum(1.f);
      dnnl::algorithm alg;
      float alpha, beta;
      if (EltwiseOf(*post, &alg, &alpha, &beta)) {
        ops.append_eltwise(1.f, alg, alpha, beta);
      }
      attr.set_post_ops(ops);
    }
    dnnl::convolution_forward::primitive_desc pd(desc, attr, *backend.engine);
    auto p = std::make_shared<Primitive>();
    p->pd = pd;
    p->conv = dnnl::convolution_forward(pd);
    p->reorder = pd.weights_desc() != plain_weights;
    if (p->reorder) {
      p->weights_reorder = dnnl::reorder(dnnl::reorder::primitive_desc(
          *backend.engine, plain_weights, *backend.engine, pd.weights_desc()));
    }
    made = std::move(p);
  } catch (const dnnl::error&) {
    made = nullptr;  // cached too: this geometry stays on im2col
  }
  std::lock_guard<std::mutex> lock(mu);
  return cache->emplace(key, made).first->second;
}

}  // namespace

bool OneDnnConvEnabled() { return TheBackend().enabled; }

const std::string& ConvBackendDescription() { return TheBackend().description; }

bool OneDnnConv2D(const Conv2DGeometry& g, const float* in, const float* filter,
                  float* out, int threads, OneDnnWeightsCache* cache,
                  const OneDnnPostOps* post) {
  const Backend& backend = TheBackend();
  if (!backend.enabled) return false;
  if (post != nullptr && (post->scale == nullptr) != (post->shift == nullptr)) {
    return false;  // scale and shift come together
  }
  std::shared_ptr<const Primitive> p = GetPrimitive(backend, g, post);
  if (p == nullptr) return false;
  try {
    const dnnl::engine& engine = *backend.engine;
    dnnl::memory src(p->pd.src_desc(), engine, const_cast<float*>(in));
    dnnl::memory dst(p->pd.dst_desc(), engine, out);
    const dnnl::memory::desc scratch_desc = p->pd.scratchpad_desc();
    std::unique_ptr<char[]> scratch_bytes(new char[scratch_desc.get_size()]);
    dnnl::memory scratch(scratch_desc, engine, scratch_bytes.get());
    // oneDNN sizes its OpenMP team from this thread's setting.
    omp_set_num_threads(threads > 0 ? threads : 1);
    dnnl::stream stream(engine);
    dnnl::memory weights;
    if (!p->reorder) {
      weights = dnnl::memory(p->pd.weights_desc(), engine,
                             const_cast<float*>(filter));
    } else {
      const uint64_t constant_id = ConstantBufferId(filter);
      bool cached = false;
      if (cache != nullptr && constant_id != 0) {
        std::lock_guard<std::mutex> lock(cache->mu_);
        if (cache->filter_ == filter && cache->constant_id_ == constant_id &&
            cache->primitive_ == p.get()) {
          weights = cache->weights_;
          cached = true;
        }
      }
      if (!cached) {
        dnnl::memory plain(Hwio(g), engine, const_cast<float*>(filter));
        weights = dnnl::memory(p->pd.weights_desc(), engine);
        p->weights_reorder.execute(stream, plain, weights);
        stream.wait();
        if (cache != nullptr && constant_id != 0) {
          std::lock_guard<std::mutex> lock(cache->mu_);
          cache->filter_ = filter;
          cache->constant_id_ = constant_id;
          cache->primitive_ = p.get();
          cache->weights_ = weights;
        }
      }
    }
    std::unordered_map<int, dnnl::memory> args = {
        {DNNL_ARG_SRC, src},
        {DNNL_ARG_WEIGHTS, weights},
        {DNNL_ARG_DST, dst},
        {DNNL_ARG_SCRATCHPAD, scratch}};
    if (post != nullptr && post->bias != nullptr) {
      args[DNNL_ARG_BIAS] =
          dnnl::memory(dnnl::memory::desc(dims{g.out_depth}, dt::f32,
                                          dnnl::memory::format_tag::a),
                       engine, const_cast<float*>(post->bias));
    }
    if (post != nullptr && post->scale != nullptr) {
      args[DNNL_ARG_ATTR_MULTIPLE_POST_OP(0) | DNNL_ARG_SRC_1] = dnnl::memory(
          PerChannel(g.out_depth), engine, const_cast<float*>(post->scale));
      args[DNNL_ARG_ATTR_MULTIPLE_POST_OP(1) | DNNL_ARG_SRC_1] = dnnl::memory(
          PerChannel(g.out_depth), engine, const_cast<float*>(post->shift));
    }
    p->conv.execute(stream, args);
    stream.wait();
  } catch (const dnnl::error&) {
    return false;
  }
  return true;
}

}  // namespace nn
}  // namespace tributary
