#ifndef TRIBUTARY_WORKER_SESSION_MGR_H_
#define TRIBUTARY_WORKER_SESSION_MGR_H_

// The worker sessions of one worker (TensorFlow's SessionMgr), by handle.
//
//  * CreateSession(request): a new WorkerSession for a master session
//    (isolated resources on request). An empty handle is InvalidArgument, a
//    handle already in use AlreadyExists. When the request names its
//    master (master_task + master_incarnation) and that master has
//    restarted (a new incarnation), the sessions the old incarnation left
//    behind are deleted first, as TensorFlow does: a crashed master never
//    sent their DeleteWorkerSession.
//  * Find(handle): "" is the legacy session (requests of masters that do
//    not create worker sessions; it always exists and shares the worker's
//    resources); an unknown handle is Aborted "Session handle is not found:
//    <h>. Possibly this worker (<task>) just restarted." (TensorFlow's code
//    and wording, so a master can tell a restarted worker).
//  * DeleteSession(handle): forgets it and cancels its running steps; its
//    graphs and isolated resources go when the last step holding it ends.
//    Unknown or empty handles are a no-op.
//
// Thread-safe.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "common/kernel/cancellation.h"
#include "common/resource/resource_mgr.h"
#include "protos/worker.pb.h"
#include "worker/worker_env.h"
#include "worker/worker_session.h"

namespace tributary {

class SessionMgr {
 public:
  // `env` and `parent` (cancels every session's steps) must outlive it.
  SessionMgr(const WorkerEnv* env, CancellationManager* parent);
  ~SessionMgr();

  absl::Status CreateSession(
      const tensorflow::CreateWorkerSessionRequest& request);
  absl::Status DeleteSession(const std::string& handle);
  absl::StatusOr<std::shared_ptr<WorkerSession>> Find(
      const std::string& handle) const;

  // The resources of every non-isolated session.
  ResourceMgr* shared_resource_mgr() { return &shared_resource_mgr_; }
  // The legacy session and every created one.
  std::vector<std::shared_ptr<WorkerSession>> AllSessions() const;
  // Created sessions (the legacy one not counted).
  int NumSessions() const;
  // Deletes every created session (shutdown).
  void DeleteAll();

 private:
  const WorkerEnv* const env_;
  CancellationManager* const parent_;
  // Declared first: outlives every session using it.
  ResourceMgr shared_resource_mgr_;
  std::shared_ptr<WorkerSession> legacy_session_;

  mutable absl::Mutex mu_;
  absl::flat_hash_map<std::string, std::shared_ptr<WorkerSession>> sessions_
      ABSL_GUARDED_BY(mu_);
  // Master task -> its latest incarnation, and the sessions it created.
  struct MasterInfo {
    int64_t incarnation = 0;
    std::vector<std::string> sessions;
  };
  absl::flat_hash_map<std::string, MasterInfo> masters_ ABSL_GUARDED_BY(mu_);
};

}  // namespace tributary

#endif  // TRIBUTARY_WORKER_SESSION_MGR_H_
