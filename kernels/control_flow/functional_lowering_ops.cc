// CPU kernels for the two helper ops of functional control flow's lowering
// (common/function/lower_control_flow.h): ToBool, If's predicate rule, and
// _SwitchN, Case's N-way Switch. The executor treats _SwitchN as a Switch
// (NodeClass::kSwitch): outputs the kernel leaves unset become dead.

#include <cstdint>
#include <cstring>
#include <string>

#include "common/framework/status.h"
#include "common/framework/tensor.h"
#include "common/framework/tensor_shape.h"
#include "common/kernel/kernel_registry.h"
#include "common/kernel/op_kernel.h"
#include "common/kernel/op_requires.h"

namespace tributary {
namespace {

template <typename T>
bool NonZero(const Tensor& t) {
  return t.scalar<T>()() != T(0);
}

// A 16-bit float is zero when every bit but the sign is (+0 and -0).
bool NonZeroHalf(const Tensor& t) {
  uint16_t bits;
  std::memcpy(&bits, t.tensor_data().data(), sizeof(bits));
  return (bits & 0x7fff) != 0;
}

// TensorFlow's rule (core/kernels/functional_ops.cc, ToBool): a non-scalar
// is true when it has elements; a scalar is true when non-zero, a string
// scalar when non-empty.
absl::StatusOr<bool> TensorToBool(const Tensor& t) {
  if (t.dims() != 0) return t.NumElements() > 0;
  switch (t.dtype()) {
    case DT_BOOL: return t.scalar<bool>()();
    case DT_FLOAT: return NonZero<float>(t);
    case DT_DOUBLE: return NonZero<double>(t);
    case DT_INT8: return NonZero<int8_t>(t);
    case DT_INT16: return NonZero<int16_t>(t);
    case DT_INT32: return NonZero<int32_t>(t);
    case DT_INT64: return NonZero<int64_t>(t);
    case DT_UINT8: return NonZero<uint8_t>(t);
    case DT_UINT16: return NonZero<uint16_t>(t);
    case DT_UINT32: return NonZero<uint32_t>(t);
    case DT_UINT64: return NonZero<uint64_t>(t);
    case DT_HALF:
    case DT_BFLOAT16: return NonZeroHalf(t);
    case DT_STRING: return !t.scalar<std::string>()().empty();
    default:
      return errors::InvalidArgument("Invalid If predicate type ",
                                     DataTypeString(t.dtype()));
  }
}

class ToBoolOp : public OpKernel {
 public:
  explicit ToBoolOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    expensive_ = false;
  }

  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<bool> value = TensorToBool(ctx->input(0));
    OP_REQUIRES_OK(ctx, value.status());
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({}), &out));
    out->scalar<bool>()() = *value;
  }
};

class SwitchNOp : public OpKernel {
 public:
  explicit SwitchNOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    expensive_ = false;
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& index = ctx->input(1);
    OP_REQUIRES(ctx, index.dims() == 0,
                errors::InvalidArgument(
                    "The second input must be a scalar, but it has shape ",
                    index.shape().DebugString()));
    int32_t port = index.scalar<int32_t>()();
    // Case's rule: an out-of-range index selects the last branch.
    if (port < 0 || port >= ctx->num_outputs()) port = ctx->num_outputs() - 1;
    ctx->set_output(port, ctx->input(0));
  }
};

REGISTER_KERNEL_BUILDER(Name("ToBool").Device(DEVICE_CPU), ToBoolOp);
REGISTER_KERNEL_BUILDER(Name("_SwitchN").Device(DEVICE_CPU), SwitchNOp);

}  // namespace
}  // namespace tributary
