// Tile: repeats the input multiples[d] times along each dim d.
//
// Output dim d of size m*n (n = input dim) is, row-major, the pair
// (repeat k < m, position j < n). So the output is exactly the strided view
// with dims [m0, n0, m1, n1, ...] and source strides [0, s0, 0, s1, ...]:
// stride 0 re-reads the same block for every repeat. strided_copy.h turns the
// innermost contiguous runs into memcpys.

#include <cstdint>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "common/kernel/kernel_registry.h"
#include "common/kernel/op_kernel.h"
#include "kernels/array/array_util.h"
#include "kernels/array/strided_copy.h"

namespace tributary {
namespace {

class TileOp : public OpKernel {
 public:
  explicit TileOp(OpKernelConstruction* context) : OpKernel(context) {}

  void Compute(OpKernelContext* context) override {
    const Tensor& input = context->input(0);
    const Tensor& multiples_t = context->input(1);
    OP_REQUIRES(context, multiples_t.dims() == 1,
                errors::InvalidArgument("Expected multiples to be 1-D, but got "
                                        "shape ",
                                        multiples_t.shape().DebugString()));
    const int rank = input.dims();
    OP_REQUIRES(context, multiples_t.NumElements() == rank,
                errors::InvalidArgument(
                    "Expected multiples argument to be a vector of length ",
                    rank, " but got length ", multiples_t.dim_size(0)));
    const std::vector<int64_t> multiples = array_ops::IndexValues(multiples_t);
    std::vector<int64_t> out_dims(rank);
    bool is_identity = true;
    for (int d = 0; d < rank; ++d) {
      OP_REQUIRES(context, multiples[d] >= 0,
                  errors::InvalidArgument("Expected multiples[", d,
                                          "] >= 0, but got ", multiples[d]));
      out_dims[d] = input.dim_size(d) * multiples[d];
      if (multiples[d] != 1) is_identity = false;
    }
    // All ones (or a scalar): the output is the input.
    Tensor* out = nullptr;
    OP_REQUIRES_OK(context, array_ops::ForwardOrAllocateOutput(
                                context, input, out_dims, is_identity, &out));
    if (out == nullptr) return;

    const absl::InlinedVector<int64_t, 8> in_strides =
        array_ops::RowMajorStrides(input.shape());
    absl::InlinedVector<int64_t, 16> dims, strides;
    for (int d = 0; d < rank; ++d) {
      dims.push_back(multiples[d]);
      strides.push_back(0);
      dims.push_back(input.dim_size(d));
      strides.push_back(in_strides[d]);
    }
    OP_REQUIRES_OK(context,
                   array_ops::StridedCopy(context, input.dtype(), input.data(),
                                          dims, strides, out->data()));
  }
};

REGISTER_KERNEL_BUILDER(Name("Tile")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("T", array_ops::kAllTypes)
                            .TypeConstraint("Tmultiples",
                                            array_ops::kIndexTypes),
                        TileOp);

}  // namespace
}  // namespace tributary
