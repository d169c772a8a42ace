// TanhGrad and SigmoidGrad: the backward passes of Tanh and Sigmoid written
// in terms of the forward output y (so the forward value is not recomputed):
//   TanhGrad(y, dy)    = dy * (1 - y * y)
//   SigmoidGrad(y, dy) = dy * y * (1 - y)
// Like TensorFlow's cwise binary ops they only need equal element counts
// (no broadcasting); the output takes y's shape.

#include <cstdint>

#include "common/framework/tensor.h"
#include "common/kernel/kernel_registry.h"
#include "common/kernel/op_kernel.h"
#include "unsupported/Eigen/CXX11/Tensor"

namespace tributary {
namespace {

template <typename T>
struct TanhGradFunctor {
  template <typename Y, typename DY>
  static auto Apply(const Y& y, const DY& dy) {
    return dy * (static_cast<T>(1) - y * y);
  }
};

template <typename T>
struct SigmoidGradFunctor {
  template <typename Y, typename DY>
  static auto Apply(const Y& y, const DY& dy) {
    return dy * y * (static_cast<T>(1) - y);
  }
};

template <typename T, typename Functor>
class ActivationGradOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* context) override {
    const Tensor& y = context->input(0);
    const Tensor& dy = context->input(1);
    OP_REQUIRES(context, y.NumElements() == dy.NumElements(),
                errors::InvalidArgument(
                    "The two arguments to a cwise op must have same number of "
                    "elements, got ",
                    y.NumElements(), " and ", dy.NumElements()));
    Tensor* output = nullptr;
    OP_REQUIRES_OK(context, context->forward_input_or_allocate_output(
                                {0, 1}, 0, y.shape(), &output));
    output->flat<T>().device(context->eigen_cpu_device()) =
        Functor::Apply(y.flat<T>(), dy.flat<T>());
  }
};

#define REGISTER_ACTIVATION_GRAD_KERNELS(T)                          \
  REGISTER_KERNEL_BUILDER(                                           \
      Name("TanhGrad").Device(DEVICE_CPU).TypeConstraint<T>("T"),    \
      ActivationGradOp<T, TanhGradFunctor<T>>);                      \
  REGISTER_KERNEL_BUILDER(                                           \
      Name("SigmoidGrad").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
      ActivationGradOp<T, SigmoidGradFunctor<T>>)

REGISTER_ACTIVATION_GRAD_KERNELS(float);
REGISTER_ACTIVATION_GRAD_KERNELS(double);
// Complex: the same formulas (no conjugate in the kernel; TensorFlow's
// Python gradients conjugate y before calling it).
REGISTER_ACTIVATION_GRAD_KERNELS(complex64);
REGISTER_ACTIVATION_GRAD_KERNELS(complex128);

#undef REGISTER_ACTIVATION_GRAD_KERNELS

}  // namespace
}  // namespace tributary
