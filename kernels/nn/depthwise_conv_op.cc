// DepthwiseConv2dNative: attribute and shape validation in the order and
// wording of TensorFlow's reference CPU kernel (depthwise_conv_op.cc, the one
// the oracle runs with oneDNN off), then the Conv2D engine of conv2d_im2col.h.
//
// A depthwise convolution is a grouped convolution with one group per input
// channel: the filter [H, W, in_depth, multiplier] read as HWIO with input
// depth 1 is [H, W, 1, in_depth * multiplier] with the same bytes, and output
// channel c * multiplier + q is exactly group c's column q. So no new loop is
// needed, only the geometry (window_util.h) and LaunchConv2D.
//
// As TensorFlow's CPU kernel: NHWC only (NCHW validates and fails with
// Unimplemented once a non-empty result is needed), equal row and column
// strides, no dilation other than 1 (Unimplemented), SAME / VALID / EXPLICIT
// padding.

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_join.h"
#include "common/framework/tensor.h"
#include "common/framework/tensor_shape.h"
#include "common/kernel/kernel_registry.h"
#include "common/kernel/op_kernel.h"
#include "kernels/nn/conv2d_launch.h"
#include "kernels/nn/depthwise_attrs.h"
#include "kernels/nn/window_util.h"
#include "unsupported/Eigen/CXX11/Tensor"

namespace tributary {
namespace {

using nn::FormatDimIndex;
using nn::Padding;
using nn::TensorFormat;

template <typename T>
class DepthwiseConv2dNativeOp : public OpKernel {
 public:
  explicit DepthwiseConv2dNativeOp(OpKernelConstruction* context)
      : OpKernel(context) {
    OP_REQUIRES_OK(context, nn::ReadDepthwiseAttrs(context, &attrs_));
    // The reference kernel has no dilated path (tf.nn.depthwise_conv2d
    // lowers dilation to space-to-batch before reaching this op).
    std::vector<int64_t> dilations;
    OP_REQUIRES_OK(context, context->GetAttr("dilations", &dilations));
    for (int64_t d : dilations) {
      OP_REQUIRES(context, d == 1,
                  errors::Unimplemented(
                      "Current kernel implementation does not support "
                      "dilations, received [",
                      absl::StrJoin(dilations, " "), "]"));
    }
  }

  void Compute(OpKernelContext* context) override {
    const Tensor& input = context->input(0);
    const Tensor& filter = context->input(1);
    nn::Conv2DGeometry g;
    TensorShape out_shape;
    OP_REQUIRES_OK(context,
                   nn::DepthwiseShape(attrs_, input, filter, &g, &out_shape));
    Tensor* output = nullptr;
    OP_REQUIRES_OK(context, context->allocate_output(0, out_shape, &output));
    if (out_shape.num_elements() == 0) return;
    OP_REQUIRES(context, attrs_.format == TensorFormat::kNHWC,
                errors::Unimplemented("Depthwise convolution on CPU is only "
                                      "supported for NHWC format"));
    if (input.NumElements() == 0 || filter.NumElements() == 0) {
      // Only padding, or an empty window, reaches the output.
      output->flat<T>().device(context->eigen_cpu_device()) =
          output->flat<T>().constant(T(0));
      return;
    }
    OP_REQUIRES_OK(context, nn::LaunchConv2DAnyType<T>(context, g, input,
                                                       filter, output,
                                                       &weights_cache_));
  }

 private:
  nn::DepthwiseAttrs attrs_;
  // float32 on oneDNN: a constant filter's reordered copy (onednn_conv.h).
  nn::OneDnnWeightsCache weights_cache_;
};

#define REGISTER_DEPTHWISE_KERNEL(T)                                           \
  REGISTER_KERNEL_BUILDER(                                                     \
      Name("DepthwiseConv2dNative").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
      DepthwiseConv2dNativeOp<T>)

REGISTER_DEPTHWISE_KERNEL(float);
REGISTER_DEPTHWISE_KERNEL(double);
REGISTER_DEPTHWISE_KERNEL(Eigen::half);  // Keras mixed precision
REGISTER_DEPTHWISE_KERNEL(Eigen::bfloat16);

#undef REGISTER_DEPTHWISE_KERNEL

}  // namespace
}  // namespace tributary
