// Split and SplitV: cut the input along split_dim into num_split pieces
// (equal ones for Split, size_splits[i] for SplitV, one of which may be -1
// for "the rest").
//
// Piece i is the input viewed from offset_i along split_dim with the
// input's own strides, i.e. a Slice; each is one StridedCopy
// (strided_copy.h), which merges the contiguous inner dims into memcpys.

#include <cstdint>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "common/kernel/kernel_registry.h"
#include "common/kernel/op_kernel.h"
#include "kernels/array/array_util.h"
#include "kernels/array/strided_copy.h"

namespace tributary {
namespace {

// Resolves a possibly negative split_dim against `rank`, with TensorFlow's
// error naming the value as given.
absl::Status ResolveSplitDim(int64_t split_dim, int rank, int* axis) {
  *axis = static_cast<int>(split_dim < 0 ? split_dim + rank : split_dim);
  if (0 <= *axis && *axis < rank) return absl::OkStatus();
  return errors::InvalidArgument("-input rank(-", rank,
                                 ") <= split_dim < input rank (", rank,
                                 "), but got ", split_dim);
}

// Writes piece i (sizes[i] long along `axis`) to output i.
void EmitPieces(OpKernelContext* context, const Tensor& input, int axis,
                const std::vector<int64_t>& sizes) {
  // One piece covering everything: the output is the input.
  if (sizes.size() == 1) {
    context->set_output(0, input);
    return;
  }
  const absl::InlinedVector<int64_t, 8> strides =
      array_ops::RowMajorStrides(input.shape());
  int64_t offset = 0;
  for (size_t i = 0; i < sizes.size(); ++i) {
    TensorShape shape = input.shape();
    shape.set_dim(axis, sizes[i]);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(context, context->allocate_output(i, shape, &out));
    if (out->NumElements() > 0) {
      absl::InlinedVector<int64_t, 8> dims(shape.dims());
      for (int d = 0; d < shape.dims(); ++d) dims[d] = shape.dim_size(d);
      OP_REQUIRES_OK(
          context,
          array_ops::StridedCopy(
              context, input.dtype(),
              array_ops::ElementAt(input, offset * strides[axis]), dims,
              strides, out->data()));
    }
    offset += sizes[i];
  }
}

class SplitOp : public OpKernel {
 public:
  explicit SplitOp(OpKernelConstruction* context) : OpKernel(context) {}

  void Compute(OpKernelContext* context) override {
    const Tensor& split_dim_t = context->input(0);
    const Tensor& input = context->input(1);
    OP_REQUIRES(context, TensorShapeUtils::IsScalar(split_dim_t.shape()),
                errors::InvalidArgument("split_dim must be a scalar but has "
                                        "rank ",
                                        split_dim_t.dims()));
    int axis = 0;
    OP_REQUIRES_OK(context, ResolveSplitDim(split_dim_t.scalar<int32_t>()(),
                                            input.dims(), &axis));
    const int num_split = context->num_outputs();
    const int64_t size = input.dim_size(axis);
    OP_REQUIRES(
        context, size % num_split == 0,
        errors::InvalidArgument(
            "Number of ways to split should evenly divide the split "
            "dimension, but got split_dim ",
            axis, " (size = ", size, ") and num_split ", num_split));
    EmitPieces(context, input, axis,
               std::vector<int64_t>(num_split, size / num_split));
  }
};

class SplitVOp : public OpKernel {
 public:
  explicit SplitVOp(OpKernelConstruction* context) : OpKernel(context) {}

  void Compute(OpKernelContext* context) override {
    const Tensor& input = context->input(0);
    const Tensor& sizes_t = context->input(1);
    const Tensor& split_dim_t = context->input(2);
    const int num_split = context->num_outputs();
    // SplitV, unlike Split, takes any one-element split_dim.
    OP_REQUIRES(context, split_dim_t.NumElements() == 1,
                errors::InvalidArgument(
                    "split_dim_tensor must have exactly one element."));
    OP_REQUIRES(
        context,
        sizes_t.dims() == 1 && sizes_t.NumElements() == num_split,
        errors::InvalidArgument("size of the split_tensor must be 1-D and "
                                "have the same elements as outputs got ",
                                sizes_t.dims(), " -D and ",
                                sizes_t.NumElements(), " elements"));
    int axis = 0;
    OP_REQUIRES_OK(context, ResolveSplitDim(split_dim_t.flat<int32_t>()(0),
                                            input.dims(), &axis));
    std::vector<int64_t> sizes = array_ops::IndexValues(sizes_t);
    const int64_t size = input.dim_size(axis);
    // TensorFlow takes no -1 for a single piece.
    OP_REQUIRES(context, num_split > 1 || sizes[0] == size,
                errors::InvalidArgument(
                    "If there is only one output, it must have the same size "
                    "as the input. Input size: ",
                    size, " output size: ", sizes[0]));
    int inferred = -1;
    int64_t determined = 0;
    for (int i = 0; i < num_split; ++i) {
      if (sizes[i] == -1) {
        OP_REQUIRES(context, inferred == -1,
                    errors::InvalidArgument(
                        "There can only be one -1 in the input."));
        inferred = i;
        continue;
      }
      OP_REQUIRES(context, sizes[i] >= 0,
                  errors::InvalidArgument("Split size at index ", i,
                                          " must be >= 0. Got: ", sizes[i]));
      determined += sizes[i];
    }
    OP_REQUIRES(
        context,
        (inferred == -1 && determined == size) ||
            (inferred >= 0 && determined <= size),
        errors::InvalidArgument(
            "Determined shape must either match input shape along split_dim "
            "exactly if fully specified, or be less than the size of the "
            "input along split_dim if not fully specified.  Got: ",
            determined));
    if (inferred >= 0) sizes[inferred] = size - determined;
    EmitPieces(context, input, axis, sizes);
  }
};

REGISTER_KERNEL_BUILDER(Name("Split")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("T", array_ops::kAllTypes),
                        SplitOp);
REGISTER_KERNEL_BUILDER(Name("SplitV")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("T", array_ops::kAllTypes)
                            .TypeConstraint("Tlen", {DT_INT8, DT_INT32,
                                                     DT_INT64}),
                        SplitVOp);

}  // namespace
}  // namespace tributary
