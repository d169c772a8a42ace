#ifndef TRIBUTARY_TESTS_DISTRIBUTED_OBSERVED_WORKER_H_
#define TRIBUTARY_TESTS_DISTRIBUTED_OBSERVED_WORKER_H_

// A WorkerInterface in front of a real worker, between the master's code
// and the task, so a test sees what the master does not report: each
// RunGraph's own status and response (the master returns only the step's
// root cause and merged metadata) and the CleanupGraph calls it sends.
//
// Every call is forwarded unchanged, except where a test asks for the
// conditions a worker-side assertion needs:
//  * hold_cleanups: CleanupGraph is answered OK to the master at once but
//    reaches the worker only at ReleaseHeldCleanups(), so a test can look
//    at what a worker keeps after a step (and which tasks the master
//    cleans up) before the master's cleanup lands;
//  * shield_run_graph: the master's cancellation of a RunGraph does not
//    reach the worker (its deadline does), so how a worker's step ends
//    on its own (a failing peer) is not raced by the master's cancel.
// Thread-safe.

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "common/distributed/worker_interface.h"
#include "protos/worker.pb.h"

namespace tributary {
namespace distributed_test {

class ObservedWorker : public WorkerInterface {
 public:
  ObservedWorker(std::string task, std::shared_ptr<WorkerInterface> target);

  struct RunGraphOutcome {
    absl::Status status;
    tensorflow::RunGraphResponse response;
  };
  // The outcome of this task's RunGraph of `step_id` (the last one, for a
  // partial run's calls); false when none completed by `deadline`.
  bool WaitForRunGraph(int64_t step_id, absl::Time deadline,
                       RunGraphOutcome* outcome);
  // Drops the recorded outcome of `step_id`, before another call of the
  // same step (a partial run's next call).
  void ForgetRunGraph(int64_t step_id);

  void set_hold_cleanups(bool hold);
  void set_shield_run_graph(bool shield);
  // Step ids of the CleanupGraph calls held so far.
  std::vector<int64_t> held_cleanups();
  // Forwards the held CleanupGraph calls to the worker and waits for them.
  absl::Status ReleaseHeldCleanups();

  void GetStatusAsync(CallOptions* opts,
                      const tensorflow::GetStatusRequest* request,
                      tensorflow::GetStatusResponse* response,
                      StatusCallback done) override;
  void CreateWorkerSessionAsync(
      CallOptions* opts, const tensorflow::CreateWorkerSessionRequest* request,
      tensorflow::CreateWorkerSessionResponse* response,
      StatusCallback done) override;
  void DeleteWorkerSessionAsync(
      CallOptions* opts, const tensorflow::DeleteWorkerSessionRequest* request,
      tensorflow::DeleteWorkerSessionResponse* response,
      StatusCallback done) override;
  void RegisterGraphAsync(CallOptions* opts,
                          const tensorflow::RegisterGraphRequest* request,
                          tensorflow::RegisterGraphResponse* response,
                          StatusCallback done) override;
  void DeregisterGraphAsync(CallOptions* opts,
                            const tensorflow::DeregisterGraphRequest* request,
                            tensorflow::DeregisterGraphResponse* response,
                            StatusCallback done) override;
  void RunGraphAsync(CallOptions* opts, const RunGraphRequestMsg* request,
                     RunGraphResponseMsg* response,
                     StatusCallback done) override;
  void CleanupGraphAsync(CallOptions* opts,
                         const tensorflow::CleanupGraphRequest* request,
                         tensorflow::CleanupGraphResponse* response,
                         StatusCallback done) override;
  void CleanupAllAsync(CallOptions* opts,
                       const tensorflow::CleanupAllRequest* request,
                       tensorflow::CleanupAllResponse* response,
                       StatusCallback done) override;
  void RecvTensorAsync(CallOptions* opts,
                       const tensorflow::RecvTensorRequest* request,
                       TensorResponse* response, StatusCallback done) override;
  void LoggingAsync(CallOptions* opts, const tensorflow::LoggingRequest* request,
                    tensorflow::LoggingResponse* response,
                    StatusCallback done) override;
  void TracingAsync(CallOptions* opts, const tensorflow::TracingRequest* request,
                    tensorflow::TracingResponse* response,
                    StatusCallback done) override;

 private:
  const std::string task_;
  const std::shared_ptr<WorkerInterface> target_;

  absl::Mutex mu_;
  bool hold_cleanups_ ABSL_GUARDED_BY(mu_) = false;
  bool shield_run_graph_ ABSL_GUARDED_BY(mu_) = false;
  std::vector<tensorflow::CleanupGraphRequest> held_ ABSL_GUARDED_BY(mu_);
  std::map<int64_t, RunGraphOutcome> run_graphs_ ABSL_GUARDED_BY(mu_);
};

}  // namespace distributed_test
}  // namespace tributary

#endif  // TRIBUTARY_TESTS_DISTRIBUTED_OBSERVED_WORKER_H_
