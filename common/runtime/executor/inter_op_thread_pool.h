#ifndef TRIBUTARY_COMMON_RUNTIME_EXECUTOR_INTER_OP_THREAD_POOL_H_
#define TRIBUTARY_COMMON_RUNTIME_EXECUTOR_INTER_OP_THREAD_POOL_H_

// The inter-op thread pool of a session: where executors run expensive
// kernels and the partitions of a step run side by side (intra-op
// parallelism is the device's own pool). Owned by the session, so its
// threads end with it: the destructor runs what is still queued and joins.

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

  // Runs `fn` on a pool thread, never inline.
  void Schedule(std::function<void()> fn);

  int num_threads() const { return num_threads_; }

  // Schedulable cores of this process, at least 1.
  static int DefaultNumThreads();

 private:
  struct Impl;  // Eigen::ThreadPool, kept out of this header.
  int num_threads_;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tributary

#endif  // TRIBUTARY_COMMON_RUNTIME_EXECUTOR_INTER_OP_THREAD_POOL_H_
