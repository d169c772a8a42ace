// MemoryBudget: a cap on the bytes a group of allocations (one worker
// session's steps) may hold at once, enforced by wrapping the allocators
// the group's kernels allocate from (issue 14, docs/limits.md).
//
//   MemoryBudget budget("session 1f2e", 1 << 30, "--session-memory-budget");
//   Allocator* a = budget.Wrap(device->GetAllocator(attr));
//   a->AllocateRaw(64, n);   // nullptr when it would take the group past
//                            // the budget: the kernel's allocation fails
//                            // with ResourceExhausted instead of the
//                            // process being OOM-killed
//
// What counts: every byte requested through a wrapper and not yet
// deallocated, whatever holds it (a step's intermediate tensors, a
// variable's value assigned by the group's step). Freeing returns it to the
// budget. A request above what is left is refused before the underlying
// allocator is asked, so a single huge request (a Fill of 10^12 elements)
// costs nothing.
//
// Lifetime: tensors keep the allocator pointer they came from and may
// outlive the budget (a variable in a resource container shared with other
// sessions). A wrapper therefore lives until both its budget is gone and
// its last allocation is freed; a freed tensor then no longer counts
// against anything.
//
// Thread-safe.
#ifndef TRIBUTARY_COMMON_FRAMEWORK_MEMORY_BUDGET_H_
#define TRIBUTARY_COMMON_FRAMEWORK_MEMORY_BUDGET_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "common/framework/allocator.h"

namespace tributary {

class MemoryBudget {
 public:
  // `owner` names the group in messages ("session 1f2e"); `limit_bytes`
  // > 0; `flag` names the setting ("--session-memory-budget").
  MemoryBudget(std::string owner, int64_t limit_bytes, std::string flag);
  ~MemoryBudget();
  MemoryBudget(const MemoryBudget&) = delete;
  MemoryBudget& operator=(const MemoryBudget&) = delete;

  // An allocator that serves `base`'s memory within this budget; the same
  // pointer for the same `base`. Valid at least as long as this budget.
  Allocator* Wrap(Allocator* base);

  int64_t limit() const { return state_->limit; }
  const std::string& owner() const { return state_->owner; }
  int64_t bytes_in_use() const;
  int64_t peak_bytes_in_use() const;
  // Whether a request of `bytes` would be refused now.
  bool WouldExceed(int64_t bytes) const;
  // Why a request of `bytes` was refused: "... asked for N bytes with M of
  // the memory budget of <owner> in use (<flag>=L bytes)".
  std::string ExplainRefusal(int64_t bytes) const;

  struct State {
    std::string owner;
    int64_t limit = 0;
    std::string flag;
    std::atomic<int64_t> in_use{0};
    std::atomic<int64_t> peak{0};
  };

 private:
  class BudgetedAllocator;

  const std::shared_ptr<State> state_;
  absl::Mutex mu_;
  std::vector<std::pair<Allocator*, BudgetedAllocator*>> wrappers_
      ABSL_GUARDED_BY(mu_);
  // The first wrappers again, for Wrap's lock-free lookup (a session sees
  // a handful of allocators: one per device and memory type).
  static constexpr int kPublished = 8;
  struct Published {
    Allocator* base = nullptr;
    Allocator* wrapper = nullptr;
  };
  Published published_[kPublished];
  std::atomic<int> num_published_{0};
};

}  // namespace tributary

#endif  // TRIBUTARY_COMMON_FRAMEWORK_MEMORY_BUDGET_H_
