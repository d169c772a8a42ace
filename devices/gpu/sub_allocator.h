// SubAllocator: the backing a BFCAllocator carves up. It hands out a few
// large regions (megabytes to the whole device), never individual tensors,
// so it may be slow; the BFC allocator does the fine-grained work on top.
//
// Contract:
//  * Alloc(alignment, num_bytes) returns num_bytes of memory whose address is
//    a multiple of `alignment` (a power of two, at most 256), or nullptr when
//    the backing is out of memory. It never throws and never aborts on OOM:
//    the caller may retry with a smaller size.
//  * Free(ptr, num_bytes) returns a region; num_bytes is exactly the size
//    passed to the Alloc that returned ptr.
//  * The memory need not be addressable by the host (device memory is not);
//    the BFC allocator only does arithmetic on the addresses.
//  * Calls are serialised by the owning BFCAllocator, so an implementation
//    need not be thread-safe for use by one allocator.
//
// The GPU device implements it with cuMemAlloc/cuMemFree (256-byte aligned
// by CUDA's guarantee); tests use a fake backed by host memory.
#ifndef TRIBUTARY_DEVICES_GPU_SUB_ALLOCATOR_H_
#define TRIBUTARY_DEVICES_GPU_SUB_ALLOCATOR_H_

#include <cstddef>
#include <string>

namespace tributary {

class SubAllocator {
 public:
  virtual ~SubAllocator() = default;

  // num_bytes aligned to `alignment`, or nullptr when out of memory.
  virtual void* Alloc(size_t alignment, size_t num_bytes) = 0;
  // `ptr` and `num_bytes` exactly as given to / returned by Alloc.
  virtual void Free(void* ptr, size_t num_bytes) = 0;
  // Short name for logs ("cuda_device_0").
  virtual std::string Name() const = 0;
};

}  // namespace tributary

#endif  // TRIBUTARY_DEVICES_GPU_SUB_ALLOCATOR_H_
