#include "worker/session_mgr.h"

#include <algorithm>
#include <utility>

#include "common/framework/status.h"

namespace tributary {

SessionMgr::SessionMgr(const WorkerEnv* env, CancellationManager* parent)
    : env_(env),
      parent_(parent),
      legacy_session_(std::make_shared<WorkerSession>(
          "", env, &shared_resource_mgr_, parent)) {}

SessionMgr::~SessionMgr() {
  DeleteAll();
  legacy_session_.reset();
}

absl::Status SessionMgr::CreateSession(
    const tensorflow::CreateWorkerSessionRequest& request) {
  const std::string& handle = request.session_handle();
  if (handle.empty()) {
    return errors::InvalidArgument(
        "CreateWorkerSession needs a non-empty session_handle");
  }
  std::shared_ptr<WorkerCacheInterface> peers;
  const tensorflow::ClusterDef& cluster = request.server_def().cluster();
  if (cluster.job_size() > 0 && env_->session_worker_cache_factory) {
    absl::StatusOr<std::shared_ptr<WorkerCacheInterface>> made =
        env_->session_worker_cache_factory(cluster);
    if (!made.ok()) {
      return errors::InvalidArgument(
          "CreateWorkerSession ", handle, " on ", env_->task_name,
          ": the master's cluster (server_def.cluster) is not usable: ",
          made.status().message());
    }
    peers = *std::move(made);
  }
  auto session = std::make_shared<WorkerSession>(
      handle, env_,
      request.isolate_session_state() ? nullptr : &shared_resource_mgr_,
      parent_, std::move(peers));
  // Sessions of a master's earlier incarnation, deleted outside the lock.
  std::vector<std::shared_ptr<WorkerSession>> stale;
  {
    absl::MutexLock l(&mu_);
    if (sessions_.contains(handle)) {
      return errors::AlreadyExists("Worker session ", handle,
                                   " already exists on ", env_->task_name);
    }
    if (!request.master_task().empty() && request.master_incarnation() != 0) {
      MasterInfo& master = masters_[request.master_task()];
      if (master.incarnation != request.master_incarnation()) {
        for (const std::string& old : master.sessions) {
          auto it = sessions_.find(old);
          if (it == sessions_.end()) continue;
          stale.push_back(std::move(it->second));
          sessions_.erase(it);
        }
        master.sessions.clear();
        master.incarnation = request.master_incarnation();
      }
      master.sessions.push_back(handle);
    }
    sessions_.emplace(handle, std::move(session));
  }
  for (auto& s : stale) {
    s->cancellation_manager()->StartCancel();
    s->graph_mgr()->DeregisterAll();
  }
  return absl::OkStatus();
}

absl::Status SessionMgr::DeleteSession(const std::string& handle) {
  std::shared_ptr<WorkerSession> session;
  {
    absl::MutexLock l(&mu_);
    auto it = sessions_.find(handle);
    if (it == sessions_.end()) return absl::OkStatus();
    session = std::move(it->second);
    sessions_.erase(it);
    for (auto& [task, master] : masters_) {
      auto& v = master.sessions;
      v.erase(std::remove(v.begin(), v.end(), handle), v.end());
    }
  }
  // Steps still running hold the session; cancelling them makes them end
  // (and let go) promptly.
  session->cancellation_manager()->StartCancel();
  session->graph_mgr()->DeregisterAll();
  return absl::OkStatus();
}

absl::StatusOr<std::shared_ptr<WorkerSession>> SessionMgr::Find(
    const std::string& handle) const {
  if (handle.empty()) return legacy_session_;
  absl::MutexLock l(&mu_);
  auto it = sessions_.find(handle);
  if (it == sessions_.end()) {
    return errors::Aborted("Session handle is not found: ", handle,
                           ". Possibly this worker (\"", env_->task_name,
                           "\") just restarted.");
  }
  return it->second;
}

std::vector<std::shared_ptr<WorkerSession>> SessionMgr::AllSessions() const {
  std::vector<std::shared_ptr<WorkerSession>> all;
  all.push_back(legacy_session_);
  absl::MutexLock l(&mu_);
  for (const auto& [handle, session] : sessions_) all.push_back(session);
  return all;
}

int SessionMgr::NumSessions() const {
  absl::MutexLock l(&mu_);
  return static_cast<int>(sessions_.size());
}

void SessionMgr::DeleteAll() {
  absl::flat_hash_map<std::string, std::shared_ptr<WorkerSession>> sessions;
  {
    absl::MutexLock l(&mu_);
    sessions.swap(sessions_);
    masters_.clear();
  }
  for (auto& [handle, session] : sessions) {
    session->cancellation_manager()->StartCancel();
    session->graph_mgr()->DeregisterAll();
  }
}

}  // namespace tributary
