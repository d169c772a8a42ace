// DynamicStitch and ParallelDynamicStitch: the inverse of DynamicPartition.
//
//   merged[indices[m][i...], ...] = data[m][i..., ...]
//
// merged has shape [max(indices) + 1] + data[0].shape[indices[0].dims():].
// Where an index repeats, DynamicStitch keeps the value of the later input
// (inputs in order, then elements in order); ParallelDynamicStitch leaves
// the winner unspecified, and this kernel gives it the same answer.
// Indices must be non-negative; rows no index names are zero.

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "common/kernel/kernel_registry.h"
#include "common/kernel/op_kernel.h"
#include "kernels/array/array_util.h"
#include "kernels/embedding/embedding_util.h"

namespace tributary {
namespace {

class DynamicStitchOp : public OpKernel {
 public:
  explicit DynamicStitchOp(OpKernelConstruction* context) : OpKernel(context) {
    OP_REQUIRES_OK(context, context->GetAttr("N", &n_));
  }

  void Compute(OpKernelContext* context) override {
    OP_REQUIRES(context, context->num_inputs() == 2 * n_,
                errors::InvalidArgument("Expected ", 2 * n_, " inputs, got ",
                                        context->num_inputs()));
    const Tensor& indices0 = context->input(0);
    const Tensor& data0 = context->input(n_);
    OP_REQUIRES(
        context, embedding::StartsWith(data0.shape(), indices0.shape()),
        errors::InvalidArgument("data[0].shape = ", data0.shape().DebugString(),
                                " does not start with indices[0].shape = ",
                                indices0.shape().DebugString()));

    int64_t max_index = -1;
    for (int m = 0; m < n_; ++m) {
      const Tensor& indices = context->input(m);
      const Tensor& data = context->input(n_ + m);
      OP_REQUIRES(context, embedding::StartsWith(data.shape(), indices.shape()),
                  errors::InvalidArgument(
                      "data[", m, "].shape = ", data.shape().DebugString(),
                      " does not start with indices[", m,
                      "].shape = ", indices.shape().DebugString()));
      // The per-element part of every data[m] must match data[0]'s.
      bool same_suffix =
          data.dims() - indices.dims() == data0.dims() - indices0.dims();
      for (int d = 0; same_suffix && d < data.dims() - indices.dims(); ++d) {
        same_suffix = data.dim_size(indices.dims() + d) ==
                      data0.dim_size(indices0.dims() + d);
      }
      OP_REQUIRES(
          context, same_suffix,
          errors::InvalidArgument(
              "Need data[0].shape[", indices0.dims(), ":] = data[", m,
              "].shape[", indices.dims(),
              ":], got data[0].shape = ", data0.shape().DebugString(),
              ", data[", m, "].shape = ", data.shape().DebugString(),
              ", indices[0].shape = ", indices0.shape().DebugString(),
              ", indices[", m, "].shape = ", indices.shape().DebugString()));
      const int64_t count = indices.NumElements();
      const int32_t* idx = count > 0 ? indices.flat<int32_t>().data() : nullptr;
      for (int64_t i = 0; i < count; ++i) {
        max_index = std::max<int64_t>(max_index, idx[i]);
      }
    }

    TensorShape merged_shape({max_index + 1});
    for (int d = indices0.dims(); d < data0.dims(); ++d) {
      merged_shape.AddDim(data0.dim_size(d));
    }
    Tensor* merged = nullptr;
    OP_REQUIRES_OK(context, context->allocate_output(0, merged_shape, &merged));
    const int64_t rows = max_index + 1;
    const int64_t inner = embedding::InnerSize(data0.shape(), indices0.dims());

    // Check every index before writing any (negative ones are the only ones
    // that can be out of range, max_index bounds the rest).
    for (int m = 0; m < n_; ++m) {
      const Tensor& indices = context->input(m);
      const int64_t count = indices.NumElements();
      const int32_t* idx = count > 0 ? indices.flat<int32_t>().data() : nullptr;
      for (int64_t i = 0; i < count; ++i) {
        OP_REQUIRES(
            context, idx[i] >= 0 && idx[i] < rows,
            errors::InvalidArgument("indices[", i, "] is out of range"));
      }
    }
    if (rows == 0 || inner == 0) return;

    const bool ok = array_ops::VisitMovableType(data0.dtype(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      T* out = array_ops::RawData<T>(merged);
      // Rows no index names are zero (TensorFlow leaves them unspecified).
      if constexpr (std::is_trivially_copyable_v<T>) {
        std::memset(out, 0, rows * inner * sizeof(T));
      }
      for (int m = 0; m < n_; ++m) {
        const Tensor& indices = context->input(m);
        const int64_t count = indices.NumElements();
        if (count == 0) continue;
        const int32_t* idx = indices.flat<int32_t>().data();
        const T* src = array_ops::RawData<T>(context->input(n_ + m));
        for (int64_t i = 0; i < count; ++i) {
          if constexpr (std::is_trivially_copyable_v<T>) {
            std::memcpy(out + idx[i] * inner, src + i * inner,
                        inner * sizeof(T));
          } else {
            std::copy(src + i * inner, src + (i + 1) * inner,
                      out + idx[i] * inner);
          }
        }
      }
    });
    OP_REQUIRES(context, ok,
                array_ops::UnsupportedDtype(type_string(), data0.dtype()));
  }

 private:
  int32_t n_ = 0;
};

REGISTER_KERNEL_BUILDER(Name("DynamicStitch")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("T", array_ops::kAllTypes),
                        DynamicStitchOp);
REGISTER_KERNEL_BUILDER(Name("ParallelDynamicStitch")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("T", array_ops::kAllTypes),
                        DynamicStitchOp);

}  // namespace
}  // namespace tributary
