#include "master/worker_session_holder.h"

#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "spdlog/spdlog.h"

namespace tributary {

struct WorkerSessionHolder::State
    : std::enable_shared_from_this<WorkerSessionHolder::State> {
  struct Hold {
    std::string task;
    std::shared_ptr<WorkerInterface> worker;
    tensorflow::DeleteWorkerSessionRequest request;
    tensorflow::DeleteWorkerSessionResponse response;
    // The call in flight's options; replaced for each renewal.
    std::unique_ptr<CallOptions> opts;
    DeadlineTimer::Id renewal = DeadlineTimer::kNoTimer;
  };

  std::string handle;
  DeadlineTimer* timer = nullptr;
  absl::Mutex mu;
  bool released ABSL_GUARDED_BY(mu) = false;
  std::vector<Hold> holds ABSL_GUARDED_BY(mu);

  // Starts hold `i`'s call (again).
  void Start(size_t i) {
    CallOptions* opts;
    WorkerInterface* worker;
    const tensorflow::DeleteWorkerSessionRequest* request;
    tensorflow::DeleteWorkerSessionResponse* response;
    {
      absl::MutexLock l(&mu);
      if (released) return;
      Hold& hold = holds[i];
      hold.renewal = DeadlineTimer::kNoTimer;
      hold.opts = std::make_unique<CallOptions>();
      hold.opts->SetTimeout(kHoldCallTimeout);
      opts = hold.opts.get();
      worker = hold.worker.get();
      request = &hold.request;
      response = &hold.response;
    }
    worker->HoldWorkerSessionAsync(
        opts, request, response,
        [self = shared_from_this(), i](const absl::Status& s) {
          self->Ended(i, s);
        });
  }

  void Ended(size_t i, const absl::Status& s) {
    absl::MutexLock l(&mu);
    if (released) return;
    Hold& hold = holds[i];
    if (s.ok() || absl::IsUnimplemented(s) || absl::IsNotFound(s)) {
      // Deleted, cannot hold, or no longer known there: nothing to hold.
      if (!s.ok()) {
        spdlog::debug("session {}: not holding it on {}: {}", handle, hold.task,
                      s.ToString());
      }
      return;
    }
    if (timer == nullptr) return;
    const absl::Duration wait =
        absl::IsDeadlineExceeded(s) ? absl::ZeroDuration() : absl::Seconds(1);
    hold.renewal = timer->Schedule(
        absl::Now() + wait, [self = shared_from_this(), i] { self->Start(i); });
  }
};

WorkerSessionHolder::WorkerSessionHolder(std::string session_handle,
                                         const std::vector<TaskWorker>& tasks,
                                         DeadlineTimer* timer)
    : state_(std::make_shared<State>()) {
  state_->handle = std::move(session_handle);
  state_->timer = timer;
  {
    absl::MutexLock l(&state_->mu);
    for (const TaskWorker& t : tasks) {
      State::Hold hold;
      hold.task = t.task;
      hold.worker = t.worker;
      hold.request.set_session_handle(state_->handle);
      state_->holds.push_back(std::move(hold));
    }
  }
  for (size_t i = 0; i < tasks.size(); ++i) state_->Start(i);
}

WorkerSessionHolder::~WorkerSessionHolder() { Release(); }

void WorkerSessionHolder::Release() {
  std::vector<CallOptions*> in_flight;
  {
    absl::MutexLock l(&state_->mu);
    if (state_->released) return;
    state_->released = true;
    for (State::Hold& hold : state_->holds) {
      if (hold.renewal != DeadlineTimer::kNoTimer) {
        state_->timer->Cancel(hold.renewal);
      }
      if (hold.opts != nullptr) in_flight.push_back(hold.opts.get());
    }
  }
  // The options stay alive: only a renewal replaces them, and none runs
  // once released.
  for (CallOptions* opts : in_flight) opts->StartCancel();
}

}  // namespace tributary
