// Roll(input, shift, axis): elements shifted cyclically, output[..., i, ...]
// = input[..., (i - shift) mod n, ...] along each named axis (tf.roll).
// Shifts on the same axis add up; negative axes count from the end. Each
// output row (the innermost dim) is at most two contiguous runs of one input
// row. TensorFlow's messages: "shift and axis must have the same size",
// "axis 2 is out of range".

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "common/kernel/kernel_registry.h"
#include "common/kernel/op_kernel.h"
#include "kernels/array/array_util.h"

namespace tributary {
namespace {

template <typename T>
void RollRows(const T* src, absl::Span<const int64_t> dims,
              absl::Span<const int64_t> shifts, T* dst) {
  const int rank = static_cast<int>(dims.size());
  const int64_t inner = dims[rank - 1];
  const int64_t inner_shift = shifts[rank - 1];
  const auto strides = array_ops::RowMajorStrides(TensorShape(dims));
  absl::InlinedVector<int64_t, 8> index(rank, 0);
  int64_t rows = 1;
  for (int d = 0; d + 1 < rank; ++d) rows *= dims[d];
  for (int64_t r = 0; r < rows; ++r) {
    int64_t src_row = 0;
    for (int d = 0; d + 1 < rank; ++d) {
      int64_t i = index[d] - shifts[d];
      if (i < 0) i += dims[d];
      src_row += i * strides[d];
    }
    const T* in = src + src_row;
    T* out = dst + r * inner;
    // out[j] = in[(j - s) mod n]: in[n-s..n) then in[0..n-s).
    std::copy(in + inner - inner_shift, in + inner, out);
    std::copy(in, in + inner - inner_shift, out + inner_shift);
    for (int d = rank - 2; d >= 0; --d) {
      if (++index[d] < dims[d]) break;
      index[d] = 0;
    }
  }
}

class RollOp : public OpKernel {
 public:
  explicit RollOp(OpKernelConstruction* context) : OpKernel(context) {}

  void Compute(OpKernelContext* context) override {
    const Tensor& input = context->input(0);
    const Tensor& shift = context->input(1);
    const Tensor& axis = context->input(2);
    OP_REQUIRES(context, input.dims() >= 1,
                errors::InvalidArgument("input must be 1-D or higher"));
    OP_REQUIRES(context, shift.dims() <= 1,
                errors::InvalidArgument(
                    "shift must be a scalar or a 1-D vector. Found: ",
                    shift.shape().DebugString()));
    OP_REQUIRES(context, axis.dims() <= 1,
                errors::InvalidArgument(
                    "axis must be a scalar or a 1-D vector. Found: ",
                    axis.shape().DebugString()));
    OP_REQUIRES(context, shift.shape() == axis.shape(),
                errors::InvalidArgument(
                    "shift and axis must have the same size"));
    const std::vector<int64_t> shifts = array_ops::IndexValues(shift);
    const std::vector<int64_t> axes = array_ops::IndexValues(axis);
    const int rank = input.dims();
    std::vector<int64_t> total(rank, 0);
    for (size_t i = 0; i < axes.size(); ++i) {
      int64_t a = axes[i];
      if (a < 0) a += rank;
      OP_REQUIRES(context, a >= 0 && a < rank,
                  errors::InvalidArgument("axis ", axes[i],
                                          " is out of range"));
      total[a] += shifts[i];
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(context,
                   context->allocate_output(0, input.shape(), &out));
    if (out->NumElements() == 0) return;
    for (int d = 0; d < rank; ++d) {
      const int64_t n = input.dim_size(d);
      total[d] %= n;
      if (total[d] < 0) total[d] += n;
    }
    const bool ok = array_ops::VisitMovableType(input.dtype(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      RollRows<T>(array_ops::RawData<T>(input), input.shape().dim_sizes(),
                  total, array_ops::RawData<T>(out));
    });
    OP_REQUIRES(context, ok, array_ops::UnsupportedDtype("Roll", input.dtype()));
  }
};

REGISTER_KERNEL_BUILDER(Name("Roll")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("T", array_ops::kAllTypes)
                            .TypeConstraint("Tshift", array_ops::kIndexTypes)
                            .TypeConstraint("Taxis", array_ops::kIndexTypes),
                        RollOp);

}  // namespace
}  // namespace tributary
