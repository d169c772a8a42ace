// L2Loss: output = sum(t ** 2) / 2 over every element, a scalar
// (tf.nn.l2_loss; tf.clip_by_global_norm sums one per gradient). Any shape;
// an empty input gives 0. Accumulates in double, so the float result can
// differ from TensorFlow's Eigen float reduction in the last bits.

#include <cstdint>

#include "common/framework/tensor.h"
#include "common/framework/tensor_shape.h"
#include "common/kernel/kernel_registry.h"
#include "common/kernel/op_kernel.h"

namespace tributary {
namespace {

template <typename T>
class L2LossOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* context) override {
    const Tensor& input = context->input(0);
    Tensor* output = nullptr;
    OP_REQUIRES_OK(context,
                   context->allocate_output(0, TensorShape({}), &output));
    const auto flat = input.flat<T>();
    double sum = 0;
    for (int64_t i = 0; i < flat.size(); ++i) {
      const double v = static_cast<double>(flat(i));
      sum += v * v;
    }
    output->scalar<T>()() = static_cast<T>(sum * 0.5);
  }
};

REGISTER_KERNEL_BUILDER(
    Name("L2Loss").Device(DEVICE_CPU).TypeConstraint<float>("T"),
    L2LossOp<float>);
REGISTER_KERNEL_BUILDER(
    Name("L2Loss").Device(DEVICE_CPU).TypeConstraint<double>("T"),
    L2LossOp<double>);

}  // namespace
}  // namespace tributary
