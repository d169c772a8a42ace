// Diag and DiagPart, tf.linalg.tensor_diag and its inverse.
//
// Diag: for an input of shape [d1..dk] (k >= 1), the output [d1..dk, d1..dk]
// with the input on its diagonal and zeros elsewhere.
//
// DiagPart: for an input of shape [d1..dk, d1..dk] (rank 2k, k >= 1), the
// output of shape [d1..dk] with output[i1..ik] = input[i1..ik, i1..ik]
// (tf.linalg.tensor_diag_part; the orthogonal initializer takes the diagonal
// of R with it). Viewed flat, with n = d1*..*dk, that is input[i * n + i],
// so the copy is by element size and serves every dtype TensorFlow
// registers. Odd rank or mismatched halves: INVALID_ARGUMENT.

#include <cstdint>
#include <cstring>
#include <vector>

#include "common/framework/types.h"
#include "common/kernel/kernel_registry.h"
#include "common/kernel/op_kernel.h"

namespace tributary {
namespace {

class DiagPartOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* context) override {
    const Tensor& input = context->input(0);
    const int rank = input.dims();
    OP_REQUIRES(context, rank % 2 == 0 && rank > 0,
                errors::InvalidArgument(
                    "The rank of the tensor should be even and positive, got "
                    "shape ",
                    input.shape().DebugString()));
    const int half = rank / 2;
    std::vector<int64_t> out_dims(half);
    int64_t n = 1;
    for (int d = 0; d < half; ++d) {
      OP_REQUIRES(context, input.dim_size(d) == input.dim_size(d + half),
                  errors::InvalidArgument(
                      "Invalid shape ", input.shape().DebugString(),
                      ": dimensions ", d, " and ", d + half, " do not match."));
      out_dims[d] = input.dim_size(d);
      n *= out_dims[d];
    }
    Tensor* output = nullptr;
    OP_REQUIRES_OK(context,
                   context->allocate_output(0, TensorShape(out_dims), &output));
    const size_t size = DataTypeSize(input.dtype());
    const char* in = static_cast<const char*>(input.data());
    char* out = static_cast<char*>(output->data());
    for (int64_t i = 0; i < n; ++i) {
      std::memcpy(out + i * size, in + (i * n + i) * size, size);
    }
  }
};

// Diag: [d...] -> [d..., d...], the input on the diagonal, zeros elsewhere.
class DiagOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* context) override {
    const Tensor& diagonal = context->input(0);
    OP_REQUIRES(
        context, diagonal.dims() >= 1,
        errors::InvalidArgument("Input must be at least rank 1, got 0"));
    TensorShape out_shape = diagonal.shape();
    for (int d = 0; d < diagonal.dims(); ++d) {
      out_shape.AddDim(diagonal.dim_size(d));
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(context, context->allocate_output(0, out_shape, &out));
    if (out->NumElements() == 0) return;
    std::memset(out->data(), 0, out->TotalBytes());
    const int64_t n = diagonal.NumElements();
    const int64_t width = DataTypeSize(diagonal.dtype());
    const char* in = static_cast<const char*>(diagonal.data());
    char* dst = static_cast<char*>(out->data());
    for (int64_t i = 0; i < n; ++i) {
      std::memcpy(dst + (i * n + i) * width, in + i * width, width);
    }
  }
};

// TensorFlow's list for both: float, complex, int32 and int64 types.
constexpr DataType kDiagTypes[] = {DT_FLOAT,     DT_DOUBLE,    DT_INT32,
                                   DT_INT64,     DT_HALF,      DT_BFLOAT16,
                                   DT_COMPLEX64, DT_COMPLEX128};

REGISTER_KERNEL_BUILDER(
    Name("DiagPart").Device(DEVICE_CPU).TypeConstraint("T", kDiagTypes),
    DiagPartOp);
REGISTER_KERNEL_BUILDER(
    Name("Diag").Device(DEVICE_CPU).TypeConstraint("T", kDiagTypes), DiagOp);

}  // namespace
}  // namespace tributary
