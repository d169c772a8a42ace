#ifndef TRIBUTARY_COMMON_DISTRIBUTED_WORKER_INTERFACE_H_
#define TRIBUTARY_COMMON_DISTRIBUTED_WORKER_INTERFACE_H_

// How the master (and a worker fetching tensors from a peer) talks to a
// worker, whether it runs in this process or across the network: every
// WorkerService method as an asynchronous call, plus synchronous wrappers.
// Implementations: worker/worker.h (the worker itself, called in process:
// one-process clusters and the master's unit tests) and
// common/rpc/grpc_remote_worker.h (a worker reached over gRPC).
//
// Contract for every *Async method:
//  * `request`, `response` and `opts` are not owned and must stay valid
//    until `done` has run; `opts` may be null (no deadline, no cancel).
//  * `done` runs exactly once, possibly before the method returns, possibly
//    on another thread, with OK or the call's error (TensorFlow's codes;
//    a remote call adds which task failed, e.g. "... (worker
//    /job:worker/replica:0/task:1 at 127.0.0.1:4321)").
//  * Nothing waits without a bound: a remote call ends by its deadline
//    (DeadlineExceeded) or when opts->StartCancel() runs (Cancelled); an
//    unreachable task gives Unavailable.

#include <functional>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "common/distributed/call_options.h"
#include "common/distributed/tensor_messages.h"
#include "protos/worker.pb.h"

namespace tributary {

using StatusCallback = std::function<void(const absl::Status&)>;

class WorkerInterface {
 public:
  virtual ~WorkerInterface();

  // Whether the transport knows it is connected to the task right now (a
  // gRPC channel that is READY). A task with a live connection is up,
  // however slowly it answers: discovery then waits for it as for any task
  // (master/task_liveness.h). False when unknown (in-process workers,
  // fakes), which leaves the decision to the liveness rules alone.
  virtual bool HasLiveConnection() const { return false; }

  virtual void GetStatusAsync(CallOptions* opts,
                              const tensorflow::GetStatusRequest* request,
                              tensorflow::GetStatusResponse* response,
                              StatusCallback done) = 0;
  virtual void CreateWorkerSessionAsync(
      CallOptions* opts, const tensorflow::CreateWorkerSessionRequest* request,
      tensorflow::CreateWorkerSessionResponse* response,
      StatusCallback done) = 0;
  virtual void DeleteWorkerSessionAsync(
      CallOptions* opts, const tensorflow::DeleteWorkerSessionRequest* request,
      tensorflow::DeleteWorkerSessionResponse* response,
      StatusCallback done) = 0;
  virtual void RegisterGraphAsync(
      CallOptions* opts, const tensorflow::RegisterGraphRequest* request,
      tensorflow::RegisterGraphResponse* response, StatusCallback done) = 0;
  virtual void DeregisterGraphAsync(
      CallOptions* opts, const tensorflow::DeregisterGraphRequest* request,
      tensorflow::DeregisterGraphResponse* response, StatusCallback done) = 0;
  // Tensors travel in request->send / response->recv (tensor_messages.h).
  virtual void RunGraphAsync(CallOptions* opts,
                             const RunGraphRequestMsg* request,
                             RunGraphResponseMsg* response,
                             StatusCallback done) = 0;
  virtual void CleanupGraphAsync(CallOptions* opts,
                                 const tensorflow::CleanupGraphRequest* request,
                                 tensorflow::CleanupGraphResponse* response,
                                 StatusCallback done) = 0;
  virtual void CleanupAllAsync(CallOptions* opts,
                               const tensorflow::CleanupAllRequest* request,
                               tensorflow::CleanupAllResponse* response,
                               StatusCallback done) = 0;
  // Waits (without holding a thread) until the step's sender has produced
  // the tensor under request->rendezvous_key, then answers with it.
  virtual void RecvTensorAsync(CallOptions* opts,
                               const tensorflow::RecvTensorRequest* request,
                               TensorResponse* response,
                               StatusCallback done) = 0;
  virtual void LoggingAsync(CallOptions* opts,
                            const tensorflow::LoggingRequest* request,
                            tensorflow::LoggingResponse* response,
                            StatusCallback done) = 0;
  virtual void TracingAsync(CallOptions* opts,
                            const tensorflow::TracingRequest* request,
                            tensorflow::TracingResponse* response,
                            StatusCallback done) = 0;

  // Tributary's own method, not TensorFlow's (served as
  // /tributary.WorkerSessionHolds/HoldWorkerSession; worker/session_holds.h):
  // stays open while the caller holds worker session
  // request->session_handle and completes OK when the session is deleted.
  // If the caller goes away without deleting it, the worker deletes it
  // after a grace period. The request is TensorFlow's message naming a
  // worker session, so the wire schema stays TensorFlow's. NotFound for an
  // unknown session. The default: Unimplemented (workers that cannot).
  virtual void HoldWorkerSessionAsync(
      CallOptions* opts, const tensorflow::DeleteWorkerSessionRequest* request,
      tensorflow::DeleteWorkerSessionResponse* response, StatusCallback done);

  // Synchronous wrappers: start the call with a deadline of now + `timeout`
  // (non-positive: none) and wait for `done`.
  absl::Status GetStatus(const tensorflow::GetStatusRequest& request,
                         tensorflow::GetStatusResponse* response,
                         absl::Duration timeout);
  absl::Status CreateWorkerSession(
      const tensorflow::CreateWorkerSessionRequest& request,
      tensorflow::CreateWorkerSessionResponse* response,
      absl::Duration timeout);
  absl::Status DeleteWorkerSession(
      const tensorflow::DeleteWorkerSessionRequest& request,
      tensorflow::DeleteWorkerSessionResponse* response,
      absl::Duration timeout);
  absl::Status RegisterGraph(const tensorflow::RegisterGraphRequest& request,
                             tensorflow::RegisterGraphResponse* response,
                             absl::Duration timeout);
  absl::Status DeregisterGraph(
      const tensorflow::DeregisterGraphRequest& request,
      tensorflow::DeregisterGraphResponse* response, absl::Duration timeout);
  absl::Status RunGraph(const RunGraphRequestMsg& request,
                        RunGraphResponseMsg* response, absl::Duration timeout);
  absl::Status CleanupGraph(const tensorflow::CleanupGraphRequest& request,
                            tensorflow::CleanupGraphResponse* response,
                            absl::Duration timeout);
  absl::Status CleanupAll(const tensorflow::CleanupAllRequest& request,
                          tensorflow::CleanupAllResponse* response,
                          absl::Duration timeout);
  absl::Status RecvTensor(const tensorflow::RecvTensorRequest& request,
                          TensorResponse* response, absl::Duration timeout);
  absl::Status Logging(const tensorflow::LoggingRequest& request,
                       tensorflow::LoggingResponse* response,
                       absl::Duration timeout);
  absl::Status Tracing(const tensorflow::TracingRequest& request,
                       tensorflow::TracingResponse* response,
                       absl::Duration timeout);
};

}  // namespace tributary

#endif  // TRIBUTARY_COMMON_DISTRIBUTED_WORKER_INTERFACE_H_
