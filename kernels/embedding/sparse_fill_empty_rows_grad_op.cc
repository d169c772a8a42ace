// SparseFillEmptyRowsGrad(reverse_index_map, grad_values) ->
// (d_values, d_default_value): the gradient of SparseFillEmptyRows.
// d_values[j] = grad_values[reverse_index_map[j]] (where input entry j went),
// d_default_value = the sum of the grad_values entries that no
// reverse_index_map entry names (the filled-in rows). Registered for
// TensorFlow's CPU number types (real and complex; not string or bool).
//
// Errors are InvalidArgument in TensorFlow 2.21's words:
// "reverse_index_map must be a vector, saw: [1,1]", "grad_values must be a
// vector, saw: [1,3]", "Elements in reverse index must be in [0, 3) but got
// 5".

#include <cstdint>
#include <vector>

#include "common/framework/types.h"
#include "common/kernel/kernel_registry.h"
#include "common/kernel/op_kernel.h"

namespace tributary {
namespace {

template <typename T>
class SparseFillEmptyRowsGradOp : public OpKernel {
 public:
  explicit SparseFillEmptyRowsGradOp(OpKernelConstruction* context)
      : OpKernel(context) {}

  void Compute(OpKernelContext* context) override {
    const Tensor& reverse_index_map = context->input(0);
    const Tensor& grad_values = context->input(1);
    OP_REQUIRES(context, reverse_index_map.dims() == 1,
                errors::InvalidArgument(
                    "reverse_index_map must be a vector, saw: ",
                    reverse_index_map.shape().DebugString()));
    OP_REQUIRES(context, grad_values.dims() == 1,
                errors::InvalidArgument("grad_values must be a vector, saw: ",
                                        grad_values.shape().DebugString()));
    const int64_t n = reverse_index_map.dim_size(0);
    const int64_t n_full = grad_values.dim_size(0);
    const int64_t* map =
        n > 0 ? reverse_index_map.flat<int64_t>().data() : nullptr;
    for (int64_t j = 0; j < n; ++j) {
      OP_REQUIRES(context, map[j] >= 0 && map[j] < n_full,
                  errors::InvalidArgument(
                      "Elements in reverse index must be in [0, ", n_full,
                      ") but got ", map[j]));
    }
    Tensor* d_values = nullptr;
    OP_REQUIRES_OK(context, context->allocate_output(0, TensorShape({n}),
                                                     &d_values));
    Tensor* d_default = nullptr;
    OP_REQUIRES_OK(context,
                   context->allocate_output(1, TensorShape({}), &d_default));
    const T* g = n_full > 0 ? grad_values.flat<T>().data() : nullptr;
    std::vector<bool> visited(static_cast<size_t>(n_full), false);
    T* dv = n > 0 ? d_values->flat<T>().data() : nullptr;
    for (int64_t j = 0; j < n; ++j) {
      dv[j] = g[map[j]];
      visited[map[j]] = true;
    }
    T sum = T(0);
    for (int64_t i = 0; i < n_full; ++i) {
      if (!visited[i]) sum += g[i];
    }
    d_default->flat<T>()(0) = sum;
  }
};

#define TRIB_REGISTER_FILL_GRAD(T)                                 \
  REGISTER_KERNEL_BUILDER(Name("SparseFillEmptyRowsGrad")          \
                              .Device(DEVICE_CPU)                  \
                              .TypeConstraint<T>("T"),             \
                          SparseFillEmptyRowsGradOp<T>)

TRIB_REGISTER_FILL_GRAD(float);
TRIB_REGISTER_FILL_GRAD(double);
TRIB_REGISTER_FILL_GRAD(half);
TRIB_REGISTER_FILL_GRAD(bfloat16);
TRIB_REGISTER_FILL_GRAD(int8_t);
TRIB_REGISTER_FILL_GRAD(int16_t);
TRIB_REGISTER_FILL_GRAD(int32_t);
TRIB_REGISTER_FILL_GRAD(int64_t);
TRIB_REGISTER_FILL_GRAD(uint8_t);
TRIB_REGISTER_FILL_GRAD(uint16_t);
TRIB_REGISTER_FILL_GRAD(uint32_t);
TRIB_REGISTER_FILL_GRAD(uint64_t);
TRIB_REGISTER_FILL_GRAD(complex64);
TRIB_REGISTER_FILL_GRAD(complex128);
#undef TRIB_REGISTER_FILL_GRAD

}  // namespace
}  // namespace tributary
