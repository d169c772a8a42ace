#ifndef TRIBUTARY_MASTER_MASTER_H_
#define TRIBUTARY_MASTER_MASTER_H_

// The master's service logic (TensorFlow's Master): every MasterService
// method over a WorkerCacheInterface, transport-free. The gRPC adapter
// (grpc_master_service.h) and in-process callers (tests, one-process
// clusters) call these methods directly.
//
//  * CreateSession: device_filters pick the tasks; GetStatus on each of
//    them concurrently (bounded by operation_timeout_in_ms, else the
//    discovery timeout; a task that does not answer is Unavailable naming
//    it); a MasterSession is placed over their devices and a worker session
//    created on each task. The handle is a random hex string.
//  * An unknown handle is Aborted "Session <h> is not found." (TensorFlow's
//    code: a client sees its session was lost, e.g. collected as idle).
//  * RunStep with store_errors_in_response_body answers OK with the error
//    in status_code / status_error_message, as TensorFlow's master does.
//  * ListDevices: the session's devices with a handle; without one, every
//    device of every task (discovery as in CreateSession).
//  * Reset: closes every session, then CleanupAll(containers) on every task
//    the request's device_filters admit.
//  * A request_id seen before (RunStep, PartialRunSetup, MakeCallable,
//    RunCallable) is Aborted: the client retried a request that arrived.
//  * Sessions idle (no call running, none begun or ended) for longer than
//    idle_session_timeout are closed by a background thread.
//
// Every method but RunStepAsync is blocking; all are thread-safe. Methods
// taking a CallOptions honour its deadline and cancellation (may be null).

#include <map>
#include <memory>
#include <string>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "common/cluster/cluster_spec.h"
#include "common/distributed/call_options.h"
#include "common/distributed/resource_limits.h"
#include "common/distributed/worker_cache.h"
#include "common/metrics/metrics.h"
#include "common/metrics/step_metrics.h"
#include "master/master_env.h"
#include "master/master_messages.h"
#include "master/master_session.h"
#include "master/recent_request_ids.h"
#include "protos/master.pb.h"

namespace tributary {

struct MasterOptions {
  // Not owned; must outlive the master.
  WorkerCacheInterface* worker_cache = nullptr;
  // Task addresses for messages and the workers' ServerDef; may be empty.
  ClusterSpec cluster;
  absl::Duration discovery_timeout = absl::Seconds(30);
  // After the master starts, how long a task that never answered is still
  // waited for as "starting" (master/task_liveness.h); later, a task that
  // does not answer is down and discovery fails fast with Aborted.
  absl::Duration task_startup_window = absl::Seconds(30);
  absl::Duration control_timeout = absl::Seconds(30);
  absl::Duration cancel_grace = absl::Seconds(10);
  // Sessions idle longer than this are closed; zero or negative: never.
  absl::Duration idle_session_timeout = absl::Hours(1);
  // How often idle sessions are looked for; zero: a quarter of the idle
  // timeout, between 10 ms and 60 s.
  absl::Duration gc_interval = absl::ZeroDuration();

  // Limits against abuse (docs/limits.md); each <= 0 means unlimited.
  // Going over one is ResourceExhausted naming the limit's flag.
  // Largest GraphDef of CreateSession, of an ExtendSession, and of a
  // session's graph after ExtendSession, in serialised bytes
  // (--max-graph-bytes).
  int64_t max_graph_bytes = 0;
  // The same in nodes, functions' included (--max-graph-nodes).
  int64_t max_graph_nodes = 0;
  // Sessions open at once, those being created included (--max-sessions).
  int64_t max_sessions = 0;
  // Steps (RunStep, RunCallable) in flight at once per client, a client
  // being CallOptions::client() (--max-steps-per-client).
  int64_t max_steps_per_client = 0;
  // Steps in flight at once per session (--max-steps-per-session).
  int64_t max_steps_per_session = 0;
};

class Master {
 public:
  explicit Master(MasterOptions options);
  // Shutdown(ZeroDuration()) if not done yet.
  ~Master();
  Master(const Master&) = delete;
  Master& operator=(const Master&) = delete;

  absl::Status CreateSession(CallOptions* opts,
                             const tensorflow::CreateSessionRequest& request,
                             tensorflow::CreateSessionResponse* response);
  absl::Status ExtendSession(const tensorflow::ExtendSessionRequest& request,
                             tensorflow::ExtendSessionResponse* response);
  absl::Status PartialRunSetup(
      const tensorflow::PartialRunSetupRequest& request,
      tensorflow::PartialRunSetupResponse* response);
  absl::Status RunStep(CallOptions* opts, const RunStepRequestMsg& request,
                       RunStepResponseMsg* response);
  // RunStep without holding the calling thread (MasterSession::RunAsync):
  // what the gRPC service calls, so a step costs no thread hand-off.
  // `opts`, `request` and `response` must stay valid until `done` ran.
  void RunStepAsync(CallOptions* opts, const RunStepRequestMsg& request,
                    RunStepResponseMsg* response, StatusCallback done);
  absl::Status CloseSession(const tensorflow::CloseSessionRequest& request,
                            tensorflow::CloseSessionResponse* response);
  absl::Status ListDevices(CallOptions* opts,
                           const tensorflow::ListDevicesRequest& request,
                           tensorflow::ListDevicesResponse* response);
  absl::Status Reset(const tensorflow::ResetRequest& request,
                     tensorflow::ResetResponse* response);
  absl::Status MakeCallable(const tensorflow::MakeCallableRequest& request,
                            tensorflow::MakeCallableResponse* response);
  absl::Status RunCallable(CallOptions* opts,
                           const tensorflow::RunCallableRequest& request,
                           tensorflow::RunCallableResponse* response);
  absl::Status ReleaseCallable(
      const tensorflow::ReleaseCallableRequest& request,
      tensorflow::ReleaseCallableResponse* response);

  // Graceful stop: new calls get Unavailable; calls in flight get up to
  // `grace` to finish; then every session is closed (its running steps
  // cancelled) and the idle-session collector stops. Idempotent.
  void Shutdown(absl::Duration grace);

  // Closes the sessions idle since before `now - idle_session_timeout`;
  // returns how many. The background collector calls this; tests may too.
  int CollectIdleSessions(absl::Time now);

  int num_sessions() const;
  bool HasSession(const std::string& handle) const;
  const MasterEnv& env() const { return env_; }
  // Whether --max-steps-per-client is on, so servers must tell steps'
  // clients apart (CallOptions::client()).
  // --max-graph-nodes (0: unlimited), which the gRPC service also checks
  // before parsing a request.
  int64_t max_graph_nodes() const { return options_.max_graph_nodes; }
  bool limits_steps_per_client() const {
    return options_.max_steps_per_client > 0;
  }

 private:
  // The steps' metrics (tributary_master_steps_total, ...).
  static metrics::StepMetrics& StepMetricsOfMaster();
  absl::Status DoRunCallable(CallOptions* opts,
                             const tensorflow::RunCallableRequest& request,
                             tensorflow::RunCallableResponse* response);
  class CallScope;
  // A step's places among --max-steps-per-client and --max-steps-per-session.
  struct StepSlots {
    InFlightLimiter::Slot client;
    InFlightLimiter::Slot session;
  };

  // ResourceExhausted naming the limit when the caller's client or the
  // session already has its maximum of steps in flight.
  absl::StatusOr<std::shared_ptr<StepSlots>> AcquireStepSlots(
      const CallOptions* opts, const std::string& session_handle);

  absl::StatusOr<std::shared_ptr<MasterSession>> FindSession(
      const std::string& handle) const;
  void GcLoop();

  const MasterOptions options_;
  TaskLiveness liveness_;
  // Before env_ and the sessions, so both outlive every step.
  DeadlineTimer timer_;
  BlockingCallPool blocking_pool_;
  MasterEnv env_;
  RecentRequestIds request_ids_;

  mutable absl::Mutex mu_;
  std::map<std::string, std::shared_ptr<MasterSession>> sessions_
      ABSL_GUARDED_BY(mu_);
  bool shutting_down_ ABSL_GUARDED_BY(mu_) = false;
  bool gc_stop_ ABSL_GUARDED_BY(mu_) = false;
  int in_flight_ ABSL_GUARDED_BY(mu_) = 0;
  // CreateSession calls between their --max-sessions check and the
  // session's entry in sessions_.
  int64_t sessions_being_created_ ABSL_GUARDED_BY(mu_) = 0;
  // Steps in flight per client and per session (handle).
  InFlightLimiter client_steps_;
  InFlightLimiter session_steps_;
  std::thread gc_thread_;
  int sessions_collector_ = -1;  // in metrics::Default()
};

}  // namespace tributary

#endif  // TRIBUTARY_MASTER_MASTER_H_
