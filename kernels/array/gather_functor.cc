#include "kernels/array/gather_functor.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "common/framework/status.h"
#include "common/framework/tensor_shape.h"
#include "common/kernel/op_kernel_context.h"
#include "kernels/array/array_util.h"

namespace tributary {
namespace array_ops {
namespace {

struct GatherDims {
  int64_t batch = 1;      // product of the batch dims
  int64_t outer = 1;      // product of params dims in [batch_dims, axis)
  int64_t gather = 0;     // params.dim_size(axis)
  int64_t inner = 1;      // product of params dims after axis
  int64_t per_batch = 1;  // indices per batch entry
};

template <typename T>
void GatherRows(OpKernelContext* ctx, const T* params,
                const std::vector<int64_t>& indices, const GatherDims& g,
                T* out) {
  if (g.inner == 0) return;
  const int64_t rows = g.batch * g.outer * g.per_batch;
  ParallelFor(ctx, rows, 2.0 * g.inner * sizeof(T),
              [&](int64_t first, int64_t last) {
                for (int64_t row = first; row < last; ++row) {
                  const int64_t i = row % g.per_batch;
                  const int64_t bo = row / g.per_batch;  // b * outer + o
                  const int64_t b = bo / g.outer;
                  const int64_t index = indices[b * g.per_batch + i];
                  const T* src = params + (bo * g.gather + index) * g.inner;
                  T* dst = out + row * g.inner;
                  if constexpr (std::is_trivially_copyable_v<T>) {
                    std::memcpy(dst, src, g.inner * sizeof(T));
                  } else {
                    std::copy(src, src + g.inner, dst);
                  }
                }
              });
}

template <typename T>
void CopySlices(const T* params, const std::vector<int64_t>& offsets,
                int64_t slice, T* out) {
  for (size_t k = 0; k < offsets.size(); ++k) {
    const T* src = params + offsets[k] * slice;
    T* dst = out + k * slice;
    if constexpr (std::is_trivially_copyable_v<T>) {
      std::memcpy(dst, src, slice * sizeof(T));
    } else {
      std::copy(src, src + slice, dst);
    }
  }
}

}  // namespace

absl::Status GatherV2ToOutput(OpKernelContext* ctx, const Tensor& params,
                              const Tensor& indices, int64_t axis,
                              int64_t batch_dims, int output_index,
                              absl::string_view op_name) {
  const int64_t params_dims = params.dims();
  if (batch_dims != 0) {
    const int64_t indices_dims = indices.dims();
    if (batch_dims < -indices_dims || batch_dims > indices_dims) {
      return errors::InvalidArgument("Expected batch_dims in the range [",
                                     -indices_dims, ", ", indices_dims,
                                     "], but got ", batch_dims);
    }
    if (batch_dims < 0) batch_dims += indices_dims;
    if (batch_dims >= params_dims) {
      return errors::InvalidArgument("batch_dims (", batch_dims,
                                     ") must be less than rank(params) (",
                                     params_dims, ").");
    }
    if (axis < batch_dims) {
      return errors::InvalidArgument("batch_dims (", batch_dims,
                                     ") must be less than or equal to ",
                                     "axis (", axis, ").");
    }
    for (int i = 0; i < batch_dims; ++i) {
      if (params.dim_size(i) != indices.dim_size(i)) {
        return errors::InvalidArgument(
            "params.shape[", i, "]: ", params.dim_size(i),
            " should be equal to indices.shape[", i,
            "]: ", indices.dim_size(i));
      }
    }
  }

  // Output shape: params[:axis] + indices[batch_dims:] + params[axis+1:].
  GatherDims g;
  TensorShape output_shape;
  for (int d = 0; d < axis; ++d) {
    output_shape.AddDim(params.dim_size(d));
    if (d < batch_dims) {
      g.batch *= params.dim_size(d);
    } else {
      g.outer *= params.dim_size(d);
    }
  }
  for (int d = static_cast<int>(batch_dims); d < indices.dims(); ++d) {
    output_shape.AddDim(indices.dim_size(d));
    g.per_batch *= indices.dim_size(d);
  }
  for (int d = static_cast<int>(axis) + 1; d < params_dims; ++d) {
    output_shape.AddDim(params.dim_size(d));
    g.inner *= params.dim_size(d);
  }
  g.gather = params.dim_size(static_cast<int>(axis));

  // Validate before anything is allocated or copied.
  const std::vector<int64_t> index_values =
      indices.NumElements() == 0 ? std::vector<int64_t>()
                                 : IndexValues(indices);
  for (size_t k = 0; k < index_values.size(); ++k) {
    if (index_values[k] < 0 || index_values[k] >= g.gather) {
      return errors::InvalidArgument(
          "indices", SliceDebugString(indices.shape(), k), " = ",
          index_values[k], " is not in [0, ", g.gather, ")");
    }
  }
  Tensor* out = nullptr;
  absl::Status s = ctx->allocate_output(output_index, output_shape, &out);
  if (!s.ok()) return s;
  if (index_values.empty()) return absl::OkStatus();
  const bool ok = VisitMovableType(params.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    GatherRows<T>(ctx, RawData<T>(params), index_values, g, RawData<T>(out));
  });
  return ok ? absl::OkStatus() : UnsupportedDtype(op_name, params.dtype());
}

absl::Status GatherNdToOutput(OpKernelContext* ctx, const Tensor& params,
                              const Tensor& indices, int output_index,
                              absl::string_view op_name) {
  const int64_t n = indices.dim_size(indices.dims() - 1);
  if (n > params.dims()) {
    return errors::InvalidArgument(
        "index innermost dimension length must be <= params rank; saw: ", n,
        " vs. ", params.dims());
  }
  TensorShape output_shape;
  int64_t count = 1;
  for (int d = 0; d + 1 < indices.dims(); ++d) {
    output_shape.AddDim(indices.dim_size(d));
    count *= indices.dim_size(d);
  }
  // Bad tuples are named by their position in indices.shape[:-1].
  const TensorShape output_batch = output_shape;
  int64_t slice = 1;
  for (int d = static_cast<int>(n); d < params.dims(); ++d) {
    output_shape.AddDim(params.dim_size(d));
    slice *= params.dim_size(d);
  }
  std::vector<int64_t> offsets;
  if (count > 0 && indices.NumElements() > 0) {
    const std::vector<int64_t> index_values = IndexValues(indices);
    offsets.resize(count);
    for (int64_t k = 0; k < count; ++k) {
      int64_t offset = 0;
      for (int64_t j = 0; j < n; ++j) {
        const int64_t v = index_values[k * n + j];
        const int64_t dim = params.dim_size(static_cast<int>(j));
        if (v < 0 || v >= dim) {
          std::string tuple;
          for (int64_t m = 0; m < n; ++m) {
            if (m > 0) tuple += ", ";
            tuple += std::to_string(index_values[k * n + m]);
          }
          return errors::InvalidArgument(
              "indices", SliceDebugString(output_batch, k), " = [",
              tuple, "] does not index into param shape ",
              params.shape().DebugString());
        }
        offset = offset * dim + v;
      }
      offsets[k] = offset;
    }
  } else if (count > 0) {
    offsets.assign(count, 0);  // n == 0: every output is all of params
  }
  Tensor* out = nullptr;
  absl::Status s = ctx->allocate_output(output_index, output_shape, &out);
  if (!s.ok()) return s;
  if (count == 0 || slice == 0) return absl::OkStatus();
  const bool ok = VisitMovableType(params.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    CopySlices<T>(RawData<T>(params), offsets, slice, RawData<T>(out));
  });
  return ok ? absl::OkStatus() : UnsupportedDtype(op_name, params.dtype());
}

}  // namespace array_ops
}  // namespace tributary
