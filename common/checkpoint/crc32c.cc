#include "common/checkpoint/crc32c.h"

#include <algorithm>
#include <climits>

#include <isa-l/crc.h>

namespace tributary {
namespace crc32c {

uint32_t Extend(uint32_t crc, const void* data, size_t n) {
  // ISA-L keeps the register un-inverted between calls: the standard CRC is
  // the register's complement, so invert on the way in and out. Its length is
  // an int, hence the chunks.
  uint32_t state = ~crc;
  const unsigned char* p = static_cast<const unsigned char*>(data);
  while (n > 0) {
    const size_t chunk = std::min<size_t>(n, size_t{1} << 30);
    state = crc32_iscsi(const_cast<unsigned char*>(p), static_cast<int>(chunk),
                        state);
    p += chunk;
    n -= chunk;
  }
  return ~state;
}

}  // namespace crc32c
}  // namespace tributary
