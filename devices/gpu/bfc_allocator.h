// BFCAllocator: best-fit with coalescing, for device memory (after
// TensorFlow's GPU BFC allocator). cudaMalloc is slow and synchronises the
// device, so the GPU device takes a few large regions from a SubAllocator and
// serves every tensor from them here, on the host, without touching the
// memory itself.
//
// Rules:
//  * Sizes are rounded up to a multiple of kMinAllocationSize (256 bytes);
//    a request for 0 bytes gets a 256-byte chunk (a valid, unique pointer).
//  * Every chunk starts at a multiple of 256 from a 256-aligned region, so
//    any alignment dividing 256 is satisfied. A larger alignment (or one that
//    does not divide 256) is not supported: AllocateRaw returns nullptr.
//  * A region is a list of chunks, linked to their neighbours by address.
//    Free chunks sit in kNumBins bins by size class (bin i holds sizes in
//    [256 << i, 256 << (i+1)), the last bin everything bigger), each ordered
//    by (size, address). An allocation takes the smallest free chunk that
//    fits (lowest address among equals): exact best fit.
//  * The chunk is split when the remainder is at least 256 bytes, i.e. on
//    every inexact fit (sizes are multiples of 256): the caller gets exactly
//    the rounded size and the rest goes back to a bin. Unlike TensorFlow we do
//    not keep a whole chunk up to twice the request to avoid small fragments;
//    best fit plus coalescing keeps fragmentation low enough, and the
//    accounting stays exact.
//  * Freeing merges the chunk with free neighbours of the same region, so no
//    two adjacent chunks are ever both free. Regions are never merged or
//    returned before the allocator is destroyed.
//  * Growth: without allow_growth the first allocation takes one region of
//    memory_limit. With allow_growth regions are taken on demand, sized
//    geometrically so a workload needs only a logarithmic number of them:
//    the planned size of the first is max(2 MiB, request), of each next one
//    max(twice the previous plan, request). What is asked of the backing is
//    the plan clipped so that all regions total at most memory_limit; if the
//    backing refuses more than the request, one retry asks for just the
//    request (a nearly full device can still serve it).
//  * Out of memory (limit reached or backing refused) returns nullptr; the
//    allocator stays usable and freed memory is reused.
//  * Statistics count chunk sizes (the rounded bytes), as TensorFlow's BFC
//    does: bytes_in_use, peak_bytes_in_use and largest_alloc_size are what is
//    actually taken from the regions. RequestedSize() returns the request.
//  * Thread-safe: one mutex around all state.
//  * DeallocateRaw of a pointer this allocator did not hand out (or already
//    freed) is a programming error and aborts with a CHECK failure.
#ifndef TRIBUTARY_DEVICES_GPU_BFC_ALLOCATOR_H_
#define TRIBUTARY_DEVICES_GPU_BFC_ALLOCATOR_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "common/framework/allocator.h"
#include "devices/gpu/sub_allocator.h"

namespace tributary {

class BFCAllocator : public Allocator {
 public:
  static constexpr size_t kMinAllocationSize = 256;
  static constexpr int kNumBins = 21;
  // First region size under allow_growth (unless the request is bigger).
  static constexpr size_t kInitialRegionBytes = size_t{2} << 20;

  struct Options {
    // Most bytes taken from the SubAllocator in all (rounded down to 256).
    size_t memory_limit = 0;
    // true: regions on demand, doubling; false: one region of memory_limit
    // on the first allocation.
    bool allow_growth = false;
    // Returned by Name().
    std::string name = "gpu_bfc";
  };

  BFCAllocator(std::unique_ptr<SubAllocator> sub_allocator,
               const Options& options);
  // Returns every region to the SubAllocator. Memory still allocated becomes
  // invalid.
  ~BFCAllocator() override;

  BFCAllocator(const BFCAllocator&) = delete;
  BFCAllocator& operator=(const BFCAllocator&) = delete;

  std::string Name() override;
  void* AllocateRaw(size_t alignment, size_t num_bytes) override;
  void DeallocateRaw(void* ptr) override;
  AllocatorStats GetStats() override;
  void ClearStats() override;
  bool TracksAllocationSizes() const override { return true; }
  size_t RequestedSize(const void* ptr) const override;

  // memory_limit, rounded down to 256.
  int64_t bytes_limit() const { return static_cast<int64_t>(memory_limit_); }
  // Bytes taken from the SubAllocator so far.
  int64_t total_region_bytes();
  // A few lines: limit, in use, regions, free bytes, largest free chunk and
  // the number of free chunks in each non-empty bin. For OOM messages.
  std::string StateDebugString() override;

  // Test-only views of the structure.
  int64_t NumFreeChunksForTest();
  int64_t NumRegionsForTest();

 private:
  struct Chunk {
    char* ptr = nullptr;
    size_t size = 0;            // multiple of kMinAllocationSize
    size_t requested_size = 0;  // num_bytes of AllocateRaw; 0 when free
    bool in_use = false;
    Chunk* prev = nullptr;  // neighbours by address in the same region
    Chunk* next = nullptr;
  };
  struct ChunkLess {
    bool operator()(const Chunk* a, const Chunk* b) const {
      if (a->size != b->size) return a->size < b->size;
      return a->ptr < b->ptr;
    }
  };
  using Bin = std::set<Chunk*, ChunkLess>;
  struct Region {
    char* base;
    size_t size;
    Chunk* first;  // never merged away: merging keeps the lower chunk
  };

  static int BinIndex(size_t size);
  static size_t RoundedBytes(size_t num_bytes);

  // The best-fitting free chunk for `rounded` bytes, removed from its bin;
  // nullptr when none fits.
  Chunk* TakeBestFit(size_t rounded) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Takes a new region able to hold `rounded` bytes; false when the limit or
  // the backing does not allow it.
  bool Extend(size_t rounded) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Cuts `chunk` (not in a bin) to `rounded` bytes; the rest goes to a bin.
  void Split(Chunk* chunk, size_t rounded) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Appends `next` (free, not in a bin) to `chunk` and deletes it.
  void Merge(Chunk* chunk, Chunk* next) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void InsertIntoBin(Chunk* chunk) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void RemoveFromBin(Chunk* chunk) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const std::unique_ptr<SubAllocator> sub_allocator_;
  const size_t memory_limit_;
  const bool allow_growth_;
  const std::string name_;

  mutable absl::Mutex mu_;
  std::vector<Region> regions_ ABSL_GUARDED_BY(mu_);
  size_t total_region_bytes_ ABSL_GUARDED_BY(mu_) = 0;
  // Size of the next growth region (before the request and limit apply).
  size_t next_region_bytes_ ABSL_GUARDED_BY(mu_) = kInitialRegionBytes;
  std::array<Bin, kNumBins> bins_ ABSL_GUARDED_BY(mu_);
  // Chunks handed out, by address: finds the chunk on DeallocateRaw.
  absl::flat_hash_map<const void*, Chunk*> in_use_ ABSL_GUARDED_BY(mu_);
  AllocatorStats stats_ ABSL_GUARDED_BY(mu_);
};

}  // namespace tributary

#endif  // TRIBUTARY_DEVICES_GPU_BFC_ALLOCATOR_H_
