#ifndef TRIBUTARY_WORKER_WORKER_SESSION_H_
#define TRIBUTARY_WORKER_WORKER_SESSION_H_

// The state one master session keeps on one worker (TensorFlow's WorkerSession,
// core/distributed_runtime/worker_session.h: one per master session that asked
// this worker to compute): its registered graphs and the resources (variables)
// its kernels use, plus a cancellation manager that is the parent of every step
// it runs, so deleting the session stops its steps.
//
// Resources: with isolate_session_state the session owns a ResourceMgr of
// its own (its variables die with it); otherwise (TensorFlow's default) it
// uses the worker's shared one, so sessions of different masters or
// clients see the same variables, which between-graph replication relies
// on. Graphs are always per session.

#include <memory>
#include <string>

#include "common/framework/memory_budget.h"
#include "common/kernel/cancellation.h"
#include "common/resource/resource_mgr.h"
#include "worker/graph_mgr.h"
#include "worker/worker_env.h"

namespace tributary {

class WorkerSession {
 public:
  // `shared_resource_mgr` null: an isolated session with its own.
  // `parent` (the worker's) and `env` must outlive the session.
  // `worker_cache`: the session's own view of its peers (null: the
  // worker's, env->worker_cache).
  WorkerSession(std::string handle, const WorkerEnv* env,
                ResourceMgr* shared_resource_mgr, CancellationManager* parent,
                std::shared_ptr<WorkerCacheInterface> worker_cache = nullptr);
  ~WorkerSession();

  WorkerSession(const WorkerSession&) = delete;
  WorkerSession& operator=(const WorkerSession&) = delete;

  // Empty for the legacy session (requests without a session handle).
  const std::string& handle() const { return handle_; }
  bool isolated() const { return own_resource_mgr_ != nullptr; }
  ResourceMgr* resource_mgr() const { return resource_mgr_; }
  GraphMgr* graph_mgr() const { return graph_mgr_.get(); }
  // Null when the worker sets no --session-memory-budget.
  MemoryBudget* memory_budget() const { return memory_budget_.get(); }
  CancellationManager* cancellation_manager() { return &cancellation_manager_; }
  // The session's own peers, or null when it uses the worker's.
  const std::shared_ptr<WorkerCacheInterface>& worker_cache() const {
    return worker_cache_;
  }

 private:
  const std::string handle_;
  const std::shared_ptr<WorkerCacheInterface> worker_cache_;
  // Declared before graph_mgr_: kernels go before the resources they use.
  std::unique_ptr<ResourceMgr> own_resource_mgr_;
  ResourceMgr* const resource_mgr_;
  // The session's share of memory (env->session_memory_budget); null when
  // unlimited. Before graph_mgr_: its executors hand it to every kernel.
  std::unique_ptr<MemoryBudget> memory_budget_;
  CancellationManager cancellation_manager_;
  std::unique_ptr<GraphMgr> graph_mgr_;
};

}  // namespace tributary

#endif  // TRIBUTARY_WORKER_WORKER_SESSION_H_
