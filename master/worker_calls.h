#ifndef TRIBUTARY_MASTER_WORKER_CALLS_H_
#define TRIBUTARY_MASTER_WORKER_CALLS_H_

// Calling several workers at once, the way the master always does: one call
// per worker, all started together, awaited together with a deadline.
//
// The calls' requests, responses and CallOptions live in state shared with
// the completion callbacks, so the master may stop waiting at its deadline
// (a worker that never answers must not hold a client past its bound) and
// drop the group: a late callback then writes into state nobody reads.
// Everything a caller reads of a call is guarded by that call having
// completed (done(i)).

#include <algorithm>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "common/distributed/call_options.h"
#include "common/distributed/worker_interface.h"
#include "master/master_env.h"

namespace tributary {

template <typename Request, typename Response>
class WorkerCallGroup {
 public:
  struct Call {
    std::string task;
    std::shared_ptr<WorkerInterface> worker;
    Request request;
    Response response;
    CallOptions opts;
    // A bound of this call's own; the call ends at the earlier of it and
    // the group's deadline.
    absl::Time deadline = absl::InfiniteFuture();
  };
  // Starts one call: e.g. worker->RunGraphAsync(opts, request, response,
  // done).
  using StartFn = std::function<void(WorkerInterface* worker, CallOptions* opts,
                                     const Request* request, Response* response,
                                     StatusCallback done)>;
  // Runs on the completing call's thread, outside any lock of the group,
  // after the call's status is recorded. Must only capture state that
  // outlives every callback (shared_ptrs).
  // `call` is complete: its response may be read.
  using DoneFn =
      std::function<void(size_t index, const absl::Status& status, Call& call)>;

  WorkerCallGroup() : state_(std::make_shared<State>()) {}
  WorkerCallGroup(const WorkerCallGroup&) = delete;
  WorkerCallGroup& operator=(const WorkerCallGroup&) = delete;

  // Before Start only. The returned call's request is the caller's to fill.
  Call* Add(std::string task, std::shared_ptr<WorkerInterface> worker) {
    auto call = std::make_unique<Call>();
    call->task = std::move(task);
    call->worker = std::move(worker);
    Call* raw = call.get();
    state_->calls.push_back(std::move(call));
    return raw;
  }
  size_t size() const { return state_->calls.size(); }

  // Starts every call with `deadline` (or its own earlier Call::deadline)
  // on its CallOptions.
  void Start(absl::Time deadline, const StartFn& start,
             DoneFn on_done = nullptr) {
    const size_t n = state_->calls.size();
    {
      absl::MutexLock l(&state_->mu);
      state_->statuses.assign(n, absl::OkStatus());
      state_->done.assign(n, false);
      state_->pending = n;
    }
    for (size_t i = 0; i < n; ++i) {
      Call* call = state_->calls[i].get();
      call->opts.SetDeadline(std::min(deadline, call->deadline));
      std::shared_ptr<State> state = state_;
      start(call->worker.get(), &call->opts, &call->request, &call->response,
            [state, i, call, on_done](const absl::Status& s) {
              {
                absl::MutexLock l(&state->mu);
                if (state->done[i]) return;  // A buggy second callback.
                state->statuses[i] = s;
                state->done[i] = true;
                state->order.push_back(i);
                --state->pending;
                if (!s.ok()) state->any_error = true;
              }
              if (on_done) on_done(i, s, *call);
            });
    }
  }

  // True when every call completed before `deadline`.
  bool WaitAll(absl::Time deadline) {
    absl::MutexLock l(&state_->mu);
    return state_->mu.AwaitWithDeadline(
        absl::Condition(state_.get(), &State::AllDone), deadline);
  }
  // Returns when every call completed, one failed, Interrupt() was called,
  // or `deadline` passed.
  void WaitAllOrError(absl::Time deadline) {
    absl::MutexLock l(&state_->mu);
    state_->mu.AwaitWithDeadline(
        absl::Condition(state_.get(), &State::AllDoneOrError), deadline);
  }

  // Wakes WaitAllOrError as an error would (the caller cancelled the
  // group's work for a reason of its own).
  void Interrupt() {
    absl::MutexLock l(&state_->mu);
    state_->interrupted = true;
  }

  // A function that cancels and interrupts the group, safe to call at any
  // time from any thread, even after the group is gone (for a caller's
  // cancel hook).
  std::function<void()> Canceller() const {
    std::shared_ptr<State> state = state_;
    return [state] {
      {
        absl::MutexLock l(&state->mu);
        state->interrupted = true;
      }
      for (auto& call : state->calls) call->opts.StartCancel();
    };
  }

  // Cancels every call still in flight (CallOptions::StartCancel).
  void CancelAll() {
    for (auto& call : state_->calls) call->opts.StartCancel();
  }

  bool done(size_t i) const {
    absl::MutexLock l(&state_->mu);
    return state_->done[i];
  }
  bool all_done() const {
    absl::MutexLock l(&state_->mu);
    return state_->pending == 0;
  }
  // The call's status; `not_done` for a call that has not completed.
  absl::Status status(size_t i, const absl::Status& not_done) const {
    absl::MutexLock l(&state_->mu);
    return state_->done[i] ? state_->statuses[i] : not_done;
  }
  // Indices of the completed calls, in completion order.
  std::vector<size_t> completion_order() const {
    absl::MutexLock l(&state_->mu);
    return state_->order;
  }
  // The call itself: its request any time before Start; its response only
  // once done(i).
  Call& call(size_t i) { return *state_->calls[i]; }
  const Call& call(size_t i) const { return *state_->calls[i]; }

 private:
  struct State {
    mutable absl::Mutex mu;
    std::vector<std::unique_ptr<Call>> calls;  // Fixed once started.
    std::vector<absl::Status> statuses ABSL_GUARDED_BY(mu);
    std::vector<bool> done ABSL_GUARDED_BY(mu);
    std::vector<size_t> order ABSL_GUARDED_BY(mu);
    size_t pending ABSL_GUARDED_BY(mu) = 0;
    bool any_error ABSL_GUARDED_BY(mu) = false;
    bool interrupted ABSL_GUARDED_BY(mu) = false;

    bool AllDone() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
      return pending == 0;
    }
    bool AllDoneOrError() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
      return pending == 0 || any_error || interrupted;
    }
  };
  std::shared_ptr<State> state_;
};

// Starters for the methods the master calls.
#define TRIB_WORKER_CALL_STARTER(Name, Method, Request, Response)             \
  inline void Name(WorkerInterface* w, CallOptions* opts, const Request* req, \
                   Response* resp, StatusCallback done) {                     \
    w->Method(opts, req, resp, std::move(done));                              \
  }
TRIB_WORKER_CALL_STARTER(StartGetStatus, GetStatusAsync,
                         tensorflow::GetStatusRequest,
                         tensorflow::GetStatusResponse)
TRIB_WORKER_CALL_STARTER(StartCreateWorkerSession, CreateWorkerSessionAsync,
                         tensorflow::CreateWorkerSessionRequest,
                         tensorflow::CreateWorkerSessionResponse)
TRIB_WORKER_CALL_STARTER(StartDeleteWorkerSession, DeleteWorkerSessionAsync,
                         tensorflow::DeleteWorkerSessionRequest,
                         tensorflow::DeleteWorkerSessionResponse)
TRIB_WORKER_CALL_STARTER(StartRegisterGraph, RegisterGraphAsync,
                         tensorflow::RegisterGraphRequest,
                         tensorflow::RegisterGraphResponse)
TRIB_WORKER_CALL_STARTER(StartDeregisterGraph, DeregisterGraphAsync,
                         tensorflow::DeregisterGraphRequest,
                         tensorflow::DeregisterGraphResponse)
TRIB_WORKER_CALL_STARTER(StartRunGraph, RunGraphAsync, RunGraphRequestMsg,
                         RunGraphResponseMsg)
TRIB_WORKER_CALL_STARTER(StartCleanupGraph, CleanupGraphAsync,
                         tensorflow::CleanupGraphRequest,
                         tensorflow::CleanupGraphResponse)
TRIB_WORKER_CALL_STARTER(StartCleanupAll, CleanupAllAsync,
                         tensorflow::CleanupAllRequest,
                         tensorflow::CleanupAllResponse)
#undef TRIB_WORKER_CALL_STARTER

// A task and its worker.
struct TaskWorker {
  std::string task;
  std::shared_ptr<WorkerInterface> worker;
};

// Fire-and-forget control calls: started now, bounded by env.timeout,
// counted in env.background, errors logged. They return at once.
void CleanupGraphAsync(const DetachedCallEnv& env,
                       const std::vector<TaskWorker>& workers, int64_t step_id);
void DeregisterGraphAsync(const DetachedCallEnv& env, const TaskWorker& worker,
                          const std::string& session_handle,
                          const std::string& graph_handle);
void DeleteWorkerSessionAsync(const DetachedCallEnv& env,
                              const std::vector<TaskWorker>& workers,
                              const std::string& session_handle);

}  // namespace tributary

#endif  // TRIBUTARY_MASTER_WORKER_CALLS_H_
