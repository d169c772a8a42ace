#ifndef TRIBUTARY_COMMON_RUNTIME_EXECUTOR_INTER_OP_THREAD_POOL_H_
#define TRIBUTARY_COMMON_RUNTIME_EXECUTOR_INTER_OP_THREAD_POOL_H_

// The inter-op thread pool of a session: where executors run expensive
// kernels and the partitions of a step run side by side (intra-op
// parallelism is the device's own pool). Owned by the session, so its
// threads end with it: the destructor runs what is still queued and joins.

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>

namespace tributary {

class InterOpThreadPool {
 public:
  // `num_threads` <= 0 means one per schedulable core (TensorFlow's default
  // for inter_op_parallelism_threads = 0).
  explicit InterOpThreadPool(int num_threads);
  ~InterOpThreadPool();

  InterOpThreadPool(const InterOpThreadPool&) = delete;
  InterOpThreadPool& operator=(const InterOpThreadPool&) = delete;

  // Runs `fn` on a pool thread; inline only when the chosen thread's queue
  // (1024 closures, Eigen's) is full, which is Eigen's back-pressure.
  void Schedule(std::function<void()> fn);

  int num_threads() const { return num_threads_; }

  // Closures scheduled and not yet started (the executor's queue depth),
  // and closures running now (busy threads). Read at any time, e.g. by a
  // metrics scrape; each is exact, the two read together are not a snapshot.
  int64_t queued() const { return queued_.load(std::memory_order_relaxed); }
  int64_t running() const { return running_.load(std::memory_order_relaxed); }

  // Schedulable cores of this process, at least 1.
  static int DefaultNumThreads();

 private:
  struct Impl;  // Eigen::ThreadPool, kept out of this header.
  int num_threads_;
  std::atomic<int64_t> queued_{0};
  std::atomic<int64_t> running_{0};
  std::unique_ptr<Impl> impl_;
};

}  // namespace tributary

#endif  // TRIBUTARY_COMMON_RUNTIME_EXECUTOR_INTER_OP_THREAD_POOL_H_
