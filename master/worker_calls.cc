#include "master/worker_calls.h"

#include "spdlog/spdlog.h"

namespace tributary {
namespace {

// One call nobody waits for: owns its messages until the callback runs.
template <typename Request, typename Response>
struct DetachedCall {
  Request request;
  Response response;
  CallOptions opts;
  std::shared_ptr<WorkerInterface> worker;
};

template <typename Request, typename Response, typename Start>
void StartDetached(const DetachedCallEnv& env, const TaskWorker& target,
                   Request request, const char* what, Start start) {
  auto* call = new DetachedCall<Request, Response>;
  call->request = std::move(request);
  call->worker = target.worker;
  call->opts.SetDeadline(DeadlineAfter(env.timeout));
  std::shared_ptr<BackgroundCalls> background = env.background;
  background->Add();
  std::string task = target.task;
  start(call->worker.get(), &call->opts, &call->request, &call->response,
        [call, background, task, what](const absl::Status& s) {
          if (!s.ok()) {
            spdlog::debug("{} on {} failed: {}", what, task, s.ToString());
          }
          delete call;
          background->Done();
        });
}

}  // namespace

void CleanupGraphAsync(const DetachedCallEnv& env,
                       const std::vector<TaskWorker>& workers,
                       int64_t step_id) {
  for (const TaskWorker& w : workers) {
    tensorflow::CleanupGraphRequest request;
    request.set_step_id(step_id);
    StartDetached<tensorflow::CleanupGraphRequest,
                  tensorflow::CleanupGraphResponse>(
        env, w, std::move(request), "CleanupGraph", StartCleanupGraph);
  }
}

void DeregisterGraphAsync(const DetachedCallEnv& env, const TaskWorker& worker,
                          const std::string& session_handle,
                          const std::string& graph_handle) {
  tensorflow::DeregisterGraphRequest request;
  request.set_session_handle(session_handle);
  request.set_create_worker_session_called(true);
  request.set_graph_handle(graph_handle);
  StartDetached<tensorflow::DeregisterGraphRequest,
                tensorflow::DeregisterGraphResponse>(
      env, worker, std::move(request), "DeregisterGraph", StartDeregisterGraph);
}

void DeleteWorkerSessionAsync(const DetachedCallEnv& env,
                              const std::vector<TaskWorker>& workers,
                              const std::string& session_handle) {
  for (const TaskWorker& w : workers) {
    tensorflow::DeleteWorkerSessionRequest request;
    request.set_session_handle(session_handle);
    StartDetached<tensorflow::DeleteWorkerSessionRequest,
                  tensorflow::DeleteWorkerSessionResponse>(
        env, w, std::move(request), "DeleteWorkerSession",
        StartDeleteWorkerSession);
  }
}

}  // namespace tributary
