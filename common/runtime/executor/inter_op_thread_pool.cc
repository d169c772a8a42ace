#include "common/runtime/executor/inter_op_thread_pool.h"

#include <sched.h>

#include <atomic>
#include <cstdint>
#include <thread>
#include <utility>

#define EIGEN_USE_THREADS
#include "common/framework/flush_denormal.h"
#include "unsupported/Eigen/CXX11/ThreadPool"

namespace tributary {

namespace {

// Eigen's thread environment, counting as each task starts and ends: the
// pool's threads call ExecuteTask for every closure (also one run inline when
// the queue is full), so the count needs no second closure per Schedule.
// Its threads flush denormals (flush_denormal.h), as TensorFlow's do.
struct CountingEnvironment
    : FlushDenormalThreadEnvironment<Eigen::StlThreadEnvironment> {
  CountingEnvironment(std::atomic<int64_t>* queued,
                      std::atomic<int64_t>* running)
      : queued(queued), running(running) {}
  void ExecuteTask(const Task& t) {
    queued->fetch_sub(1, std::memory_order_relaxed);
    running->fetch_add(1, std::memory_order_relaxed);
    t.f();
    running->fetch_sub(1, std::memory_order_relaxed);
  }
  std::atomic<int64_t>* queued;
  std::atomic<int64_t>* running;
};

}  // namespace

struct InterOpThreadPool::Impl {
  Impl(int n, std::atomic<int64_t>* queued, std::atomic<int64_t>* running)
      : pool(n, CountingEnvironment(queued, running)) {}
  Eigen::ThreadPoolTempl<CountingEnvironment> pool;
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
      impl_(std::make_unique<Impl>(num_threads_, &queued_, &running_)) {}

// Eigen::ThreadPool's destructor drains the queue and joins its threads.
InterOpThreadPool::~InterOpThreadPool() = default;

void InterOpThreadPool::Schedule(std::function<void()> fn) {
  queued_.fetch_add(1, std::memory_order_relaxed);
  impl_->pool.Schedule(std::move(fn));
}

}  // namespace tributary
