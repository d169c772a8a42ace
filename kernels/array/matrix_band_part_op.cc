// MatrixBandPart(input, num_lower, num_upper): each innermost matrix with
// the elements outside the band zeroed. Element (m, n) stays when
// (num_lower < 0 || m - n <= num_lower) && (num_upper < 0 || n - m <=
// num_upper): tf.linalg.band_part, e.g. the causal mask of attention
// (band_part(ones, -1, 0)). Bounds larger than the matrix are
// InvalidArgument, TensorFlow's message: "num_lower must be negative or less
// or equal to number of rows (3) got: 5".

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "common/kernel/kernel_registry.h"
#include "common/kernel/op_kernel.h"
#include "kernels/array/array_util.h"

namespace tributary {
namespace {

class MatrixBandPartOp : public OpKernel {
 public:
  explicit MatrixBandPartOp(OpKernelConstruction* context)
      : OpKernel(context) {}

  void Compute(OpKernelContext* context) override {
    const Tensor& input = context->input(0);
    OP_REQUIRES(context, input.dims() >= 2,
                errors::InvalidArgument(
                    "input must be at least 2-dim, received shape: ",
                    input.shape().DebugString()));
    const int64_t rows = input.dim_size(input.dims() - 2);
    const int64_t cols = input.dim_size(input.dims() - 1);
    int64_t num_lower = 0, num_upper = 0;
    OP_REQUIRES_OK(context, Bound(context->input(1), "num_lower", "rows",
                                  rows, &num_lower));
    OP_REQUIRES_OK(context, Bound(context->input(2), "num_upper", "columns",
                                  cols, &num_upper));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(context, context->forward_input_or_allocate_output(
                                {0}, 0, input.shape(), &out));
    const int64_t n = input.NumElements();
    if (n == 0) return;
    if (out->data() != input.data()) {
      std::memcpy(out->data(), input.data(), input.TotalBytes());
    }
    const int64_t width = DataTypeSize(input.dtype());
    char* base = static_cast<char*>(out->data());
    const int64_t matrices = n / (rows * cols);
    for (int64_t b = 0; b < matrices; ++b) {
      for (int64_t m = 0; m < rows; ++m) {
        char* row = base + (b * rows + m) * cols * width;
        // Kept columns: [m - num_lower, m + num_upper], clipped.
        const int64_t keep_begin =
            num_lower < 0 ? 0 : std::clamp<int64_t>(m - num_lower, 0, cols);
        const int64_t keep_end =
            num_upper < 0 ? cols
                          : std::clamp<int64_t>(m + num_upper + 1, 0, cols);
        if (keep_begin >= keep_end) {
          std::memset(row, 0, cols * width);
          continue;
        }
        std::memset(row, 0, keep_begin * width);
        std::memset(row + keep_end * width, 0, (cols - keep_end) * width);
      }
    }
  }

 private:
  static absl::Status Bound(const Tensor& t, const char* name,
                            const char* what, int64_t limit, int64_t* value) {
    if (t.dims() != 0) {
      return errors::InvalidArgument(name, " must be scalar, got shape ",
                                     t.shape().DebugString());
    }
    *value = array_ops::FirstIndexValue(t);
    if (*value > limit) {
      return errors::InvalidArgument(name,
                                     " must be negative or less or equal to "
                                     "number of ",
                                     what, " (", limit, ") got: ", *value);
    }
    return absl::OkStatus();
  }
};

// Plain-memory dtypes: zero is all bits clear.
REGISTER_KERNEL_BUILDER(Name("MatrixBandPart")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("T", array_ops::kPodTypes),
                        MatrixBandPartOp);

}  // namespace
}  // namespace tributary
