#ifndef TRIBUTARY_COMMON_RENDEZVOUS_RENDEZVOUS_H_
#define TRIBUTARY_COMMON_RENDEZVOUS_RENDEZVOUS_H_

// The rendezvous: where a producer's _Send and a consumer's _Recv meet.
//
// A rendezvous is a table of channels, one per key (rendezvous_key.h). The
// producer Send()s one tensor (or a dead marker) under a key and never
// blocks; the consumer asks for it with RecvAsync() before or after it was
// sent and gets a callback as soon as both halves are there. This is what
// makes step execution recv-driven (TensorFlow's
// core/framework/rendezvous.h): partitions run concurrently
// and each _Recv simply waits for its _Send.
//
// Implementations: LocalRendezvous (the table), IntraProcessRendezvous
// (the table plus the device-to-device copy a same-process transfer needs),
// and, with the distributed runtime, a remote rendezvous whose RecvAsync
// fetches from another worker.
//
// Errors: StartAbort(status) fails every pending and future Send/Recv with
// `status`, which is how a failed or cancelled step releases every _Recv
// still waiting. A RecvAsync may also be cancelled through its
// Args::cancellation_manager.

#include <cstdint>
#include <functional>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "common/kernel/allocator_attributes.h"
#include "common/framework/tensor.h"
#include "common/kernel/cancellation.h"
#include "common/kernel/frame_and_iter.h"
#include "common/rendezvous/rendezvous_key.h"

namespace tributary {

// Per-device stream/copy state (GPU); defined by the device issue that needs
// it. The rendezvous only carries the pointer from sender to receiver so the
// copy hook can use both sides' contexts.
class DeviceContext;

// A completion callback carrying only a status (copy hooks, batched
// receives).
using StatusCallback = std::function<void(const absl::Status&)>;

// The name OpKernelContext forward-declares; kernels reach the step's
// rendezvous through ctx->rendezvous().
class RendezvousInterface {
 public:
  using ParsedKey = RendezvousParsedKey;

  // What each side tells the other about its tensor. The sender's Args
  // travel with the value to the receiver's callback.
  struct Args {
    DeviceContext* device_context = nullptr;  // not owned
    // Where the sender's value lives / where the receiver wants it
    // (on_host() on a GPU device means host memory).
    AllocatorAttributes alloc_attrs;
    // Receivers only: cancelling this manager cancels a pending RecvAsync
    // (callback with Cancelled). Not owned; must stay alive until the
    // receiver's callback has run.
    CancellationManager* cancellation_manager = nullptr;
  };

  // The consumer's callback: status, the sender's Args, the receiver's Args,
  // the value and whether it is dead (a not-taken control-flow branch). On
  // error the tensor is empty. It runs exactly once, on whichever thread
  // completes the pair: the receiver's own thread when the value was already
  // there, the sender's thread, or the thread that aborts or cancels. It is
  // never called with a rendezvous lock held, so it may call back into the
  // rendezvous; it should not block for long.
  using DoneCallback =
      std::function<void(const absl::Status& status, const Args& send_args,
                         const Args& recv_args, const Tensor& value,
                         bool is_dead)>;

  RendezvousInterface() = default;
  virtual ~RendezvousInterface();

  RendezvousInterface(const RendezvousInterface&) = delete;
  RendezvousInterface& operator=(const RendezvousInterface&) = delete;

  // In both calls `key` need only stay valid during the call; the
  // implementation copies what it keeps.
  //
  // Offers {value, is_dead} under `key`. Never blocks. Fails with the abort
  // status once aborted, and when a value was already sent under `key` and
  // not yet received (each key carries one tensor per step; frames and
  // iterations are part of the key).
  virtual absl::Status Send(const ParsedKey& key, const Args& send_args,
                            const Tensor& value, bool is_dead) = 0;

  // Asks for the value under `key`; `done` runs exactly once (see
  // DoneCallback).
  virtual void RecvAsync(const ParsedKey& key, const Args& recv_args,
                         DoneCallback done) = 0;

  // Synchronous RecvAsync. Waits at most `timeout_ms` milliseconds when it
  // is > 0 (DeadlineExceeded naming the key, and the pending request is
  // withdrawn so a later Send is not swallowed), otherwise until the value
  // arrives or the rendezvous is aborted / the request cancelled.
  absl::Status Recv(const ParsedKey& key, const Args& recv_args, Tensor* value,
                    bool* is_dead, int64_t timeout_ms);
  absl::Status Recv(const ParsedKey& key, const Args& recv_args, Tensor* value,
                    bool* is_dead);

  // Fails every pending and future Send/RecvAsync with `status` (the first
  // abort status wins). Pending receivers' callbacks run before this
  // returns; values sent but not received are dropped. Does not wait for
  // callbacks running on other threads. REQUIRES: !status.ok() (an OK status
  // is turned into Internal).
  virtual void StartAbort(const absl::Status& status) = 0;

  // TensorFlow's spellings (Rendezvous::CreateKey / ParseKey), for code
  // ported from it.
  static std::string CreateKey(absl::string_view src_device,
                               uint64_t src_incarnation,
                               absl::string_view dst_device,
                               absl::string_view name,
                               const FrameAndIter& frame_iter) {
    return CreateRendezvousKey(src_device, src_incarnation, dst_device, name,
                               frame_iter);
  }
  static absl::Status ParseKey(absl::string_view key, ParsedKey* out) {
    return ParseRendezvousKey(key, out);
  }
};

}  // namespace tributary

#endif  // TRIBUTARY_COMMON_RENDEZVOUS_RENDEZVOUS_H_
