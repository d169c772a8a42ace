#include "common/framework/allocator.h"

#include "absl/strings/str_cat.h"
#include "common/framework/logging.h"

namespace tributary {

Allocator::~Allocator() = default;

size_t Allocator::RequestedSize(const void* /*ptr*/) const {
  CHECK(false) << "allocator " << const_cast<Allocator*>(this)->Name()
               << " does not track allocation sizes";
  return 0;
}

std::string AllocatorStats::DebugString() const {
  return absl::StrCat("num_allocs: ", num_allocs,
                      ", bytes_in_use: ", bytes_in_use,
                      ", peak_bytes_in_use: ", peak_bytes_in_use,
                      ", largest_alloc_size: ", largest_alloc_size,
                      ", bytes_cached: ", bytes_cached);
}

}  // namespace tributary
