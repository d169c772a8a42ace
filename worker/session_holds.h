#ifndef TRIBUTARY_WORKER_SESSION_HOLDS_H_
#define TRIBUTARY_WORKER_SESSION_HOLDS_H_

// Worker sessions whose master went away are deleted (issue 17; TensorFlow
// leaks them, tensorflow/tensorflow#7353).
//
// Tributary's master keeps one call open per worker session it created
// (HoldWorkerSession, a Tributary method beside TensorFlow's
// WorkerService). The worker answers it only when the session is deleted.
// When the call ends otherwise -- the master process died (its sockets
// closed), its host or the network went away (gRPC keepalive notices within
// about 20 s), or the call's deadline passed -- the session is *unheld*; if
// no new hold arrives within `grace` (the master renews a hold whose call
// failed, so a blip between live processes costs nothing), the session is
// deleted: its running steps cancelled, its graphs and isolated resources
// freed.
//
// Sessions that were never held (created by TensorFlow's own master or an
// older Tributary master) are never deleted here.
//
// Thread-safe. `delete_session` runs on this object's own thread, never
// under its lock.

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "common/distributed/call_options.h"
#include "common/distributed/worker_interface.h"

namespace tributary {

class SessionHolds {
 public:
  // `grace` <= 0: an unheld session is deleted at once.
  SessionHolds(absl::Duration grace,
               std::function<void(const std::string& handle)> delete_session);
  // Shutdown(Cancelled) and stops the thread.
  ~SessionHolds();

  SessionHolds(const SessionHolds&) = delete;
  SessionHolds& operator=(const SessionHolds&) = delete;

  // A hold on session `handle` (which exists: the caller checked). `done`
  // runs with OK once Released(handle), with Cancelled when `opts` is
  // cancelled (the caller went away); `opts` must stay valid until then.
  void Hold(const std::string& handle, CallOptions* opts, StatusCallback done);

  // The session was deleted (DeleteWorkerSession): its holds complete OK
  // and it is forgotten.
  void Released(const std::string& handle);

  // The worker is shutting down: completes every open hold with `status`
  // (so the server's shutdown need not wait for them) and refuses new ones
  // with it. Deletes nothing.
  void Shutdown(const absl::Status& status);

  // Sessions held now, and sessions unheld and waiting for their grace to
  // end (for tests and logs).
  int num_held() const;
  int num_orphaned() const;

 private:
  struct Entry {
    // Open holds by id.
    std::map<int64_t, StatusCallback> holds;
    // When the session is deleted unless held again; InfiniteFuture while
    // held.
    absl::Time orphaned_until = absl::InfiniteFuture();
  };

  void HoldEnded(const std::string& handle, int64_t id);
  void Loop();

  const absl::Duration grace_;
  const std::function<void(const std::string&)> delete_session_;
  mutable absl::Mutex mu_;
  absl::flat_hash_map<std::string, Entry> entries_ ABSL_GUARDED_BY(mu_);
  int64_t next_id_ ABSL_GUARDED_BY(mu_) = 1;
  bool stop_ ABSL_GUARDED_BY(mu_) = false;
  // A session became unheld since Loop last looked.
  bool new_orphan_ ABSL_GUARDED_BY(mu_) = false;
  absl::Status refusal_ ABSL_GUARDED_BY(mu_);  // set by Shutdown
  std::thread thread_;
};

}  // namespace tributary

#endif  // TRIBUTARY_WORKER_SESSION_HOLDS_H_
