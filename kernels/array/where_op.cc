// Where (tf.where with one argument, tf.boolean_mask, feature columns'
// to_sparse_input): the coordinates of the input's true (non-zero) elements
// in row-major order, an int64 tensor of shape [count, rank]. A scalar input
// gives [count, 0].

#include <cstdint>
#include <vector>

#include "common/framework/types.h"
#include "common/kernel/kernel_registry.h"
#include "common/kernel/op_kernel.h"

namespace tributary {
namespace {

template <typename T>
bool IsTrue(const T& v) {
  return v != T(0);
}
template <>
bool IsTrue<bool>(const bool& v) {
  return v;
}

template <typename T>
class WhereOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* context) override {
    const Tensor& input = context->input(0);
    const int rank = input.dims();
    const int64_t n = input.NumElements();
    const T* in = static_cast<const T*>(input.data());
    int64_t count = 0;
    for (int64_t i = 0; i < n; ++i) count += IsTrue(in[i]) ? 1 : 0;
    Tensor* output = nullptr;
    OP_REQUIRES_OK(context, context->allocate_output(
                                0, TensorShape({count, rank}), &output));
    if (count == 0 || rank == 0) return;
    int64_t* out = static_cast<int64_t*>(output->data());
    std::vector<int64_t> dims(rank), index(rank, 0);
    for (int d = 0; d < rank; ++d) dims[d] = input.dim_size(d);
    for (int64_t i = 0; i < n; ++i) {
      if (IsTrue(in[i])) {
        for (int d = 0; d < rank; ++d) *out++ = index[d];
      }
      // The next row-major index.
      for (int d = rank - 1; d >= 0; --d) {
        if (++index[d] < dims[d]) break;
        index[d] = 0;
      }
    }
  }
};

#define REGISTER_WHERE(T)                                                   \
  REGISTER_KERNEL_BUILDER(                                                  \
      Name("Where").Device(DEVICE_CPU).TypeConstraint<T>("T"), WhereOp<T>);

REGISTER_WHERE(bool)
REGISTER_WHERE(float)
REGISTER_WHERE(double)
REGISTER_WHERE(int8_t)
REGISTER_WHERE(uint8_t)
REGISTER_WHERE(int16_t)
REGISTER_WHERE(int32_t)
REGISTER_WHERE(int64_t)
REGISTER_WHERE(Eigen::half)
REGISTER_WHERE(Eigen::bfloat16)
#undef REGISTER_WHERE

}  // namespace
}  // namespace tributary
