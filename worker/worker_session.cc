#include "worker/worker_session.h"

#include <utility>

namespace tributary {
namespace {

std::unique_ptr<ResourceMgr> OwnIfIsolated(ResourceMgr* shared) {
  return shared == nullptr ? std::make_unique<ResourceMgr>() : nullptr;
}

std::unique_ptr<MemoryBudget> NewMemoryBudget(const std::string& handle,
                                              const WorkerEnv* env) {
  if (env->session_memory_budget <= 0) return nullptr;
  return std::make_unique<MemoryBudget>(
      handle.empty() ? "the legacy session of " + env->task_name
                     : "session " + handle + " on " + env->task_name,
      env->session_memory_budget, "--session-memory-budget");
}

}  // namespace

WorkerSession::WorkerSession(std::string handle, const WorkerEnv* env,
                             ResourceMgr* shared_resource_mgr,
                             CancellationManager* parent,
                             std::shared_ptr<WorkerCacheInterface> worker_cache)
    : handle_(std::move(handle)),
      worker_cache_(std::move(worker_cache)),
      own_resource_mgr_(OwnIfIsolated(shared_resource_mgr)),
      resource_mgr_(shared_resource_mgr != nullptr ? shared_resource_mgr
                                                   : own_resource_mgr_.get()),
      memory_budget_(NewMemoryBudget(handle_, env)),
      cancellation_manager_(parent),
      graph_mgr_(std::make_unique<GraphMgr>(env, resource_mgr_,
                                            memory_budget_.get())) {}

WorkerSession::~WorkerSession() {
  // Nothing of this session may still run: stop whatever is left, then drop
  // the kernels before the resources they reference.
  cancellation_manager_.StartCancel();
  graph_mgr_.reset();
}

}  // namespace tributary
