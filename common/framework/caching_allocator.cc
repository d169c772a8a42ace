#include "common/framework/caching_allocator.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "common/framework/logging.h"

namespace tributary {
namespace {

constexpr size_t kHugePageSize = size_t{2} << 20;
// Blocks from mmap are aligned to the system page size, at least this.
constexpr size_t kMinPageSize = 4096;
// The smallest min_cached_bytes honoured: classes must be whole pages
// (a class step is a quarter of a power of two).
constexpr int kMinClassLog2 = 14;
// Requests past 2^(kMaxClassLog2+1) are mapped and unmapped uncached.
constexpr int kMaxClassLog2 = 44;
constexpr int kClassesPerOctave = 4;
// An allocation may take a cached block of up to this many classes above
// its own (at most ~50% more address space) rather than map a new one.
constexpr int kMaxClassesUp = 2;

int FloorLog2(size_t v) { return 63 - __builtin_clzll(v); }

size_t PageSize() {
  static const size_t page = [] {
    const long p = sysconf(_SC_PAGESIZE);
    return p > 0 ? static_cast<size_t>(p) : kMinPageSize;
  }();
  return page;
}

size_t RoundUp(size_t v, size_t to) { return (v + to - 1) / to * to; }

// Max of `v` and the atomic, lock-free.
void UpdateMax(std::atomic<int64_t>* max, int64_t v) {
  int64_t prev = max->load(std::memory_order_relaxed);
  while (prev < v &&
         !max->compare_exchange_weak(prev, v, std::memory_order_relaxed)) {
  }
}

// What sits just below every pointer handed out: DeallocateRaw gets only
// the pointer, and this finds the block, its size and the requested size
// in O(1) with no global map (and no map lock).
struct BlockHeader {
  size_t requested;    // num_bytes given to AllocateRaw
  size_t offset;       // bytes from the block's start to the pointer
  size_t block_bytes;  // size of a cache block; 0 for a malloc'd block
};
static_assert(sizeof(BlockHeader) <= kAllocatorAlignment, "header fits");

BlockHeader* HeaderOf(const void* ptr) {
  return reinterpret_cast<BlockHeader*>(
             const_cast<char*>(static_cast<const char*>(ptr))) -
         1;
}

class CachingCPUAllocator final : public Allocator {
 public:
  explicit CachingCPUAllocator(std::shared_ptr<HostBlockCache> cache)
      : cache_(std::move(cache)) {}

  std::string Name() override { return "cpu"; }

  void* AllocateRaw(size_t alignment, size_t num_bytes) override {
    CHECK((alignment & (alignment - 1)) == 0)
        << "alignment " << alignment << " is not a power of two";
    alignment = std::max(alignment, kAllocatorAlignment);
    if (num_bytes > SIZE_MAX / 2 - 2 * alignment) return nullptr;
    // The header needs sizeof(BlockHeader) <= alignment bytes before the
    // pointer; a whole alignment unit keeps the pointer aligned.
    const size_t total = alignment + num_bytes;
    char* block;
    size_t block_bytes = 0;
    if (alignment <= kMinPageSize && cache_->Serves(total)) {
      block = static_cast<char*>(cache_->Allocate(total, &block_bytes));
    } else {
      // aligned_alloc needs a size that is a multiple of the alignment.
      block = static_cast<char*>(
          std::aligned_alloc(alignment, RoundUp(total, alignment)));
    }
    if (block == nullptr) return nullptr;
    char* ptr = block + alignment;
    BlockHeader* header = HeaderOf(ptr);
    header->requested = num_bytes;
    header->offset = alignment;
    header->block_bytes = block_bytes;

    const int64_t n = static_cast<int64_t>(num_bytes);
    num_allocs_.fetch_add(1, std::memory_order_relaxed);
    UpdateMax(&peak_bytes_in_use_,
              bytes_in_use_.fetch_add(n, std::memory_order_relaxed) + n);
    UpdateMax(&largest_alloc_size_, n);
    return ptr;
  }

  void DeallocateRaw(void* ptr) override {
    if (ptr == nullptr) return;
    const BlockHeader header = *HeaderOf(ptr);
    bytes_in_use_.fetch_sub(static_cast<int64_t>(header.requested),
                            std::memory_order_relaxed);
    char* block = static_cast<char*>(ptr) - header.offset;
    if (header.block_bytes == 0) {
      std::free(block);
    } else {
      cache_->Release(block, header.block_bytes);
    }
  }

  AllocatorStats GetStats() override {
    AllocatorStats s;
    s.num_allocs = num_allocs_.load(std::memory_order_relaxed);
    s.bytes_in_use = bytes_in_use_.load(std::memory_order_relaxed);
    s.peak_bytes_in_use = peak_bytes_in_use_.load(std::memory_order_relaxed);
    s.largest_alloc_size = largest_alloc_size_.load(std::memory_order_relaxed);
    // The cache is shared by every allocator drawing on it: its freed
    // blocks are what this one can reuse.
    s.bytes_cached = cache_->GetStats().cached_bytes;
    return s;
  }

  void ClearStats() override {
    num_allocs_.store(0, std::memory_order_relaxed);
    largest_alloc_size_.store(0, std::memory_order_relaxed);
    peak_bytes_in_use_.store(bytes_in_use_.load(std::memory_order_relaxed),
                             std::memory_order_relaxed);
  }

  bool TracksAllocationSizes() const override { return true; }
  size_t RequestedSize(const void* ptr) const override {
    CHECK(ptr != nullptr);
    return HeaderOf(ptr)->requested;
  }

 private:
  const std::shared_ptr<HostBlockCache> cache_;
  // Atomics rather than a mutex: every tensor allocation passes here, and
  // a lock (with Debian abseil's deadlock detection) cost more than the
  // rest of a cheap node. Each counter is exact; a GetStats() racing with
  // allocations may see them at slightly different moments.
  std::atomic<int64_t> num_allocs_{0};
  std::atomic<int64_t> bytes_in_use_{0};
  std::atomic<int64_t> peak_bytes_in_use_{0};
  std::atomic<int64_t> largest_alloc_size_{0};
};

}  // namespace

// ---- Options and statistics
// --------------------------------------------------

size_t HostCacheOptions::DefaultMaxCachedBytes() {
  const long pages = sysconf(_SC_PHYS_PAGES);
  const size_t physical =
      pages > 0 ? static_cast<size_t>(pages) * PageSize() : size_t{8} << 30;
  return std::clamp(physical / 8, size_t{64} << 20, size_t{16} << 30);
}

HostCacheOptions HostCacheOptions::FromEnvironment() {
  HostCacheOptions options;
  options.max_cached_bytes = DefaultMaxCachedBytes();
  const char* env = std::getenv("TRIBUTARY_ALLOCATOR_CACHE_BYTES");
  if (env != nullptr && *env != '\0') {
    uint64_t v = 0;
    if (absl::SimpleAtoi(env, &v)) {
      options.max_cached_bytes = static_cast<size_t>(v);
    } else {
      std::fprintf(stderr,
                   "TRIBUTARY_ALLOCATOR_CACHE_BYTES=%s is not a byte count; "
                   "using the default cap of %zu bytes\n",
                   env, options.max_cached_bytes);
    }
  }
  return options;
}

std::string HostCacheStats::DebugString() const {
  return absl::StrCat("cached_bytes: ", cached_bytes,
                      ", mapped_bytes: ", mapped_bytes, ", hits: ", hits,
                      ", misses: ", misses, ", evictions: ", evictions);
}

std::string TransparentHugePageMode() {
  // The file reads e.g. "always [madvise] never"; the bracketed word is on.
  std::ifstream in("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string line;
  if (!in || !std::getline(in, line)) return "unavailable";
  const size_t open = line.find('[');
  const size_t close = line.find(']', open);
  if (open == std::string::npos || close == std::string::npos) {
    return "unavailable";
  }
  return line.substr(open + 1, close - open - 1);
}

// ---- HostBlockCache
// ----------------------------------------------------------

HostBlockCache::HostBlockCache(const HostCacheOptions& options)
    : options_([&] {
        HostCacheOptions o = options;
        o.min_cached_bytes =
            std::max(o.min_cached_bytes, size_t{1} << kMinClassLog2);
        return o;
      }()),
      min_log2_(FloorLog2(options_.min_cached_bytes)),
      advise_huge_pages_([&] {
        if (!options.use_huge_pages) return false;
        // Cached: read once per process, and every cache asks.
        static const std::string mode = TransparentHugePageMode();
        return mode == "always" || mode == "madvise";
      }()),
      max_cached_bytes_(options_.max_cached_bytes) {
  const int num_bins = (kMaxClassLog2 - min_log2_ + 1) * kClassesPerOctave;
  bins_.reserve(num_bins);
  for (int i = 0; i < num_bins; ++i) bins_.push_back(std::make_unique<Bin>());
}

HostBlockCache::~HostBlockCache() {
  for (size_t i = 0; i < bins_.size(); ++i) {
    for (const CachedBlock& b : bins_[i]->blocks) {
      Unmap(b.base, BinSize(static_cast<int>(i)));
    }
  }
}

const std::shared_ptr<HostBlockCache>& HostBlockCache::Global() {
  static const auto* const cache = new std::shared_ptr<HostBlockCache>(
      std::make_shared<HostBlockCache>(HostCacheOptions::FromEnvironment()));
  return *cache;
}

int HostBlockCache::BinIndex(size_t bytes) const {
  const int k = FloorLog2(bytes);
  if (k < min_log2_ || k > kMaxClassLog2) return -1;
  const int shift = k - 2;  // a class step is a quarter of 2^k
  const size_t q = (bytes + (size_t{1} << shift) - 1) >> shift;  // 4..8
  return (k - min_log2_) * kClassesPerOctave + static_cast<int>(q - 4);
}

size_t HostBlockCache::BinSize(int index) const {
  const int k = min_log2_ + index / kClassesPerOctave;
  const size_t q = 4 + index % kClassesPerOctave;
  return q << (k - 2);
}

size_t HostBlockCache::ClassSizeFor(size_t bytes) const {
  const int index = BinIndex(bytes);
  if (index < 0 || index >= static_cast<int>(bins_.size())) {
    return RoundUp(bytes, PageSize());
  }
  return BinSize(index);
}

void* HostBlockCache::TakeFromBin(int index) {
  Bin& bin = *bins_[index];
  void* base;
  {
    std::lock_guard<std::mutex> l(bin.mu);
    if (bin.blocks.empty()) return nullptr;
    // The newest block: its pages are the likeliest to be in cache.
    base = bin.blocks.back().base;
    bin.blocks.pop_back();
    if (bin.blocks.empty()) {
      bin.oldest_tick.store(UINT64_MAX, std::memory_order_relaxed);
    }
  }
  cached_bytes_.fetch_sub(static_cast<int64_t>(BinSize(index)),
                          std::memory_order_relaxed);
  return base;
}

void* HostBlockCache::Allocate(size_t bytes, size_t* block_bytes) {
  const int index = BinIndex(bytes);
  const int num_bins = static_cast<int>(bins_.size());
  if (index >= 0 && index < num_bins) {
    for (int i = index; i <= std::min(index + kMaxClassesUp, num_bins - 1);
         ++i) {
      if (void* base = TakeFromBin(i)) {
        hits_.fetch_add(1, std::memory_order_relaxed);
        *block_bytes = BinSize(i);
        return base;
      }
    }
  }
  misses_.fetch_add(1, std::memory_order_relaxed);
  const size_t size = index >= 0 && index < num_bins
                          ? BinSize(index)
                          : RoundUp(bytes, PageSize());
  void* base = Map(size);
  if (base == nullptr && cached_bytes_.load(std::memory_order_relaxed) > 0) {
    // Out of address space or memory: give the cache back and retry once.
    Trim(0);
    base = Map(size);
  }
  if (base == nullptr) return nullptr;
  *block_bytes = size;
  return base;
}

void HostBlockCache::Release(void* block, size_t block_bytes) {
  const int index = BinIndex(block_bytes);
  const size_t cap = max_cached_bytes();
  if (index < 0 || index >= static_cast<int>(bins_.size()) ||
      block_bytes > cap) {
    Unmap(block, block_bytes);
    return;
  }
  Bin& bin = *bins_[index];
  {
    std::lock_guard<std::mutex> l(bin.mu);
    const uint64_t tick = tick_.fetch_add(1, std::memory_order_relaxed);
    bin.blocks.push_back(CachedBlock{block, tick, Clock::now()});
    if (bin.blocks.size() == 1) {
      bin.oldest_tick.store(tick, std::memory_order_relaxed);
    }
  }
  const int64_t cached =
      cached_bytes_.fetch_add(static_cast<int64_t>(block_bytes),
                              std::memory_order_relaxed) +
      static_cast<int64_t>(block_bytes);
  if (cached > static_cast<int64_t>(cap)) Trim(cap);
}

void HostBlockCache::set_max_cached_bytes(size_t bytes) {
  max_cached_bytes_.store(bytes, std::memory_order_relaxed);
  Trim(bytes);
}

size_t HostBlockCache::ReleaseIdle(std::chrono::nanoseconds age) {
  std::lock_guard<std::mutex> l(evict_mu_);
  const Clock::time_point cutoff = Clock::now() - age;
  const int64_t before = cached_bytes_.load(std::memory_order_relaxed);
  while (EvictOldest(cutoff)) {
  }
  const int64_t after = cached_bytes_.load(std::memory_order_relaxed);
  return before > after ? static_cast<size_t>(before - after) : 0;
}

bool HostBlockCache::EvictOldest(Clock::time_point freed_before) {
  for (;;) {
    int oldest = -1;
    uint64_t oldest_tick = UINT64_MAX;
    for (size_t i = 0; i < bins_.size(); ++i) {
      const uint64_t t = bins_[i]->oldest_tick.load(std::memory_order_relaxed);
      if (t < oldest_tick) {
        oldest_tick = t;
        oldest = static_cast<int>(i);
      }
    }
    if (oldest < 0) return false;
    Bin& bin = *bins_[oldest];
    void* base = nullptr;
    {
      std::lock_guard<std::mutex> l(bin.mu);
      if (!bin.blocks.empty()) {
        // Ticks and times are taken together under a bin's lock, so the
        // block of the smallest tick is (near enough) the longest freed.
        if (bin.blocks.front().freed_at >= freed_before) return false;
        base = bin.blocks.front().base;
        bin.blocks.erase(bin.blocks.begin());
        bin.oldest_tick.store(
            bin.blocks.empty() ? UINT64_MAX : bin.blocks.front().freed_tick,
            std::memory_order_relaxed);
      }
    }
    if (base == nullptr) continue;  // an allocation took it: look again
    const size_t size = BinSize(oldest);
    cached_bytes_.fetch_sub(static_cast<int64_t>(size),
                            std::memory_order_relaxed);
    evictions_.fetch_add(1, std::memory_order_relaxed);
    Unmap(base, size);
    return true;
  }
}

size_t HostBlockCache::Trim(size_t target_bytes) {
  std::lock_guard<std::mutex> l(evict_mu_);
  const int64_t before = cached_bytes_.load(std::memory_order_relaxed);
  while (cached_bytes_.load(std::memory_order_relaxed) >
             static_cast<int64_t>(target_bytes) &&
         EvictOldest()) {
  }
  const int64_t after = cached_bytes_.load(std::memory_order_relaxed);
  return before > after ? static_cast<size_t>(before - after) : 0;
}

void* HostBlockCache::Map(size_t bytes) {
  const size_t length = RoundUp(bytes, PageSize());
  const bool huge = advise_huge_pages_ && length >= kHugePageSize;
  // A huge page can only back a 2 MiB-aligned range: over-map by 2 MiB and
  // cut the block out at a 2 MiB boundary.
  const size_t mapped = huge ? length + kHugePageSize : length;
  void* raw = mmap(nullptr, mapped, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) return nullptr;
  char* base = static_cast<char*>(raw);
  if (huge) {
    const uintptr_t addr = reinterpret_cast<uintptr_t>(raw);
    char* aligned = base + (RoundUp(addr, kHugePageSize) - addr);
    const size_t head = static_cast<size_t>(aligned - base);
    const size_t tail = mapped - head - length;
    if (head > 0) munmap(base, head);
    if (tail > 0) munmap(aligned + length, tail);
    base = aligned;
    // Advice only: an error (e.g. THP switched off since) leaves 4 KiB pages.
    madvise(base, length, MADV_HUGEPAGE);
  }
  mapped_bytes_.fetch_add(static_cast<int64_t>(length),
                          std::memory_order_relaxed);
  return base;
}

void HostBlockCache::Unmap(void* base, size_t bytes) {
  const size_t length = RoundUp(bytes, PageSize());
  mapped_bytes_.fetch_sub(static_cast<int64_t>(length),
                          std::memory_order_relaxed);
  munmap(base, length);
}

HostCacheStats HostBlockCache::GetStats() const {
  HostCacheStats s;
  s.cached_bytes = cached_bytes_.load(std::memory_order_relaxed);
  s.mapped_bytes = mapped_bytes_.load(std::memory_order_relaxed);
  s.hits = hits_.load(std::memory_order_relaxed);
  s.misses = misses_.load(std::memory_order_relaxed);
  s.evictions = evictions_.load(std::memory_order_relaxed);
  return s;
}

std::unique_ptr<Allocator> NewCachingCPUAllocator(
    std::shared_ptr<HostBlockCache> cache) {
  CHECK(cache != nullptr);
  return std::make_unique<CachingCPUAllocator>(std::move(cache));
}

size_t ReleaseCachedHostMemory() { return HostBlockCache::Global()->Trim(0); }

}  // namespace tributary
