#include "common/framework/memory_budget.h"

#include <algorithm>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"

namespace tributary {

class MemoryBudget::BudgetedAllocator : public Allocator {
 public:
  BudgetedAllocator(std::shared_ptr<State> state, Allocator* base)
      : state_(std::move(state)),
        base_(base),
        base_tracks_sizes_(base->TracksAllocationSizes()) {}

  std::string Name() override { return base_->Name(); }

  void* AllocateRaw(size_t alignment, size_t num_bytes) override {
    const int64_t n = static_cast<int64_t>(
        std::min<size_t>(num_bytes, static_cast<size_t>(INT64_MAX)));
    if (!Reserve(n)) return nullptr;
    void* p = base_->AllocateRaw(alignment, num_bytes);
    if (p == nullptr) {
      state_->in_use.fetch_sub(n, std::memory_order_relaxed);
      return nullptr;
    }
    refs_.fetch_add(1, std::memory_order_relaxed);
    if (!base_tracks_sizes_) {
      absl::MutexLock l(&mu_);
      sizes_[p] = num_bytes;
    }
    return p;
  }

  void DeallocateRaw(void* ptr) override {
    if (ptr == nullptr) return;
    size_t n;
    if (base_tracks_sizes_) {
      n = base_->RequestedSize(ptr);
    } else {
      absl::MutexLock l(&mu_);
      auto it = sizes_.find(ptr);
      n = it == sizes_.end() ? 0 : it->second;
      if (it != sizes_.end()) sizes_.erase(it);
    }
    base_->DeallocateRaw(ptr);
    state_->in_use.fetch_sub(static_cast<int64_t>(n),
                             std::memory_order_relaxed);
    Unref();
  }

  AllocatorStats GetStats() override {
    AllocatorStats s;
    s.bytes_in_use = state_->in_use.load(std::memory_order_relaxed);
    s.peak_bytes_in_use = state_->peak.load(std::memory_order_relaxed);
    return s;
  }
  bool TracksAllocationSizes() const override { return base_tracks_sizes_; }
  size_t RequestedSize(const void* ptr) const override {
    return base_->RequestedSize(ptr);
  }

  // The budget is going away: delete now if nothing is allocated, else
  // when the last allocation is freed.
  void Orphan() { Unref(); }

 private:
  void Unref() {
    if (refs_.fetch_sub(1, std::memory_order_acq_rel) == 1) delete this;
  }

  bool Reserve(int64_t n) {
    int64_t cur = state_->in_use.load(std::memory_order_relaxed);
    do {
      if (n > state_->limit - cur) return false;
    } while (!state_->in_use.compare_exchange_weak(cur, cur + n,
                                                   std::memory_order_relaxed));
    int64_t peak = state_->peak.load(std::memory_order_relaxed);
    while (cur + n > peak && !state_->peak.compare_exchange_weak(
                                 peak, cur + n, std::memory_order_relaxed)) {
    }
    return true;
  }

  const std::shared_ptr<State> state_;
  Allocator* const base_;
  const bool base_tracks_sizes_;
  // One reference per live allocation, plus the budget's own until
  // Orphan(): the last one to go deletes the wrapper. Atomic, so a kernel's
  // allocation takes no lock (the executor's hot path).
  std::atomic<int64_t> refs_{1};
  absl::Mutex mu_;
  // Sizes of live allocations when `base_` does not track them.
  absl::flat_hash_map<const void*, size_t> sizes_ ABSL_GUARDED_BY(mu_);
};

MemoryBudget::MemoryBudget(std::string owner, int64_t limit_bytes,
                           std::string flag)
    : state_(std::make_shared<State>()) {
  state_->owner = std::move(owner);
  state_->limit = limit_bytes;
  state_->flag = std::move(flag);
}

MemoryBudget::~MemoryBudget() {
  absl::MutexLock l(&mu_);
  for (auto& [base, wrapper] : wrappers_) wrapper->Orphan();
  wrappers_.clear();
}

Allocator* MemoryBudget::Wrap(Allocator* base) {
  // Every allocation of every kernel of the session asks: the wrappers made
  // so far are read without a lock (entries are written before the count
  // that publishes them, and never change).
  const int published = num_published_.load(std::memory_order_acquire);
  for (int i = 0; i < published; ++i) {
    if (published_[i].base == base) return published_[i].wrapper;
  }
  absl::MutexLock l(&mu_);
  for (const auto& [b, wrapper] : wrappers_) {
    if (b == base) return wrapper;
  }
  auto* wrapper = new BudgetedAllocator(state_, base);
  wrappers_.emplace_back(base, wrapper);
  const int n = num_published_.load(std::memory_order_relaxed);
  if (n < kPublished) {
    published_[n] = {base, wrapper};
    num_published_.store(n + 1, std::memory_order_release);
  }
  return wrapper;
}

int64_t MemoryBudget::bytes_in_use() const {
  return state_->in_use.load(std::memory_order_relaxed);
}

int64_t MemoryBudget::peak_bytes_in_use() const {
  return state_->peak.load(std::memory_order_relaxed);
}

bool MemoryBudget::WouldExceed(int64_t bytes) const {
  return bytes > state_->limit - bytes_in_use();
}

std::string MemoryBudget::ExplainRefusal(int64_t bytes) const {
  return absl::StrCat("asked for ", bytes, " bytes with ", bytes_in_use(),
                      " bytes of the memory budget of ", state_->owner,
                      " in use (", state_->flag, "=", state_->limit, " bytes)");
}

}  // namespace tributary
