// Helpers shared by the embedding-family kernels: reading index inputs of
// any integer dtype, the "shape starts with" test TensorFlow applies to
// ids/partitions against data, and the accumulator type of a value type.
#ifndef TRIBUTARY_KERNELS_EMBEDDING_EMBEDDING_UTIL_H_
#define TRIBUTARY_KERNELS_EMBEDDING_EMBEDDING_UTIL_H_

#include <cstdint>
#include <type_traits>

#include "common/framework/tensor.h"
#include "common/framework/tensor_shape.h"
#include "common/framework/types.h"

namespace tributary {
namespace embedding {

// Whether `shape`'s leading dims equal `prefix`'s dims.
inline bool StartsWith(const TensorShape& shape, const TensorShape& prefix) {
  if (shape.dims() < prefix.dims()) return false;
  for (int d = 0; d < prefix.dims(); ++d) {
    if (shape.dim_size(d) != prefix.dim_size(d)) return false;
  }
  return true;
}

// Product of shape's dims from `first` on (the elements per row when the
// leading `first` dims index rows).
inline int64_t InnerSize(const TensorShape& shape, int first) {
  int64_t n = 1;
  for (int d = first; d < shape.dims(); ++d) n *= shape.dim_size(d);
  return n;
}

// Half and bfloat16 accumulate in float, as TensorFlow's CPU kernels do for
// sparse segment reductions; other types accumulate in themselves.
template <typename T>
using Accumulator =
    std::conditional_t<std::is_same_v<T, half> || std::is_same_v<T, bfloat16>,
                       float, T>;

}  // namespace embedding
}  // namespace tributary

#endif  // TRIBUTARY_KERNELS_EMBEDDING_EMBEDDING_UTIL_H_
