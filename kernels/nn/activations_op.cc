// Elu, Selu, LeakyRelu, Softplus, Softsign and their gradients (Keras
// activation='elu'|'selu'|'softplus'|'softsign', the LeakyReLU and ELU
// layers), element-wise on the device's thread pool in T itself, with the
// same Eigen expressions' numerics as TensorFlow:
//   Elu(x)       = x < 0 ? exp(x) - 1 : x
//   EluGrad      = y < 0 ? dy * (y + 1) : dy            (y: Elu's output)
//   Selu(x)      = x < 0 ? scale * alpha * (exp(x) - 1) : scale * x
//   SeluGrad     = y < 0 ? dy * (y + scale * alpha) : dy * scale
//   LeakyRelu(x) = x > 0 ? x : alpha * x
//   LeakyReluGrad= x > 0 ? dy : dy * alpha
//   Softplus(x)  = x if x > -t, exp(x) if x < t, else log1p(exp(x)), with
//                  t = log(epsilon(T)) + 2 (so exp never overflows and small
//                  values keep their precision)
//   SoftplusGrad = dy / (exp(-x) + 1)
//   Softsign(x)  = x / (|x| + 1),  SoftsignGrad = dy / (|x| + 1)^2
// Gradients require equal shapes (TensorFlow's ValidateInputsAreSameShape)
// and, like the forward ops, reuse an input buffer nobody else holds.

#include <cmath>
#include <cstdint>
#include <type_traits>

#include "common/framework/tensor.h"
#include "common/kernel/kernel_registry.h"
#include "common/kernel/op_kernel.h"
#include "unsupported/Eigen/CXX11/Tensor"

namespace tributary {
namespace {

// Klambauer et al., "Self-Normalizing Neural Networks" (2017): scale, and
// scale * alpha (alpha = 1.6732632423543772848170429916717) as its own
// constant, correctly rounded, not the product of two rounded doubles.
constexpr double kSeluScale = 1.0507009873554804934193349852946;
constexpr double kSeluScaleAlpha = 1.7580993408473768599402175208123;

template <typename T>
struct EluF {
  template <typename X>
  static auto Apply(const X& x, float) {
    return (x < static_cast<T>(0))
        .select(x.exp() - x.constant(static_cast<T>(1)), x);
  }
};

template <typename T>
struct SeluF {
  template <typename X>
  static auto Apply(const X& x, float) {
    const T scale = static_cast<T>(kSeluScale);
    const T scale_alpha = static_cast<T>(kSeluScaleAlpha);
    return (x < static_cast<T>(0))
        .select(x.constant(scale_alpha) * (x.exp() - x.constant(T(1))),
                x * scale);
  }
};

template <typename T>
struct LeakyReluF {
  template <typename X>
  static auto Apply(const X& x, float alpha) {
    return (x > static_cast<T>(0)).select(x, x * static_cast<T>(alpha));
  }
};

template <typename T>
struct SoftplusF {
  template <typename X>
  static auto Apply(const X& x, float) {
    // Computed in double for double, in float otherwise (half and bfloat16
    // evaluate through float), then rounded to T.
    using C = std::conditional_t<std::is_same_v<T, double>, double, float>;
    const T threshold = static_cast<T>(
        std::log(static_cast<C>(Eigen::NumTraits<T>::epsilon())) + C(2));
    return (x > -threshold)
        .select(x, (x < threshold).select(x.exp(), x.exp().log1p()));
  }
};

template <typename T>
struct SoftsignF {
  template <typename X>
  static auto Apply(const X& x, float) {
    return x / (x.abs() + x.constant(static_cast<T>(1)));
  }
};

// Gradients: dy and the second input (the forward's output for Elu/Selu, its
// features otherwise).
template <typename T>
struct EluGradF {
  template <typename G, typename Y>
  static auto Apply(const G& dy, const Y& y, float) {
    return (y < static_cast<T>(0))
        .select((y + y.constant(static_cast<T>(1))) * dy, dy);
  }
};

template <typename T>
struct SeluGradF {
  template <typename G, typename Y>
  static auto Apply(const G& dy, const Y& y, float) {
    const T scale = static_cast<T>(kSeluScale);
    const T scale_alpha = static_cast<T>(kSeluScaleAlpha);
    return (y < static_cast<T>(0))
        .select(dy * (y + y.constant(scale_alpha)), dy * scale);
  }
};

template <typename T>
struct LeakyReluGradF {
  template <typename G, typename X>
  static auto Apply(const G& dy, const X& x, float alpha) {
    return (x > static_cast<T>(0)).select(dy, dy * static_cast<T>(alpha));
  }
};

template <typename T>
struct SoftplusGradF {
  template <typename G, typename X>
  static auto Apply(const G& dy, const X& x, float) {
    return dy / ((-x).exp() + x.constant(static_cast<T>(1)));
  }
};

template <typename T>
struct SoftsignGradF {
  template <typename G, typename X>
  static auto Apply(const G& dy, const X& x, float) {
    return dy / (x.abs() + x.constant(static_cast<T>(1))).square();
  }
};

// LeakyRelu's alpha attr; 0 (unused) for the others.
void ReadAlpha(OpKernelConstruction* ctx, float* alpha) {
  if (ctx->HasAttr("alpha")) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("alpha", alpha));
  }
}

template <typename T, typename F>
class ActivationOp : public OpKernel {
 public:
  explicit ActivationOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ReadAlpha(ctx, &alpha_);
  }

  void Compute(OpKernelContext* context) override {
    const Tensor& features = context->input(0);
    Tensor* output = nullptr;
    OP_REQUIRES_OK(context, context->forward_input_or_allocate_output(
                                {0}, 0, features.shape(), &output));
    if (output->NumElements() == 0) return;
    output->flat<T>().device(context->eigen_cpu_device()) =
        F::Apply(features.flat<T>(), alpha_);
  }

 private:
  float alpha_ = 0;
};

template <typename T, typename F>
class ActivationGradOp : public OpKernel {
 public:
  explicit ActivationGradOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ReadAlpha(ctx, &alpha_);
  }

  void Compute(OpKernelContext* context) override {
    const Tensor& gradients = context->input(0);
    const Tensor& other = context->input(1);
    OP_REQUIRES(context, gradients.shape().IsSameSize(other.shape()),
                errors::InvalidArgument(
                    "Inputs to operation ", name(), " of type ", type_string(),
                    " must have the same size and shape.  Input 0: ",
                    gradients.shape().DebugString(),
                    " != input 1: ", other.shape().DebugString()));
    Tensor* output = nullptr;
    OP_REQUIRES_OK(context, context->forward_input_or_allocate_output(
                                {0, 1}, 0, gradients.shape(), &output));
    if (output->NumElements() == 0) return;
    output->flat<T>().device(context->eigen_cpu_device()) =
        F::Apply(gradients.flat<T>(), other.flat<T>(), alpha_);
  }

 private:
  float alpha_ = 0;
};

#define REGISTER_PAIR(OP, NAME, T)                                            \
  REGISTER_KERNEL_BUILDER(                                                 \
      Name(OP).Device(DEVICE_CPU).TypeConstraint<T>("T"),                  \
      ActivationOp<T, NAME##F<T>>);                                           \
  REGISTER_KERNEL_BUILDER(                                                 \
      Name(OP "Grad").Device(DEVICE_CPU).TypeConstraint<T>("T"),           \
      ActivationGradOp<T, NAME##GradF<T>>)

#define REGISTER_ACTIVATIONS(T)              \
  REGISTER_PAIR("Elu", Elu, T);              \
  REGISTER_PAIR("Selu", Selu, T);            \
  REGISTER_PAIR("LeakyRelu", LeakyRelu, T);  \
  REGISTER_PAIR("Softplus", Softplus, T);    \
  REGISTER_PAIR("Softsign", Softsign, T)

REGISTER_ACTIVATIONS(float);
REGISTER_ACTIVATIONS(double);
REGISTER_ACTIVATIONS(Eigen::half);  // Keras mixed precision
REGISTER_ACTIVATIONS(Eigen::bfloat16);

#undef REGISTER_ACTIVATIONS
#undef REGISTER_PAIR

}  // namespace
}  // namespace tributary
