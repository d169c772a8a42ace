// Allocator interface (TensorFlow's shape: AllocateRaw(alignment, bytes) /
// DeallocateRaw(ptr)) with optional statistics, and the process-wide CPU
// allocator. Device allocators (GPU BFC, ...) derive from Allocator.
#ifndef TRIBUTARY_COMMON_FRAMEWORK_ALLOCATOR_H_
#define TRIBUTARY_COMMON_FRAMEWORK_ALLOCATOR_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace tributary {

// Every tensor buffer is at least this aligned: enough for AVX-512 loads and a
// whole cache line, so two tensors never share a line.
inline constexpr size_t kAllocatorAlignment = 64;

struct AllocatorStats {
  int64_t num_allocs = 0;          // allocations made since the last ClearStats
  int64_t bytes_in_use = 0;        // requested bytes not yet deallocated
  int64_t peak_bytes_in_use = 0;   // high-water mark of bytes_in_use
  int64_t largest_alloc_size = 0;  // largest single request
  // Memory the allocator holds for reuse without having handed it out (a
  // BFC allocator's free chunks, a block cache's freed blocks); 0 for
  // allocators that hold none.
  int64_t bytes_cached = 0;
  std::string DebugString() const;
};

class Allocator {
 public:
  virtual ~Allocator();

  // Short stable name for logs and DeviceAttributes ("cpu", "gpu_bfc").
  virtual std::string Name() = 0;

  // Returns `num_bytes` of memory aligned to `alignment` (a power of two; values
  // below kAllocatorAlignment are raised to it), or nullptr when out of memory.
  // A request for 0 bytes returns a valid, unique pointer that must also be
  // deallocated.
  virtual void* AllocateRaw(size_t alignment, size_t num_bytes) = 0;
  // `ptr` must come from this allocator's AllocateRaw; nullptr is ignored.
  virtual void DeallocateRaw(void* ptr) = 0;

  // Allocators that do not keep statistics return all zeros.
  virtual AllocatorStats GetStats() { return AllocatorStats(); }
  // Resets num_allocs, peak (to the current use) and largest; bytes_in_use
  // stays exact because live allocations still count.
  virtual void ClearStats() {}

  // A few lines on the allocator's state (limit, use, fragmentation) for
  // out-of-memory messages; empty for allocators that keep none.
  virtual std::string StateDebugString() { return std::string(); }

  // Whether RequestedSize() works for this allocator.
  virtual bool TracksAllocationSizes() const { return false; }
  // The num_bytes passed to AllocateRaw for `ptr`; only valid when
  // TracksAllocationSizes().
  virtual size_t RequestedSize(const void* ptr) const;

  // Typed convenience: n elements of T, default-aligned. Does not construct.
  template <typename T>
  T* Allocate(size_t n) {
    if (n > SIZE_MAX / sizeof(T)) return nullptr;
    return static_cast<T*>(AllocateRaw(kAllocatorAlignment, n * sizeof(T)));
  }
  template <typename T>
  void Deallocate(T* ptr) {
    DeallocateRaw(ptr);
  }
};

// The process-wide, thread-safe host allocator (never deleted). It tracks
// statistics and allocation sizes.
Allocator* cpu_allocator();
// A fresh host allocator of the same kind with its own statistics, for a
// device that wants to account its memory separately (and for tests).
std::unique_ptr<Allocator> NewCPUAllocator();

}  // namespace tributary

#endif  // TRIBUTARY_COMMON_FRAMEWORK_ALLOCATOR_H_
