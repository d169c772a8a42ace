#include "devices/gpu/bfc_allocator.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "gtest/gtest.h"

namespace tributary {
namespace {

constexpr size_t kKiB = 1024;
constexpr size_t kMiB = 1024 * 1024;

// What the fake backing saw; shared with the test because the allocator owns
// (and destroys) the SubAllocator itself.
struct BackingLog {
  absl::Mutex mu;
  std::vector<size_t> requested;     // every Alloc's num_bytes, refused or not
  std::vector<size_t> granted;       // the num_bytes of successful Allocs
  std::map<uintptr_t, size_t> live;  // region start -> size
  size_t live_bytes = 0;
  int bad_frees = 0;  // Free of an unknown region or with the wrong size
  int frees = 0;
};

// Host memory standing in for device memory, with an optional capacity so
// the backing itself can run out.
class FakeSubAllocator : public SubAllocator {
 public:
  FakeSubAllocator(std::shared_ptr<BackingLog> log, size_t capacity)
      : log_(std::move(log)), capacity_(capacity) {}

  void* Alloc(size_t alignment, size_t num_bytes) override {
    absl::MutexLock lock(&log_->mu);
    log_->requested.push_back(num_bytes);
    if (log_->live_bytes + num_bytes > capacity_) return nullptr;
    void* mem = std::aligned_alloc(alignment, num_bytes);
    if (mem == nullptr) return nullptr;
    log_->granted.push_back(num_bytes);
    log_->live[reinterpret_cast<uintptr_t>(mem)] = num_bytes;
    log_->live_bytes += num_bytes;
    return mem;
  }

  void Free(void* ptr, size_t num_bytes) override {
    absl::MutexLock lock(&log_->mu);
    ++log_->frees;
    auto it = log_->live.find(reinterpret_cast<uintptr_t>(ptr));
    if (it == log_->live.end() || it->second != num_bytes) {
      ++log_->bad_frees;
      return;
    }
    log_->live_bytes -= num_bytes;
    log_->live.erase(it);
    std::free(ptr);
  }

  std::string Name() const override { return "fake"; }

 private:
  std::shared_ptr<BackingLog> log_;
  size_t capacity_;
};

struct Fixture {
  std::shared_ptr<BackingLog> log = std::make_shared<BackingLog>();
  std::unique_ptr<BFCAllocator> allocator;

  Fixture(size_t limit, bool allow_growth, size_t capacity = SIZE_MAX) {
    BFCAllocator::Options options;
    options.memory_limit = limit;
    options.allow_growth = allow_growth;
    allocator = std::make_unique<BFCAllocator>(
        std::make_unique<FakeSubAllocator>(log, capacity), options);
  }

  std::vector<size_t> Granted() {
    absl::MutexLock lock(&log->mu);
    return log->granted;
  }
  std::vector<size_t> Requested() {
    absl::MutexLock lock(&log->mu);
    return log->requested;
  }
  // Whether [p, p + n) lies inside one region the fake handed out.
  bool InsideARegion(const void* p, size_t n) {
    absl::MutexLock lock(&log->mu);
    uintptr_t a = reinterpret_cast<uintptr_t>(p);
    auto it = log->live.upper_bound(a);
    if (it == log->live.begin()) return false;
    --it;
    return a + n <= it->first + it->second;
  }
};

char* Alloc(BFCAllocator& a, size_t n) {
  return static_cast<char*>(a.AllocateRaw(kAllocatorAlignment, n));
}

void Fill(char* p, size_t n, unsigned char pattern) {
  std::memset(p, pattern, n);
}

bool Holds(const char* p, size_t n, unsigned char pattern) {
  for (size_t i = 0; i < n; ++i) {
    if (static_cast<unsigned char>(p[i]) != pattern) return false;
  }
  return true;
}

TEST(BFCAllocatorTest, PointersAre256ByteAligned) {
  Fixture f(16 * kMiB, /*allow_growth=*/true);
  std::vector<void*> ptrs;
  for (size_t alignment : {1, 8, 64, 128, 256}) {
    for (size_t n : {1, 7, 255, 256, 257, 1000, 4096, 100000}) {
      void* p = f.allocator->AllocateRaw(alignment, n);
      ASSERT_NE(p, nullptr);
      EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 256, 0u) << n;
      ptrs.push_back(p);
    }
  }
  for (void* p : ptrs) f.allocator->DeallocateRaw(p);
}

TEST(BFCAllocatorTest, UnsupportedAlignmentReturnsNull) {
  Fixture f(16 * kMiB, /*allow_growth=*/true);
  EXPECT_EQ(f.allocator->AllocateRaw(512, 100), nullptr);
  EXPECT_EQ(f.allocator->AllocateRaw(4096, 100), nullptr);
  EXPECT_EQ(f.allocator->AllocateRaw(3, 100), nullptr);
  EXPECT_EQ(f.allocator->GetStats().num_allocs, 0);
  // Unsupported requests do not take memory from the backing.
  EXPECT_TRUE(f.Requested().empty());
}

TEST(BFCAllocatorTest, AllocationsAreDistinctAndDoNotOverlap) {
  Fixture f(16 * kMiB, /*allow_growth=*/true);
  std::vector<std::pair<char*, size_t>> live;
  for (int i = 0; i < 50; ++i) {
    size_t n = 100 + 997 * i;
    char* p = Alloc(*f.allocator, n);
    ASSERT_NE(p, nullptr);
    EXPECT_TRUE(f.InsideARegion(p, n));
    Fill(p, n, static_cast<unsigned char>(i + 1));
    live.emplace_back(p, n);
  }
  for (int i = 0; i < 50; ++i) {
    EXPECT_TRUE(
        Holds(live[i].first, live[i].second, static_cast<unsigned char>(i + 1)))
        << "allocation " << i << " was overwritten";
  }
  for (auto& [p, n] : live) f.allocator->DeallocateRaw(p);
}

TEST(BFCAllocatorTest, FreedMemoryIsReused) {
  Fixture f(kMiB, /*allow_growth=*/false);
  char* a = Alloc(*f.allocator, 600 * kKiB);
  ASSERT_NE(a, nullptr);
  // Two such allocations do not fit in the 1 MiB limit...
  EXPECT_EQ(Alloc(*f.allocator, 600 * kKiB), nullptr);
  f.allocator->DeallocateRaw(a);
  // ...but after the free the same memory is handed out again.
  char* b = Alloc(*f.allocator, 600 * kKiB);
  EXPECT_EQ(b, a);
  f.allocator->DeallocateRaw(b);
  EXPECT_EQ(f.Granted().size(), 1u);
}

TEST(BFCAllocatorTest, FreeNeighboursCoalesce) {
  Fixture f(3 * kMiB, /*allow_growth=*/false);
  char* a = Alloc(*f.allocator, kMiB);
  char* b = Alloc(*f.allocator, kMiB);
  char* c = Alloc(*f.allocator, kMiB);
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(f.allocator->NumFreeChunksForTest(), 0);  // region is full
  // Free in both orders of neighbour: b merges into a's chunk.
  f.allocator->DeallocateRaw(b);
  f.allocator->DeallocateRaw(a);
  EXPECT_EQ(f.allocator->NumFreeChunksForTest(), 1);
  char* ab = Alloc(*f.allocator, 2 * kMiB);
  EXPECT_EQ(ab, a);
  EXPECT_EQ(f.Granted(), std::vector<size_t>{3 * kMiB});  // no new region
  // Freeing the middle-then-right merges forward too.
  f.allocator->DeallocateRaw(c);
  f.allocator->DeallocateRaw(ab);
  EXPECT_EQ(f.allocator->NumFreeChunksForTest(), 1);
  EXPECT_EQ(Alloc(*f.allocator, 3 * kMiB), a);
}

TEST(BFCAllocatorTest, BestFitPicksSmallestFittingChunk) {
  Fixture f(kMiB, /*allow_growth=*/false);
  BFCAllocator& al = *f.allocator;
  // Free holes of 8, 4 and 6 KiB, kept apart by in-use separators, and the
  // big free tail of the region.
  char* h8 = Alloc(al, 8 * kKiB);
  char* s1 = Alloc(al, 256);
  char* h4 = Alloc(al, 4 * kKiB);
  char* s2 = Alloc(al, 256);
  char* h6 = Alloc(al, 6 * kKiB);
  char* s3 = Alloc(al, 256);
  for (char* p : {h8, s1, h4, s2, h6, s3}) ASSERT_NE(p, nullptr);
  al.DeallocateRaw(h8);
  al.DeallocateRaw(h4);
  al.DeallocateRaw(h6);
  EXPECT_EQ(al.NumFreeChunksForTest(), 4);

  EXPECT_EQ(Alloc(al, 5 * kKiB), h6);  // 6 KiB: smallest that holds 5
  EXPECT_EQ(Alloc(al, 3 * kKiB), h4);  // 4 KiB beats 8 KiB and the tail
  EXPECT_EQ(Alloc(al, 7 * kKiB), h8);
  // Each left a 1 KiB remainder; equal sizes go lowest address first.
  EXPECT_EQ(Alloc(al, kKiB), h8 + 7 * kKiB);
  EXPECT_EQ(Alloc(al, kKiB), h4 + 3 * kKiB);
  EXPECT_EQ(Alloc(al, kKiB), h6 + 5 * kKiB);
  EXPECT_EQ(al.NumFreeChunksForTest(), 1);  // only the tail is left
}

TEST(BFCAllocatorTest, SplitsChunksToTheRoundedSize) {
  Fixture f(kMiB, /*allow_growth=*/false);
  BFCAllocator& al = *f.allocator;
  char* a = Alloc(al, 1000);  // rounded to 1024
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(al.NumFreeChunksForTest(), 1);  // the rest of the region
  char* b = Alloc(al, 256);
  EXPECT_EQ(b, a + 1024);  // carved right after a
  char* c = Alloc(al, 1);
  EXPECT_EQ(c, b + 256);
  EXPECT_EQ(al.GetStats().bytes_in_use, 1024 + 256 + 256);
  // The tail is one free chunk of exactly what is left.
  EXPECT_NE(al.StateDebugString().find("largest free chunk " +
                                       std::to_string(kMiB - 1536)),
            std::string::npos)
      << al.StateDebugString();
  al.DeallocateRaw(a);
  al.DeallocateRaw(b);
  al.DeallocateRaw(c);
}

TEST(BFCAllocatorTest, LimitWithoutGrowthTakesOneRegionOfTheLimit) {
  Fixture f(4 * kMiB, /*allow_growth=*/false);
  BFCAllocator& al = *f.allocator;
  EXPECT_TRUE(f.Requested().empty());  // nothing taken before first use
  EXPECT_EQ(Alloc(al, 4 * kMiB + 1), nullptr);
  EXPECT_TRUE(f.Requested().empty());  // too big: backing not even asked
  std::vector<char*> ptrs;
  for (int i = 0; i < 4; ++i) {
    ptrs.push_back(Alloc(al, kMiB));
    ASSERT_NE(ptrs.back(), nullptr);
  }
  EXPECT_EQ(Alloc(al, 1), nullptr);
  EXPECT_EQ(f.Requested(), std::vector<size_t>{4 * kMiB});
  EXPECT_EQ(al.total_region_bytes(), static_cast<int64_t>(4 * kMiB));
  EXPECT_EQ(al.bytes_limit(), static_cast<int64_t>(4 * kMiB));
  al.DeallocateRaw(ptrs[2]);
  EXPECT_EQ(Alloc(al, 1), ptrs[2]);
}

TEST(BFCAllocatorTest, LimitWithGrowthCapsTheRegions) {
  Fixture f(5 * kMiB, /*allow_growth=*/true);
  BFCAllocator& al = *f.allocator;
  char* a = Alloc(al, kMiB);      // region 1: 2 MiB
  char* b = Alloc(al, 2 * kMiB);  // region 2: 4 MiB planned, 3 MiB allowed
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(f.Granted(), (std::vector<size_t>{2 * kMiB, 3 * kMiB}));
  char* c = Alloc(al, kMiB);
  char* d = Alloc(al, kMiB);
  ASSERT_NE(c, nullptr);
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(Alloc(al, 1), nullptr);
  EXPECT_EQ(f.Granted().size(), 2u);
  size_t asked = 0;
  for (size_t n : f.Requested()) asked += n;
  EXPECT_LE(asked, 5 * kMiB);  // the backing was never asked for more
  al.DeallocateRaw(c);
  EXPECT_NE(Alloc(al, kMiB), nullptr);
}

TEST(BFCAllocatorTest, GrowthDoublesTheRegionSize) {
  Fixture f(64 * kMiB, /*allow_growth=*/true);
  BFCAllocator& al = *f.allocator;
  ASSERT_NE(Alloc(al, kMiB), nullptr);       // 2 MiB region, 1 MiB left
  ASSERT_NE(Alloc(al, 2 * kMiB), nullptr);   // 4 MiB region, 2 MiB left
  ASSERT_NE(Alloc(al, 3 * kMiB), nullptr);   // 8 MiB region, 5 MiB left
  ASSERT_NE(Alloc(al, 20 * kMiB), nullptr);  // request beats the 16 MiB plan
  // Plan is now 40 MiB; 64 - 34 = 30 MiB are left under the limit.
  ASSERT_NE(Alloc(al, 6 * kMiB), nullptr);
  EXPECT_EQ(f.Granted(), (std::vector<size_t>{2 * kMiB, 4 * kMiB, 8 * kMiB,
                                              20 * kMiB, 30 * kMiB}));
  EXPECT_EQ(al.total_region_bytes(), static_cast<int64_t>(64 * kMiB));
  EXPECT_EQ(al.NumRegionsForTest(), 5);
}

TEST(BFCAllocatorTest, BackingOutOfMemoryRetriesWithTheRequestThenFails) {
  Fixture f(64 * kMiB, /*allow_growth=*/true, /*capacity=*/5 * kMiB);
  BFCAllocator& al = *f.allocator;
  char* a = Alloc(al, kMiB);  // 2 MiB region
  ASSERT_NE(a, nullptr);
  // 4 MiB would exceed the backing's 5 MiB; just the 2 MiB request fits.
  char* b = Alloc(al, 2 * kMiB);
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(f.Requested(), (std::vector<size_t>{2 * kMiB, 4 * kMiB, 2 * kMiB}));
  EXPECT_EQ(f.Granted(), (std::vector<size_t>{2 * kMiB, 2 * kMiB}));
  // Nothing more from the backing: out of memory is a nullptr, not a crash.
  EXPECT_EQ(Alloc(al, 2 * kMiB), nullptr);
  EXPECT_NE(Alloc(al, kMiB), nullptr);  // the first region still has 1 MiB
  al.DeallocateRaw(b);
  EXPECT_EQ(Alloc(al, 2 * kMiB), b);
}

TEST(BFCAllocatorTest, Statistics) {
  Fixture f(kMiB, /*allow_growth=*/false);
  BFCAllocator& al = *f.allocator;
  char* a = Alloc(al, 1000);
  char* b = Alloc(al, 3000);
  AllocatorStats s = al.GetStats();
  EXPECT_EQ(s.num_allocs, 2);
  EXPECT_EQ(s.bytes_in_use, 1024 + 3072);  // rounded chunk sizes
  EXPECT_EQ(s.peak_bytes_in_use, 1024 + 3072);
  EXPECT_EQ(s.largest_alloc_size, 3072);
  // One 1 MiB region (no growth): the rest of it is held for reuse.
  EXPECT_EQ(s.bytes_cached, static_cast<int64_t>(kMiB) - (1024 + 3072));
  al.DeallocateRaw(b);
  s = al.GetStats();
  EXPECT_EQ(s.bytes_in_use, 1024);
  EXPECT_EQ(s.bytes_cached, static_cast<int64_t>(kMiB) - 1024);
  EXPECT_EQ(s.peak_bytes_in_use, 1024 + 3072);
  al.ClearStats();
  s = al.GetStats();
  EXPECT_EQ(s.num_allocs, 0);
  EXPECT_EQ(s.bytes_in_use, 1024);
  EXPECT_EQ(s.peak_bytes_in_use, 1024);
  EXPECT_EQ(s.largest_alloc_size, 0);
  char* c = Alloc(al, 256);
  s = al.GetStats();
  EXPECT_EQ(s.num_allocs, 1);
  EXPECT_EQ(s.peak_bytes_in_use, 1024 + 256);
  EXPECT_EQ(s.largest_alloc_size, 256);
  // A failed allocation counts for nothing.
  EXPECT_EQ(Alloc(al, 2 * kMiB), nullptr);
  EXPECT_EQ(al.GetStats().num_allocs, 1);
  al.DeallocateRaw(a);
  al.DeallocateRaw(c);
  EXPECT_EQ(al.GetStats().bytes_in_use, 0);
}

TEST(BFCAllocatorTest, RequestedSize) {
  Fixture f(kMiB, /*allow_growth=*/false);
  BFCAllocator& al = *f.allocator;
  EXPECT_TRUE(al.TracksAllocationSizes());
  char* a = Alloc(al, 1000);
  char* b = Alloc(al, 0);
  char* c = Alloc(al, 4096);
  EXPECT_EQ(al.RequestedSize(a), 1000u);
  EXPECT_EQ(al.RequestedSize(b), 0u);
  EXPECT_EQ(al.RequestedSize(c), 4096u);
  al.DeallocateRaw(a);
  al.DeallocateRaw(b);
  al.DeallocateRaw(c);
}

TEST(BFCAllocatorTest, ZeroByteRequestsGetUniquePointers) {
  Fixture f(kMiB, /*allow_growth=*/false);
  BFCAllocator& al = *f.allocator;
  char* a = Alloc(al, 0);
  char* b = Alloc(al, 0);
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  EXPECT_NE(a, b);
  EXPECT_EQ(al.GetStats().bytes_in_use, 512);  // a minimum chunk each
  al.DeallocateRaw(a);
  al.DeallocateRaw(b);
  EXPECT_EQ(al.GetStats().bytes_in_use, 0);
  al.DeallocateRaw(nullptr);  // a no-op
}

TEST(BFCAllocatorTest, StateDebugStringDescribesTheState) {
  Fixture f(kMiB, /*allow_growth=*/false);
  BFCAllocator& al = *f.allocator;
  char* a = Alloc(al, 1000);
  std::string s = al.StateDebugString();
  EXPECT_NE(s.find("limit 1048576 bytes"), std::string::npos) << s;
  EXPECT_NE(s.find("in use 1024 bytes"), std::string::npos) << s;
  EXPECT_NE(s.find("regions 1"), std::string::npos) << s;
  EXPECT_NE(s.find("free 1047552 bytes"), std::string::npos) << s;
  EXPECT_NE(s.find("512KiB:1"), std::string::npos) << s;  // the tail's bin
  EXPECT_LE(std::count(s.begin(), s.end(), '\n'), 4) << s;
  al.DeallocateRaw(a);
}

TEST(BFCAllocatorTest, DestructorReturnsEveryRegion) {
  Fixture f(64 * kMiB, /*allow_growth=*/true);
  ASSERT_NE(Alloc(*f.allocator, kMiB), nullptr);
  ASSERT_NE(Alloc(*f.allocator, 3 * kMiB), nullptr);  // left allocated
  EXPECT_EQ(f.Granted().size(), 2u);
  f.allocator.reset();
  absl::MutexLock lock(&f.log->mu);
  EXPECT_EQ(f.log->frees, 2);
  EXPECT_EQ(f.log->bad_frees, 0);  // same pointers and sizes as granted
  EXPECT_TRUE(f.log->live.empty());
}

// Random allocations and frees against a model of what is live: nothing
// overlaps, contents survive, and freeing everything coalesces each region
// back into one chunk.
TEST(BFCAllocatorTest, RandomizedStress) {
  Fixture f(32 * kMiB, /*allow_growth=*/true);
  BFCAllocator& al = *f.allocator;
  std::mt19937 rng(20240611);
  struct Live {
    size_t size;
    unsigned char pattern;
  };
  std::map<char*, Live> live;  // by address, to check neighbours
  int64_t model_in_use = 0;
  int failures = 0;
  for (int op = 0; op < 4000; ++op) {
    bool allocate = live.empty() || rng() % 100 < 55;
    if (allocate) {
      size_t n;
      switch (rng() % 4) {
        case 0:
          n = rng() % 300;
          break;
        case 1:
          n = rng() % (16 * kKiB);
          break;
        case 2:
          n = rng() % (256 * kKiB);
          break;
        default:
          n = rng() % (2 * kMiB);
          break;
      }
      char* p = Alloc(al, n);
      if (p == nullptr) {
        ++failures;
        continue;
      }
      ASSERT_EQ(reinterpret_cast<uintptr_t>(p) % 256, 0u);
      ASSERT_TRUE(f.InsideARegion(p, n));
      auto next = live.lower_bound(p);
      if (next != live.end()) {
        ASSERT_LE(p + n, next->first) << "overlaps the next allocation";
      }
      if (next != live.begin()) {
        auto prev = std::prev(next);
        ASSERT_LE(prev->first + prev->second.size, p) << "overlaps previous";
      }
      unsigned char pattern = static_cast<unsigned char>(op % 251 + 1);
      Fill(p, n, pattern);
      live[p] = Live{n, pattern};
      model_in_use += (n + 255) / 256 * 256 + (n == 0 ? 256 : 0);
      ASSERT_EQ(al.RequestedSize(p), n);
    } else {
      auto it = live.begin();
      std::advance(it, rng() % live.size());
      ASSERT_TRUE(Holds(it->first, it->second.size, it->second.pattern))
          << "allocation overwritten";
      size_t n = it->second.size;
      model_in_use -= (n + 255) / 256 * 256 + (n == 0 ? 256 : 0);
      al.DeallocateRaw(it->first);
      live.erase(it);
    }
    ASSERT_EQ(al.GetStats().bytes_in_use, model_in_use);
  }
  // The limit is small enough for the mix above to hit it sometimes.
  EXPECT_GT(failures, 0);
  EXPECT_LE(al.total_region_bytes(), static_cast<int64_t>(32 * kMiB));
  for (auto& [p, l] : live) {
    ASSERT_TRUE(Holds(p, l.size, l.pattern));
    al.DeallocateRaw(p);
  }
  EXPECT_EQ(al.GetStats().bytes_in_use, 0);
  EXPECT_EQ(al.NumFreeChunksForTest(), al.NumRegionsForTest());
}

TEST(BFCAllocatorTest, ConcurrentAllocateAndFree) {
  Fixture f(64 * kMiB, /*allow_growth=*/true);
  BFCAllocator& al = *f.allocator;
  constexpr int kThreads = 4;
  std::vector<int> corrupted(kThreads, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&al, &corrupted, t] {
      std::mt19937 rng(t + 1);
      std::vector<std::pair<char*, size_t>> mine;
      // Each thread writes its own byte, so memory handed to two threads
      // at once shows up as the other thread's byte.
      const unsigned char pattern = static_cast<unsigned char>(0x10 + t);
      for (int op = 0; op < 2000; ++op) {
        if (mine.empty() || rng() % 2 == 0) {
          size_t n = rng() % (32 * kKiB);
          char* p = Alloc(al, n);
          if (p == nullptr) continue;
          Fill(p, n, pattern);
          mine.emplace_back(p, n);
        } else {
          size_t i = rng() % mine.size();
          if (!Holds(mine[i].first, mine[i].second, pattern)) ++corrupted[t];
          al.DeallocateRaw(mine[i].first);
          mine[i] = mine.back();
          mine.pop_back();
        }
      }
      for (auto& [p, n] : mine) {
        if (!Holds(p, n, pattern)) ++corrupted[t];
        al.DeallocateRaw(p);
      }
    });
  }
  for (std::thread& th : threads) th.join();
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(corrupted[t], 0) << t;
  EXPECT_EQ(al.GetStats().bytes_in_use, 0);
  EXPECT_EQ(al.NumFreeChunksForTest(), al.NumRegionsForTest());
}

TEST(BFCAllocatorDeathTest, FreeingAForeignPointerAborts) {
  Fixture f(kMiB, /*allow_growth=*/false);
  BFCAllocator& al = *f.allocator;
  char* a = Alloc(al, 1024);
  int local = 0;
  EXPECT_DEATH(al.DeallocateRaw(&local), "not allocated by gpu_bfc");
  // Interior pointers and double frees are foreign too.
  EXPECT_DEATH(al.DeallocateRaw(a + 256), "not allocated by gpu_bfc");
  al.DeallocateRaw(a);
  EXPECT_DEATH(al.DeallocateRaw(a), "not allocated by gpu_bfc");
}

}  // namespace
}  // namespace tributary
