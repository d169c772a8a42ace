// Helpers shared by the embedding-family kernels: reading index inputs of
// any integer dtype, the "shape starts with" test TensorFlow applies to
// ids/partitions against data, the accumulator type of a value type, and
// the scaled scatter of the sparse segment gradients.
#ifndef TRIBUTARY_KERNELS_EMBEDDING_EMBEDDING_UTIL_H_
#define TRIBUTARY_KERNELS_EMBEDDING_EMBEDDING_UTIL_H_

#include <cmath>
#include <cstdint>
#include <type_traits>
#include <vector>

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

// How a sparse segment reduction scales a segment of `count` entries: 1
// (Sum), 1/count (Mean), 1/sqrt(count) (SqrtN).
enum class SegmentScale { kSum, kMean, kSqrtN };

template <typename A>
A SegmentScaleFor(SegmentScale s, int64_t count) {
  if (s == SegmentScale::kMean) return A(1) / static_cast<A>(count);
  if (s == SegmentScale::kSqrtN) return A(1) / std::sqrt(static_cast<A>(count));
  return A(1);
}

// The gradient of a sparse segment reduction, as both SparseSegment*Grad and
// *GradV2 write it: for every i in input order,
//   out[out_row(i)] += scale(count of seg[i]) * grad[seg[i]],
// summed in Accumulator<T>, then stored as T. `grad` has `segments` rows of
// `inner` elements (seg[i] < segments, checked by the caller); `out` has
// out_rows rows.
template <typename T, class OutRow>
void ScatterSegmentGradient(const T* grad, const std::vector<int64_t>& seg,
                            int64_t segments, int64_t inner, SegmentScale scale,
                            int64_t out_rows, OutRow out_row, T* out) {
  using A = Accumulator<T>;
  std::vector<int64_t> counts(segments, 0);
  for (int64_t id : seg) ++counts[id];
  std::vector<A> acc(out_rows * inner, A(0));
  for (size_t i = 0; i < seg.size(); ++i) {
    const A factor = SegmentScaleFor<A>(scale, counts[seg[i]]);
    const T* src = grad + seg[i] * inner;
    A* dst = acc.data() + out_row(i) * inner;
    for (int64_t k = 0; k < inner; ++k) {
      dst[k] += static_cast<A>(src[k]) * factor;
    }
  }
  for (int64_t k = 0; k < out_rows * inner; ++k) {
    out[k] = static_cast<T>(acc[k]);
  }
}

}  // namespace embedding
}  // namespace tributary

#endif  // TRIBUTARY_KERNELS_EMBEDDING_EMBEDDING_UTIL_H_
