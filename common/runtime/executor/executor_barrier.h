#ifndef TRIBUTARY_COMMON_RUNTIME_EXECUTOR_EXECUTOR_BARRIER_H_
#define TRIBUTARY_COMMON_RUNTIME_EXECUTOR_EXECUTOR_BARRIER_H_

// Joins the executors of one step (TensorFlow's ExecutorBarrier): each
// partition's done callback reports here, and when the last has reported,
// `done` runs once with the step's status.
//
// The step's status is the first real error. When one partition fails, the
// others are woken by the rendezvous abort and the cancellation and report
// Cancelled/Aborted echoes of that failure; those never hide the original
// error, whatever order they arrive in. A partition failure also aborts the
// rendezvous here, so partitions blocked in a _Recv on a partition that
// failed before sending are released even if the failing executor had no
// rendezvous to abort.

#include <functional>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"

namespace tributary {

class RendezvousInterface;

class ExecutorBarrier {
 public:
  using StatusCallback = std::function<void(const absl::Status&)>;

  // `rendezvous` (not owned, may be null) must outlive the barrier's last
  // report.
  ExecutorBarrier(int num_partitions, RendezvousInterface* rendezvous,
                  StatusCallback done);

  ExecutorBarrier(const ExecutorBarrier&) = delete;
  ExecutorBarrier& operator=(const ExecutorBarrier&) = delete;

  // One partition finished with `status`. Call exactly num_partitions times;
  // the last call runs `done` (on the calling thread).
  void Report(const absl::Status& status);

 private:
  RendezvousInterface* const rendezvous_;
  StatusCallback done_;
  absl::Mutex mu_;
  int pending_ ABSL_GUARDED_BY(mu_);
  absl::Status status_ ABSL_GUARDED_BY(mu_);
};

}  // namespace tributary

#endif  // TRIBUTARY_COMMON_RUNTIME_EXECUTOR_EXECUTOR_BARRIER_H_
