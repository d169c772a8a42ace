// ReverseSequence(input, seq_lengths): for each entry b along batch_dim, the
// first seq_lengths[b] elements along seq_dim are reversed and the rest kept
// (the backward pass of a bidirectional RNN over padded sequences).
// TensorFlow's checks and messages: "seq_lens(1) > input.dims(1)",
// "seq_lens(1) < 0", "Length of seq_lengths != input.dims(0), (2 vs. 3)".

#include <algorithm>
#include <cstdint>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "common/kernel/kernel_registry.h"
#include "common/kernel/op_kernel.h"
#include "kernels/array/array_util.h"

namespace tributary {
namespace {

// Walks the output in order; the source differs only in the seq coordinate.
template <typename T>
void Reverse(const T* src, absl::Span<const int64_t> dims, int batch_dim,
             int seq_dim, const std::vector<int64_t>& lengths, T* dst) {
  const int rank = static_cast<int>(dims.size());
  const auto strides = array_ops::RowMajorStrides(TensorShape(dims));
  absl::InlinedVector<int64_t, 8> index(rank, 0);
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t s = index[seq_dim];
    const int64_t len = lengths[index[batch_dim]];
    const int64_t from = s < len ? len - 1 - s : s;
    dst[i] = src[i + (from - s) * strides[seq_dim]];
    for (int d = rank - 1; d >= 0; --d) {
      if (++index[d] < dims[d]) break;
      index[d] = 0;
    }
  }
}

class ReverseSequenceOp : public OpKernel {
 public:
  explicit ReverseSequenceOp(OpKernelConstruction* context)
      : OpKernel(context) {
    OP_REQUIRES_OK(context, context->GetAttr("seq_dim", &seq_dim_));
    OP_REQUIRES_OK(context, context->GetAttr("batch_dim", &batch_dim_));
  }

  void Compute(OpKernelContext* context) override {
    const Tensor& input = context->input(0);
    const Tensor& seq_lengths = context->input(1);
    const int rank = input.dims();
    OP_REQUIRES(context, batch_dim_ >= 0 && batch_dim_ < rank,
                errors::InvalidArgument("Invalid batch_dim ", batch_dim_));
    OP_REQUIRES(context, seq_dim_ >= 0 && seq_dim_ < rank,
                errors::InvalidArgument("Invalid seq_dim ", seq_dim_));
    OP_REQUIRES(context, batch_dim_ != seq_dim_,
                errors::InvalidArgument("batch_dim == seq_dim == ", seq_dim_));
    OP_REQUIRES(context, seq_lengths.dims() == 1,
                errors::InvalidArgument("seq_lengths must be 1-dim, not ",
                                        seq_lengths.dims()));
    OP_REQUIRES(context,
                seq_lengths.dim_size(0) == input.dim_size(batch_dim_),
                errors::InvalidArgument(
                    "Length of seq_lengths != input.dims(", batch_dim_,
                    "), (", seq_lengths.dim_size(0), " vs. ",
                    input.dim_size(batch_dim_), ")"));
    const std::vector<int64_t> lengths = array_ops::IndexValues(seq_lengths);
    for (size_t b = 0; b < lengths.size(); ++b) {
      OP_REQUIRES(context, lengths[b] >= 0,
                  errors::InvalidArgument("seq_lens(", b, ") < 0"));
      OP_REQUIRES(context, lengths[b] <= input.dim_size(seq_dim_),
                  errors::InvalidArgument("seq_lens(", b, ") > input.dims(",
                                          seq_dim_, ")"));
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(context,
                   context->allocate_output(0, input.shape(), &out));
    if (out->NumElements() == 0) return;
    const bool ok = array_ops::VisitMovableType(input.dtype(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      Reverse<T>(array_ops::RawData<T>(input), input.shape().dim_sizes(),
                 batch_dim_, seq_dim_, lengths, array_ops::RawData<T>(out));
    });
    OP_REQUIRES(context, ok,
                array_ops::UnsupportedDtype("ReverseSequence", input.dtype()));
  }

 private:
  int64_t seq_dim_ = 0;
  int64_t batch_dim_ = 0;
};

REGISTER_KERNEL_BUILDER(Name("ReverseSequence")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("T", array_ops::kAllTypes)
                            .TypeConstraint("Tlen", array_ops::kIndexTypes),
                        ReverseSequenceOp);

}  // namespace
}  // namespace tributary
