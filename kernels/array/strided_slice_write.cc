#include "kernels/array/strided_slice_write.h"

#include <algorithm>
#include <cstdint>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/types/span.h"
#include "common/framework/status.h"
#include "kernels/array/array_util.h"
#include "kernels/array/broadcast_shapes.h"
#include "kernels/array/strided_copy.h"

namespace tributary {
namespace array_ops {
namespace {

// dst[offset + sum_d i_d * strides[d]] = src[row-major i] over `dims`: the
// scatter twin of StridedCopy, kept plain (an odometer with a tight inner
// loop) since assignments and gradients of slices are rarely the hot path.
template <typename T>
void ScatterDense(const T* src, absl::Span<const int64_t> dims,
                  absl::Span<const int64_t> strides, T* dst) {
  const int rank = static_cast<int>(dims.size());
  for (int64_t d : dims) {
    if (d == 0) return;
  }
  if (rank == 0) {
    *dst = *src;
    return;
  }
  const int64_t inner = dims[rank - 1];
  const int64_t inner_stride = strides[rank - 1];
  absl::InlinedVector<int64_t, 8> index(rank, 0);
  int64_t offset = 0;
  while (true) {
    T* out = dst + offset;
    for (int64_t i = 0; i < inner; ++i) out[i * inner_stride] = *src++;
    int d = rank - 2;
    for (; d >= 0; --d) {
      offset += strides[d];
      if (++index[d] < dims[d]) break;
      offset -= strides[d] * dims[d];
      index[d] = 0;
    }
    if (d < 0) return;
  }
}

// `value` broadcast to `shape` as a new dense tensor. As in TensorFlow, the
// value may have more dims than the slice when the extra leading ones are 1.
absl::Status Broadcast(OpKernelContext* ctx, const Tensor& value,
                       const TensorShape& shape, Tensor* out) {
  const BroadcastResult bcast =
      BroadcastShapes(value.shape().dim_sizes(), shape.dim_sizes());
  const int extra = value.dims() - shape.dims();
  bool fits = bcast.valid;
  for (int d = 0; fits && d < extra; ++d) fits = bcast.output_shape[d] == 1;
  if (fits) {
    fits = absl::MakeConstSpan(bcast.output_shape)
               .subspan(std::max(extra, 0)) == shape.dim_sizes();
  }
  if (!fits) {
    return errors::InvalidArgument("Cannot broadcast input shape ",
                                   value.shape().DebugString(),
                                   " into final shape ", shape.DebugString());
  }
  *out = Tensor(value.dtype(), shape);
  if (shape.num_elements() == 0) return absl::OkStatus();
  // Right-aligned: a value dim of 1 (or a missing leading dim) repeats.
  const auto value_strides = RowMajorStrides(value.shape());
  std::vector<int64_t> strides(shape.dims(), 0);
  for (int d = 0; d < shape.dims(); ++d) {
    const int v = d + extra;
    if (v >= 0 && value.dim_size(v) != 1) strides[d] = value_strides[v];
  }
  return StridedCopy(ctx, value.dtype(), value.data(), shape.dim_sizes(),
                     strides, out->data());
}

}  // namespace

absl::Status WriteStridedSlice(OpKernelContext* ctx,
                               const StridedSlicePlan& plan,
                               const Tensor& value, Tensor* target) {
  if (value.dtype() != target->dtype()) {
    return errors::InvalidArgument(
        "Cannot assign a ", DataTypeString(value.dtype()),
        " value to a slice of a ", DataTypeString(target->dtype()), " tensor");
  }
  // An empty slice takes any value, as in TensorFlow.
  if (plan.processing_shape.num_elements() == 0) return absl::OkStatus();
  Tensor dense = value;
  if (value.shape() != plan.final_shape) {
    TRIB_RETURN_IF_ERROR(Broadcast(ctx, value, plan.final_shape, &dense));
  }
  // final_shape and processing_shape differ only by size-1 dims (new axes,
  // shrunk dims), so the value's elements are already in processing order.
  const auto target_strides = RowMajorStrides(target->shape());
  const int rank = target->dims();
  std::vector<int64_t> strides(rank);
  int64_t offset = 0;
  for (int d = 0; d < rank; ++d) {
    offset += plan.begin[d] * target_strides[d];
    strides[d] = plan.strides[d] * target_strides[d];
  }
  const int64_t element_size = StoredElementSize(target->dtype());
  char* base = static_cast<char*>(target->data()) + offset * element_size;
  const bool ok = VisitMovableType(target->dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    ScatterDense<T>(RawData<T>(dense), plan.processing_shape.dim_sizes(),
                    strides, reinterpret_cast<T*>(base));
  });
  if (!ok) return UnsupportedDtype("strided slice assignment", target->dtype());
  return absl::OkStatus();
}

}  // namespace array_ops
}  // namespace tributary
