#include "common/framework/caching_allocator.h"

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <set>
#include <thread>
#include <vector>

#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "common/framework/allocator.h"
#include "common/framework/host_memory_releaser.h"
#include "gtest/gtest.h"

namespace tributary {
namespace {

constexpr size_t kKiB = 1024;
constexpr size_t kMiB = 1024 * 1024;

bool IsAligned(const void* p, size_t alignment) {
  return reinterpret_cast<uintptr_t>(p) % alignment == 0;
}

std::shared_ptr<HostBlockCache> NewCache(size_t max_cached_bytes,
                                         size_t min_cached_bytes = 256 * kKiB) {
  HostCacheOptions options;
  options.min_cached_bytes = min_cached_bytes;
  options.max_cached_bytes = max_cached_bytes;
  return std::make_shared<HostBlockCache>(options);
}

// The class a request of `bytes` at the default alignment lands in (the
// header takes one alignment unit in front of the data).
size_t ClassOf(const HostBlockCache& cache, size_t bytes) {
  return cache.ClassSizeFor(kAllocatorAlignment + bytes);
}

TEST(HostBlockCacheTest, SizeClassesAreQuarterSteps) {
  auto cache = NewCache(1 << 30);
  EXPECT_EQ(cache->ClassSizeFor(256 * kKiB), 256 * kKiB);
  EXPECT_EQ(cache->ClassSizeFor(256 * kKiB + 1), 320 * kKiB);
  EXPECT_EQ(cache->ClassSizeFor(4 * kMiB), 4 * kMiB);
  EXPECT_EQ(cache->ClassSizeFor(4 * kMiB + 64), 5 * kMiB);
  EXPECT_EQ(cache->ClassSizeFor(6 * kMiB), 6 * kMiB);
  EXPECT_EQ(cache->ClassSizeFor(7 * kMiB + 1), 8 * kMiB);
  EXPECT_EQ(cache->ClassSizeFor(16 * kMiB + 64), 20 * kMiB);
  // Never more than a quarter over the request.
  for (size_t b = 256 * kKiB; b < 64 * kMiB; b = b * 9 / 8 + 4097) {
    const size_t c = cache->ClassSizeFor(b);
    EXPECT_GE(c, b);
    EXPECT_LE(c, b + b / 4) << b;
    EXPECT_EQ(c % 4096, 0u) << b;
  }
}

TEST(CachingAllocatorTest, FreedBlockComesBack) {
  auto cache = NewCache(1 << 30);
  std::unique_ptr<Allocator> a = NewCachingCPUAllocator(cache);
  void* p = a->AllocateRaw(64, 4 * kMiB);
  ASSERT_NE(p, nullptr);
  std::memset(p, 1, 4 * kMiB);
  a->DeallocateRaw(p);
  EXPECT_EQ(cache->GetStats().cached_bytes,
            static_cast<int64_t>(ClassOf(*cache, 4 * kMiB)));
  // Same size, and a smaller request of the same class: the same block.
  void* q = a->AllocateRaw(64, 4 * kMiB);
  EXPECT_EQ(q, p);
  a->DeallocateRaw(q);
  void* r = a->AllocateRaw(64, 4 * kMiB - 100 * kKiB);
  EXPECT_EQ(r, p);
  a->DeallocateRaw(r);
  HostCacheStats s = cache->GetStats();
  EXPECT_EQ(s.misses, 1);
  EXPECT_EQ(s.hits, 2);
  EXPECT_EQ(s.evictions, 0);
  EXPECT_EQ(s.mapped_bytes, s.cached_bytes);
}

TEST(CachingAllocatorTest, MostRecentlyFreedBlockIsReusedFirst) {
  auto cache = NewCache(1 << 30);
  std::unique_ptr<Allocator> a = NewCachingCPUAllocator(cache);
  void* p1 = a->AllocateRaw(64, 1 * kMiB);
  void* p2 = a->AllocateRaw(64, 1 * kMiB);
  a->DeallocateRaw(p1);
  a->DeallocateRaw(p2);
  EXPECT_EQ(a->AllocateRaw(64, 1 * kMiB), p2);  // its pages are warmest
  EXPECT_EQ(a->AllocateRaw(64, 1 * kMiB), p1);
  a->DeallocateRaw(p1);
  a->DeallocateRaw(p2);
}

TEST(CachingAllocatorTest, SmallerRequestMayTakeTheNextClass) {
  auto cache = NewCache(1 << 30);
  std::unique_ptr<Allocator> a = NewCachingCPUAllocator(cache);
  // 5 MiB class, then a 4 MiB-class request finds only that block.
  void* big = a->AllocateRaw(64, 5 * kMiB - 64);
  a->DeallocateRaw(big);
  void* small = a->AllocateRaw(64, 4 * kMiB - 64);
  EXPECT_EQ(small, big);
  EXPECT_EQ(a->RequestedSize(small), 4 * kMiB - 64);
  a->DeallocateRaw(small);
  // It went back to its own (5 MiB) class.
  EXPECT_EQ(a->AllocateRaw(64, 5 * kMiB - 64), big);
  a->DeallocateRaw(big);
  // Far bigger classes are left alone.
  void* tiny = a->AllocateRaw(64, 300 * kKiB);
  EXPECT_NE(tiny, big);
  a->DeallocateRaw(tiny);
}

TEST(CachingAllocatorTest, StatisticsCountRequestedBytes) {
  auto cache = NewCache(1 << 30);
  std::unique_ptr<Allocator> a = NewCachingCPUAllocator(cache);
  void* small = a->AllocateRaw(64, 1000);
  void* big = a->AllocateRaw(64, 3 * kMiB + 5);
  EXPECT_EQ(a->RequestedSize(small), 1000u);
  EXPECT_EQ(a->RequestedSize(big), 3 * kMiB + 5);
  AllocatorStats s = a->GetStats();
  EXPECT_EQ(s.num_allocs, 2);
  EXPECT_EQ(s.bytes_in_use, static_cast<int64_t>(3 * kMiB + 1005));
  EXPECT_EQ(s.peak_bytes_in_use, static_cast<int64_t>(3 * kMiB + 1005));
  EXPECT_EQ(s.largest_alloc_size, static_cast<int64_t>(3 * kMiB + 5));
  a->DeallocateRaw(big);
  s = a->GetStats();
  EXPECT_EQ(s.bytes_in_use, 1000);  // the cached block does not count
  // ... but is what the allocator holds for reuse: the cache's block.
  EXPECT_EQ(s.bytes_cached, cache->GetStats().cached_bytes);
  EXPECT_GE(s.bytes_cached, static_cast<int64_t>(3 * kMiB + 5));
  EXPECT_EQ(s.peak_bytes_in_use, static_cast<int64_t>(3 * kMiB + 1005));
  // Reuse counts as an allocation like any other.
  big = a->AllocateRaw(64, 2 * kMiB);
  s = a->GetStats();
  EXPECT_EQ(s.num_allocs, 3);
  EXPECT_EQ(s.bytes_in_use, static_cast<int64_t>(2 * kMiB + 1000));
  a->ClearStats();
  s = a->GetStats();
  EXPECT_EQ(s.num_allocs, 0);
  EXPECT_EQ(s.peak_bytes_in_use, static_cast<int64_t>(2 * kMiB + 1000));
  EXPECT_EQ(s.largest_alloc_size, 0);
  a->DeallocateRaw(big);
  a->DeallocateRaw(small);
  EXPECT_EQ(a->GetStats().bytes_in_use, 0);
}

TEST(CachingAllocatorTest, AllocatorsSharingACacheKeepTheirOwnStatistics) {
  auto cache = NewCache(1 << 30);
  std::unique_ptr<Allocator> a = NewCachingCPUAllocator(cache);
  std::unique_ptr<Allocator> b = NewCachingCPUAllocator(cache);
  void* p = a->AllocateRaw(64, 2 * kMiB);
  a->DeallocateRaw(p);
  void* q = b->AllocateRaw(64, 2 * kMiB);
  EXPECT_EQ(q, p);  // one device's freed block serves another
  EXPECT_EQ(a->GetStats().bytes_in_use, 0);
  EXPECT_EQ(b->GetStats().bytes_in_use, static_cast<int64_t>(2 * kMiB));
  b->DeallocateRaw(q);
}

TEST(CachingAllocatorTest, CapEvictsLeastRecentlyFreed) {
  auto probe = NewCache(1 << 30);
  const size_t klass = ClassOf(*probe, 1 * kMiB);
  auto cache = NewCache(2 * klass);
  std::unique_ptr<Allocator> a = NewCachingCPUAllocator(cache);
  void* p1 = a->AllocateRaw(64, 1 * kMiB);
  void* p2 = a->AllocateRaw(64, 1 * kMiB);
  void* p3 = a->AllocateRaw(64, 1 * kMiB);
  a->DeallocateRaw(p1);
  a->DeallocateRaw(p2);
  a->DeallocateRaw(p3);  // over the cap: p1, the oldest, goes
  HostCacheStats s = cache->GetStats();
  EXPECT_EQ(s.cached_bytes, static_cast<int64_t>(2 * klass));
  EXPECT_EQ(s.mapped_bytes, static_cast<int64_t>(2 * klass));
  EXPECT_EQ(s.evictions, 1);
  const std::set<void*> kept = {a->AllocateRaw(64, 1 * kMiB),
                                a->AllocateRaw(64, 1 * kMiB)};
  EXPECT_EQ(kept, (std::set<void*>{p2, p3}));
  EXPECT_EQ(cache->GetStats().misses, 3);  // both came from the cache
  for (void* p : kept) a->DeallocateRaw(p);

  // Across classes too: the oldest block goes, whatever its class.
  void* x = a->AllocateRaw(64, 300 * kKiB);
  a->DeallocateRaw(x);  // the newest now; evicts the older 1 MiB block
  s = cache->GetStats();
  EXPECT_LE(s.cached_bytes, static_cast<int64_t>(2 * klass));
  EXPECT_EQ(s.evictions, 2);
  EXPECT_EQ(a->AllocateRaw(64, 300 * kKiB), x);
  a->DeallocateRaw(x);
}

TEST(CachingAllocatorTest, BlocksBiggerThanTheCapAreNotKept) {
  auto cache = NewCache(1 * kMiB);
  std::unique_ptr<Allocator> a = NewCachingCPUAllocator(cache);
  void* p = a->AllocateRaw(64, 8 * kMiB);
  std::memset(p, 3, 8 * kMiB);
  a->DeallocateRaw(p);
  HostCacheStats s = cache->GetStats();
  EXPECT_EQ(s.cached_bytes, 0);
  EXPECT_EQ(s.mapped_bytes, 0);
}

TEST(CachingAllocatorTest, ZeroCapCachesNothing) {
  auto cache = NewCache(0);
  std::unique_ptr<Allocator> a = NewCachingCPUAllocator(cache);
  for (int i = 0; i < 3; ++i) {
    void* p = a->AllocateRaw(64, 3 * kMiB);
    ASSERT_NE(p, nullptr);
    std::memset(p, i, 3 * kMiB);
    a->DeallocateRaw(p);
  }
  HostCacheStats s = cache->GetStats();
  EXPECT_EQ(s.hits, 0);
  EXPECT_EQ(s.misses, 3);
  EXPECT_EQ(s.mapped_bytes, 0);
}

TEST(CachingAllocatorTest, TrimReleasesEverything) {
  auto cache = NewCache(1 << 30);
  std::unique_ptr<Allocator> a = NewCachingCPUAllocator(cache);
  void* p = a->AllocateRaw(64, 1 * kMiB);
  void* q = a->AllocateRaw(64, 3 * kMiB);
  a->DeallocateRaw(p);
  a->DeallocateRaw(q);
  const int64_t cached = cache->GetStats().cached_bytes;
  EXPECT_EQ(cache->Trim(0), static_cast<size_t>(cached));
  EXPECT_EQ(cache->GetStats().cached_bytes, 0);
  EXPECT_EQ(cache->GetStats().mapped_bytes, 0);
}

TEST(CachingAllocatorTest, ReleaseIdleUnmapsOnlyBlocksFreedLongEnoughAgo) {
  auto cache = NewCache(1 << 30);
  std::unique_ptr<Allocator> a = NewCachingCPUAllocator(cache);
  void* old_block = a->AllocateRaw(64, 1 * kMiB);
  void* new_block = a->AllocateRaw(64, 3 * kMiB);
  a->DeallocateRaw(old_block);
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  a->DeallocateRaw(new_block);
  const int64_t both = cache->GetStats().cached_bytes;
  // Nothing was freed an hour ago.
  EXPECT_EQ(cache->ReleaseIdle(std::chrono::hours(1)), 0u);
  // Only the block freed 200 ms ago is older than 100 ms.
  const size_t released = cache->ReleaseIdle(std::chrono::milliseconds(100));
  EXPECT_EQ(released, ClassOf(*cache, 1 * kMiB));
  EXPECT_EQ(cache->GetStats().cached_bytes,
            both - static_cast<int64_t>(released));
  EXPECT_EQ(a->AllocateRaw(64, 3 * kMiB), new_block);  // still cached
  a->DeallocateRaw(new_block);
  EXPECT_EQ(cache->ReleaseIdle(std::chrono::nanoseconds(0)),
            ClassOf(*cache, 3 * kMiB));
  EXPECT_EQ(cache->GetStats().mapped_bytes, 0);
}

TEST(CachingAllocatorTest, LoweringTheCapTrimsAtOnce) {
  auto cache = NewCache(1 << 30);
  std::unique_ptr<Allocator> a = NewCachingCPUAllocator(cache);
  void* p = a->AllocateRaw(64, 1 * kMiB);
  void* q = a->AllocateRaw(64, 3 * kMiB);
  a->DeallocateRaw(p);
  a->DeallocateRaw(q);
  cache->set_max_cached_bytes(ClassOf(*cache, 3 * kMiB));
  EXPECT_EQ(cache->max_cached_bytes(), ClassOf(*cache, 3 * kMiB));
  // The older (1 MiB) block went; the newer one fits the new cap.
  EXPECT_EQ(cache->GetStats().cached_bytes,
            static_cast<int64_t>(ClassOf(*cache, 3 * kMiB)));
  cache->set_max_cached_bytes(0);
  EXPECT_EQ(cache->GetStats().cached_bytes, 0);
  void* r = a->AllocateRaw(64, 1 * kMiB);
  a->DeallocateRaw(r);  // over the zero cap: not kept
  EXPECT_EQ(cache->GetStats().mapped_bytes, 0);
}

TEST(HostMemoryReleaserTest, GivesIdleBlocksBackInTheBackground) {
  auto cache = NewCache(1 << 30);
  std::unique_ptr<Allocator> a = NewCachingCPUAllocator(cache);
  void* p = a->AllocateRaw(64, 4 * kMiB);
  std::memset(p, 1, 4 * kMiB);
  a->DeallocateRaw(p);
  ASSERT_GT(cache->GetStats().cached_bytes, 0);
  {
    HostMemoryReleaser releaser(cache, absl::Milliseconds(50),
                                absl::Milliseconds(20));
    const absl::Time give_up = absl::Now() + absl::Seconds(30);
    while (cache->GetStats().cached_bytes > 0 && absl::Now() < give_up) {
      absl::SleepFor(absl::Milliseconds(10));
    }
  }  // The destructor stops the thread.
  EXPECT_EQ(cache->GetStats().cached_bytes, 0);
  EXPECT_EQ(cache->GetStats().mapped_bytes, 0);
}

TEST(CachingAllocatorTest, AlignsEveryAllocation) {
  auto cache = NewCache(1 << 30);
  std::unique_ptr<Allocator> a = NewCachingCPUAllocator(cache);
  for (size_t alignment : {1, 64, 128, 4096, 8192}) {
    for (size_t bytes : {size_t{0}, size_t{100}, 255 * kKiB, 256 * kKiB,
                         1 * kMiB + 3, 2 * kMiB, 9 * kMiB + 17}) {
      void* p = a->AllocateRaw(alignment, bytes);
      ASSERT_NE(p, nullptr);
      EXPECT_TRUE(IsAligned(p, std::max(alignment, kAllocatorAlignment)))
          << alignment << " " << bytes;
      std::memset(p, 0xcd, bytes);  // the whole request is writable
      EXPECT_EQ(a->RequestedSize(p), bytes);
      a->DeallocateRaw(p);
    }
  }
  EXPECT_EQ(a->GetStats().bytes_in_use, 0);
}

TEST(CachingAllocatorTest, BigBlocksStartOnHugePageBoundaries) {
  const std::string mode = TransparentHugePageMode();
  EXPECT_TRUE(mode == "always" || mode == "madvise" || mode == "never" ||
              mode == "unavailable")
      << mode;
  auto cache = NewCache(1 << 30);
  std::unique_ptr<Allocator> a = NewCachingCPUAllocator(cache);
  void* p = a->AllocateRaw(64, 6 * kMiB);
  ASSERT_NE(p, nullptr);
  std::memset(p, 7, 6 * kMiB);
  if (mode == "always" || mode == "madvise") {
    // The block starts one alignment unit (the header) before the data.
    EXPECT_TRUE(
        IsAligned(static_cast<char*>(p) - kAllocatorAlignment, 2 * kMiB));
  }
  a->DeallocateRaw(p);
}

TEST(CachingAllocatorTest, ConcurrentStress) {
  auto cache = NewCache(64 * kMiB, 16 * kKiB);
  std::unique_ptr<Allocator> a = NewCachingCPUAllocator(cache);
  constexpr int kThreads = 8;
  constexpr int kIters = 400;
  std::vector<std::thread> threads;
  std::atomic<int> corrupt{0};
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      std::mt19937 rng(t);
      const size_t sizes[] = {100,        20 * kKiB, 64 * kKiB,
                              300 * kKiB, 1 * kMiB,  2 * kMiB + 100};
      std::vector<std::pair<unsigned char*, size_t>> live;
      for (int i = 0; i < kIters; ++i) {
        if (live.size() < 4 && rng() % 3 != 0) {
          const size_t bytes = sizes[rng() % 6];
          auto* p = static_cast<unsigned char*>(a->AllocateRaw(64, bytes));
          if (p == nullptr) {
            ++corrupt;
            continue;
          }
          // Each thread's own byte pattern at both ends: a block handed to
          // two owners at once would be overwritten.
          p[0] = p[bytes - 1] = static_cast<unsigned char>(t + 1);
          live.emplace_back(p, bytes);
        } else if (!live.empty()) {
          const size_t k = rng() % live.size();
          auto [p, bytes] = live[k];
          if (p[0] != t + 1 || p[bytes - 1] != t + 1 ||
              a->RequestedSize(p) != bytes) {
            ++corrupt;
          }
          a->DeallocateRaw(p);
          live.erase(live.begin() + k);
        }
      }
      for (auto [p, bytes] : live) {
        if (p[0] != t + 1 || p[bytes - 1] != t + 1) ++corrupt;
        a->DeallocateRaw(p);
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(corrupt.load(), 0);
  EXPECT_EQ(a->GetStats().bytes_in_use, 0);
  HostCacheStats s = cache->GetStats();
  EXPECT_LE(s.cached_bytes, static_cast<int64_t>(64 * kMiB));
  EXPECT_EQ(s.mapped_bytes, s.cached_bytes);  // every block came back
  EXPECT_GT(s.hits, 0);
}

TEST(HostCacheOptionsTest, CapFromEnvironment) {
  setenv("TRIBUTARY_ALLOCATOR_CACHE_BYTES", "12345678", 1);
  EXPECT_EQ(HostCacheOptions::FromEnvironment().max_cached_bytes, 12345678u);
  setenv("TRIBUTARY_ALLOCATOR_CACHE_BYTES", "0", 1);
  EXPECT_EQ(HostCacheOptions::FromEnvironment().max_cached_bytes, 0u);
  setenv("TRIBUTARY_ALLOCATOR_CACHE_BYTES", "lots", 1);
  EXPECT_EQ(HostCacheOptions::FromEnvironment().max_cached_bytes,
            HostCacheOptions::DefaultMaxCachedBytes());
  unsetenv("TRIBUTARY_ALLOCATOR_CACHE_BYTES");
  const size_t d = HostCacheOptions::DefaultMaxCachedBytes();
  EXPECT_GE(d, 64 * kMiB);
  EXPECT_LE(d, size_t{16} << 30);
}

TEST(CachingAllocatorTest, ProcessWideAllocatorsShareTheGlobalCache) {
  std::unique_ptr<Allocator> a = NewCPUAllocator();
  void* p = a->AllocateRaw(64, 3 * kMiB);
  a->DeallocateRaw(p);
  // cpu_allocator() is another allocator over the same cache.
  void* q = cpu_allocator()->AllocateRaw(64, 3 * kMiB);
  EXPECT_EQ(q, p);
  cpu_allocator()->DeallocateRaw(q);
  EXPECT_GE(ReleaseCachedHostMemory(), 3 * kMiB);
  EXPECT_EQ(HostBlockCache::Global()->GetStats().cached_bytes, 0);
}

}  // namespace
}  // namespace tributary
