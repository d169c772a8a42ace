// BroadcastTo (materialise a broadcast), BroadcastGradientArgs (the
// reduction axes that undo one, used by the gradients of every broadcasting
// binary op) and BroadcastArgs (the broadcast shape of two shapes,
// tf.broadcast_dynamic_shape).

#include <cstdint>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/strings/str_join.h"
#include "common/kernel/kernel_registry.h"
#include "common/kernel/op_kernel.h"
#include "kernels/array/array_util.h"
#include "kernels/array/broadcast_shapes.h"
#include "kernels/array/strided_copy.h"

namespace tributary {
namespace {

class BroadcastToOp : public OpKernel {
 public:
  explicit BroadcastToOp(OpKernelConstruction* context) : OpKernel(context) {}

  void Compute(OpKernelContext* context) override {
    const Tensor& input = context->input(0);
    const TensorShape& input_shape = input.shape();
    TensorShape output_shape;
    OP_REQUIRES_OK(context, array_ops::MakeShapeFromShapeTensor(
                                context->input(1), &output_shape));
    if (output_shape == input_shape) {
      context->set_output(0, input);
      return;
    }
    OP_REQUIRES(context, input_shape.dims() <= output_shape.dims(),
                errors::InvalidArgument(
                    "Rank of input (", input_shape.dims(),
                    ") must be no greater than rank of output shape (",
                    output_shape.dims(), ")."));
    if (input_shape.dims() > 0) {
      const array_ops::BroadcastResult bcast = array_ops::BroadcastShapes(
          input_shape.dim_sizes(), output_shape.dim_sizes());
      OP_REQUIRES(context, bcast.valid,
                  errors::InvalidArgument(
                      "Incompatible shapes: ", input_shape.DebugString(),
                      " vs. ", output_shape.DebugString()));
      OP_REQUIRES(
          context, TensorShape(bcast.output_shape) == output_shape,
          errors::InvalidArgument(
              "Unable to broadcast tensor of shape ", input_shape.DebugString(),
              " to tensor of shape ", output_shape.DebugString()));
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(context, context->allocate_output(0, output_shape, &out));
    if (out->NumElements() == 0) return;

    // Read the input through strides that are 0 along broadcast dims (and
    // along the leading dims the input lacks).
    const int out_rank = output_shape.dims();
    const int offset = out_rank - input_shape.dims();
    const auto in_strides = array_ops::RowMajorStrides(input_shape);
    absl::InlinedVector<int64_t, 8> strides(out_rank, 0);
    for (int d = offset; d < out_rank; ++d) {
      if (input_shape.dim_size(d - offset) != 1) {
        strides[d] = in_strides[d - offset];
      }
    }
    OP_REQUIRES_OK(
        context,
        array_ops::StridedCopy(context, input.dtype(), input.data(),
                               output_shape.dim_sizes(), strides, out->data()));
  }
};

// Both read two shape vectors and broadcast them: BroadcastGradientArgs
// outputs each side's reduction axes, BroadcastArgs (kShapeOnly) the shape.
template <bool kShapeOnly>
class BroadcastShapesOp : public OpKernel {
 public:
  explicit BroadcastShapesOp(OpKernelConstruction* context)
      : OpKernel(context) {
    expensive_ = false;
  }

  void Compute(OpKernelContext* context) override {
    std::vector<int64_t> shapes[2];
    for (int i = 0; i < 2; ++i) {
      const Tensor& in = context->input(i);
      OP_REQUIRES(context, in.dims() == 1,
                  errors::InvalidArgument("In[", i, "] must be a vector.",
                                          in.shape().DebugString()));
      shapes[i] = array_ops::IndexValues(in);
    }
    const array_ops::BroadcastResult bcast =
        array_ops::BroadcastShapes(shapes[0], shapes[1]);
    OP_REQUIRES(context, bcast.valid,
                errors::InvalidArgument(
                    "Incompatible shapes: [", absl::StrJoin(shapes[0], ","),
                    "] vs. [", absl::StrJoin(shapes[1], ","), "]"));
    if (kShapeOnly) {
      Output(context, 0, bcast.output_shape);
      return;
    }
    Output(context, 0, bcast.x_reduce_idx);
    Output(context, 1, bcast.y_reduce_idx);
  }

  bool IsExpensive() override { return false; }

 private:
  static void Output(OpKernelContext* context, int index,
                     const std::vector<int64_t>& values) {
    Tensor* out = nullptr;
    const int64_t n = static_cast<int64_t>(values.size());
    OP_REQUIRES_OK(context,
                   context->allocate_output(index, TensorShape({n}), &out));
    if (out->dtype() == DT_INT32) {
      auto v = out->vec<int32_t>();
      for (int64_t i = 0; i < n; ++i) v(i) = static_cast<int32_t>(values[i]);
    } else {
      auto v = out->vec<int64_t>();
      for (int64_t i = 0; i < n; ++i) v(i) = values[i];
    }
  }
};

REGISTER_KERNEL_BUILDER(Name("BroadcastTo")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("T", array_ops::kAllTypes)
                            .TypeConstraint("Tidx", array_ops::kIndexTypes),
                        BroadcastToOp);
REGISTER_KERNEL_BUILDER(Name("BroadcastGradientArgs")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("T", array_ops::kIndexTypes),
                        BroadcastShapesOp<false>);
REGISTER_KERNEL_BUILDER(Name("BroadcastArgs")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("T", array_ops::kIndexTypes),
                        BroadcastShapesOp<true>);

}  // namespace
}  // namespace tributary
