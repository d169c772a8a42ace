#include "common/runtime/executor/executor_barrier.h"

#include <utility>

#include "common/framework/derived_status.h"
#include "common/rendezvous/rendezvous.h"

namespace tributary {

ExecutorBarrier::ExecutorBarrier(int num_partitions,
                                 RendezvousInterface* rendezvous,
                                 StatusCallback done)
    : rendezvous_(rendezvous),
      done_(std::move(done)),
      pending_(num_partitions) {}

void ExecutorBarrier::Report(const absl::Status& status) {
  if (!status.ok()) {
    bool first_error = false;
    {
      absl::MutexLock l(&mu_);
      if (status_.ok()) {
        status_ = status;
        first_error = true;
      } else if (errors::IsFallout(status_) && !errors::IsFallout(status)) {
        status_ = status;
      }
    }
    // Before this report counts (so the step, and the rendezvous with it,
    // cannot end meanwhile) and outside the lock (aborting runs receivers'
    // callbacks, which may finish executors that report here).
    if (first_error && rendezvous_ != nullptr) rendezvous_->StartAbort(status);
  }
  absl::Status final_status;
  {
    absl::MutexLock l(&mu_);
    if (--pending_ > 0) return;
    final_status = status_;
  }
  // Moved out first: `done` may destroy this barrier.
  StatusCallback done = std::move(done_);
  done(final_status);
}

}  // namespace tributary
