#ifndef TRIBUTARY_COMMON_DISTRIBUTED_CALL_OPTIONS_H_
#define TRIBUTARY_COMMON_DISTRIBUTED_CALL_OPTIONS_H_

// Per-call options of a WorkerInterface call: a deadline and a way to
// cancel the call while it is in flight.
//
// Every remote call carries a deadline (a project rule: every wait has a
// deadline or a cancellation path); the transport turns an expired one into
// DeadlineExceeded. The caller may StartCancel() at any time (a step was
// aborted, the master is shutting down): the transport registered a cancel hook
// when it started the call (gRPC: ClientContext::TryCancel), and the call then
// completes with Cancelled. Cancelling before the hook is set, or after the
// call completed, is harmless: a hook set after StartCancel() runs at once.

#include <functional>
#include <string>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace tributary {

class CallOptions {
 public:
  CallOptions() = default;
  CallOptions(const CallOptions&) = delete;
  CallOptions& operator=(const CallOptions&) = delete;

  // absl::InfiniteFuture() (the default) means no deadline; callers that
  // talk to remote tasks always set one.
  void SetDeadline(absl::Time deadline);
  void SetTimeout(absl::Duration timeout) {
    SetDeadline(absl::Now() + timeout);
  }
  absl::Time deadline() const;

  // Runs the cancel hook (once); later SetCancelCallback calls run theirs
  // immediately.
  void StartCancel();
  bool IsCancelled() const;

  // For transports: the hook that aborts the call in flight. Replaces any
  // previous hook. Runs immediately (on this thread) when already
  // cancelled.
  void SetCancelCallback(std::function<void()> cancel);
  void ClearCancelCallback();

  // Who made the call, for per-client limits (--max-steps-per-client,
  // common/distributed/resource_limits.h): the master's gRPC service sets
  // it before the handler runs, to the authenticated token's name
  // ("principal:NAME") or the peer's host ("ipv4:10.0.0.5"). Empty for
  // in-process calls. Set once, before the call is handed on; read-only
  // after.
  void set_client(std::string client) { client_ = std::move(client); }
  const std::string& client() const { return client_; }

 private:
  mutable absl::Mutex mu_;
  absl::Time deadline_ ABSL_GUARDED_BY(mu_) = absl::InfiniteFuture();
  bool cancelled_ ABSL_GUARDED_BY(mu_) = false;
  std::function<void()> cancel_ ABSL_GUARDED_BY(mu_);
  std::string client_;
};

}  // namespace tributary

#endif  // TRIBUTARY_COMMON_DISTRIBUTED_CALL_OPTIONS_H_
