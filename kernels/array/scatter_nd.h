// The shared half of every scatter_nd-style op: ScatterNd, TensorScatter*
// (functional), ScatterNd* (TF1 reference variables), ResourceScatterNd* and
// ScatterNdNonAliasingAdd. `indices` has shape [..., K]; each index tuple
// names a slice params[i_0, ..., i_{K-1}, ...] which is combined with the
// matching slice of `updates` (shape indices.shape[:-1] + params.shape[K:]).
// Slices are applied in index order, so a repeated index adds twice and the
// last update wins, as TensorFlow's CPU kernels do.
//
// Validation is TensorFlow's, with its messages: an index outside params is
// InvalidArgument "indices[1] = [5] does not index into shape [4]" unless
// bad_indices_policy is "IGNORE", which skips that slice. Every index is
// checked before any element is written.
#ifndef TRIBUTARY_KERNELS_ARRAY_SCATTER_ND_H_
#define TRIBUTARY_KERNELS_ARRAY_SCATTER_ND_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "common/framework/tensor.h"
#include "common/framework/tensor_shape.h"

namespace tributary {

class OpKernelConstruction;

namespace array_ops {

// Reads the bad_indices_policy attr: "", "DEFAULT" and "ERROR" fail on a bad
// index, "IGNORE" skips it; anything else is InvalidArgument.
absl::Status GetIgnoreBadIndices(OpKernelConstruction* context, bool* ignore);

// updates.shape == indices.shape[:-1] + params_shape[K:] (an indices vector
// counts as [1, K]); TensorFlow's "Dimensions [a,b) of ..." errors.
absl::Status ValidateScatterNdUpdateShape(const TensorShape& params_shape,
                                          const TensorShape& indices_shape,
                                          const TensorShape& updates_shape);

// Where each update slice goes: the flat element offset of slice i in
// params, or -1 for a skipped bad index.
struct ScatterNdPlan {
  int64_t slice_size = 0;
  std::vector<int64_t> offsets;
};

// The checks every form runs on params (rank >= 1, an empty params only with
// empty indices and updates, ValidateScatterNdUpdateShape), then the index
// checks; fills `plan`.
absl::Status PlanScatterNd(const TensorShape& params_shape,
                           const Tensor& indices, const Tensor& updates,
                           bool ignore_bad_indices, ScatterNdPlan* plan);

enum class ScatterNdKind { kUpdate, kAdd, kSub, kMin, kMax };

// params[offset_i + j] op= updates[i * slice_size + j], in order.
template <typename T, ScatterNdKind kKind>
void ApplyScatterNd(const ScatterNdPlan& plan, const T* updates, T* params) {
  const int64_t n = plan.slice_size;
  for (size_t i = 0; i < plan.offsets.size(); ++i) {
    if (plan.offsets[i] < 0) continue;
    T* dst = params + plan.offsets[i];
    const T* src = updates + static_cast<int64_t>(i) * n;
    for (int64_t j = 0; j < n; ++j) {
      if constexpr (kKind == ScatterNdKind::kUpdate) {
        dst[j] = src[j];
      } else if constexpr (kKind == ScatterNdKind::kAdd) {
        dst[j] = dst[j] + src[j];
      } else if constexpr (kKind == ScatterNdKind::kSub) {
        dst[j] = dst[j] - src[j];
      } else if constexpr (kKind == ScatterNdKind::kMin) {
        if (src[j] < dst[j]) dst[j] = src[j];
      } else {
        if (dst[j] < src[j]) dst[j] = src[j];
      }
    }
  }
}

}  // namespace array_ops
}  // namespace tributary

// The number types TensorFlow registers its arithmetic scatter_nd kernels
// for: REAL(T) for the ordered ones (add, sub, min, max), COMPLEX(T) for
// complex64/complex128 (add and sub only).
#define TRIB_FOR_EACH_SCATTER_ND_NUMBER(REAL, COMPLEX) \
  REAL(half);                                          \
  REAL(bfloat16);                                      \
  REAL(float);                                         \
  REAL(double);                                        \
  REAL(int8_t);                                        \
  REAL(int16_t);                                       \
  REAL(int32_t);                                       \
  REAL(int64_t);                                       \
  REAL(uint8_t);                                       \
  REAL(uint16_t);                                      \
  REAL(uint32_t);                                      \
  REAL(uint64_t);                                      \
  COMPLEX(complex64);                                  \
  COMPLEX(complex128)

#endif  // TRIBUTARY_KERNELS_ARRAY_SCATTER_ND_H_
