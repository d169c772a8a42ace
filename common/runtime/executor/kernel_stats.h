#ifndef TRIBUTARY_COMMON_RUNTIME_EXECUTOR_KERNEL_STATS_H_
#define TRIBUTARY_COMMON_RUNTIME_EXECUTOR_KERNEL_STATS_H_

// Adaptive inline-vs-thread-pool classification of kernels (as TensorFlow's
// core/common_runtime/kernel_stat.h does).
//
// Handing a kernel to another thread costs a few microseconds; running a
// cheap kernel inline costs nothing. A kernel that says it is expensive
// (OpKernel::IsExpensive(), the default) starts out expensive; each time it
// runs, its measured time is folded into a decaying average, and once that
// average drops below the threshold it runs inline like a cheap kernel.
// Kernels that say they are cheap are never timed, so the hot path of an
// inexpensive node reads no clock.
//
// The estimates are shared by all steps of an executor and updated without
// locks: a lost update only delays adaptation.

#include <atomic>
#include <cstdint>
#include <memory>

#include "common/runtime/executor/node_item.h"

namespace tributary {

class KernelStats {
 public:
  // Average cost above which a kernel is worth a thread hop.
  static constexpr uint64_t kOpIsExpensiveThresholdNs = 5000;
  // Where an expensive-marked kernel starts: far above the threshold, so
  // it only becomes inline after a run of consistently cheap executions.
  static constexpr uint64_t kInitialCostEstimateNs = 100 * 1000 * 1000;
  // New estimate = ((kCostDecay - 1) * old + latest) / kCostDecay.
  static constexpr uint64_t kCostDecay = 10;

  KernelStats() = default;

  // One estimate per item; `expensive_marker` items start expensive.
  void Initialize(int num_items) {
    cost_estimates_.reset(new std::atomic<uint64_t>[num_items]);
    for (int i = 0; i < num_items; ++i) {
      cost_estimates_[i].store(kInitialCostEstimateNs,
                               std::memory_order_relaxed);
    }
  }

  bool IsExpensive(const NodeItem& item) const {
    return item.expensive_marker &&
           cost_estimates_[item.id].load(std::memory_order_relaxed) >
               kOpIsExpensiveThresholdNs;
  }

  // Only called for items with expensive_marker (others are not timed).
  void UpdateCostEstimate(const NodeItem& item, uint64_t elapsed_ns) {
    std::atomic<uint64_t>& estimate = cost_estimates_[item.id];
    const uint64_t prev = estimate.load(std::memory_order_relaxed);
    estimate.store(((kCostDecay - 1) * prev + elapsed_ns) / kCostDecay,
                   std::memory_order_relaxed);
  }

 private:
  std::unique_ptr<std::atomic<uint64_t>[]> cost_estimates_;
};

}  // namespace tributary

#endif  // TRIBUTARY_COMMON_RUNTIME_EXECUTOR_KERNEL_STATS_H_
