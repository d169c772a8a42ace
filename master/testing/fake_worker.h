#ifndef TRIBUTARY_MASTER_TESTING_FAKE_WORKER_H_
#define TRIBUTARY_MASTER_TESTING_FAKE_WORKER_H_

// A WorkerInterface for the master's unit tests: it records every request,
// keeps the sessions and graph handles it was given (so tests can check that
// nothing leaks), and answers as the test says. Everything completes on the
// calling thread unless the test's handler defers it.
//
// RunGraph by default answers each recv_key with the tensor fed under the
// same key in the same request (a fetch of a feed), else with the value set
// by SetFetchValue(<tensor name in the key>), else fails with Internal.
// "Hanging" behaviours wait until the master cancels the call (the
// CallOptions cancel hook); a hanging call that ignores cancellation is
// completed with Cancelled when the fake is destroyed.

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "common/distributed/worker_interface.h"
#include "common/framework/tensor.h"

namespace tributary {

class FakeWorker : public WorkerInterface {
 public:
  // `task`: "/job:worker/replica:0/task:0". Devices CPU:0..num_cpus-1 with
  // random incarnations.
  explicit FakeWorker(std::string task, int num_cpus = 1);
  ~FakeWorker() override;

  const std::string& task() const { return task_; }
  const std::vector<tensorflow::DeviceAttributes>& devices() const {
    return devices_;
  }
  // Incarnation of the device named `device` (full name); 0 when unknown.
  uint64_t incarnation(const std::string& device) const;

  // --- Behaviour.
  enum class Mode { kAnswer, kFail, kHang, kHangIgnoringCancel };
  void SetGetStatusMode(Mode mode, absl::Status error = absl::OkStatus());
  void SetCreateWorkerSessionError(absl::Status error);
  void SetRegisterGraphError(absl::Status error);
  // Replaces what GetStatus reports (e.g. another task's devices).
  void SetReportedDevices(std::vector<tensorflow::DeviceAttributes> devices);

  using RunGraphHandler =
      std::function<void(CallOptions* opts, const RunGraphRequestMsg& request,
                         RunGraphResponseMsg* response, StatusCallback done)>;
  void SetRunGraphHandler(RunGraphHandler handler);
  // Every RunGraph fails at once with `error`.
  void FailRunGraphWith(absl::Status error);
  void SetFetchValue(const std::string& tensor_name, Tensor value);
  // The default behaviour, for handlers that only sometimes differ.
  void DefaultRunGraph(const RunGraphRequestMsg& request,
                       RunGraphResponseMsg* response, StatusCallback done);
  // Defers `done` until the call is cancelled (then Cancelled).
  void HangUntilCancelled(CallOptions* opts, StatusCallback done);
  // Every later RunGraph hangs until cancelled; `started` (may be null, not
  // owned) is notified as each one starts hanging.
  void HangRunGraphUntilCancelled(absl::Notification* started = nullptr);
  // Defers `done` until the fake is destroyed.
  void HangForever(StatusCallback done);

  // --- Records.
  int num_get_status() const;
  int num_register_graph() const;
  int num_run_graph() const;
  std::vector<tensorflow::CreateWorkerSessionRequest> create_session_requests()
      const;
  std::vector<tensorflow::RegisterGraphRequest> register_requests() const;
  std::vector<RunGraphRequestMsg> run_graph_requests() const;
  std::vector<int64_t> cleanup_step_ids() const;
  std::vector<std::vector<std::string>> cleanup_all_containers() const;
  // Worker sessions created and not deleted; graphs registered and not
  // deregistered.
  std::set<std::string> live_sessions() const;
  std::set<std::string> live_graphs() const;

  // --- WorkerInterface.
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
  std::vector<tensorflow::DeviceAttributes> devices_;

  mutable absl::Mutex mu_;
  Mode get_status_mode_ ABSL_GUARDED_BY(mu_) = Mode::kAnswer;
  absl::Status get_status_error_ ABSL_GUARDED_BY(mu_);
  absl::Status create_session_error_ ABSL_GUARDED_BY(mu_);
  absl::Status register_error_ ABSL_GUARDED_BY(mu_);
  std::vector<tensorflow::DeviceAttributes> reported_ ABSL_GUARDED_BY(mu_);
  RunGraphHandler run_graph_handler_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, Tensor> fetch_values_ ABSL_GUARDED_BY(mu_);
  std::vector<StatusCallback> hanging_ ABSL_GUARDED_BY(mu_);

  int num_get_status_ ABSL_GUARDED_BY(mu_) = 0;
  int next_graph_ ABSL_GUARDED_BY(mu_) = 0;
  std::vector<tensorflow::CreateWorkerSessionRequest> create_requests_
      ABSL_GUARDED_BY(mu_);
  std::vector<tensorflow::RegisterGraphRequest> register_requests_
      ABSL_GUARDED_BY(mu_);
  std::vector<RunGraphRequestMsg> run_requests_ ABSL_GUARDED_BY(mu_);
  std::vector<int64_t> cleanup_steps_ ABSL_GUARDED_BY(mu_);
  std::vector<std::vector<std::string>> cleanup_all_ ABSL_GUARDED_BY(mu_);
  std::set<std::string> sessions_ ABSL_GUARDED_BY(mu_);
  std::set<std::string> graphs_ ABSL_GUARDED_BY(mu_);
};

}  // namespace tributary

#endif  // TRIBUTARY_MASTER_TESTING_FAKE_WORKER_H_
