// The matrix diagonal family of tf.linalg: MatrixDiag{,V2,V3},
// MatrixDiagPart{,V2,V3} and MatrixSetDiag{,V2,V3}.
//
// A V2/V3 op names a band of diagonals with `k`: one index (lower ==
// upper) or a pair [lower, upper]; diagonal d holds the elements (i, i + d),
// so d > 0 is above the main diagonal. The diagonals travel packed in a
// tensor [..., num_diags, max_diag_len] (or [..., max_diag_len] for one
// diagonal), row m holding diagonal upper - m. A diagonal shorter than
// max_diag_len sits at the left or the right of its row as `align` says
// (V3; its default RIGHT_LEFT aligns superdiagonals right and subdiagonals
// left); V1 and V2 align every diagonal left. The rest of the row is
// padding_value (MatrixDiagPart) or ignored (MatrixSetDiag).
//
// MatrixDiag builds matrices of num_rows x num_cols (-1: the smallest that
// holds the band, square when both are -1) with padding_value off the band
// (tf.linalg.diag, tf.eye). Diag and DiagPart (tensor_diag) are in
// diag_part_op.cc.
//
// Bad shapes, band bounds outside the matrix and a band that does not match
// the diagonals given are INVALID_ARGUMENT with TensorFlow's messages.
// Elements move by their bytes, so one kernel serves every plain-memory
// dtype TensorFlow registers.

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>

#include "common/kernel/kernel_registry.h"
#include "common/kernel/op_kernel.h"
#include "kernels/array/array_util.h"

namespace tributary {
namespace {

// A band of diagonals and where each sits in its packed row.
struct DiagBand {
  int64_t lower = 0;
  int64_t upper = 0;
  bool left_align_super = true;  // V1 and V2: every diagonal at the left
  bool left_align_sub = true;

  int64_t num_diags() const { return upper - lower + 1; }

  // Length of diagonal d in a rows x cols matrix.
  static int64_t Length(int64_t d, int64_t rows, int64_t cols) {
    return std::min(rows + std::min<int64_t>(0, d),
                    cols - std::max<int64_t>(0, d));
  }

  // The longest diagonal of the band in a rows x cols matrix: the length of
  // a packed row.
  int64_t MaxLength(int64_t rows, int64_t cols) const {
    return std::min(rows + std::min<int64_t>(upper, 0),
                    cols - std::max<int64_t>(lower, 0));
  }

  // Where diagonal d's first element sits in a packed row of max_len.
  int64_t Offset(int64_t d, int64_t max_len, int64_t rows, int64_t cols) const {
    const bool left =
        (d >= 0 && left_align_super) || (d <= 0 && left_align_sub);
    return left ? 0 : max_len - Length(d, rows, cols);
  }
};

// V3's `align` attr; the other versions have none and keep LEFT_LEFT.
absl::Status ReadAlign(OpKernelConstruction* context, DiagBand* band) {
  if (!context->HasAttr("align")) return absl::OkStatus();
  std::string align;
  TRIB_RETURN_IF_ERROR(context->GetAttr("align", &align));
  band->left_align_super = align == "LEFT_LEFT" || align == "LEFT_RIGHT";
  band->left_align_sub = align == "LEFT_LEFT" || align == "RIGHT_LEFT";
  return absl::OkStatus();
}

// `k`: a scalar or a vector of one or two int32.
absl::Status ReadK(const Tensor& k, DiagBand* band) {
  if (k.dims() > 1) {
    return errors::InvalidArgument(
        "diag_index must be a scalar or vector, received shape: ",
        k.shape().DebugString());
  }
  const int64_t n = k.NumElements();
  if (n < 1 || n > 2) {
    return errors::InvalidArgument(
        "diag_index must have only one or two elements, received ", n,
        " elements.");
  }
  const int32_t* values = static_cast<const int32_t*>(k.data());
  band->lower = values[0];
  band->upper = n == 2 ? values[1] : values[0];
  return absl::OkStatus();
}

absl::Status CheckOrdered(const DiagBand& band) {
  if (band.lower > band.upper) {
    return errors::InvalidArgument(
        "lower_diag_index must not be larger than upper_diag_index: ",
        band.lower, " > ", band.upper);
  }
  return absl::OkStatus();
}

// The band lies inside a rows x cols matrix (index 0 always does).
absl::Status CheckInMatrix(const DiagBand& band, int64_t rows, int64_t cols) {
  const std::pair<const char*, int64_t> bounds[] = {
      {"lower_diag_index", band.lower}, {"upper_diag_index", band.upper}};
  for (const auto& [name, d] : bounds) {
    if (d != 0 && (d <= -rows || d >= cols)) {
      return errors::InvalidArgument(name, " is out of bound: ", d,
                                     ". It must be between ", -rows, " and ",
                                     cols);
    }
  }
  return CheckOrdered(band);
}

// A one-element input read as a scalar (num_rows, num_cols, padding).
absl::Status CheckOneElement(const Tensor& t, const char* name) {
  if (t.NumElements() != 1) {
    return errors::InvalidArgument(
        name, " must be a scalar, received shape: ", t.shape().DebugString());
  }
  return absl::OkStatus();
}

// For the ops that read diagonals out of `input` (DiagPart, SetDiag):
// `input` must be a batch of matrices, rows x cols, holding the band; then
// `packed` is the shape of its diagonals packed, [..., num_diags, max_len]
// or [..., max_len] for one diagonal.
absl::Status PackedDiagonals(const Tensor& input, const DiagBand& band,
                             int64_t* rows, int64_t* cols,
                             TensorShape* packed) {
  const int rank = input.dims();
  if (rank < 2) {
    return errors::InvalidArgument(
        "input must be at least 2-dim, received shape: ",
        input.shape().DebugString());
  }
  *rows = input.dim_size(rank - 2);
  *cols = input.dim_size(rank - 1);
  TRIB_RETURN_IF_ERROR(CheckInMatrix(band, *rows, *cols));
  *packed = TensorShape();
  for (int d = 0; d < rank - 2; ++d) packed->AddDim(input.dim_size(d));
  if (band.num_diags() > 1) packed->AddDim(band.num_diags());
  packed->AddDim(band.MaxLength(*rows, *cols));
  return absl::OkStatus();
}

// One element of padding: `padding`'s bytes, or zero when it is nullptr
// (the versions without a padding_value input).
void WritePadding(const char* padding, int64_t width, char* dst) {
  if (padding == nullptr) {
    std::memset(dst, 0, width);
  } else {
    std::memcpy(dst, padding, width);
  }
}

// Product of the leading dims (the number of matrices); safe when an inner
// dim is zero.
int64_t LeadingElements(const TensorShape& shape, int inner) {
  int64_t n = 1;
  for (int d = 0; d + inner < shape.dims(); ++d) n *= shape.dim_size(d);
  return n;
}

class MatrixDiagOp : public OpKernel {
 public:
  explicit MatrixDiagOp(OpKernelConstruction* context) : OpKernel(context) {
    OP_REQUIRES_OK(context, ReadAlign(context, &band_));
  }

  void Compute(OpKernelContext* context) override {
    const Tensor& diagonal = context->input(0);
    DiagBand band = band_;
    int64_t num_rows = -1, num_cols = -1;
    const char* padding = nullptr;  // nullptr: zero
    if (context->num_inputs() > 1) {
      OP_REQUIRES_OK(context, ReadK(context->input(1), &band));
      const std::pair<int, const char*> scalars[] = {
          {2, "num_rows"}, {3, "num_cols"}, {4, "padding_value"}};
      for (const auto& [input, name] : scalars) {
        OP_REQUIRES_OK(context, CheckOneElement(context->input(input), name));
      }
      num_rows = *static_cast<const int32_t*>(context->input(2).data());
      num_cols = *static_cast<const int32_t*>(context->input(3).data());
      padding = static_cast<const char*>(context->input(4).data());
    }
    const int rank = diagonal.dims();
    OP_REQUIRES(context, rank >= 1,
                errors::InvalidArgument(
                    "diagonal must be at least 1-dim, received shape: ",
                    diagonal.shape().DebugString()));
    OP_REQUIRES_OK(context, CheckOrdered(band));
    const int64_t num_diags = band.num_diags();
    OP_REQUIRES(
        context,
        num_diags == 1 ||
            (rank >= 2 && diagonal.dim_size(rank - 2) == num_diags),
        errors::InvalidArgument(
            "The number of diagonals provided in the input does not match "
            "the lower_diag_index and upper_diag_index range."));
    const int64_t max_len = diagonal.dim_size(rank - 1);
    const int64_t min_rows = max_len - std::min<int64_t>(band.upper, 0);
    const int64_t min_cols = max_len + std::max<int64_t>(band.lower, 0);
    OP_REQUIRES(context, num_rows == -1 || num_rows >= min_rows,
                errors::InvalidArgument("The number of rows is too small."));
    OP_REQUIRES(context, num_cols == -1 || num_cols >= min_cols,
                errors::InvalidArgument("The number of columns is too small."));
    if (num_rows == -1 && num_cols == -1) {
      num_rows = num_cols = std::max(min_rows, min_cols);
    } else if (num_rows == -1) {
      num_rows = min_rows;
    } else if (num_cols == -1) {
      num_cols = min_cols;
    }
    OP_REQUIRES(context, num_rows == min_rows || num_cols == min_cols,
                errors::InvalidArgument(
                    "The number of rows or columns is not consistent with the "
                    "specified d_lower, d_upper, and diagonal."));

    const int inner = num_diags == 1 ? 1 : 2;
    TensorShape out_shape;
    for (int d = 0; d + inner < rank; ++d) {
      out_shape.AddDim(diagonal.dim_size(d));
    }
    out_shape.AddDim(num_rows);
    out_shape.AddDim(num_cols);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(context, context->allocate_output(0, out_shape, &out));
    if (out->NumElements() == 0) return;

    const int64_t width = DataTypeSize(diagonal.dtype());
    const int64_t batches = LeadingElements(diagonal.shape(), inner);
    const char* in = static_cast<const char*>(diagonal.data());
    char* dst = static_cast<char*>(out->data());
    for (int64_t b = 0; b < batches; ++b) {
      const char* diags = in + b * num_diags * max_len * width;
      for (int64_t i = 0; i < num_rows; ++i) {
        for (int64_t j = 0; j < num_cols; ++j, dst += width) {
          const int64_t d = j - i;
          if (d < band.lower || d > band.upper) {
            WritePadding(padding, width, dst);
            continue;
          }
          const int64_t offset = band.Offset(d, max_len, num_rows, num_cols);
          const int64_t row = band.upper - d;
          std::memcpy(dst,
                      diags + (row * max_len + std::min(i, j) + offset) * width,
                      width);
        }
      }
    }
  }

 private:
  DiagBand band_;
};

class MatrixDiagPartOp : public OpKernel {
 public:
  explicit MatrixDiagPartOp(OpKernelConstruction* context) : OpKernel(context) {
    OP_REQUIRES_OK(context, ReadAlign(context, &band_));
  }

  void Compute(OpKernelContext* context) override {
    const Tensor& input = context->input(0);
    DiagBand band = band_;
    const char* padding = nullptr;  // nullptr: zero
    if (context->num_inputs() > 1) {
      OP_REQUIRES_OK(context, ReadK(context->input(1), &band));
      OP_REQUIRES_OK(context,
                     CheckOneElement(context->input(2), "padding_value"));
      padding = static_cast<const char*>(context->input(2).data());
    }
    int64_t rows = 0, cols = 0;
    TensorShape out_shape;
    OP_REQUIRES_OK(context,
                   PackedDiagonals(input, band, &rows, &cols, &out_shape));
    const int64_t num_diags = band.num_diags();
    const int64_t max_len = out_shape.dim_size(out_shape.dims() - 1);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(context, context->allocate_output(0, out_shape, &out));
    if (out->NumElements() == 0) return;

    const int64_t width = DataTypeSize(input.dtype());
    const int64_t batches = LeadingElements(input.shape(), 2);
    const char* in = static_cast<const char*>(input.data());
    char* dst = static_cast<char*>(out->data());
    for (int64_t b = 0; b < batches; ++b) {
      const char* matrix = in + b * rows * cols * width;
      for (int64_t m = 0; m < num_diags; ++m) {
        const int64_t d = band.upper - m;
        const int64_t length = DiagBand::Length(d, rows, cols);
        const int64_t offset = band.Offset(d, max_len, rows, cols);
        for (int64_t n = 0; n < max_len; ++n, dst += width) {
          const int64_t pos = n - offset;  // along the diagonal
          if (pos < 0 || pos >= length) {
            WritePadding(padding, width, dst);
            continue;
          }
          const int64_t i = d >= 0 ? pos : pos - d;
          std::memcpy(dst, matrix + (i * cols + i + d) * width, width);
        }
      }
    }
  }

 private:
  DiagBand band_;
};

class MatrixSetDiagOp : public OpKernel {
 public:
  explicit MatrixSetDiagOp(OpKernelConstruction* context) : OpKernel(context) {
    OP_REQUIRES_OK(context, ReadAlign(context, &band_));
  }

  void Compute(OpKernelContext* context) override {
    const Tensor& input = context->input(0);
    const Tensor& diagonal = context->input(1);
    DiagBand band = band_;
    if (context->num_inputs() > 2) {
      OP_REQUIRES_OK(context, ReadK(context->input(2), &band));
    }
    OP_REQUIRES(context, diagonal.dims() >= 1,
                errors::InvalidArgument(
                    "diagonal must be at least 1-dim, received shape: ",
                    diagonal.shape().DebugString()));
    int64_t rows = 0, cols = 0;
    TensorShape expected;
    OP_REQUIRES_OK(context,
                   PackedDiagonals(input, band, &rows, &cols, &expected));
    const int rank = input.dims();
    const int64_t num_diags = band.num_diags();
    const int64_t max_len = expected.dim_size(expected.dims() - 1);
    OP_REQUIRES(context,
                num_diags == 1 || diagonal.dims() < rank - 1 ||
                    diagonal.dim_size(rank - 2) == num_diags,
                errors::InvalidArgument(
                    "The number of diagonals provided in `diag` is not "
                    "consistent with `lower_diag_index` and "
                    "`upper_diag_index`"));
    OP_REQUIRES(
        context, expected == diagonal.shape(),
        errors::InvalidArgument(
            "Either first dimensions of diagonal don't match "
            "input.shape[:-2], or diagonal.shape[:-1] is not equal to the "
            "longests diagonal in range [lower_diag_index:upper_diag_index]."
            "\nInput shape: ",
            input.shape().DebugString(),
            "\nDiagonal shape: ", diagonal.shape().DebugString(),
            "\nExpected diagonal shape: ", expected.DebugString()));

    Tensor* out = nullptr;
    OP_REQUIRES_OK(context, context->forward_input_or_allocate_output(
                                {0}, 0, input.shape(), &out));
    if (input.NumElements() == 0) return;
    if (out->data() != input.data()) {
      std::memcpy(out->data(), input.data(), input.TotalBytes());
    }
    const int64_t width = DataTypeSize(input.dtype());
    const int64_t batches = LeadingElements(input.shape(), 2);
    const char* src = static_cast<const char*>(diagonal.data());
    char* base = static_cast<char*>(out->data());
    for (int64_t b = 0; b < batches; ++b) {
      char* matrix = base + b * rows * cols * width;
      for (int64_t m = 0; m < num_diags; ++m, src += max_len * width) {
        const int64_t d = band.upper - m;
        const int64_t length = DiagBand::Length(d, rows, cols);
        const int64_t offset = band.Offset(d, max_len, rows, cols);
        for (int64_t pos = 0; pos < length; ++pos) {
          const int64_t i = d >= 0 ? pos : pos - d;
          std::memcpy(matrix + (i * cols + i + d) * width,
                      src + (pos + offset) * width, width);
        }
      }
    }
  }

 private:
  DiagBand band_;
};

#define TRIB_REGISTER_DIAG_FAMILY(name, kernel)                                \
  REGISTER_KERNEL_BUILDER(                                                     \
      Name(name).Device(DEVICE_CPU).TypeConstraint("T", array_ops::kPodTypes), \
      kernel)
TRIB_REGISTER_DIAG_FAMILY("MatrixDiag", MatrixDiagOp);
TRIB_REGISTER_DIAG_FAMILY("MatrixDiagV2", MatrixDiagOp);
TRIB_REGISTER_DIAG_FAMILY("MatrixDiagV3", MatrixDiagOp);
TRIB_REGISTER_DIAG_FAMILY("MatrixDiagPart", MatrixDiagPartOp);
TRIB_REGISTER_DIAG_FAMILY("MatrixDiagPartV2", MatrixDiagPartOp);
TRIB_REGISTER_DIAG_FAMILY("MatrixDiagPartV3", MatrixDiagPartOp);
TRIB_REGISTER_DIAG_FAMILY("MatrixSetDiag", MatrixSetDiagOp);
TRIB_REGISTER_DIAG_FAMILY("MatrixSetDiagV2", MatrixSetDiagOp);
TRIB_REGISTER_DIAG_FAMILY("MatrixSetDiagV3", MatrixSetDiagOp);
#undef TRIB_REGISTER_DIAG_FAMILY

}  // namespace
}  // namespace tributary
