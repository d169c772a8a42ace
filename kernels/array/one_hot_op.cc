// OneHot: indices of shape S give an output with a new dimension of size
// `depth` inserted at `axis` (-1: last), holding on_value where the index
// along it equals the input index and off_value elsewhere (indices outside
// [0, depth), negatives included, give an all-off row, as in TensorFlow).

#include <cstdint>

#include "common/framework/tensor.h"
#include "common/framework/tensor_shape.h"
#include "common/framework/types.h"
#include "common/kernel/kernel_registry.h"
#include "common/kernel/op_kernel.h"
#include "kernels/array/array_util.h"

namespace tributary {
namespace {

template <typename TI>
class OneHotOp : public OpKernel {
 public:
  explicit OneHotOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("axis", &axis_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& indices = ctx->input(0);
    const Tensor& depth_t = ctx->input(1);
    const Tensor& on = ctx->input(2);
    const Tensor& off = ctx->input(3);
    const int indices_dims = indices.dims();
    const int output_dims = indices_dims + 1;
    OP_REQUIRES(ctx, axis_ == -1 || (axis_ >= 0 && axis_ < output_dims),
                errors::InvalidArgument("Expected axis to be -1 or between [0, ",
                                        output_dims, ").  But received: ",
                                        axis_));
    OP_REQUIRES(ctx, TensorShapeUtils::IsScalar(depth_t.shape()),
                errors::InvalidArgument("depth must be a scalar, but got: ",
                                        depth_t.shape().DebugString()));
    OP_REQUIRES(ctx, TensorShapeUtils::IsScalar(on.shape()),
                errors::InvalidArgument("on_value must be a scalar, but got: ",
                                        on.shape().DebugString()));
    OP_REQUIRES(ctx, TensorShapeUtils::IsScalar(off.shape()),
                errors::InvalidArgument("off_value must be a scalar, but got: ",
                                        off.shape().DebugString()));
    const int64_t depth = depth_t.scalar<int32_t>()();
    OP_REQUIRES(ctx, depth >= 0,
                errors::InvalidArgument("depth must be non-negative, got: ",
                                        depth));
    const int axis = axis_ == -1 ? indices_dims : static_cast<int>(axis_);
    int64_t prefix = 1, suffix = 1;
    TensorShape out_shape;
    for (int d = 0; d < indices_dims; ++d) {
      if (d == axis) out_shape.AddDim(depth);
      out_shape.AddDim(indices.dim_size(d));
      (d < axis ? prefix : suffix) *= indices.dim_size(d);
    }
    if (axis == indices_dims) out_shape.AddDim(depth);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    if (out->NumElements() == 0) return;
    const TI* idx = indices.flat<TI>().data();
    const bool ok = array_ops::VisitMovableType(on.dtype(), [&](auto tag) {
      using E = typename decltype(tag)::type;
      const E on_v = *array_ops::RawData<E>(on);
      const E off_v = *array_ops::RawData<E>(off);
      E* o = array_ops::RawData<E>(out);
      // out[p, d, s] = (indices[p, s] == d) ? on : off.
      for (int64_t p = 0; p < prefix; ++p) {
        for (int64_t d = 0; d < depth; ++d) {
          const TI* in = idx + p * suffix;
          E* row = o + (p * depth + d) * suffix;
          for (int64_t s = 0; s < suffix; ++s) {
            row[s] = static_cast<int64_t>(in[s]) == d ? on_v : off_v;
          }
        }
      }
    });
    OP_REQUIRES(ctx, ok, array_ops::UnsupportedDtype(type_string(), on.dtype()));
  }

 private:
  int64_t axis_ = -1;
};

#define REGISTER_ONE_HOT(TI)                                         \
  REGISTER_KERNEL_BUILDER(Name("OneHot")                             \
                              .Device(DEVICE_CPU)                    \
                              .TypeConstraint("T", array_ops::kAllTypes) \
                              .TypeConstraint<TI>("TI"),             \
                          OneHotOp<TI>)
REGISTER_ONE_HOT(uint8_t);
REGISTER_ONE_HOT(int8_t);
REGISTER_ONE_HOT(int32_t);
REGISTER_ONE_HOT(int64_t);
#undef REGISTER_ONE_HOT

}  // namespace
}  // namespace tributary
