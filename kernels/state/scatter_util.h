#ifndef TRIBUTARY_KERNELS_STATE_SCATTER_UTIL_H_
#define TRIBUTARY_KERNELS_STATE_SCATTER_UTIL_H_

// Checks shared by the row-indexed variable kernels (Scatter*, ResourceGather),
// with TensorFlow's messages.

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/framework/status.h"
#include "common/framework/tensor.h"
#include "common/framework/tensor_shape.h"

namespace tributary {

// "[1,2]": the coordinates of flat element `flat` in `shape` (TensorFlow's
// SliceDebugString, used to name a bad index).
inline std::string IndexDebugString(const TensorShape& shape, int64_t flat) {
  std::string out;
  for (int d = shape.dims() - 1; d >= 0; --d) {
    const int64_t size = shape.dim_size(d);
    const int64_t coord = size > 0 ? flat % size : 0;
    flat = size > 0 ? flat / size : 0;
    out = d == shape.dims() - 1 ? absl::StrCat(coord)
                                : absl::StrCat(coord, ",", out);
  }
  return absl::StrCat("[", out, "]");
}

// Every index must name a row of a variable with `rows` rows:
// "indices[1] = 7 is not in [0, 4)" for the first that does not.
template <typename Tindex>
absl::Status CheckScatterIndices(const Tindex* idx, const TensorShape& shape,
                                 int64_t rows) {
  const int64_t n = shape.num_elements();
  for (int64_t i = 0; i < n; ++i) {
    if (idx[i] < 0 || static_cast<int64_t>(idx[i]) >= rows) {
      return errors::InvalidArgument("indices", IndexDebugString(shape, i),
                                     " = ", idx[i], " is not in [0, ", rows,
                                     ")");
    }
  }
  return absl::OkStatus();
}

// params is at least 1-D; updates is a scalar or has shape
// indices.shape + params.shape[1:].
inline absl::Status CheckScatterShapes(const Tensor& params,
                                       const Tensor& indices,
                                       const Tensor& updates) {
  if (params.dims() < 1) {
    return errors::InvalidArgument("params must be at least 1-D, got shape ",
                                   params.shape().DebugString());
  }
  bool valid = updates.dims() == 0;
  if (!valid && updates.dims() == indices.dims() + params.dims() - 1) {
    valid = true;
    for (int d = 0; d < indices.dims(); ++d) {
      valid = valid && updates.dim_size(d) == indices.dim_size(d);
    }
    for (int d = 1; d < params.dims(); ++d) {
      valid = valid &&
              updates.dim_size(indices.dims() + d - 1) == params.dim_size(d);
    }
  }
  if (valid) return absl::OkStatus();
  return errors::InvalidArgument(
      "Must have updates.shape = indices.shape + params.shape[1:] or "
      "updates.shape = [], got updates.shape ",
      updates.shape().DebugString(), ", indices.shape ",
      indices.shape().DebugString(), ", params.shape ",
      params.shape().DebugString());
}

}  // namespace tributary

#endif  // TRIBUTARY_KERNELS_STATE_SCATTER_UTIL_H_
