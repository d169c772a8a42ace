// The index rule MirrorPad and its gradient share: padded position `o` of a
// dim of size n padded by `before` reads input index o - before folded back
// into [0, n). `offset` is 1 for REFLECT (the edge element is not repeated:
// [a b c] -> b | a b c | b) and 0 for SYMMETRIC (a | a b c | c).
#ifndef TRIBUTARY_KERNELS_ARRAY_MIRROR_PAD_INDEX_H_
#define TRIBUTARY_KERNELS_ARRAY_MIRROR_PAD_INDEX_H_

#include <cstdint>

namespace tributary {
namespace array_ops {

inline int64_t MirrorSourceIndex(int64_t o, int64_t before, int64_t n,
                                 int64_t offset) {
  const int64_t i = o - before;
  if (i < 0) return -i - 1 + offset;
  if (i >= n) return 2 * n - i - 1 - offset;
  return i;
}

}  // namespace array_ops
}  // namespace tributary

#endif  // TRIBUTARY_KERNELS_ARRAY_MIRROR_PAD_INDEX_H_
