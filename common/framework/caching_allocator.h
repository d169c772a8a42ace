// The caching host allocator behind cpu_allocator() / NewCPUAllocator().
//
// Why a cache: on these machines the first touch of a fresh 4 KiB page costs
// about 10 us, and glibc hands big freed blocks straight back to the kernel
// (munmap above its mmap threshold, or a heap trim). A step that produces a
// 16 MB MatMul output therefore faulted 4096 fresh pages in every step, and
// so did every tensor received over the network. Here big blocks are kept
// after they are freed and handed out again, so a steady-state step or
// transfer touches no fresh page.
//
// How:
//  * Requests below HostCacheOptions::min_cached_bytes (256 KiB by default)
//    go to aligned malloc, which already caches small blocks per thread.
//  * Bigger ones are rounded up to a size class with four classes per power
//    of two (2^k, 1.25*2^k, 1.5*2^k, 1.75*2^k: at most 25% of address space
//    over the request, and untouched tail pages are never faulted in), and
//    come from mmap. Classes of 2 MiB and up are mapped 2 MiB-aligned and
//    madvise(MADV_HUGEPAGE)d, so with transparent huge pages in "always" or
//    "madvise" mode one fault maps 2 MiB (and the TLB covers the block);
//    under "never" the advice is skipped and 4 KiB pages are used.
//  * A freed block goes into its class's bin; an allocation takes the most
//    recently freed block of its class (its pages are resident and likely in
//    cache), or of one of the next two classes, before mapping a new one.
//  * Cached bytes are capped (HostCacheOptions::max_cached_bytes; the global
//    cache reads TRIBUTARY_ALLOCATOR_CACHE_BYTES, default 1/8 of physical
//    memory; the daemons' --host-cache-bytes sets it). Past the cap the
//    least recently freed blocks are unmapped.
//  * Blocks nobody reused for a while can be given back: ReleaseIdle(age)
//    unmaps those freed longer ago than `age` (the daemons call it
//    periodically: host_memory_releaser.h), so an idle process goes back to
//    its baseline instead of keeping its biggest step's memory for good.
//  * Each bin has its own lock, held for a push or pop only; the cap check
//    is one atomic. Eviction (rare: only past the cap) is serialised on its
//    own lock and never holds two bin locks.
//
// One process-wide cache serves every allocator made by NewCPUAllocator(),
// so a block freed by one CPU device is reused by another, and the cap is
// for the whole process. Statistics (bytes_in_use, peak, RequestedSize) stay
// per allocator and count requested bytes, not class sizes.
#ifndef TRIBUTARY_COMMON_FRAMEWORK_CACHING_ALLOCATOR_H_
#define TRIBUTARY_COMMON_FRAMEWORK_CACHING_ALLOCATOR_H_

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "common/framework/allocator.h"

namespace tributary {

struct HostCacheOptions {
  // Requests of at least this many bytes (header included) are served from
  // the size-class bins; smaller ones from aligned malloc.
  size_t min_cached_bytes = 256 * 1024;
  // Most bytes kept in freed blocks; 0 keeps none (big blocks are still
  // mapped with huge-page advice, and unmapped when freed).
  size_t max_cached_bytes = 0;
  // Advise MADV_HUGEPAGE on blocks of 2 MiB and more (skipped when the
  // kernel's transparent_hugepage mode is "never").
  bool use_huge_pages = true;

  // min 256 KiB, huge pages on, and the cap from the environment variable
  // TRIBUTARY_ALLOCATOR_CACHE_BYTES (a byte count; 0 disables caching),
  // else DefaultMaxCachedBytes().
  static HostCacheOptions FromEnvironment();
  // 1/8 of physical memory, at least 64 MiB and at most 16 GiB.
  static size_t DefaultMaxCachedBytes();
};

struct HostCacheStats {
  int64_t cached_bytes = 0;  // bytes in freed blocks held for reuse
  int64_t mapped_bytes = 0;  // bytes mapped in all (handed out + cached)
  int64_t hits = 0;          // allocations served by a cached block
  int64_t misses = 0;        // allocations that mapped a new block
  int64_t evictions = 0;     // cached blocks unmapped to respect the cap
  std::string DebugString() const;
};

// The kernel's transparent huge page mode as read from
// /sys/kernel/mm/transparent_hugepage/enabled: "always", "madvise", "never",
// or "unavailable" when the file cannot be read.
std::string TransparentHugePageMode();

// Page-aligned blocks of size-class sizes, cached after release. Thread-safe.
class HostBlockCache {
 public:
  explicit HostBlockCache(const HostCacheOptions& options);
  // Unmaps the cached blocks. Blocks still handed out stay mapped (leaked),
  // so destroy a cache only after everything allocated from it is freed.
  ~HostBlockCache();

  HostBlockCache(const HostBlockCache&) = delete;
  HostBlockCache& operator=(const HostBlockCache&) = delete;

  // The process-wide cache, with HostCacheOptions::FromEnvironment(). Never
  // destroyed (tensors may be freed during static destruction).
  static const std::shared_ptr<HostBlockCache>& Global();

  const HostCacheOptions& options() const { return options_; }

  // Whether a request of `bytes` (header and alignment included) is served
  // here rather than by malloc.
  bool Serves(size_t bytes) const { return bytes >= options_.min_cached_bytes; }

  // A page-aligned block of at least `bytes`; its real size (what Release
  // needs back) goes to *block_bytes. nullptr when out of memory.
  void* Allocate(size_t bytes, size_t* block_bytes);
  // Returns a block from Allocate with the size it reported.
  void Release(void* block, size_t block_bytes);

  // Unmaps least recently freed blocks until at most `target_bytes` stay
  // cached; returns the bytes unmapped.
  size_t Trim(size_t target_bytes);

  // Unmaps the blocks freed longer than `age` ago; returns the bytes
  // unmapped.
  size_t ReleaseIdle(std::chrono::nanoseconds age);

  // The cap on cached bytes (starts as options().max_cached_bytes); setting
  // a lower one trims at once.
  size_t max_cached_bytes() const {
    return max_cached_bytes_.load(std::memory_order_relaxed);
  }
  void set_max_cached_bytes(size_t bytes);

  HostCacheStats GetStats() const;

  // The class size a request of `bytes` is rounded up to (for tests).
  size_t ClassSizeFor(size_t bytes) const;

 private:
  using Clock = std::chrono::steady_clock;
  struct CachedBlock {
    void* base;
    uint64_t freed_tick;  // when it was released; smaller = older
    Clock::time_point freed_at;
  };
  struct Bin {
    std::mutex mu;
    // Oldest first; allocation pops the newest from the back.
    std::vector<CachedBlock> blocks;
    // freed_tick of blocks.front(), UINT64_MAX when empty: lets eviction
    // find the oldest block without taking every bin's lock.
    std::atomic<uint64_t> oldest_tick{UINT64_MAX};
  };

  // Bin index of a class that holds `bytes`; -1 when too big to cache.
  int BinIndex(size_t bytes) const;
  size_t BinSize(int index) const;
  void* TakeFromBin(int index);
  void* Map(size_t bytes);
  void Unmap(void* base, size_t bytes);
  // Pops and unmaps the least recently freed block of any bin if it was
  // freed before `freed_before`; false when there is none.
  bool EvictOldest(Clock::time_point freed_before = Clock::time_point::max());

  const HostCacheOptions options_;
  const int min_log2_;  // floor(log2(min_cached_bytes))
  const bool advise_huge_pages_;
  std::vector<std::unique_ptr<Bin>> bins_;

  std::atomic<size_t> max_cached_bytes_;
  std::atomic<int64_t> cached_bytes_{0};
  std::atomic<int64_t> mapped_bytes_{0};
  std::atomic<int64_t> hits_{0};
  std::atomic<int64_t> misses_{0};
  std::atomic<int64_t> evictions_{0};
  std::atomic<uint64_t> tick_{0};
  std::mutex evict_mu_;  // one evictor at a time
};

// A host allocator with its own statistics whose big blocks come from
// `cache` (kept alive by the allocator). NewCPUAllocator() is this with
// HostBlockCache::Global().
std::unique_ptr<Allocator> NewCachingCPUAllocator(
    std::shared_ptr<HostBlockCache> cache);

// Unmaps every cached block of the process-wide cache (e.g. when a worker
// drops its sessions); returns the bytes released.
size_t ReleaseCachedHostMemory();

}  // namespace tributary

#endif  // TRIBUTARY_COMMON_FRAMEWORK_CACHING_ALLOCATOR_H_
