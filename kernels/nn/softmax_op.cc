// Softmax and LogSoftmax over the last dimension.
//
// Each row is independent, so rows are split across the device's thread pool
// and each row is computed with vectorised Eigen array maps. The max is
// subtracted first (TensorFlow's formulation) so exp never overflows:
//   softmax    = exp(x - max) * (1 / sum(exp(x - max)))
//   logsoftmax = (x - max) - log(sum(exp(x - max)))

#include <cmath>
#include <cstdint>

#include "common/framework/tensor.h"
#include "common/kernel/kernel_registry.h"
#include "common/kernel/op_kernel.h"
#include "unsupported/Eigen/CXX11/Tensor"

namespace tributary {
namespace {

template <typename T, bool kLog>
void SoftmaxRow(const T* in, T* out, int64_t classes) {
  using Row = Eigen::Array<T, Eigen::Dynamic, 1>;
  const Eigen::Map<const Row> x(in, classes);
  Eigen::Map<Row> y(out, classes);
  // `in` may alias `out` (forwarded buffer): read the max before writing.
  const T max = x.maxCoeff();
  if (kLog) {
    y = x - max;
    const T log_sum = Eigen::numext::log(T(y.exp().sum()));
    y -= log_sum;
  } else {
    y = (x - max).exp();
    y *= static_cast<T>(1) / y.sum();
  }
}

template <typename T, bool kLog>
class SoftmaxOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* context) override {
    const Tensor& logits = context->input(0);
    OP_REQUIRES(context, logits.dims() >= 1,
                errors::InvalidArgument("logits must have >= 1 dimension, got ",
                                        logits.shape().DebugString()));
    Tensor* output = nullptr;
    OP_REQUIRES_OK(context, context->forward_input_or_allocate_output(
                                {0}, 0, logits.shape(), &output));
    if (logits.NumElements() == 0) return;

    const int64_t classes = logits.dim_size(logits.dims() - 1);
    const int64_t rows = logits.NumElements() / classes;
    const T* in = logits.flat<T>().data();
    T* out = output->flat<T>().data();
    // Per row: two reads and a write of the row, an exp per element.
    const Eigen::TensorOpCost cost(2.0 * classes * sizeof(T),
                                   1.0 * classes * sizeof(T), 20.0 * classes);
    context->eigen_cpu_device().parallelFor(
        rows, cost, [in, out, classes](Eigen::Index first, Eigen::Index last) {
          for (Eigen::Index r = first; r < last; ++r) {
            SoftmaxRow<T, kLog>(in + r * classes, out + r * classes, classes);
          }
        });
  }
};

#define REGISTER_SOFTMAX_KERNELS(T)                                 \
  REGISTER_KERNEL_BUILDER(                                          \
      Name("Softmax").Device(DEVICE_CPU).TypeConstraint<T>("T"),    \
      SoftmaxOp<T, false>);                                         \
  REGISTER_KERNEL_BUILDER(                                          \
      Name("LogSoftmax").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
      SoftmaxOp<T, true>)

REGISTER_SOFTMAX_KERNELS(float);
REGISTER_SOFTMAX_KERNELS(double);
REGISTER_SOFTMAX_KERNELS(Eigen::half);  // Keras mixed precision
REGISTER_SOFTMAX_KERNELS(Eigen::bfloat16);

#undef REGISTER_SOFTMAX_KERNELS

}  // namespace
}  // namespace tributary
