#include "common/runtime/executor/executor_barrier.h"

#include <utility>

#include "common/framework/logging.h"
#include "common/framework/derived_status.h"
#include "common/runtime/rendezvous/rendezvous.h"

namespace tributary {

ExecutorBarrier::ExecutorBarrier(size_t num, RendezvousInterface* rendezvous,
                                 StatusCallback done)
    : rendezvous_(rendezvous), pending_(num), done_(std::move(done)) {
  CHECK_GT(num, 0u);
}

Executor::DoneCallback ExecutorBarrier::Get() {
  return [this](const absl::Status& s) { WhenDone(s); };
}

void ExecutorBarrier::WhenDone(const absl::Status& s) {
  bool abort = false;
  {
    absl::MutexLock l(&mu_);
    if (!s.ok()) {
      if (status_.ok()) {
        abort = true;
        status_ = s;
      } else if (errors::IsFallout(status_) && !errors::IsFallout(s)) {
        status_ = s;  // a real error replaces a consequence
      }
    }
  }
  // Before this executor is counted out: until then neither the barrier
  // nor the step (and its rendezvous) can go away.
  if (abort && rendezvous_ != nullptr) rendezvous_->StartAbort(s);

  StatusCallback done;
  absl::Status status;
  {
    absl::MutexLock l(&mu_);
    if (--pending_ == 0) {
      done = std::move(done_);
      status = status_;
    }
  }
  if (done) {
    delete this;
    done(status);
  }
}

}  // namespace tributary
