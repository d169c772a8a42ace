// Reshape, ExpandDims and Squeeze: the same elements under a new shape. The
// output shares the input's buffer (Tensor::CopyFrom), so they cost O(rank)
// whatever the tensor size, and run inline.

#include <cstdint>
#include <limits>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_join.h"
#include "common/kernel/kernel_registry.h"
#include "common/kernel/op_kernel.h"
#include "kernels/array/array_util.h"

namespace tributary {
namespace {

// Shares `input`'s buffer under `shape` as output 0.
void SetReshapedOutput(OpKernelContext* context, const Tensor& input,
                       const TensorShape& shape) {
  Tensor output(input.dtype());
  OP_REQUIRES(
      context, output.CopyFrom(input, shape),
      errors::Internal("Could not reshape ", input.shape().DebugString(),
                       " to ", shape.DebugString()));
  context->set_output(0, std::move(output));
}

class ReshapeOp : public OpKernel {
 public:
  explicit ReshapeOp(OpKernelConstruction* context) : OpKernel(context) {
    expensive_ = false;
  }

  void Compute(OpKernelContext* context) override {
    const Tensor& input = context->input(0);
    const Tensor& sizes = context->input(1);
    // A scalar shape is accepted as a one-element vector (legacy graphs).
    OP_REQUIRES(context, IsLegacyVectorShape(sizes.shape()),
                errors::InvalidArgument("sizes input must be 1-D, not ",
                                        sizes.shape().DebugString()));
    const std::vector<int64_t> dims = array_ops::IndexValues(sizes);

    // Zero-sized dims are kept out of `product` so that a -1 can still be
    // inferred from the nonzero dims when the input is empty ([0,3] ->
    // [-1,0] gives [3,0]), as TensorFlow does.
    TensorShape shape;
    int64_t product = 1;
    int unknown_index = -1;
    bool sizes_has_zero_dim = false;
    for (int d = 0; d < static_cast<int>(dims.size()); ++d) {
      const int64_t size = dims[d];
      if (size == -1) {
        OP_REQUIRES(
            context, unknown_index == -1,
            errors::InvalidArgument("Only one input size may be -1, not both ",
                                    unknown_index, " and ", d));
        unknown_index = d;
        shape.AddDim(1);
      } else if (size < 0) {
        OP_REQUIRES(context, false,
                    errors::InvalidArgument(
                        "Size ", d, " must be non-negative, not ", size));
      } else if (size == 0) {
        shape.AddDim(0);
        sizes_has_zero_dim = true;
      } else {
        OP_REQUIRES(
            context, product <= std::numeric_limits<int64_t>::max() / size,
            errors::InvalidArgument("Shape [", absl::StrJoin(dims, ", "),
                                    "] has too many elements"));
        product *= size;
        shape.AddDim(size);
      }
    }
    if (unknown_index != -1) {
      int64_t input_num_elements = 1;
      bool input_has_zero_dim = false;
      for (int d = 0; d < input.dims(); ++d) {
        // A zero input dim is left out when the requested sizes have one
        // too, so the other dims still determine the missing size.
        if (input.dim_size(d) > 0 || !sizes_has_zero_dim) {
          input_num_elements *= input.dim_size(d);
        } else {
          input_has_zero_dim = true;
        }
      }
      const int64_t missing = input_num_elements / product;
      if (!input_has_zero_dim) {
        OP_REQUIRES(
            context, product * missing == input_num_elements,
            errors::InvalidArgument(
                "Input to reshape is a tensor with ", input_num_elements,
                " values, but the requested shape requires a multiple of ",
                product));
      }
      shape.set_dim(unknown_index, missing);
    }
    OP_REQUIRES(context, shape.num_elements() == input.NumElements(),
                errors::InvalidArgument("Input to reshape is a tensor with ",
                                        input.NumElements(),
                                        " values, but the requested shape has ",
                                        shape.num_elements()));
    SetReshapedOutput(context, input, shape);
  }

  bool IsExpensive() override { return false; }

 private:
  static bool IsLegacyVectorShape(const TensorShape& s) {
    return s.dims() == 0 || s.dims() == 1;
  }
};

class ExpandDimsOp : public OpKernel {
 public:
  explicit ExpandDimsOp(OpKernelConstruction* context) : OpKernel(context) {
    expensive_ = false;
  }

  void Compute(OpKernelContext* context) override {
    const Tensor& input = context->input(0);
    const Tensor& dim_t = context->input(1);
    OP_REQUIRES(
        context, dim_t.NumElements() == 1,
        errors::InvalidArgument("'dim' must be a tensor with a single value"));
    int64_t dim = array_ops::FirstIndexValue(dim_t);
    const int input_dims = input.dims();
    OP_REQUIRES(context, dim >= -1 - input_dims && dim <= input_dims,
                errors::InvalidArgument("Tried to expand dim index ", dim,
                                        " for tensor with ", input_dims,
                                        " dimensions."));
    // numpy's convention: -1 inserts after the last dim.
    if (dim < 0) dim += input_dims + 1;
    TensorShape shape = input.shape();
    shape.InsertDim(static_cast<int>(dim), 1);
    SetReshapedOutput(context, input, shape);
  }

  bool IsExpensive() override { return false; }
};

class SqueezeOp : public OpKernel {
 public:
  explicit SqueezeOp(OpKernelConstruction* context) : OpKernel(context) {
    std::vector<int32_t> dims;
    OP_REQUIRES_OK(context, context->GetAttr("squeeze_dims", &dims));
    squeeze_dims_.assign(dims.begin(), dims.end());
    expensive_ = false;
  }

  void Compute(OpKernelContext* context) override {
    const Tensor& input = context->input(0);
    const int rank = input.dims();
    absl::flat_hash_set<int> wrapped;
    for (int dim : squeeze_dims_) {
      OP_REQUIRES(
          context, dim >= -rank && dim < rank,
          errors::InvalidArgument("Tried to squeeze dim index ", dim,
                                  " for tensor with ", rank, " dimensions."));
      wrapped.insert(dim < 0 ? dim + rank : dim);
    }
    TensorShape shape;
    for (int i = 0; i < rank; ++i) {
      const int64_t size = input.dim_size(i);
      if (!wrapped.empty()) {
        if (wrapped.contains(i)) {
          OP_REQUIRES(context, size == 1,
                      errors::InvalidArgument(
                          "Can not squeeze dim[", i,
                          "], expected a dimension of 1, got ", size));
        } else {
          shape.AddDim(size);
        }
      } else if (size != 1) {
        // No dims listed: every size-1 dim goes.
        shape.AddDim(size);
      }
    }
    SetReshapedOutput(context, input, shape);
  }

  bool IsExpensive() override { return false; }

 private:
  std::vector<int> squeeze_dims_;
};

REGISTER_KERNEL_BUILDER(Name("Reshape")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("Tshape", array_ops::kIndexTypes),
                        ReshapeOp);
REGISTER_KERNEL_BUILDER(Name("ExpandDims")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("Tdim", array_ops::kIndexTypes),
                        ExpandDimsOp);
REGISTER_KERNEL_BUILDER(Name("Squeeze").Device(DEVICE_CPU), SqueezeOp);
// On a GPU the data stays in device memory and only the shape arguments,
// read on the host, are host memory (as TensorFlow registers them). int32
// shapes only, which always live in host memory on a GPU: an int64 one made
// on the GPU is not yet copied to host memory reliably (issue 12).
REGISTER_KERNEL_BUILDER(Name("Reshape")
                            .Device(DEVICE_GPU)
                            .HostMemory("shape")
                            .TypeConstraint<int32_t>("Tshape"),
                        ReshapeOp);
REGISTER_KERNEL_BUILDER(Name("ExpandDims")
                            .Device(DEVICE_GPU)
                            .HostMemory("dim")
                            .TypeConstraint<int32_t>("Tdim"),
                        ExpandDimsOp);
REGISTER_KERNEL_BUILDER(Name("Squeeze").Device(DEVICE_GPU), SqueezeOp);

}  // namespace
}  // namespace tributary
