// _FusedConv2D and _FusedDepthwiseConv2dNative: the convolution (Conv2D's or
// DepthwiseConv2dNative's attributes, checks and engine) followed by the
// epilogue of fused_epilogue.h, which grappler's remapper folds into them:
//   out = activation(conv(input, filter) + bias [+ addend])
//   out = activation(batch_norm(conv(input, filter)))
//
// float32 on oneDNN: bias in the primitive, batch norm as per-channel
// binary post-ops, the residual Add as a `sum` post-op over an output that
// already holds the addend (its buffer forwarded when no one else holds it,
// a copy otherwise), the activation as an eltwise post-op: the output is
// written once. Everything else (other dtypes, a geometry or post-op oneDNN
// declines, TRIBUTARY_CONV_BACKEND=im2col, a forced engine path) runs the
// unfused engine and then the epilogue in one thread-pool pass.

#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/status/status.h"
#include "common/framework/status.h"
#include "common/framework/tensor.h"
#include "common/framework/tensor_shape.h"
#include "common/framework/types.h"
#include "common/kernel/kernel_registry.h"
#include "common/kernel/op_kernel.h"
#include "kernels/nn/conv2d_launch.h"
#include "kernels/nn/conv2d_params.h"
#include "kernels/nn/depthwise_attrs.h"
#include "kernels/nn/fused_epilogue.h"
#include "kernels/nn/onednn_conv.h"
#include "kernels/nn/window_util.h"
#include "unsupported/Eigen/CXX11/Tensor"

namespace tributary {
namespace {

using nn::TensorFormat;

// Everything after the shape checks: args, output, convolution, epilogue.
// `launch_check`: the convolution's own checks that apply only when there is
// something to compute.
template <typename T>
void ComputeFused(OpKernelContext* context, const nn::FusionSpec& spec,
                  const nn::Conv2DGeometry& g, const TensorShape& out_shape,
                  const absl::Status& launch_check,
                  nn::OneDnnWeightsCache* weights_cache) {
  const Tensor& input = context->input(0);
  const Tensor& filter = context->input(1);
  constexpr int kFirstArg = 2;
  nn::ChannelAffine<nn::EpilogueType<T>> affine;
  OP_REQUIRES_OK(context,
                 nn::PrepareArgs<T>(context, spec, kFirstArg, out_shape,
                                    &affine));
  const int addend_index = kFirstArg + 1;
  Tensor* output = nullptr;
  int forwarded = -1;
  if (spec.add) {
    OP_REQUIRES_OK(context, context->forward_input_or_allocate_output(
                                {addend_index}, 0, out_shape, &output,
                                &forwarded));
  } else {
    OP_REQUIRES_OK(context, context->allocate_output(0, out_shape, &output));
  }
  if (out_shape.num_elements() == 0) return;
  OP_REQUIRES_OK(context, launch_check);
  const auto& device = context->eigen_cpu_device();
  T* out = output->flat<T>().data();
  // Whether `out` holds the addend already.
  bool out_has_addend = forwarded == addend_index;
  const bool something_to_convolve =
      input.NumElements() > 0 && filter.NumElements() > 0;

  if constexpr (std::is_same_v<T, float>) {
    if (something_to_convolve && nn::OneDnnConvEnabled() &&
        nn::conv_internal::forced_path.load(std::memory_order_relaxed) ==
            nn::Conv2DPath::kAuto) {
      nn::OneDnnPostOps post;
      if (spec.batch_norm) {
        post.scale = affine.mul.data();
        post.shift = affine.add.data();
      } else {
        post.bias = affine.add.data();
      }
      post.sum = spec.add;
      post.activation = spec.activation;
      post.alpha = spec.leakyrelu_alpha;
      if (spec.add && !out_has_addend) {
        output->flat<T>().device(device) =
            context->input(addend_index).flat<T>();
        out_has_addend = true;
      }
      if (nn::OneDnnConv2D(g, input.flat<float>().data(),
                           filter.flat<float>().data(), out,
                           device.numThreads(), weights_cache, &post)) {
        return;
      }
    }
  }

  // The unfused convolution, then one epilogue pass. With an addend in
  // `out`, the convolution goes to a temporary so the addend survives.
  Tensor conv_result;
  Tensor* conv = output;
  if (spec.add && out_has_addend) {
    OP_REQUIRES_OK(context, context->allocate_temp(DataTypeToEnum<T>::value,
                                                   out_shape, &conv_result));
    conv = &conv_result;
  }
  if (!something_to_convolve) {
    // Only padding, or an empty window, reaches the output.
    conv->flat<T>().device(device) = conv->flat<T>().constant(T(0));
  } else {
    OP_REQUIRES_OK(context, nn::LaunchConv2DAnyType<T>(context, g, input,
                                                       filter, conv,
                                                       weights_cache));
  }
  const T* addend = nullptr;
  if (spec.add) {
    addend = out_has_addend ? out : context->input(addend_index).flat<T>().data();
  }
  nn::ApplyEpilogue<T>(device, spec, affine, g.out_pixels(), g.out_depth,
                       conv->flat<T>().data(), addend, out);
}

template <typename T>
class FusedConv2DOp : public OpKernel {
 public:
  explicit FusedConv2DOp(OpKernelConstruction* context) : OpKernel(context) {
    OP_REQUIRES_OK(context, nn::ReadConv2DAttrs(context, &attrs_));
    OP_REQUIRES_OK(context,
                   nn::ReadFusionAttrs(context, "Fused Conv2D",
                                       /*allow_batch_norm=*/true, &spec_));
    std::string filter_format;
    OP_REQUIRES_OK(context, context->GetAttr("filter_format", &filter_format));
    OP_REQUIRES(context, filter_format == "HWIO",
                errors::InvalidArgument(
                    "_FusedConv2D on the CPU takes an HWIO filter, got ",
                    filter_format, " in node '", name(), "'"));
    int64_t num_host_args = 0;
    OP_REQUIRES_OK(context, context->GetAttr("num_host_args", &num_host_args));
    OP_REQUIRES(context, num_host_args == 0,
                errors::InvalidArgument(
                    "_FusedConv2D on the CPU takes no host_args, got ",
                    num_host_args, " in node '", name(), "'"));
  }

  void Compute(OpKernelContext* context) override {
    const Tensor& input = context->input(0);
    const Tensor& filter = context->input(1);
    nn::Conv2DGeometry g;
    TensorShape out_shape;
    OP_REQUIRES_OK(context,
                   nn::Conv2DShape(attrs_, input, filter, &g, &out_shape));
    const absl::Status launch_check =
        input.NumElements() == 0
            ? absl::OkStatus()
            : nn::CheckConv2DLaunch(attrs_, g, filter, "_FusedConv2D");
    ComputeFused<T>(context, spec_, g, out_shape, launch_check,
                    &weights_cache_);
  }

 private:
  nn::Conv2DAttrs attrs_;
  nn::FusionSpec spec_;
  nn::OneDnnWeightsCache weights_cache_;
};

template <typename T>
class FusedDepthwiseConv2dNativeOp : public OpKernel {
 public:
  explicit FusedDepthwiseConv2dNativeOp(OpKernelConstruction* context)
      : OpKernel(context) {
    OP_REQUIRES_OK(context,
                   nn::ReadDepthwiseAttrs(context, &attrs_,
                                          /*has_explicit_paddings=*/false));
    std::vector<int64_t> dilations;
    OP_REQUIRES_OK(context, context->GetAttr("dilations", &dilations));
    for (int64_t d : dilations) {
      OP_REQUIRES(context, d == 1,
                  errors::Unimplemented(
                      "Current kernel implementation does not support "
                      "dilations, received [",
                      absl::StrJoin(dilations, " "), "]"));
    }
    OP_REQUIRES_OK(context, nn::ReadFusionAttrs(context,
                                                "Fused DepthwiseConv2D",
                                                /*allow_batch_norm=*/true,
                                                &spec_));
  }

  void Compute(OpKernelContext* context) override {
    const Tensor& input = context->input(0);
    const Tensor& filter = context->input(1);
    nn::Conv2DGeometry g;
    TensorShape out_shape;
    OP_REQUIRES_OK(context,
                   nn::DepthwiseShape(attrs_, input, filter, &g, &out_shape));
    const absl::Status launch_check =
        attrs_.format == TensorFormat::kNHWC
            ? absl::OkStatus()
            : errors::Unimplemented(
                  "Depthwise convolution on CPU is only supported for NHWC "
                  "format");
    ComputeFused<T>(context, spec_, g, out_shape, launch_check,
                    &weights_cache_);
  }

 private:
  nn::DepthwiseAttrs attrs_;
  nn::FusionSpec spec_;
  nn::OneDnnWeightsCache weights_cache_;
};

#define REGISTER_FUSED_CONV2D(T)                                      \
  REGISTER_KERNEL_BUILDER(                                            \
      Name("_FusedConv2D").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
      FusedConv2DOp<T>)
REGISTER_FUSED_CONV2D(float);
REGISTER_FUSED_CONV2D(double);
REGISTER_FUSED_CONV2D(Eigen::half);
#undef REGISTER_FUSED_CONV2D

#define REGISTER_FUSED_DEPTHWISE(T)                        \
  REGISTER_KERNEL_BUILDER(Name("_FusedDepthwiseConv2dNative") \
                              .Device(DEVICE_CPU)          \
                              .TypeConstraint<T>("T"),     \
                          FusedDepthwiseConv2dNativeOp<T>)
REGISTER_FUSED_DEPTHWISE(float);
REGISTER_FUSED_DEPTHWISE(double);
REGISTER_FUSED_DEPTHWISE(Eigen::half);
REGISTER_FUSED_DEPTHWISE(Eigen::bfloat16);
#undef REGISTER_FUSED_DEPTHWISE

}  // namespace
}  // namespace tributary
