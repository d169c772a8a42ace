#include "common/rendezvous/rendezvous.h"

#include <memory>
#include <utility>

#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "common/framework/status.h"

namespace tributary {
namespace {

// What the callback hands to the waiting Recv. Shared, because when the
// wait times out the callback may still run later (after Recv returned).
struct RecvResult {
  absl::Notification done;
  absl::Status status;
  Tensor value;
  bool is_dead = false;
};

}  // namespace

RendezvousInterface::~RendezvousInterface() = default;

absl::Status RendezvousInterface::Recv(const ParsedKey& key,
                                       const Args& recv_args, Tensor* value,
                                       bool* is_dead, int64_t timeout_ms) {
  auto result = std::make_shared<RecvResult>();
  auto done = [result](const absl::Status& s, const Args& /*send_args*/,
                       const Args& /*recv_args*/, const Tensor& v, bool dead) {
    result->status = s;
    result->value = v;
    result->is_dead = dead;
    result->done.Notify();
  };

  if (timeout_ms <= 0) {
    RecvAsync(key, recv_args, std::move(done));
    result->done.WaitForNotification();
  } else {
    // A private child manager lets us withdraw the request on timeout
    // without cancelling anything else; it is cancelled with the caller's
    // manager too.
    CancellationManager timeout_cm(recv_args.cancellation_manager);
    Args args = recv_args;
    args.cancellation_manager = &timeout_cm;
    RecvAsync(key, args, std::move(done));
    if (!result->done.WaitForNotificationWithTimeout(
            absl::Milliseconds(timeout_ms))) {
      // Withdraw the pending request. StartCancel runs the rendezvous'
      // cancellation callback, which either removes the request (callback
      // with Cancelled) or finds that a Send took it a moment ago (callback
      // running on the sender's thread). Either way the callback is about to
      // finish, and waiting for it keeps a value sent at the last moment
      // from being lost.
      timeout_cm.StartCancel();
      result->done.WaitForNotification();
      if (errors::IsCancelled(result->status) &&
          (recv_args.cancellation_manager == nullptr ||
           !recv_args.cancellation_manager->IsCancelled())) {
        return errors::DeadlineExceeded(
            "Timed out after ", timeout_ms,
            " ms waiting for rendezvous key '", key.FullKey(), "'");
      }
    }
  }
  if (result->status.ok()) {
    *value = result->value;
    *is_dead = result->is_dead;
  }
  return result->status;
}

absl::Status RendezvousInterface::Recv(const ParsedKey& key, const Args& args,
                                       Tensor* value, bool* is_dead) {
  return Recv(key, args, value, is_dead, /*timeout_ms=*/0);
}

}  // namespace tributary
