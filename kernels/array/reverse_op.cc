// ReverseV2: reverses `tensor` along the dims listed in `axis` (int32 or
// int64, negative counts from the end), for every dtype TensorFlow registers
// on CPU (kAllTypes).
//
// The reversal is one StridedCopy reading the source with a negative stride
// along each reversed dim, starting from that dim's last element. Errors
// follow TensorFlow: a non-vector axis, an axis out of [-rank, rank) or
// listed twice are InvalidArgument.

#include <cstdint>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "common/framework/status.h"
#include "common/framework/tensor.h"
#include "common/kernel/kernel_registry.h"
#include "common/kernel/op_kernel.h"
#include "common/kernel/op_requires.h"
#include "kernels/array/array_util.h"
#include "kernels/array/strided_copy.h"

namespace tributary {
namespace {

class ReverseV2Op : public OpKernel {
 public:
  explicit ReverseV2Op(OpKernelConstruction* context) : OpKernel(context) {}

  void Compute(OpKernelContext* context) override {
    const Tensor& input = context->input(0);
    const Tensor& axis_t = context->input(1);
    OP_REQUIRES(context, axis_t.dims() == 1,
                errors::InvalidArgument("'dims' must be 1-dimension, not ",
                                        axis_t.dims()));
    const int rank = input.dims();
    std::vector<bool> reversed(rank, false);
    for (int64_t axis : array_ops::IndexValues(axis_t)) {
      const int64_t canonical = axis < 0 ? axis + rank : axis;
      OP_REQUIRES(context, canonical >= 0 && canonical < rank,
                  errors::InvalidArgument("'axis'[", axis, "] = ", axis,
                                          " is out of valid range [", -rank,
                                          ", ", rank - 1, "]"));
      OP_REQUIRES(context, !reversed[canonical],
                  errors::InvalidArgument("axis ", canonical,
                                          " specified more than once."));
      reversed[canonical] = true;
    }
    bool any = false;
    for (int d = 0; d < rank; ++d)
      any = any || (reversed[d] && input.dim_size(d) > 1);
    if (!any || input.NumElements() == 0) {
      // Nothing moves: the output is the input (TensorFlow forwards too).
      context->set_output(0, input);
      return;
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(context, context->allocate_output(0, input.shape(), &out));
    const absl::InlinedVector<int64_t, 8> row_major =
        array_ops::RowMajorStrides(input.shape());
    absl::InlinedVector<int64_t, 8> dims;
    absl::InlinedVector<int64_t, 8> strides;
    int64_t start = 0;  // flat index of the element read first
    for (int d = 0; d < rank; ++d) {
      dims.push_back(input.dim_size(d));
      if (reversed[d]) {
        start += (input.dim_size(d) - 1) * row_major[d];
        strides.push_back(-row_major[d]);
      } else {
        strides.push_back(row_major[d]);
      }
    }
    OP_REQUIRES_OK(context,
                   array_ops::StridedCopy(context, input.dtype(),
                                          array_ops::ElementAt(input, start),
                                          dims, strides, out->data()));
  }
};

REGISTER_KERNEL_BUILDER(Name("ReverseV2")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("T", array_ops::kAllTypes)
                            .TypeConstraint("Tidx", array_ops::kIndexTypes),
                        ReverseV2Op);

}  // namespace
}  // namespace tributary
