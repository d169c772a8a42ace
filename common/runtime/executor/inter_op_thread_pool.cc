#include "common/runtime/executor/inter_op_thread_pool.h"

#include <sched.h>

#include <thread>
#include <utility>

#define EIGEN_USE_THREADS
#include "unsupported/Eigen/CXX11/ThreadPool"

namespace tributary {

struct InterOpThreadPool::Impl {
  explicit Impl(int n) : pool(n) {}
  Eigen::ThreadPool pool;
};

int InterOpThreadPool::DefaultNumThreads() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) == 0) {
    const int n = CPU_COUNT(&set);
    if (n > 0) return n;
  }
  const unsigned hw = std::thread::hardware_concurrency();
  return hw > 0 ? static_cast<int>(hw) : 1;
}

InterOpThreadPool::InterOpThreadPool(int num_threads)
    : num_threads_(num_threads > 0 ? num_threads : DefaultNumThreads()),
      impl_(std::make_unique<Impl>(num_threads_)) {}

// Eigen::ThreadPool's destructor drains the queue and joins its threads.
InterOpThreadPool::~InterOpThreadPool() = default;

void InterOpThreadPool::Schedule(std::function<void()> fn) {
  impl_->pool.Schedule(std::move(fn));
}

}  // namespace tributary
