#include "tests/distributed/observed_worker.h"

#include <utility>

#include "common/distributed/call_options.h"

namespace tributary {
namespace distributed_test {

ObservedWorker::ObservedWorker(std::string task,
                               std::shared_ptr<WorkerInterface> target)
    : task_(std::move(task)), target_(std::move(target)) {}

bool ObservedWorker::WaitForRunGraph(int64_t step_id, absl::Time deadline,
                                     RunGraphOutcome* outcome) {
  absl::MutexLock l(&mu_);
  auto recorded = [this, step_id]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return run_graphs_.count(step_id) > 0;
  };
  if (!mu_.AwaitWithDeadline(absl::Condition(&recorded), deadline)) {
    return false;
  }
  *outcome = run_graphs_[step_id];
  return true;
}

void ObservedWorker::ForgetRunGraph(int64_t step_id) {
  absl::MutexLock l(&mu_);
  run_graphs_.erase(step_id);
}

void ObservedWorker::set_hold_cleanups(bool hold) {
  absl::MutexLock l(&mu_);
  hold_cleanups_ = hold;
}

void ObservedWorker::set_shield_run_graph(bool shield) {
  absl::MutexLock l(&mu_);
  shield_run_graph_ = shield;
}

std::vector<int64_t> ObservedWorker::held_cleanups() {
  absl::MutexLock l(&mu_);
  std::vector<int64_t> ids;
  for (const auto& req : held_) ids.push_back(req.step_id());
  return ids;
}

absl::Status ObservedWorker::ReleaseHeldCleanups() {
  std::vector<tensorflow::CleanupGraphRequest> held;
  {
    absl::MutexLock l(&mu_);
    held.swap(held_);
  }
  for (const auto& req : held) {
    tensorflow::CleanupGraphResponse resp;
    absl::Status s = target_->CleanupGraph(req, &resp, absl::Seconds(30));
    if (!s.ok()) return s;
  }
  return absl::OkStatus();
}

void ObservedWorker::RunGraphAsync(CallOptions* opts,
                                   const RunGraphRequestMsg* request,
                                   RunGraphResponseMsg* response,
                                   StatusCallback done) {
  bool shield;
  {
    absl::MutexLock l(&mu_);
    shield = shield_run_graph_;
  }
  // Shielded: the worker gets options of its own with the same deadline,
  // which nobody cancels; they live until the call is done.
  std::shared_ptr<CallOptions> own;
  if (shield && opts != nullptr) {
    own = std::make_shared<CallOptions>();
    own->SetDeadline(opts->deadline());
    opts = own.get();
  }
  const int64_t step_id = request->proto.step_id();
  target_->RunGraphAsync(
      opts, request, response,
      [this, step_id, response, own, done = std::move(done)](
          const absl::Status& s) {
        {
          absl::MutexLock l(&mu_);
          run_graphs_[step_id] = RunGraphOutcome{s, response->proto};
        }
        done(s);
      });
}

void ObservedWorker::CleanupGraphAsync(
    CallOptions* opts, const tensorflow::CleanupGraphRequest* request,
    tensorflow::CleanupGraphResponse* response, StatusCallback done) {
  {
    absl::MutexLock l(&mu_);
    if (hold_cleanups_) {
      held_.push_back(*request);
      done(absl::OkStatus());
      return;
    }
  }
  target_->CleanupGraphAsync(opts, request, response, std::move(done));
}

void ObservedWorker::GetStatusAsync(CallOptions* opts,
                                    const tensorflow::GetStatusRequest* request,
                                    tensorflow::GetStatusResponse* response,
                                    StatusCallback done) {
  target_->GetStatusAsync(opts, request, response, std::move(done));
}

void ObservedWorker::CreateWorkerSessionAsync(
    CallOptions* opts, const tensorflow::CreateWorkerSessionRequest* request,
    tensorflow::CreateWorkerSessionResponse* response, StatusCallback done) {
  target_->CreateWorkerSessionAsync(opts, request, response, std::move(done));
}

void ObservedWorker::DeleteWorkerSessionAsync(
    CallOptions* opts, const tensorflow::DeleteWorkerSessionRequest* request,
    tensorflow::DeleteWorkerSessionResponse* response, StatusCallback done) {
  target_->DeleteWorkerSessionAsync(opts, request, response, std::move(done));
}

void ObservedWorker::RegisterGraphAsync(
    CallOptions* opts, const tensorflow::RegisterGraphRequest* request,
    tensorflow::RegisterGraphResponse* response, StatusCallback done) {
  target_->RegisterGraphAsync(opts, request, response, std::move(done));
}

void ObservedWorker::DeregisterGraphAsync(
    CallOptions* opts, const tensorflow::DeregisterGraphRequest* request,
    tensorflow::DeregisterGraphResponse* response, StatusCallback done) {
  target_->DeregisterGraphAsync(opts, request, response, std::move(done));
}

void ObservedWorker::CleanupAllAsync(CallOptions* opts,
                                     const tensorflow::CleanupAllRequest* request,
                                     tensorflow::CleanupAllResponse* response,
                                     StatusCallback done) {
  target_->CleanupAllAsync(opts, request, response, std::move(done));
}

void ObservedWorker::RecvTensorAsync(CallOptions* opts,
                                     const tensorflow::RecvTensorRequest* request,
                                     TensorResponse* response,
                                     StatusCallback done) {
  target_->RecvTensorAsync(opts, request, response, std::move(done));
}

void ObservedWorker::LoggingAsync(CallOptions* opts,
                                  const tensorflow::LoggingRequest* request,
                                  tensorflow::LoggingResponse* response,
                                  StatusCallback done) {
  target_->LoggingAsync(opts, request, response, std::move(done));
}

void ObservedWorker::TracingAsync(CallOptions* opts,
                                  const tensorflow::TracingRequest* request,
                                  tensorflow::TracingResponse* response,
                                  StatusCallback done) {
  target_->TracingAsync(opts, request, response, std::move(done));
}

}  // namespace distributed_test
}  // namespace tributary
