// Shape, ShapeN, Size and Rank: metadata of the input, never its elements. They
// run inline (cheap) and accept inputs of every dtype, handles included.

#include <cstdint>
#include <limits>

#include "common/kernel/kernel_registry.h"
#include "common/kernel/op_kernel.h"
#include "kernels/array/array_util.h"

namespace tributary {
namespace {

// The input's shape, as TensorFlow reads it: a ref input is read under its
// mutex (its shape can change through Assign with validate_shape=false).
TensorShape InputShape(OpKernelContext* context, int index) {
  if (context->input_is_ref(index)) {
    return context->mutable_input(index, /*lock_held=*/false).shape();
  }
  return context->input(index).shape();
}

// Writes `shape` as output `index` (int32 or int64, as allocated).
void WriteShape(OpKernelContext* context, int index, const TensorShape& shape) {
  const int rank = shape.dims();
  Tensor* out = nullptr;
  OP_REQUIRES_OK(context,
                 context->allocate_output(index, TensorShape({rank}), &out));
  if (out->dtype() == DT_INT32) {
    auto v = out->vec<int32_t>();
    for (int i = 0; i < rank; ++i) {
      const int64_t dim = shape.dim_size(i);
      OP_REQUIRES(context, dim <= std::numeric_limits<int32_t>::max(),
                  errors::InvalidArgument("Shape output type is 32-bit ",
                                          " but dim ", i, " is ", dim));
      v(i) = static_cast<int32_t>(dim);
    }
  } else {
    auto v = out->vec<int64_t>();
    for (int i = 0; i < rank; ++i) v(i) = shape.dim_size(i);
  }
}

class ShapeOp : public OpKernel {
 public:
  explicit ShapeOp(OpKernelConstruction* context) : OpKernel(context) {
    expensive_ = false;
  }

  void Compute(OpKernelContext* context) override {
    WriteShape(context, 0, InputShape(context, 0));
  }

  bool IsExpensive() override { return false; }
};

// ShapeN: output i is the shape of input i.
class ShapeNOp : public OpKernel {
 public:
  explicit ShapeNOp(OpKernelConstruction* context) : OpKernel(context) {
    expensive_ = false;
  }

  void Compute(OpKernelContext* context) override {
    for (int i = 0; i < context->num_inputs(); ++i) {
      WriteShape(context, i, InputShape(context, i));
      if (!context->status().ok()) return;
    }
  }

  bool IsExpensive() override { return false; }
};

class SizeOp : public OpKernel {
 public:
  explicit SizeOp(OpKernelConstruction* context) : OpKernel(context) {
    expensive_ = false;
  }

  void Compute(OpKernelContext* context) override {
    const int64_t size = InputShape(context, 0).num_elements();
    Tensor* out = nullptr;
    OP_REQUIRES_OK(context, context->allocate_output(0, TensorShape(), &out));
    if (out->dtype() == DT_INT32) {
      OP_REQUIRES(context, size <= std::numeric_limits<int32_t>::max(),
                  errors::InvalidArgument("Number of elements was larger than "
                                          "representable by 32-bit output "
                                          "type"));
      out->scalar<int32_t>()() = static_cast<int32_t>(size);
    } else {
      out->scalar<int64_t>()() = size;
    }
  }

  bool IsExpensive() override { return false; }
};

class RankOp : public OpKernel {
 public:
  explicit RankOp(OpKernelConstruction* context) : OpKernel(context) {
    expensive_ = false;
  }

  void Compute(OpKernelContext* context) override {
    Tensor* out = nullptr;
    OP_REQUIRES_OK(context, context->allocate_output(0, TensorShape(), &out));
    out->scalar<int32_t>()() = InputShape(context, 0).dims();
  }

  bool IsExpensive() override { return false; }
};

REGISTER_KERNEL_BUILDER(Name("Shape")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("out_type", array_ops::kIndexTypes),
                        ShapeOp);
REGISTER_KERNEL_BUILDER(Name("ShapeN")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("out_type", array_ops::kIndexTypes),
                        ShapeNOp);
REGISTER_KERNEL_BUILDER(Name("Size")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("out_type", array_ops::kIndexTypes),
                        SizeOp);
REGISTER_KERNEL_BUILDER(Name("Rank").Device(DEVICE_CPU), RankOp);

}  // namespace
}  // namespace tributary
