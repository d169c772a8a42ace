// Relu, Relu6 and their gradients, element-wise on the device's thread pool.
//
// Both reuse their input buffer for the output when nobody else holds it
// (forward_input_or_allocate_output), as TensorFlow does: activations are
// large and usually consumed once.

#include <cstdint>

#include "common/framework/tensor.h"
#include "common/kernel/kernel_registry.h"
#include "common/kernel/op_kernel.h"
#include "unsupported/Eigen/CXX11/Tensor"

namespace tributary {
namespace {

// The forward activations and the masks of their gradients: the gradient
// passes where the activation is on its identity segment, 0 elsewhere.
template <typename T>
struct ReluFunctor {
  template <typename X>
  static auto Apply(const X& x) {
    // cwiseMax keeps NaN (std::max semantics), matching TensorFlow.
    return x.cwiseMax(static_cast<T>(0));
  }
  template <typename X>
  static auto Mask(const X& x) {
    return x > static_cast<T>(0);
  }
};

template <typename T>
struct Relu6Functor {
  template <typename X>
  static auto Apply(const X& x) {
    return x.cwiseMax(static_cast<T>(0)).cwiseMin(static_cast<T>(6));
  }
  template <typename X>
  static auto Mask(const X& x) {
    return (x > static_cast<T>(0)) && (x < static_cast<T>(6));
  }
};

template <typename T, typename Functor>
class ReluOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* context) override {
    const Tensor& features = context->input(0);
    Tensor* output = nullptr;
    OP_REQUIRES_OK(context, context->forward_input_or_allocate_output(
                                {0}, 0, features.shape(), &output));
    output->flat<T>().device(context->eigen_cpu_device()) =
        Functor::Apply(features.flat<T>());
  }
};

template <typename T, typename Functor>
class ReluGradOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* context) override {
    const Tensor& gradients = context->input(0);
    const Tensor& features = context->input(1);
    // TensorFlow's ValidateInputsAreSameShape wording (names the node).
    OP_REQUIRES(context, gradients.shape().IsSameSize(features.shape()),
                errors::InvalidArgument(
                    "Inputs to operation ", name(), " of type ", type_string(),
                    " must have the same size and shape.  Input 0: ",
                    gradients.shape().DebugString(),
                    " != input 1: ", features.shape().DebugString()));
    Tensor* output = nullptr;
    OP_REQUIRES_OK(context, context->forward_input_or_allocate_output(
                                {0, 1}, 0, gradients.shape(), &output));
    // A product with the 0/1 mask rather than a select: a NaN gradient stays
    // NaN even where the unit was off, exactly as in TensorFlow.
    output->flat<T>().device(context->eigen_cpu_device()) =
        gradients.flat<T>() *
        Functor::Mask(features.flat<T>()).template cast<T>();
  }
};

#define REGISTER_RELU_KERNELS(T)                                   \
  REGISTER_KERNEL_BUILDER(                                         \
      Name("Relu").Device(DEVICE_CPU).TypeConstraint<T>("T"),      \
      ReluOp<T, ReluFunctor<T>>);                                  \
  REGISTER_KERNEL_BUILDER(                                         \
      Name("ReluGrad").Device(DEVICE_CPU).TypeConstraint<T>("T"),  \
      ReluGradOp<T, ReluFunctor<T>>);                              \
  REGISTER_KERNEL_BUILDER(                                         \
      Name("Relu6").Device(DEVICE_CPU).TypeConstraint<T>("T"),     \
      ReluOp<T, Relu6Functor<T>>);                                 \
  REGISTER_KERNEL_BUILDER(                                         \
      Name("Relu6Grad").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
      ReluGradOp<T, Relu6Functor<T>>)

REGISTER_RELU_KERNELS(float);
REGISTER_RELU_KERNELS(double);
REGISTER_RELU_KERNELS(int32_t);
REGISTER_RELU_KERNELS(int64_t);
REGISTER_RELU_KERNELS(Eigen::half);  // Keras mixed precision
REGISTER_RELU_KERNELS(Eigen::bfloat16);

#undef REGISTER_RELU_KERNELS

}  // namespace
}  // namespace tributary
