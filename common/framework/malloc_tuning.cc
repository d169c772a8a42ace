#include "common/framework/malloc_tuning.h"

#include <malloc.h>

namespace tributary {

void TuneMallocForLargeTensors() {
  // Freed memory stays in the heap instead of being trimmed back.
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
  // Blocks up to 32 MiB (glibc's largest allowed value) come from the heap,
  // not from their own mapping that free() unmaps.
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  // One arena: glibc's extra per-thread arenas live in heaps of at most
  // 64 MiB that are unmapped as soon as they are empty, whatever the trim
  // threshold says. Contention on the one arena is limited to small
  // protocol objects, since tensor buffers come from the caching allocator.
  mallopt(M_ARENA_MAX, 1);
}

}  // namespace tributary
