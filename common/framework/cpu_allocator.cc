// The process-wide host allocator: the caching allocator of
// caching_allocator.h over the process-wide block cache.
#include <memory>

#include "common/framework/allocator.h"
#include "common/framework/caching_allocator.h"

namespace tributary {

std::unique_ptr<Allocator> NewCPUAllocator() {
  return NewCachingCPUAllocator(HostBlockCache::Global());
}

Allocator* cpu_allocator() {
  // Leaked on purpose: tensors may be freed during static destruction.
  static Allocator* const allocator = NewCPUAllocator().release();
  return allocator;
}

}  // namespace tributary
