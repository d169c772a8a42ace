// CRC-32C (Castagnoli) as TensorFlow's checkpoints use it: Value/Extend over
// bytes, and the "masked" form stored next to data (Mask/Unmask), so that a
// CRC of data that itself holds CRCs stays well distributed. The arithmetic is
// Intel ISA-L's crc32_iscsi (Debian's libisal), which uses the CPU's crc32
// instruction or PCLMULQDQ; this file only fixes the convention: Extend(0, s)
// is the standard crc32c of s (crc32c("123456789") == 0xE3069283), and
// Extend(Extend(0, a), b) == Extend(0, a + b).
#ifndef TRIBUTARY_COMMON_CHECKPOINT_CRC32C_H_
#define TRIBUTARY_COMMON_CHECKPOINT_CRC32C_H_

#include <cstddef>
#include <cstdint>

namespace tributary {
namespace crc32c {

// The crc32c of `data` appended to bytes whose crc32c is `crc`.
uint32_t Extend(uint32_t crc, const void* data, size_t n);

inline uint32_t Value(const void* data, size_t n) { return Extend(0, data, n); }

// LevelDB's and TensorFlow's masking: rotate right by 15 bits, add a constant.
constexpr uint32_t kMaskDelta = 0xa282ead8u;
inline uint32_t Mask(uint32_t crc) {
  return ((crc >> 15) | (crc << 17)) + kMaskDelta;
}
inline uint32_t Unmask(uint32_t masked) {
  const uint32_t rot = masked - kMaskDelta;
  return (rot >> 17) | (rot << 15);
}

}  // namespace crc32c
}  // namespace tributary

#endif  // TRIBUTARY_COMMON_CHECKPOINT_CRC32C_H_
