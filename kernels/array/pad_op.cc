// Pad and PadV2: surround the input with paddings[d] = (before, after)
// elements of a constant (zero for Pad) along each dim d.
//
// The output is first filled with the constant, then every innermost input
// row is copied to its place inside: rows are contiguous on both sides, so
// this is one fill plus one memcpy-like copy per row, split over the pool.
// Elements are moved by width (array_util.h), so every dtype costs one
// instantiation per element size.

#include <algorithm>
#include <cstdint>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "common/kernel/kernel_registry.h"
#include "common/kernel/op_kernel.h"
#include "kernels/array/array_util.h"

namespace tributary {
namespace {

// TensorFlow's PadOp supports ranks 0..8 (Unimplemented beyond).
constexpr int kMaxPadRank = 8;

class PadOp : public OpKernel {
 public:
  explicit PadOp(OpKernelConstruction* context) : OpKernel(context) {}

  void Compute(OpKernelContext* context) override {
    const Tensor& input = context->input(0);
    const Tensor& paddings_t = context->input(1);
    const int rank = input.dims();
    OP_REQUIRES(context, rank <= kMaxPadRank,
                errors::Unimplemented("inputs rank not in [0,", kMaxPadRank,
                                      "]: ", rank));
    OP_REQUIRES_OK(context, array_ops::CheckPaddingsMatrix(paddings_t));
    // TensorFlow's wording, including the missing separator after "inputs".
    OP_REQUIRES(context, paddings_t.dim_size(0) == rank,
                errors::InvalidArgument(
                    "The first dimension of paddings must be the rank of "
                    "inputs",
                    paddings_t.shape().DebugString(), " ",
                    input.shape().DebugString()));
    const Tensor* constant = nullptr;
    if (context->num_inputs() == 3) {
      constant = &context->input(2);
      OP_REQUIRES(
          context, TensorShapeUtils::IsScalar(constant->shape()),
          errors::InvalidArgument("constant_values must be a scalar. Found: ",
                                  constant->shape().DebugString()));
    }
    const std::vector<int64_t> paddings = array_ops::IndexValues(paddings_t);
    std::vector<int64_t> out_dims(rank);
    bool is_identity = true;
    for (int d = 0; d < rank; ++d) {
      const int64_t before = paddings[2 * d], after = paddings[2 * d + 1];
      OP_REQUIRES(context, before >= 0 && after >= 0,
                  errors::InvalidArgument(
                      "Paddings must be non-negative: ", before, " ", after));
      out_dims[d] = before + input.dim_size(d) + after;
      if (before != 0 || after != 0) is_identity = false;
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(context, array_ops::ForwardOrAllocateOutput(
                                context, input, out_dims, is_identity, &out));
    if (out == nullptr) return;

    const bool ok = array_ops::VisitMovableType(input.dtype(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      const T value =
          constant != nullptr ? array_ops::RawData<T>(*constant)[0] : T{};
      Fill(context, value, out);
      CopyRows(context, input, paddings, array_ops::RawData<T>(input),
               array_ops::RawData<T>(out), out->shape());
    });
    OP_REQUIRES(context, ok,
                array_ops::UnsupportedDtype(type_string(), input.dtype()));
  }

 private:
  template <typename T>
  static void Fill(OpKernelContext* context, const T& value, Tensor* out) {
    T* dst = array_ops::RawData<T>(out);
    array_ops::ParallelFor(context, out->NumElements(), sizeof(T),
                           [&](int64_t first, int64_t last) {
                             std::fill(dst + first, dst + last, value);
                           });
  }

  // Copies input row r (all dims but the last fixed) to the output position
  // shifted by the `before` paddings.
  template <typename T>
  static void CopyRows(OpKernelContext* context, const Tensor& input,
                       const std::vector<int64_t>& paddings, const T* src,
                       T* dst, const TensorShape& out_shape) {
    if (input.NumElements() == 0) return;
    const int rank = input.dims();
    const int64_t row = input.dim_size(rank - 1);
    const int64_t rows = input.NumElements() / row;
    const absl::InlinedVector<int64_t, 8> out_strides =
        array_ops::RowMajorStrides(out_shape);
    array_ops::ParallelFor(
        context, rows, 2.0 * row * sizeof(T), [&](int64_t first, int64_t last) {
          for (int64_t r = first; r < last; ++r) {
            int64_t offset = paddings[2 * (rank - 1)];
            int64_t rest = r;
            for (int d = rank - 2; d >= 0; --d) {
              const int64_t n = input.dim_size(d);
              offset += (rest % n + paddings[2 * d]) * out_strides[d];
              rest /= n;
            }
            std::copy(src + r * row, src + (r + 1) * row, dst + offset);
          }
        });
  }
};

REGISTER_KERNEL_BUILDER(Name("Pad")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("T", array_ops::kAllTypes)
                            .TypeConstraint("Tpaddings",
                                            array_ops::kIndexTypes),
                        PadOp);
REGISTER_KERNEL_BUILDER(Name("PadV2")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("T", array_ops::kAllTypes)
                            .TypeConstraint("Tpaddings",
                                            array_ops::kIndexTypes),
                        PadOp);

}  // namespace
}  // namespace tributary
