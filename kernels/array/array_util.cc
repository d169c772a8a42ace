#include "kernels/array/array_util.h"

#include <limits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/framework/logging.h"
#include "common/framework/status.h"
#include "common/kernel/device_base.h"
#include "common/kernel/op_kernel_context.h"
#include "unsupported/Eigen/CXX11/Tensor"

namespace tributary {
namespace array_ops {

absl::Status UnsupportedDtype(absl::string_view op, DataType dtype) {
  return errors::Unimplemented(op, " does not support elements of type ",
                               DataTypeString(dtype));
}

std::vector<int64_t> IndexValues(const Tensor& t) {
  const int64_t n = t.NumElements();
  std::vector<int64_t> out(n);
  switch (t.dtype()) {
    case DT_INT8: {  // SplitV's size_splits.
      auto v = t.flat<int8_t>();
      for (int64_t i = 0; i < n; ++i) out[i] = v(i);
      break;
    }
    case DT_INT16: {
      auto v = t.flat<int16_t>();
      for (int64_t i = 0; i < n; ++i) out[i] = v(i);
      break;
    }
    case DT_INT32: {
      auto v = t.flat<int32_t>();
      for (int64_t i = 0; i < n; ++i) out[i] = v(i);
      break;
    }
    case DT_INT64: {
      auto v = t.flat<int64_t>();
      for (int64_t i = 0; i < n; ++i) out[i] = v(i);
      break;
    }
    default:
      // Signatures restrict index inputs to these types; anything else is a
      // registration bug, not bad input.
      CHECK(false) << "index tensor of type " << DataTypeString(t.dtype());
  }
  return out;
}

int64_t FirstIndexValue(const Tensor& t) {
  CHECK_GE(t.NumElements(), 1);
  switch (t.dtype()) {
    case DT_INT16:
      return t.flat<int16_t>()(0);
    case DT_INT32:
      return t.flat<int32_t>()(0);
    case DT_INT64:
      return t.flat<int64_t>()(0);
    default:
      CHECK(false) << "index tensor of type " << DataTypeString(t.dtype());
  }
  return 0;
}

absl::Status MakeShape(absl::Span<const int64_t> dims, TensorShape* shape) {
  TensorShape out;
  bool overflow = false;
  for (int64_t d : dims) {
    if (d < 0) {
      return errors::InvalidArgument("Dimension ", d, " must be >= 0");
    }
  }
  if (static_cast<int>(dims.size()) > kMaxTensorShapeDims) {
    return errors::InvalidArgument(
        "Too many dimensions in tensor: ", dims.size(), " (at most ",
        kMaxTensorShapeDims, ")");
  }
  // Overflow is judged on the dims product before any zero: TensorFlow
  // rejects [2**62, 4, 0] too, even though it has no elements.
  int64_t product = 1;
  for (int64_t d : dims) {
    if (d == 0) continue;
    if (product > std::numeric_limits<int64_t>::max() / d) {
      overflow = true;
      break;
    }
    product *= d;
  }
  if (overflow) {
    return errors::InvalidArgument("Shape [", absl::StrJoin(dims, ","),
                                   "] would have more than 2**63 - 1 elements");
  }
  for (int64_t d : dims) out.AddDim(d);
  *shape = std::move(out);
  return absl::OkStatus();
}

absl::Status CheckPaddingsMatrix(const Tensor& paddings) {
  if (TensorShapeUtils::IsMatrix(paddings.shape()) &&
      paddings.dim_size(1) == 2) {
    return absl::OkStatus();
  }
  return errors::InvalidArgument("paddings must be a matrix with 2 columns: ",
                                 paddings.shape().DebugString());
}

absl::Status ForwardOrAllocateOutput(OpKernelContext* ctx, const Tensor& input,
                                     absl::Span<const int64_t> out_dims,
                                     bool is_identity, Tensor** out) {
  *out = nullptr;
  if (is_identity) {
    ctx->set_output(0, input);
    return absl::OkStatus();
  }
  TensorShape output_shape;
  TRIB_RETURN_IF_ERROR(MakeShape(out_dims, &output_shape));
  Tensor* allocated = nullptr;
  TRIB_RETURN_IF_ERROR(ctx->allocate_output(0, output_shape, &allocated));
  if (allocated->NumElements() != 0) *out = allocated;
  return absl::OkStatus();
}

absl::Status MakeShapeFromShapeTensor(const Tensor& t, TensorShape* shape) {
  if (t.dims() != 1 || (t.dtype() != DT_INT32 && t.dtype() != DT_INT64)) {
    return errors::InvalidArgument(
        "shape must be a vector of {int32,int64}, got shape ",
        t.shape().DebugString());
  }
  return MakeShape(IndexValues(t), shape);
}

absl::InlinedVector<int64_t, 8> RowMajorStrides(const TensorShape& shape) {
  absl::InlinedVector<int64_t, 8> strides(shape.dims());
  int64_t stride = 1;
  for (int d = shape.dims() - 1; d >= 0; --d) {
    strides[d] = stride;
    stride *= shape.dim_size(d);
  }
  return strides;
}

std::string SliceDebugString(const TensorShape& shape, int64_t flat) {
  const int dims = shape.dims();
  if (dims == 0) return "";
  if (dims == 1) return absl::StrCat("[", flat, "]");
  std::vector<int64_t> index(dims);
  for (int d = dims - 1; d >= 0; --d) {
    const int64_t size = shape.dim_size(d);
    index[d] = size == 0 ? 0 : flat % size;
    flat = size == 0 ? 0 : flat / size;
  }
  return absl::StrCat("[", absl::StrJoin(index, ","), "]");
}

void ParallelFor(OpKernelContext* ctx, int64_t n, double bytes_per_unit,
                 const std::function<void(int64_t, int64_t)>& fn) {
  if (n <= 0) return;
  // Below this much memory traffic a thread hand-off costs more than the
  // copy itself.
  constexpr double kMinParallelBytes = 64 * 1024;
  const Eigen::ThreadPoolDevice* device =
      (ctx != nullptr && ctx->device() != nullptr)
          ? ctx->device()->eigen_cpu_device()
          : nullptr;
  if (device == nullptr || device->numThreads() <= 1 ||
      static_cast<double>(n) * bytes_per_unit < kMinParallelBytes) {
    fn(0, n);
    return;
  }
  device->parallelFor(
      n, Eigen::TensorOpCost(bytes_per_unit / 2, bytes_per_unit / 2, 0),
      [&fn](Eigen::Index first, Eigen::Index last) { fn(first, last); });
}

}  // namespace array_ops
}  // namespace tributary
