// ConcatOffset and InvertPermutation: the shape arithmetic of ConcatV2's and
// Transpose's gradients (int32 or int64 vectors on the host).

#include <cstdint>
#include <vector>

#include "common/framework/status.h"
#include "common/framework/tensor.h"
#include "common/framework/tensor_shape.h"
#include "common/kernel/kernel_registry.h"
#include "common/kernel/op_kernel.h"

namespace tributary {
namespace {

// ConcatOffset(concat_dim, shape_0..shape_{N-1}): offset_i is zero except at
// concat_dim, where it is the sum of the earlier shapes' sizes there.
template <typename T>
class ConcatOffsetOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& concat_dim = ctx->input(0);
    OP_REQUIRES(ctx, concat_dim.NumElements() == 1,
                errors::InvalidArgument("Concat dim tensor should be a scalar, "
                                        "but got shape ",
                                        concat_dim.shape().DebugString()));
    const int n = ctx->num_inputs() - 1;
    const Tensor& first = ctx->input(1);
    OP_REQUIRES(ctx, first.dims() == 1,
                errors::InvalidArgument("input 0 should be a vector, but got shape ",
                                        first.shape().DebugString()));
    const int64_t rank = first.NumElements();
    int64_t axis = concat_dim.flat<int32_t>()(0);
    if (axis < 0) axis += rank;
    OP_REQUIRES(ctx, axis >= 0 && axis < rank,
                errors::InvalidArgument("Concat dim is out of range: ",
                                        concat_dim.flat<int32_t>()(0), " vs. ",
                                        rank));
    T offset = 0;
    for (int i = 0; i < n; ++i) {
      const Tensor& shape = ctx->input(1 + i);
      OP_REQUIRES(ctx, shape.dims() == 1 && shape.NumElements() == rank,
                  errors::InvalidArgument("input ", i, " should contain ", rank,
                                          " elements, but got ",
                                          shape.NumElements()));
      Tensor* out = nullptr;
      OP_REQUIRES_OK(ctx, ctx->allocate_output(i, TensorShape({rank}), &out));
      for (int64_t d = 0; d < rank; ++d) {
        const T size = shape.vec<T>()(d);
        if (d == axis) {
          out->vec<T>()(d) = offset;
          offset += size;
        } else {
          OP_REQUIRES(ctx, size == first.vec<T>()(d),
                      errors::InvalidArgument(
                          "All dimensions except ", axis,
                          " must match. Input ", i, " has shape ",
                          shape.DebugString(), " and doesn't match input 0 "
                          "with shape ",
                          first.DebugString(), "."));
          out->vec<T>()(d) = 0;
        }
      }
    }
  }
};

template <typename T>
class InvertPermutationOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    OP_REQUIRES(ctx, x.dims() == 1,
                errors::InvalidArgument("invert_permutation expects a 1D "
                                        "vector."));
    const int64_t n = x.NumElements();
    OP_REQUIRES(ctx, n <= INT32_MAX,
                errors::InvalidArgument(
                    "permutation of nonnegative int32s must have <= int32 max "
                    "elements"));
    Tensor* y = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &y));
    std::vector<bool> seen(n, false);
    for (int64_t i = 0; i < n; ++i) {
      const T d = x.vec<T>()(i);
      OP_REQUIRES(ctx, d >= 0 && d < n,
                  errors::InvalidArgument(d, " is not between 0 and ", n));
      OP_REQUIRES(ctx, !seen[d],
                  errors::InvalidArgument(d, " is duplicated in the input."));
      seen[d] = true;
      y->vec<T>()(d) = static_cast<T>(i);
    }
  }
};

REGISTER_KERNEL_BUILDER(
    Name("ConcatOffset").Device(DEVICE_CPU).TypeConstraint<int32_t>("shape_type"),
    ConcatOffsetOp<int32_t>);
REGISTER_KERNEL_BUILDER(
    Name("ConcatOffset").Device(DEVICE_CPU).TypeConstraint<int64_t>("shape_type"),
    ConcatOffsetOp<int64_t>);
REGISTER_KERNEL_BUILDER(
    Name("InvertPermutation").Device(DEVICE_CPU).TypeConstraint<int32_t>("T"),
    InvertPermutationOp<int32_t>);
REGISTER_KERNEL_BUILDER(
    Name("InvertPermutation").Device(DEVICE_CPU).TypeConstraint<int64_t>("T"),
    InvertPermutationOp<int64_t>);

}  // namespace
}  // namespace tributary
