// Conv2D: attribute and shape validation in TensorFlow's order and wording
// (conv_ops.cc), then the im2col + GEMM engine of conv2d_im2col.h.
//
// Like TensorFlow's CPU kernel it computes NHWC only (NCHW is accepted by the
// op so GPU-tuned graphs validate, and fails here with Unimplemented once a
// non-empty result is actually needed), supports SAME / VALID / EXPLICIT
// padding, strides, dilations and grouped convolution.

#include <cstdint>
#include <string>
#include <vector>

#include "common/framework/tensor.h"
#include "common/framework/tensor_shape.h"
#include "common/kernel/kernel_registry.h"
#include "common/kernel/op_kernel.h"
#include "kernels/nn/conv2d_launch.h"
#include "kernels/nn/conv2d_params.h"
#include "kernels/nn/window_util.h"
#include "unsupported/Eigen/CXX11/Tensor"

namespace tributary {
namespace {

template <typename T>
class Conv2DOp : public OpKernel {
 public:
  explicit Conv2DOp(OpKernelConstruction* context) : OpKernel(context) {
    OP_REQUIRES_OK(context, nn::ReadConv2DAttrs(context, &attrs_));
  }

  void Compute(OpKernelContext* context) override {
    const Tensor& input = context->input(0);
    const Tensor& filter = context->input(1);
    nn::Conv2DGeometry g;
    TensorShape out_shape;
    OP_REQUIRES_OK(context,
                   nn::Conv2DShape(attrs_, input, filter, &g, &out_shape));
    Tensor* output = nullptr;
    OP_REQUIRES_OK(context, context->allocate_output(0, out_shape, &output));
    if (out_shape.num_elements() == 0) return;
    if (input.NumElements() == 0) {
      // Only padding reaches the output.
      output->flat<T>().device(context->eigen_cpu_device()) =
          output->flat<T>().constant(T(0));
      return;
    }
    // From here on TensorFlow's CPU launcher: checks that only matter when
    // there is something to compute.
    OP_REQUIRES_OK(context, nn::CheckConv2DLaunch(attrs_, g, filter));
    OP_REQUIRES_OK(context, nn::LaunchConv2DAnyType<T>(context, g, input,
                                                       filter, output,
                                                       &weights_cache_));
  }

 private:
  nn::Conv2DAttrs attrs_;
  // float32 on oneDNN: a constant filter's reordered copy (onednn_conv.h).
  nn::OneDnnWeightsCache weights_cache_;
};

#define REGISTER_CONV2D_KERNEL(T) \
  REGISTER_KERNEL_BUILDER(        \
      Name("Conv2D").Device(DEVICE_CPU).TypeConstraint<T>("T"), Conv2DOp<T>)

REGISTER_CONV2D_KERNEL(float);
REGISTER_CONV2D_KERNEL(double);
REGISTER_CONV2D_KERNEL(int32_t);
REGISTER_CONV2D_KERNEL(Eigen::half);  // Keras mixed precision
REGISTER_CONV2D_KERNEL(Eigen::bfloat16);

#undef REGISTER_CONV2D_KERNEL

}  // namespace
}  // namespace tributary
