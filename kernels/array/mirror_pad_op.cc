// MirrorPad: pads each dim d with paddings[d] = (before, after) elements
// mirrored from the input, REFLECT excluding the edge element ([a b c] ->
// b | a b c | b) and SYMMETRIC including it (a | a b c | c).
//
// Output index o of a dim of size n reads input index o - before folded
// back into [0, n) (mirror_pad_index.h). Every output row (all dims but the
// last fixed) is one input row: its middle is a contiguous copy, its edges are
// the folded elements. Elements move by width (array_util.h).

#include <algorithm>
#include <cstdint>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "common/kernel/kernel_registry.h"
#include "common/kernel/op_kernel.h"
#include "kernels/array/array_util.h"
#include "kernels/array/mirror_pad_index.h"

namespace tributary {
namespace {

// TensorFlow's MirrorPad kernels support ranks 0..5 (Unimplemented beyond).
constexpr int kMaxMirrorPadRank = 5;

class MirrorPadOp : public OpKernel {
 public:
  explicit MirrorPadOp(OpKernelConstruction* context) : OpKernel(context) {
    std::string mode;
    OP_REQUIRES_OK(context, context->GetAttr("mode", &mode));
    offset_ = array_ops::MirrorOffset(mode);
  }

  void Compute(OpKernelContext* context) override {
    const Tensor& input = context->input(0);
    const Tensor& paddings_t = context->input(1);
    const int rank = input.dims();
    OP_REQUIRES(context, rank <= kMaxMirrorPadRank,
                errors::Unimplemented("inputs rank not in [0,",
                                      kMaxMirrorPadRank, "]: ", rank));
    std::vector<int64_t> paddings;
    OP_REQUIRES_OK(context,
                   array_ops::ReadMirrorPaddings(input, paddings_t, &paddings));
    std::vector<int64_t> out_dims(rank);
    bool is_identity = true;
    for (int d = 0; d < rank; ++d) {
      const int64_t before = paddings[2 * d], after = paddings[2 * d + 1];
      const int64_t n = input.dim_size(d);
      OP_REQUIRES(context, before >= 0 && after >= 0,
                  errors::InvalidArgument(
                      "paddings must be non-negative: ", before, " ", after));
      if (offset_ == 1) {
        OP_REQUIRES(context, before < n && after < n,
                    errors::InvalidArgument(
                        "paddings must be less than the dimension size: ",
                        before, ", ", after, " not less than ", n));
      } else {
        OP_REQUIRES(context, before <= n && after <= n,
                    errors::InvalidArgument(
                        "paddings must be no greater than the dimension "
                        "size: ",
                        before, ", ", after, " greater than ", n));
      }
      out_dims[d] = before + n + after;
      if (before != 0 || after != 0) is_identity = false;
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(context, array_ops::ForwardOrAllocateOutput(
                                context, input, out_dims, is_identity, &out));
    if (out == nullptr) return;
    const bool ok = array_ops::VisitMovableType(input.dtype(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      CopyRows(context, input, paddings, array_ops::RawData<T>(input),
               array_ops::RawData<T>(out), out->shape());
    });
    OP_REQUIRES(context, ok,
                array_ops::UnsupportedDtype(type_string(), input.dtype()));
  }

 private:
  template <typename T>
  void CopyRows(OpKernelContext* context, const Tensor& input,
                const std::vector<int64_t>& paddings, const T* src, T* dst,
                const TensorShape& out_shape) const {
    const int rank = input.dims();
    const int64_t n_last = input.dim_size(rank - 1);
    const int64_t before_last = paddings[2 * (rank - 1)];
    const int64_t out_row = out_shape.dim_size(rank - 1);
    const int64_t rows = out_shape.num_elements() / out_row;
    const absl::InlinedVector<int64_t, 8> in_strides =
        array_ops::RowMajorStrides(input.shape());
    const int64_t offset = offset_;
    array_ops::ParallelFor(
        context, rows, 2.0 * out_row * sizeof(T),
        [&](int64_t first, int64_t last) {
          for (int64_t r = first; r < last; ++r) {
            int64_t src_row = 0;
            int64_t rest = r;
            for (int d = rank - 2; d >= 0; --d) {
              const int64_t n_out = out_shape.dim_size(d);
              src_row +=
                  array_ops::MirrorSourceIndex(rest % n_out, paddings[2 * d],
                                               input.dim_size(d), offset) *
                  in_strides[d];
              rest /= n_out;
            }
            const T* s = src + src_row;
            T* o = dst + r * out_row;
            for (int64_t j = 0; j < before_last; ++j) {
              o[j] = s[array_ops::MirrorSourceIndex(j, before_last, n_last,
                                                    offset)];
            }
            std::copy(s, s + n_last, o + before_last);
            for (int64_t j = before_last + n_last; j < out_row; ++j) {
              o[j] = s[array_ops::MirrorSourceIndex(j, before_last, n_last,
                                                    offset)];
            }
          }
        });
  }

  int64_t offset_ = 0;
};

REGISTER_KERNEL_BUILDER(Name("MirrorPad")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("T", array_ops::kAllTypes)
                            .TypeConstraint("Tpaddings",
                                            array_ops::kIndexTypes),
                        MirrorPadOp);

}  // namespace
}  // namespace tributary
