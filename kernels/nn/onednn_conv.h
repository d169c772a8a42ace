#ifndef TRIBUTARY_KERNELS_NN_ONEDNN_CONV_H_
#define TRIBUTARY_KERNELS_NN_ONEDNN_CONV_H_

// The convolution backend: which library runs float32 forward convolutions
// (Conv2D, and DepthwiseConv2dNative as a grouped convolution).
//
// Chosen once per process from
//   TRIBUTARY_CONV_BACKEND = auto (default) | im2col | onednn
//   auto / onednn: oneDNN (Debian's libdnnl, 2.x) for float32; im2col:
//                  the im2col + GEMM engine of conv2d_im2col.h.
// Whatever oneDNN cannot take (it rejects a shape, or fails to run) falls
// back to the im2col engine, which also runs every other dtype. Both give
// the same results to float tolerance (summation order differs).
//
// oneDNN reads and writes the NHWC activations in place (strided memory
// descriptors) and takes the HWIO filter in the layout its direct JIT
// kernels want (blocked), reordered from the HWIO tensor. The reorder is
// kept between calls in the kernel's OneDnnWeightsCache when the filter is
// a Const's buffer (common/framework/constant_buffers.h: frozen models), and
// done on every call otherwise (variables may change between steps).
// It runs its own OpenMP threads; each call asks for as many as the
// device's intra-op pool has, so a convolution uses
// intra_op_parallelism_threads cores like every other kernel. Primitives are
// cached per geometry; each call gets its own scratchpad, so concurrent
// calls are safe.

#include <cstdint>
#include <mutex>
#include <string>

#include "dnnl.hpp"
#include "kernels/nn/conv_geometry.h"

namespace tributary {
namespace nn {

// Whether float convolutions go to oneDNN in this process.
bool OneDnnConvEnabled();

// One line naming the backend and why, for logs and benchmarks.
const std::string& ConvBackendDescription();

// What the fused convolutions (_FusedConv2D, _FusedDepthwiseConv2dNative)
// ask oneDNN to do to the convolution's result before it is written, so that
// nothing makes a second pass over the output:
//   out = activation(((conv + bias) * scale + shift) [+ out])
// bias, scale and shift are per output channel ([out_depth]) and optional
// (scale and shift come together: a folded batch norm). With `sum`, `out`
// holds the addend on entry (a residual Add). The primitive cache keys on
// which of these are present, the activation and alpha, never on the data.
struct OneDnnPostOps {
  enum class Activation {
    kNone,
    kRelu,
    kRelu6,
    kElu,
    kLeakyRelu,  // x > 0 ? x : alpha * x
    kTanh,
    kSigmoid,
    kGeluApproximate,  // tanh approximation
    kGeluExact,        // erf
  };
  const float* bias = nullptr;
  const float* scale = nullptr;
  const float* shift = nullptr;
  bool sum = false;
  Activation activation = Activation::kNone;
  float alpha = 0.f;
};

// One convolution kernel's filter in oneDNN's layout, kept between calls
// while the filter is the same constant buffer. One entry: a kernel sees
// one filter.
class OneDnnWeightsCache {
 private:
  friend bool OneDnnConv2D(const Conv2DGeometry&, const float*, const float*,
                           float*, int, OneDnnWeightsCache*,
                           const OneDnnPostOps*);
  std::mutex mu_;
  const void* filter_ = nullptr;
  uint64_t constant_id_ = 0;
  const void* primitive_ = nullptr;  // the geometry's cached primitive
  dnnl::memory weights_;
};

// out[N, OH, OW, O] = conv(in[N, H, W, I], filter[KH, KW, I / groups, O])
// on `threads` threads. False (nothing written) when oneDNN cannot run this
// geometry; the caller then uses the im2col engine. `cache` may be null.
// With `post` (may be null), the result is transformed as OneDnnPostOps
// says, in the same pass (declined, i.e. false, if oneDNN cannot fuse it).
bool OneDnnConv2D(const Conv2DGeometry& g, const float* in, const float* filter,
                  float* out, int threads, OneDnnWeightsCache* cache = nullptr,
                  const OneDnnPostOps* post = nullptr);

}  // namespace nn
}  // namespace tributary

#endif  // TRIBUTARY_KERNELS_NN_ONEDNN_CONV_H_
