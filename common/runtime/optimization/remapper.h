#ifndef TRIBUTARY_COMMON_RUNTIME_OPTIMIZATION_REMAPPER_H_
#define TRIBUTARY_COMMON_RUNTIME_OPTIMIZATION_REMAPPER_H_

// The remapper (RewriterConfig.remapping): fuses a float32 convolution or
// matrix product with the per-channel arithmetic, residual Add and
// activation that follow it into one of TensorFlow's fused ops, whose kernel
// does it in one pass over the output (oneDNN post-ops on the CPU), and a
// batch norm with the Relu after it:
//
//   Conv2D                 -> _FusedConv2D
//   DepthwiseConv2dNative  -> _FusedDepthwiseConv2dNative
//   MatMul                 -> _FusedMatMul
//   FusedBatchNorm{,V2,V3} -> _FusedBatchNormEx
//
// The chain it takes, each step optional, each node the sole consumer of
// the one before it and on the same device:
//
//   conv -> BiasAdd(b) -> [Mul(s) -> Add/AddV2(a) | FusedBatchNorm] ->
//           Add/AddV2(r) -> Relu|Relu6|Elu|LeakyRelu|Tanh|Sigmoid
//
// where s and a are per-output-channel constants (a Const of C elements
// laid out along the last dimension, or a scalar) — the shape frozen batch
// normalization takes in a Keras graph — and FusedBatchNorm is a TF1
// frozen model's batch norm (FusedBatchNorm{,V2,V3}, float32, NHWC,
// is_training false, x the chain so far, scale/offset/mean/variance Consts,
// possibly behind Identity, of exactly C elements, nothing reading its
// outputs but y), which is the same per-channel map with s = scale /
// sqrt(variance + epsilon) and a = offset - mean * s (taken in double and
// rounded to float once); r, the residual (a ResNet
// block's shortcut), is any tensor on the same device, on either side of
// the Add, whose shape ShapeAnalysis proves equal to the chain's (so the Add
// does not broadcast; see shape_analysis.h: from Placeholder shapes, fed or
// not, through the usual CNN ops). An Add the analysis cannot prove, e.g. a
// [C] variable or a tensor of unknown shape, ends the chain before it. The
// fused kernel checks at run time that r has the output's shape and fails
// with InvalidArgument otherwise (a feed that breaks its Placeholder's
// declared shape). The Mul/Add and batch norm steps need a Const filter
// (and a Const bias, or none): s is folded into the filter
// (W' = W * s per output channel) and the bias becomes
// b * s + a, as TensorFlow folds frozen batch norm into the convolution
// weights (where TensorFlow's remapper keeps FusedBatchNorm as a fused op
// instead: this leaves the kernel a plain bias); MatMul takes only
// BiasAdd/Add(a), Add(r) and the activation. The result is
// fused_ops = [BiasAdd] or [BiasAdd, <activation>], with "Add" after BiasAdd
// and r as the second arg when there is a residual (a zero bias when the
// chain has none), or a plain convolution with the scaled filter when the
// chain is only Mul(s).
//
// The batch norm alone (one no convolution chain took, e.g. of a
// Placeholder or a convolution by a variable filter): FusedBatchNorm{,V2,V3}
// (float, NHWC) whose y is read only
// by Relu, or only by Add/AddV2(r) (r as above) read only by Relu, becomes
// _FusedBatchNormEx (activation_mode Relu, r as its side input), when
// is_training is false (readers of the statistics move to the fused node's
// same outputs) or nothing reads the statistics.
//
// The fused node takes the name of the last node it replaces, so
// consumers, fetches and traces keep naming it.
//
// Left alone: other dtypes, NCHW, EXPLICIT padding on depthwise
// convolutions, an intermediate result someone else reads, and any node
// whose fused kernel the device does not register. Results equal the
// unfused graph's to float rounding (the summation order changes).

#include "absl/status/statusor.h"
#include "common/runtime/optimization/optimization_pass.h"

namespace tributary {

class Remapper : public GraphOptimizationPass {
 public:
  absl::string_view name() const override { return "remapping"; }
  absl::StatusOr<int> Run(Graph* g) const override;
};

}  // namespace tributary

#endif  // TRIBUTARY_COMMON_RUNTIME_OPTIMIZATION_REMAPPER_H_
