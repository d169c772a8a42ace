#include "common/framework/memory_budget.h"

#include <cstdlib>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"

namespace tributary {
namespace {

// An allocator that does not track sizes (the wrapper then keeps them).
class PlainAllocator : public Allocator {
 public:
  std::string Name() override { return "plain"; }
  void* AllocateRaw(size_t alignment, size_t n) override {
    ++calls;
    return std::aligned_alloc(kAllocatorAlignment,
                              ((n + 63) / 64) * 64 + 64);
  }
  void DeallocateRaw(void* p) override { std::free(p); }
  int calls = 0;
};

TEST(MemoryBudgetTest, RefusesBeyondTheBudgetAndFreeingReturnsIt) {
  MemoryBudget budget("session s1", 1000, "--session-memory-budget");
  Allocator* a = budget.Wrap(cpu_allocator());
  EXPECT_EQ(a, budget.Wrap(cpu_allocator()));
  void* p = a->AllocateRaw(64, 600);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(budget.bytes_in_use(), 600);
  EXPECT_TRUE(budget.WouldExceed(401));
  EXPECT_FALSE(budget.WouldExceed(400));
  EXPECT_EQ(a->AllocateRaw(64, 401), nullptr);
  void* q = a->AllocateRaw(64, 400);
  ASSERT_NE(q, nullptr);
  EXPECT_EQ(budget.bytes_in_use(), 1000);
  a->DeallocateRaw(p);
  EXPECT_EQ(budget.bytes_in_use(), 400);
  void* r = a->AllocateRaw(64, 600);
  EXPECT_NE(r, nullptr);
  a->DeallocateRaw(q);
  a->DeallocateRaw(r);
  EXPECT_EQ(budget.bytes_in_use(), 0);
  EXPECT_EQ(budget.peak_bytes_in_use(), 1000);
}

TEST(MemoryBudgetTest, HugeRequestsFailWithoutReachingTheAllocator) {
  PlainAllocator plain;
  MemoryBudget budget("session s2", 1 << 20, "--session-memory-budget");
  Allocator* a = budget.Wrap(&plain);
  EXPECT_EQ(a->AllocateRaw(64, size_t{4} << 40), nullptr);  // 4 TiB
  EXPECT_EQ(a->AllocateRaw(64, SIZE_MAX), nullptr);
  EXPECT_EQ(plain.calls, 0);
  EXPECT_EQ(budget.bytes_in_use(), 0);
}

TEST(MemoryBudgetTest, KeepsSizesForAllocatorsThatDoNot) {
  PlainAllocator plain;
  MemoryBudget budget("session s3", 1000, "--f");
  Allocator* a = budget.Wrap(&plain);
  void* p = a->AllocateRaw(64, 700);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(budget.bytes_in_use(), 700);
  a->DeallocateRaw(p);
  EXPECT_EQ(budget.bytes_in_use(), 0);
}

TEST(MemoryBudgetTest, ExplanationNamesOwnerFlagAndLimit) {
  MemoryBudget budget("session abc", 1000, "--session-memory-budget");
  const std::string why = budget.ExplainRefusal(5000);
  EXPECT_NE(why.find("session abc"), std::string::npos) << why;
  EXPECT_NE(why.find("--session-memory-budget=1000 bytes"), std::string::npos)
      << why;
  EXPECT_NE(why.find("5000 bytes"), std::string::npos) << why;
}

TEST(MemoryBudgetTest, AllocationsMayOutliveTheBudget) {
  Allocator* a = nullptr;
  void* p = nullptr;
  {
    MemoryBudget budget("session s4", 1000, "--f");
    a = budget.Wrap(cpu_allocator());
    p = a->AllocateRaw(64, 100);
    ASSERT_NE(p, nullptr);
  }
  // The wrapper lives until its last allocation goes (ASan/valgrind would
  // flag a use after free here).
  a->DeallocateRaw(p);
}

TEST(MemoryBudgetTest, ConcurrentAllocationsNeverPassTheBudget) {
  MemoryBudget budget("session s5", 64 * 100, "--f");
  Allocator* a = budget.Wrap(cpu_allocator());
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 2000; ++i) {
        void* p = a->AllocateRaw(64, 64);
        if (p != nullptr) {
          EXPECT_LE(budget.bytes_in_use(), 64 * 100);
          a->DeallocateRaw(p);
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(budget.bytes_in_use(), 0);
  EXPECT_LE(budget.peak_bytes_in_use(), 64 * 100);
}

}  // namespace
}  // namespace tributary
