#ifndef TRIBUTARY_COMMON_DISTRIBUTED_TESTING_FAKE_WORKER_H_
#define TRIBUTARY_COMMON_DISTRIBUTED_TESTING_FAKE_WORKER_H_

// The one test double of a worker: a WorkerInterface that records every
// request, keeps the sessions and graph handles it was given (so tests can
// check that nothing leaks), and answers as the test says. The master's tests
// call it directly; the gRPC tests serve it over a real WorkerService. It sits
// at the bottom of the distributed layer so that every layer above may use it.
//
// Answers: GetStatus reports the fake's devices (CPU:0..n-1 of its task, each
// with a random incarnation). CreateWorkerSession and RegisterGraph succeed
// unless told otherwise; RegisterGraph and RunGraph fail with Aborted for an
// unknown session or graph handle, as a real worker does. RunGraph by default
// answers each recv_key with the tensor fed under the same key in the same
// request (a fetch of a feed), else with the value set by
// SetFetchValue(<tensor name in the key>), else fails with Internal.
// RecvTensor is Unimplemented unless the test gives a handler. Logging
// answers an empty StepStats entry for every fetch_step_id.
//
// Threads: every call's `done` runs on the calling thread, unless
// AnswerFromAnotherThread(true) or a test's handler defers it. "Hanging"
// behaviours wait until the caller cancels the call (the CallOptions cancel
// hook); a hanging call that ignores cancellation is completed with Cancelled
// when the fake is destroyed. CallOptions may be null for direct calls.

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
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
  // Runs every later call's `done` on a new thread of its own, as a real
  // worker may answer from any thread; false (the default) runs it inline.
  void AnswerFromAnotherThread(bool on);
  // Runs on the calling thread at the start of every call, with the
  // WorkerService method's name ("RegisterGraph"): lets a test see on which
  // thread its calls are served.
  using CallObserver = std::function<void(absl::string_view method)>;
  void SetCallObserver(CallObserver observer);

  using RunGraphHandler =
      std::function<void(CallOptions* opts, const RunGraphRequestMsg& request,
                         RunGraphResponseMsg* response, StatusCallback done)>;
  // Replaces the default RunGraph (after the graph-handle check).
  void SetRunGraphHandler(RunGraphHandler handler);
  // Every RunGraph fails at once with `error`.
  void FailRunGraphWith(absl::Status error);
  void SetFetchValue(const std::string& tensor_name, Tensor value);
  // The default behaviour, for handlers that only sometimes differ.
  void DefaultRunGraph(const RunGraphRequestMsg& request,
                       RunGraphResponseMsg* response, StatusCallback done);
  // Every later RunGraph hangs until cancelled; `started` (may be null, not
  // owned) is notified as each one starts hanging.
  void HangRunGraphUntilCancelled(absl::Notification* started = nullptr);

  using RecvTensorHandler = std::function<void(
      CallOptions* opts, const tensorflow::RecvTensorRequest& request,
      TensorResponse* response, StatusCallback done)>;
  void SetRecvTensorHandler(RecvTensorHandler handler);

  // Defers `done` until the call is cancelled (then Cancelled), for
  // handlers; counted by num_hung_calls() / num_cancelled_calls().
  void HangUntilCancelled(CallOptions* opts, StatusCallback done);
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
  // The deadline the latest call's CallOptions carried
  // (absl::InfiniteFuture() for none, for null options, before any call).
  absl::Time last_deadline() const;
  // Calls that started hanging until cancelled, and those of them whose
  // cancellation arrived; the waits return false if `timeout` passes first.
  int num_hung_calls() const;
  int num_cancelled_calls() const;
  bool WaitForHungCalls(int n, absl::Duration timeout) const;
  bool WaitForCancelledCalls(int n, absl::Duration timeout) const;

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
  // What every call does first: tells the observer, records the deadline,
  // and returns `done` as it must run (inline or from another thread).
  StatusCallback Begin(absl::string_view method, CallOptions* opts,
                       StatusCallback done);

  // Counts of hanging calls, shared with their cancel hooks, which the
  // caller may run after the fake is gone.
  struct HangCounts;

  const std::string task_;
  std::vector<tensorflow::DeviceAttributes> devices_;
  const std::shared_ptr<HangCounts> hangs_;

  mutable absl::Mutex mu_;
  Mode get_status_mode_ ABSL_GUARDED_BY(mu_) = Mode::kAnswer;
  absl::Status get_status_error_ ABSL_GUARDED_BY(mu_);
  absl::Status create_session_error_ ABSL_GUARDED_BY(mu_);
  absl::Status register_error_ ABSL_GUARDED_BY(mu_);
  std::vector<tensorflow::DeviceAttributes> reported_ ABSL_GUARDED_BY(mu_);
  bool answer_from_another_thread_ ABSL_GUARDED_BY(mu_) = false;
  CallObserver call_observer_ ABSL_GUARDED_BY(mu_);
  RunGraphHandler run_graph_handler_ ABSL_GUARDED_BY(mu_);
  RecvTensorHandler recv_tensor_handler_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, Tensor> fetch_values_ ABSL_GUARDED_BY(mu_);
  std::vector<StatusCallback> hanging_ ABSL_GUARDED_BY(mu_);

  int num_get_status_ ABSL_GUARDED_BY(mu_) = 0;
  int next_graph_ ABSL_GUARDED_BY(mu_) = 0;
  absl::Time last_deadline_ ABSL_GUARDED_BY(mu_) = absl::InfiniteFuture();
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

#endif  // TRIBUTARY_COMMON_DISTRIBUTED_TESTING_FAKE_WORKER_H_
