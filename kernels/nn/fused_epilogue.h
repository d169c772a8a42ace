#ifndef TRIBUTARY_KERNELS_NN_FUSED_EPILOGUE_H_
#define TRIBUTARY_KERNELS_NN_FUSED_EPILOGUE_H_

// What the fused kernels (_FusedConv2D, _FusedDepthwiseConv2dNative,
// _FusedMatMul) share: the `fused_ops` attr parsed into a FusionSpec, the
// checks of the `args` operands, and the epilogue
//   out = activation(src * mul[c] + add[c] [+ addend])
// applied in one thread-pool-parallel pass over a [rows, channels] output
// (the fallback when oneDNN does not fuse it into the convolution itself).
//
// fused_ops accepted (the grammar; per-op restrictions in ParseFusedOps):
//   [BiasAdd]                    args: bias
//   [BiasAdd, <act>]             args: bias
//   [BiasAdd, Add]               args: bias, addend (the output's shape)
//   [BiasAdd, Add, <act>]        args: bias, addend
//   [FusedBatchNorm]             args: scale, offset, mean, variance
//   [FusedBatchNorm, <act>]      args: scale, offset, mean, variance
// <act>: Relu, Relu6, Elu, LeakyRelu (leakyrelu_alpha), Tanh, Sigmoid,
//        GeluApproximate, GeluExact.
// The batch norm is inference's: (x - mean) * rsqrt(variance + epsilon) *
// scale + offset, folded here into one multiply-add per element.

#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/framework/status.h"
#include "common/framework/tensor.h"
#include "common/framework/tensor_shape.h"
#include "common/kernel/op_kernel.h"
#include "kernels/nn/onednn_conv.h"
#include "unsupported/Eigen/CXX11/Tensor"

namespace tributary {
namespace nn {

using FusedActivation = OneDnnPostOps::Activation;

struct FusionSpec {
  bool batch_norm = false;  // else BiasAdd
  bool add = false;         // a residual addend after the bias
  FusedActivation activation = FusedActivation::kNone;
  float leakyrelu_alpha = 0.2f;
  float epsilon = 1e-4f;
  int num_args() const { return batch_norm ? 4 : (add ? 2 : 1); }
};

// `where`: "node 'name' (op 'type')" for messages. `op_label`: TensorFlow's
// wording of the op ("Fused Conv2D", "Fused MatMul").
inline absl::Status ParseFusedOps(const std::vector<std::string>& fused_ops,
                                  const std::string& op_label,
                                  const std::string& where,
                                  bool allow_batch_norm, FusionSpec* spec) {
  if (fused_ops.empty()) {
    return errors::InvalidArgument(op_label,
                                   " must have at least one fused op. In ",
                                   where);
  }
  auto unsupported = [&] {
    // TensorFlow's code and wording (its CPU kernels' Unimplemented).
    return errors::Unimplemented("Fusion is not implemented: [",
                                 absl::StrJoin(fused_ops, ","), "] in ", where);
  };
  size_t i = 0;
  if (fused_ops[0] == "BiasAdd") {
    spec->batch_norm = false;
    i = 1;
    if (i < fused_ops.size() && fused_ops[i] == "Add") {
      spec->add = true;
      ++i;
    }
  } else if (fused_ops[0] == "FusedBatchNorm" && allow_batch_norm) {
    spec->batch_norm = true;
    i = 1;
  } else {
    return unsupported();
  }
  spec->activation = FusedActivation::kNone;
  if (i < fused_ops.size()) {
    const std::string& act = fused_ops[i];
    if (act == "Relu") {
      spec->activation = FusedActivation::kRelu;
    } else if (act == "Relu6") {
      spec->activation = FusedActivation::kRelu6;
    } else if (act == "Elu") {
      spec->activation = FusedActivation::kElu;
    } else if (act == "LeakyRelu") {
      spec->activation = FusedActivation::kLeakyRelu;
    } else if (act == "Tanh") {
      spec->activation = FusedActivation::kTanh;
    } else if (act == "Sigmoid") {
      spec->activation = FusedActivation::kSigmoid;
    } else if (act == "GeluApproximate") {
      spec->activation = FusedActivation::kGeluApproximate;
    } else if (act == "GeluExact") {
      spec->activation = FusedActivation::kGeluExact;
    } else {
      return unsupported();
    }
    ++i;
  }
  if (i != fused_ops.size()) return unsupported();
  return absl::OkStatus();
}

// Reads fused_ops, epsilon and leakyrelu_alpha and checks num_args.
inline absl::Status ReadFusionAttrs(OpKernelConstruction* context,
                                    const std::string& op_label,
                                    bool allow_batch_norm, FusionSpec* spec) {
  const std::string where =
      absl::StrCat("node '", context->def().name(), "' (op '",
                   context->def().op(), "')");
  std::vector<std::string> fused_ops;
  TRIB_RETURN_IF_ERROR(context->GetAttr("fused_ops", &fused_ops));
  TRIB_RETURN_IF_ERROR(context->GetAttr("epsilon", &spec->epsilon));
  TRIB_RETURN_IF_ERROR(
      context->GetAttr("leakyrelu_alpha", &spec->leakyrelu_alpha));
  TRIB_RETURN_IF_ERROR(
      ParseFusedOps(fused_ops, op_label, where, allow_batch_norm, spec));
  int64_t num_args = 0;
  TRIB_RETURN_IF_ERROR(context->GetAttr("num_args", &num_args));
  if (num_args != spec->num_args()) {
    const char* wanted =
        spec->batch_norm
            ? " with FusedBatchNorm must have four extra arguments: scale, "
              "offset, mean, variance."
            : (spec->add ? " with BiasAdd and Add must have two extra "
                           "arguments: bias, addend."
                         : " with BiasAdd must have one extra argument: "
                           "bias.");
    return errors::InvalidArgument(op_label, wanted, " Got num_args = ",
                                   num_args, " in ", where);
  }
  return absl::OkStatus();
}

// The type the epilogue computes in: float for float/half/bfloat16.
template <typename T>
using EpilogueType =
    std::conditional_t<std::is_same_v<T, double>, double, float>;

// Per-channel multiply (empty: none) and add of the epilogue.
template <typename C>
struct ChannelAffine {
  std::vector<C> mul;
  std::vector<C> add;
};

// Checks `args` (inputs [first, first + num_args)) against the output and
// folds them into per-channel factors. `out_shape`: the result's shape;
// channels are its last dimension.
template <typename T>
absl::Status PrepareArgs(OpKernelContext* context, const FusionSpec& spec,
                         int first, const TensorShape& out_shape,
                         ChannelAffine<EpilogueType<T>>* affine) {
  using C = EpilogueType<T>;
  const std::string where = absl::StrCat(
      "node '", context->op_kernel().name(), "' (op '",
      context->op_kernel().type_string(), "')");
  const int64_t channels = out_shape.dim_size(out_shape.dims() - 1);
  if (context->num_inputs() != first + spec.num_args()) {
    return errors::InvalidArgument("expected ", spec.num_args(),
                                   " fused arguments, got ",
                                   context->num_inputs() - first, " in ",
                                   where);
  }
  for (int i = 0; i < spec.num_args(); ++i) {
    if (context->input_dtype(first + i) != DataTypeToEnum<T>::value) {
      return errors::InvalidArgument("fused argument ", i, " has type ",
                                     DataTypeString(context->input_dtype(first + i)),
                                     ", expected ",
                                     DataTypeString(DataTypeToEnum<T>::value),
                                     " in ", where);
    }
  }
  const int vectors = spec.batch_norm ? 4 : 1;
  static const char* const kNames[] = {"scale", "offset", "mean", "variance"};
  for (int i = 0; i < vectors; ++i) {
    const Tensor& v = context->input(first + i);
    const char* name = spec.batch_norm ? kNames[i] : "bias";
    if (v.dims() != 1) {
      return errors::InvalidArgument(name, " must be 1-dimensional",
                                     v.shape().DebugString(), " in ", where);
    }
    if (v.dim_size(0) != channels) {
      return errors::InvalidArgument(
          name, " must have as many elements as the output has channels: ",
          v.dim_size(0), " vs ", channels, " (output ",
          out_shape.DebugString(), ") in ", where);
    }
  }
  if (spec.add) {
    const Tensor& addend = context->input(first + 1);
    if (addend.shape() != out_shape) {
      return errors::InvalidArgument(
          "the fused Add's operand must have the output's shape: ",
          addend.shape().DebugString(), " vs ", out_shape.DebugString(),
          " in ", where);
    }
  }
  affine->add.resize(channels);
  if (spec.batch_norm) {
    affine->mul.resize(channels);
    auto scale = context->input(first).flat<T>();
    auto offset = context->input(first + 1).flat<T>();
    auto mean = context->input(first + 2).flat<T>();
    auto variance = context->input(first + 3).flat<T>();
    for (int64_t c = 0; c < channels; ++c) {
      const C m = static_cast<C>(scale(c)) /
                  std::sqrt(static_cast<C>(variance(c)) +
                            static_cast<C>(spec.epsilon));
      affine->mul[c] = m;
      affine->add[c] = static_cast<C>(offset(c)) - static_cast<C>(mean(c)) * m;
    }
  } else {
    affine->mul.clear();
    auto bias = context->input(first).flat<T>();
    for (int64_t c = 0; c < channels; ++c) {
      affine->add[c] = static_cast<C>(bias(c));
    }
  }
  return absl::OkStatus();
}

namespace epilogue_internal {

template <FusedActivation A, typename C>
inline C Activate(C v, C alpha) {
  if constexpr (A == FusedActivation::kRelu) {
    return v > C(0) ? v : C(0);
  } else if constexpr (A == FusedActivation::kRelu6) {
    return v > C(0) ? (v < C(6) ? v : C(6)) : C(0);
  } else if constexpr (A == FusedActivation::kElu) {
    return v < C(0) ? std::expm1(v) : v;
  } else if constexpr (A == FusedActivation::kLeakyRelu) {
    return v > C(0) ? v : v * alpha;
  } else if constexpr (A == FusedActivation::kTanh) {
    return std::tanh(v);
  } else if constexpr (A == FusedActivation::kSigmoid) {
    return C(1) / (C(1) + std::exp(-v));
  } else if constexpr (A == FusedActivation::kGeluApproximate) {
    const C k = C(0.7978845608028654);  // sqrt(2 / pi)
    return C(0.5) * v * (C(1) + std::tanh(k * (v + C(0.044715) * v * v * v)));
  } else if constexpr (A == FusedActivation::kGeluExact) {
    return C(0.5) * v * (C(1) + std::erf(v * C(0.7071067811865476)));
  } else {
    return v;
  }
}

template <FusedActivation A, typename T, typename C>
void Rows(int64_t begin, int64_t end, int64_t channels, const T* src,
          const C* mul, const C* add, const T* addend, T* out, C alpha) {
  for (int64_t r = begin; r < end; ++r) {
    const int64_t base = r * channels;
    for (int64_t c = 0; c < channels; ++c) {
      C v = static_cast<C>(src[base + c]);
      if (mul != nullptr) v *= mul[c];
      v += add[c];
      if (addend != nullptr) v += static_cast<C>(addend[base + c]);
      out[base + c] = static_cast<T>(Activate<A>(v, alpha));
    }
  }
}

}  // namespace epilogue_internal

// out[r, c] = act(src[r, c] * mul[c] + add[c] (+ addend[r, c])), in one pass
// over the thread pool. src and addend may alias out.
template <typename T>
void ApplyEpilogue(const Eigen::ThreadPoolDevice& device,
                   const FusionSpec& spec,
                   const ChannelAffine<EpilogueType<T>>& affine, int64_t rows,
                   int64_t channels, const T* src, const T* addend, T* out) {
  using C = EpilogueType<T>;
  using A = FusedActivation;
  const C* mul = affine.mul.empty() ? nullptr : affine.mul.data();
  const C* add = affine.add.data();
  const C alpha = static_cast<C>(spec.leakyrelu_alpha);
  const bool heavy = spec.activation == A::kElu ||
                     spec.activation == A::kTanh ||
                     spec.activation == A::kSigmoid ||
                     spec.activation == A::kGeluApproximate ||
                     spec.activation == A::kGeluExact;
  const double bytes = sizeof(T) * channels * (addend != nullptr ? 3 : 2);
  const Eigen::TensorOpCost cost(bytes * 2 / 3, bytes / 3,
                                 channels * (heavy ? 30.0 : 4.0));
  auto run = [&](auto act) {
    constexpr A kAct = decltype(act)::value;
    device.parallelFor(rows, cost, [&](Eigen::Index begin, Eigen::Index end) {
      epilogue_internal::Rows<kAct, T, C>(begin, end, channels, src, mul, add,
                                          addend, out, alpha);
    });
  };
  switch (spec.activation) {
    case A::kNone:
      return run(std::integral_constant<A, A::kNone>());
    case A::kRelu:
      return run(std::integral_constant<A, A::kRelu>());
    case A::kRelu6:
      return run(std::integral_constant<A, A::kRelu6>());
    case A::kElu:
      return run(std::integral_constant<A, A::kElu>());
    case A::kLeakyRelu:
      return run(std::integral_constant<A, A::kLeakyRelu>());
    case A::kTanh:
      return run(std::integral_constant<A, A::kTanh>());
    case A::kSigmoid:
      return run(std::integral_constant<A, A::kSigmoid>());
    case A::kGeluApproximate:
      return run(std::integral_constant<A, A::kGeluApproximate>());
    case A::kGeluExact:
      return run(std::integral_constant<A, A::kGeluExact>());
  }
}

}  // namespace nn
}  // namespace tributary

#endif  // TRIBUTARY_KERNELS_NN_FUSED_EPILOGUE_H_
