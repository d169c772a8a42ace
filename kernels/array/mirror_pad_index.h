// What MirrorPad and its gradient share: the index rule (padded position
// `o` of a dim of size n padded by `before` reads input index o - before
// folded back into [0, n); `offset` is 1 for REFLECT, where the edge element
// is not repeated: [a b c] -> b | a b c | b, and 0 for SYMMETRIC:
// a | a b c | c), the offset of a `mode` attr, and the paddings input read
// with TensorFlow's checks.
#ifndef TRIBUTARY_KERNELS_ARRAY_MIRROR_PAD_INDEX_H_
#define TRIBUTARY_KERNELS_ARRAY_MIRROR_PAD_INDEX_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "common/framework/status.h"
#include "common/framework/tensor.h"
#include "kernels/array/array_util.h"

namespace tributary {
namespace array_ops {

inline int64_t MirrorSourceIndex(int64_t o, int64_t before, int64_t n,
                                 int64_t offset) {
  const int64_t i = o - before;
  if (i < 0) return -i - 1 + offset;
  if (i >= n) return 2 * n - i - 1 - offset;
  return i;
}

inline int64_t MirrorOffset(const std::string& mode) {
  return mode == "REFLECT" ? 1 : 0;
}

// The paddings of `input`, [before0, after0, before1, ...]: `paddings_t`
// must be a [rank, 2] matrix (TensorFlow's messages). Values are not
// checked here: each op has its own bounds.
inline absl::Status ReadMirrorPaddings(const Tensor& input,
                                       const Tensor& paddings_t,
                                       std::vector<int64_t>* paddings) {
  TRIB_RETURN_IF_ERROR(CheckPaddingsMatrix(paddings_t));
  if (paddings_t.dim_size(0) != input.dims()) {
    return errors::InvalidArgument(
        "The first dimension of paddings must be the rank of inputs",
        paddings_t.shape().DebugString(), ", ", input.shape().DebugString());
  }
  *paddings = IndexValues(paddings_t);
  return absl::OkStatus();
}

}  // namespace array_ops
}  // namespace tributary

#endif  // TRIBUTARY_KERNELS_ARRAY_MIRROR_PAD_INDEX_H_
