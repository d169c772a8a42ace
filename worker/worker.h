#ifndef TRIBUTARY_WORKER_WORKER_H_
#define TRIBUTARY_WORKER_WORKER_H_

// One worker task: every WorkerService method (TensorFlow's Worker), called
// in process (a one-process cluster, the master's tests) or behind the gRPC
// service adapter (common/rpc/grpc_worker_service.h). See
// docs/architecture.md, "The worker".
//
//  * GetStatus: this task's devices with their incarnations.
//  * CreateWorkerSession / DeleteWorkerSession: session_mgr.h.
//  * RegisterGraph / DeregisterGraph: the session's GraphMgr (second split
//    by device, one executor per device).
//  * RunGraph: one step of a registered graph. The step's rendezvous
//    (RpcRemoteRendezvous, one per step_id on this worker) gets the
//    request's `send` feeds before the executors start; after they finish
//    each `recv_key` is answered from it, in order. Partial runs
//    (is_partial): the first call of a step starts its executors, which
//    keep running across calls; every call sends its feeds and waits only
//    for its own recv_keys; the call with is_last_partial_run also waits
//    for the executors. exec_opts.record_timeline / record_costs return the
//    step's StepStats (also kept for Logging); record_partition_graphs the
//    device partitions. With store_errors_in_response_body an error goes
//    into the response (status_code, status_error_message) and the call
//    itself succeeds, as in TensorFlow.
//  * Bounds: the call's deadline bounds the step (past it the step is
//    cancelled: DeadlineExceeded); CallOptions::StartCancel() cancels it
//    (Cancelled); CleanupGraph(step_id) aborts it (Aborted). Each of them
//    aborts the step's rendezvous, which cancels its RecvTensor calls to
//    peers and fails peers' RecvTensor calls waiting here, so no _Recv on
//    any task is left waiting.
//  * CleanupGraph: aborts and forgets the step's rendezvous and any
//    partial-run state. The master calls it for every step once all
//    partitions have finished (a finished RunGraph cannot drop its
//    rendezvous itself: peers may still be fetching what it sent). A step
//    cleaned up here is remembered for a while, so a late RecvTensor or
//    RunGraph for it fails at once (Aborted) instead of waiting.
//  * CleanupAll: clears resource containers, those named, or the default
//    one when none is named (TensorFlow's rule), in the shared resources and
//    in every isolated session's.
//  * RecvTensor: recv-driven; answers from the step's rendezvous (created if
//    the step has not started here yet) when the local tensor is there,
//    without holding a thread. The key's source device must be one of
//    this task's devices with the same incarnation (a stale one means the
//    asker talks to a restarted worker: Aborted naming the device). Bounded
//    by the call's deadline and cancellation and by the step's cleanup.
//  * Logging: enable/disable RPC logging (while on, every step records its
//    stats and RecvTensor transfers), clear, fetch recent steps' stats.
//  * Tracing: Unimplemented (no profiler; see TracingAsync).
//
// Thread-safe. The destructor cancels everything still running and waits
// for it to unwind.

#include <atomic>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "common/distributed/deadline_timer.h"
#include "common/distributed/worker_interface.h"
#include "common/kernel/cancellation.h"
#include "common/rendezvous/rendezvous_mgr.h"
#include "worker/rpc_remote_rendezvous.h"
#include "worker/session_holds.h"
#include "worker/session_mgr.h"
#include "worker/step_stats_log.h"
#include "worker/worker_env.h"

namespace tributary {

class Worker : public WorkerInterface {
 public:
  // `env` (and what it points to) must outlive the worker.
  explicit Worker(const WorkerEnv* env);
  ~Worker() override;

  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

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
  void LoggingAsync(CallOptions* opts,
                    const tensorflow::LoggingRequest* request,
                    tensorflow::LoggingResponse* response,
                    StatusCallback done) override;
  void TracingAsync(CallOptions* opts,
                    const tensorflow::TracingRequest* request,
                    tensorflow::TracingResponse* response,
                    StatusCallback done) override;
  // Held until the session is deleted; unheld for longer than
  // WorkerEnv::orphaned_session_grace, the session is deleted
  // (worker/session_holds.h).
  void HoldWorkerSessionAsync(
      CallOptions* opts, const tensorflow::DeleteWorkerSessionRequest* request,
      tensorflow::DeleteWorkerSessionResponse* response,
      StatusCallback done) override;

  // Shutdown: fails every running step and waiting RecvTensor with
  // `status` (Unavailable "worker is shutting down" by default) and refuses
  // new RunGraph calls with it. The daemon calls it after the grace period.
  void AbortAll(const absl::Status& status);
  // Shutdown, first: completes the masters' session holds with `status`, so
  // that the server's shutdown does not wait for them (they never end by
  // themselves).
  void ReleaseHolds(const absl::Status& status);

  // RunGraph / RecvTensor calls that have not finished yet (a call counts
  // until just after its `done` has returned).
  int NumCallsInFlight() const;
  // Waits until no call is in flight and no step state is left, or
  // `deadline`; true when idle.
  bool WaitUntilIdle(absl::Time deadline) const;

  const WorkerEnv* env() const { return env_; }
  SessionMgr* session_mgr() { return &session_mgr_; }
  RendezvousMgr* rendezvous_mgr() { return &rendezvous_mgr_; }
  StepStatsLog* step_stats_log() { return &step_stats_log_; }
  // Partial runs whose state is kept (for tests).
  int NumPartialRuns() const;

  // How many cleaned-up step ids are remembered (see CleanupGraph).
  static constexpr size_t kCleanedStepsRemembered = 4096;

  struct StepState;

 private:
  void DoRunGraph(CallOptions* opts, const RunGraphRequestMsg* request,
                  RunGraphResponseMsg* response, StatusCallback done);
  void DoPartialRunGraph(CallOptions* opts, const RunGraphRequestMsg* request,
                         RunGraphResponseMsg* response, StatusCallback done);

  // Creates and registers the state of a step of the request's graph; for
  // a partial run, finds the step's state when an earlier call created it
  // (*created says which).
  absl::StatusOr<std::shared_ptr<StepState>> NewStep(
      const tensorflow::RunGraphRequest& request, bool* created);
  void EndStep(const std::shared_ptr<StepState>& step);
  // Cancels the step and aborts its rendezvous with `status`.
  void AbortStep(const std::shared_ptr<StepState>& step,
                 const absl::Status& status);
  // Arms the call's deadline and cancel hook against `step`; the returned
  // timer id goes to DisarmCall.
  DeadlineTimer::Id ArmCall(CallOptions* opts,
                            const std::shared_ptr<StepState>& step,
                            const char* what);
  void DisarmCall(CallOptions* opts, DeadlineTimer::Id timer);
  // The step's final status: the deadline or the caller's cancellation
  // when they ended it, else the executors'.
  absl::Status StepStatus(const StepState& step,
                          const absl::Status& executors) const;
  // Step stats and partition graphs into the response, stats to the log.
  void ReportStats(StepState* step, const tensorflow::ExecutorOpts& exec_opts,
                   tensorflow::RunGraphResponse* response);
  bool WasCleanedUp(int64_t step_id) const;

  void BeginCall();
  void EndCall();
  void StepStateCreated();
  void StepStateDestroyed();

  const WorkerEnv* const env_;
  // Parent of every session's steps; AbortAll and the destructor fire it.
  CancellationManager cancellation_manager_;
  DeadlineTimer timer_;
  StepStatsLog step_stats_log_;
  RendezvousMgr rendezvous_mgr_;
  SessionMgr session_mgr_;
  // After session_mgr_: its thread deletes sessions there, so it must stop
  // first.
  SessionHolds holds_;

  mutable absl::Mutex mu_;
  absl::Status shutdown_status_ ABSL_GUARDED_BY(mu_);
  int calls_in_flight_ ABSL_GUARDED_BY(mu_) = 0;
  // StepStates alive (held by calls, timers, executors' callbacks). Its own
  // lock: a StepState may be created or destroyed while mu_ is held.
  mutable absl::Mutex live_mu_;
  int live_steps_ ABSL_GUARDED_BY(live_mu_) = 0;
  // Running steps by step_id (several graphs of one step may run here).
  absl::flat_hash_map<int64_t, std::vector<std::shared_ptr<StepState>>>
      active_steps_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<int64_t, std::shared_ptr<StepState>> partial_runs_
      ABSL_GUARDED_BY(mu_);
  std::deque<int64_t> cleaned_order_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_set<int64_t> cleaned_steps_ ABSL_GUARDED_BY(mu_);
};

}  // namespace tributary

#endif  // TRIBUTARY_WORKER_WORKER_H_
