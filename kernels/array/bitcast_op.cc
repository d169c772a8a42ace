// Bitcast: input's bytes as dtype `type`, TensorFlow's shape rule. Equal
// element sizes keep the shape; a smaller output type appends a dimension of
// in_size / out_size; a larger one requires the last dimension to be
// out_size / in_size and removes it (else InvalidArgument "Cannot bitcast
// from <T> to <type>", the enum numbers, as TensorFlow 2.21 words it).
// Sizes that do not divide are rejected when the kernel is built.
//
// The bytes are copied (a Tensor's buffer cannot change its dtype here); the
// values are identical to TensorFlow's buffer-sharing result.

#include <algorithm>
#include <cstring>

#include "common/framework/types.h"
#include "common/kernel/kernel_registry.h"
#include "common/kernel/op_kernel.h"

namespace tributary {
namespace {

class BitcastOp : public OpKernel {
 public:
  explicit BitcastOp(OpKernelConstruction* context) : OpKernel(context) {
    OP_REQUIRES_OK(context, context->GetAttr("T", &in_type_));
    OP_REQUIRES_OK(context, context->GetAttr("type", &out_type_));
    in_size_ = DataTypeSize(in_type_);
    out_size_ = DataTypeSize(out_type_);
    OP_REQUIRES(context,
                in_size_ > 0 && out_size_ > 0 &&
                    std::max(in_size_, out_size_) %
                            std::min(in_size_, out_size_) ==
                        0,
                errors::InvalidArgument("cannot convert between datatype ",
                                        static_cast<int>(in_type_), " and ",
                                        static_cast<int>(out_type_)));
  }

  void Compute(OpKernelContext* context) override {
    const Tensor& input = context->input(0);
    TensorShape shape = input.shape();
    if (out_size_ < in_size_) {
      shape.AddDim(in_size_ / out_size_);
    } else if (out_size_ > in_size_) {
      OP_REQUIRES(context,
                  input.dims() > 0 &&
                      input.dim_size(input.dims() - 1) == out_size_ / in_size_,
                  errors::InvalidArgument("Cannot bitcast from ",
                                          static_cast<int>(in_type_), " to ",
                                          static_cast<int>(out_type_)));
      shape.RemoveDim(input.dims() - 1);
    }
    Tensor* output = nullptr;
    OP_REQUIRES_OK(context, context->allocate_output(0, shape, &output));
    const size_t bytes = input.tensor_data().size();
    if (bytes > 0) std::memcpy(output->data(), input.data(), bytes);
  }

 private:
  DataType in_type_ = DT_INVALID;
  DataType out_type_ = DT_INVALID;
  int in_size_ = 0;
  int out_size_ = 0;
};

REGISTER_KERNEL_BUILDER(Name("Bitcast").Device(DEVICE_CPU), BitcastOp);

}  // namespace
}  // namespace tributary
