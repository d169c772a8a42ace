#ifndef TRIBUTARY_COMMON_RENDEZVOUS_LOCAL_RENDEZVOUS_H_
#define TRIBUTARY_COMMON_RENDEZVOUS_LOCAL_RENDEZVOUS_H_

#include <memory>

#include "absl/status/status.h"
#include "common/rendezvous/rendezvous.h"

namespace tributary {

// The rendezvous table: producers and consumers in this process share one
// object, so a key is simply looked up.
//
//  * Send first: the value is stored; the later RecvAsync takes it and runs
//    its callback on the receiver's thread.
//  * Recv first: the callback is stored; the later Send takes it and runs it
//    on the sender's thread.
//  * A second Send under a key whose value is still waiting is Aborted
//    ("Duplicated send: <key>"), as is a second waiting RecvAsync for a key
//    ("Duplicated recv: <key>"): within one step a key names one tensor, so a
//    duplicate means two nodes were given the same key (TensorFlow's
//    original table had the same rule; frames and iterations are part of
//    the key, so loops never collide).
//  * Cancellation of a pending receiver's CancellationManager removes it and
//    runs its callback with Cancelled("RecvAsync is cancelled.").
//  * StartAbort fails everything pending and everything after.
//
// Destroying the rendezvous aborts what is still pending with
// Cancelled("LocalRendezvous deleted"). Callers must not destroy it while
// other threads are inside Send/RecvAsync. Thread-safe.
class LocalRendezvous : public RendezvousInterface {
 public:
  LocalRendezvous();
  ~LocalRendezvous() override;

  absl::Status Send(const ParsedKey& key, const Args& send_args,
                    const Tensor& value, bool is_dead) override;
  void RecvAsync(const ParsedKey& key, const Args& recv_args,
                 DoneCallback done) override;
  void StartAbort(const absl::Status& status) override;

  // OK, or the status the rendezvous was aborted with.
  absl::Status status() const;

  // Keys with a value or a receiver waiting (for tests and debugging).
  int NumPendingForTest() const;

  // The table lives in a shared State so that a cancellation callback that
  // is already running on another thread when the rendezvous is destroyed
  // still finds valid memory (it holds a weak reference).
  struct State;

 private:
  const std::shared_ptr<State> state_;
};

}  // namespace tributary

#endif  // TRIBUTARY_COMMON_RENDEZVOUS_LOCAL_RENDEZVOUS_H_
