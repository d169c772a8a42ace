#ifndef TRIBUTARY_WORKER_WORKER_SERVER_H_
#define TRIBUTARY_WORKER_WORKER_SERVER_H_

// One worker task as an object (TensorFlow's GrpcServer for a worker): its
// CPU devices, inter-op pool, the cache that reaches its peers, the Worker
// and the gRPC WorkerService over it. tributary-worker is flags, logging
// and signals around one of these; tests embed it the same way.
//
//   auto server = WorkerServer::Create(cluster, options);  // devices, Worker
//   (*server)->Start();          // binds; port 0 picks one
//   (*server)->address();        // "127.0.0.1:40123"
//   ... (*server)->worker() may also be called in process ...
//   (*server)->Stop(deadline);   // graceful, see Stop()
//
// Options are the single place for a worker server's settings; what later
// features need (TLS, metrics, health) belongs there too.
//
// Not started, the object is an in-process worker (tests, one-process
// clusters): worker() works, nothing listens. Thread-safety: Start and Stop
// may come from any thread (one at a time, see server_lifecycle.h); the
// accessors from any thread, worker() not during Stop.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "common/cluster/cluster_spec.h"
#include "common/daemon/server_lifecycle.h"
#include "common/device/device_mgr.h"
#include "common/distributed/resource_limits.h"
#include "common/distributed/worker_cache.h"
#include "common/framework/file_access_policy.h"
#include "common/rpc/grpc_channel.h"
#include "common/rpc/rpc_service.h"
#include "common/rpc/transport_security.h"
#include "common/runtime/executor/inter_op_thread_pool.h"
#include "worker/worker.h"
#include "worker/worker_env.h"

namespace tributary {

// --session-memory-budget's default: three quarters of the memory this
// process may use (physical memory, or the cgroup's memory.max when lower),
// so one session's runaway step fails with ResourceExhausted long before
// the kernel's OOM killer picks the worker. 0 when unknown.
int64_t DefaultSessionMemoryBudget();

struct WorkerServerOptions {
  // Which task of the cluster this is (tributary-worker --job/--task).
  std::string job;
  int task = -1;
  // Where to listen, host:port (port 0: any free port); empty: the task's
  // address in the cluster spec (--listen).
  std::string listen_address;
  // The inter-op pool's threads; 0: one per schedulable core
  // (--inter-op-threads).
  int inter_op_threads = 0;
  // Threads each CPU device uses inside a kernel; 0: one per schedulable
  // core (--intra-op-threads).
  int intra_op_threads = 0;
  // CPU devices /job:J/replica:0/task:T/device:CPU:0..N-1 (--cpu-devices).
  int cpu_devices = 1;
  // Largest gRPC message in bytes, sent or received; -1: unlimited
  // (--max-message-size).
  int64_t max_message_size = kDefaultMaxMessageBytes;
  // Limits against abuse (docs/limits.md). Largest GraphDef RegisterGraph
  // accepts, serialised bytes; 0: unlimited (--max-graph-bytes).
  int64_t max_graph_bytes = kDefaultMaxGraphBytes;
  // The same in nodes, functions' included (--max-graph-nodes).
  int64_t max_graph_nodes = kDefaultMaxGraphNodes;
  // Bytes one worker session's kernels may hold at once; 0: unlimited;
  // negative: DefaultSessionMemoryBudget() (--session-memory-budget).
  int64_t session_memory_budget = -1;
  // Directories SaveV2/RestoreV2/MergeV2Checkpoints may use; empty:
  // anywhere (--allowed-path). Each must exist.
  std::vector<std::string> allowed_paths;
  // What Stop() without a deadline gives running steps (--grace-period).
  absl::Duration grace_period = absl::Seconds(10);
  // How long a worker session whose master stopped holding it is kept
  // (--orphaned-session-grace; worker/session_holds.h).
  absl::Duration orphaned_session_grace = absl::Seconds(30);
  // Mutual TLS for WorkerService, served and called
  // (--tls-cert/--tls-key/--tls-ca); null: plaintext.
  std::shared_ptr<TransportSecurity> security;
  // How the worker reaches its peers instead of a gRPC cache over the
  // cluster spec: for clusters whose addresses are known only once every
  // server bound (tests) or that live in one process. Not owned; must
  // outlive the server. A master's own view of the cluster still gets a
  // gRPC cache of its own when it differs from the spec.
  WorkerCacheInterface* worker_cache = nullptr;
};

class WorkerServer {
 public:
  // Builds the devices and the Worker; listens on nothing yet.
  // InvalidArgument when job/task is not a task of `cluster` (naming
  // both); the device factory's error when the devices cannot be made.
  static absl::StatusOr<std::unique_ptr<WorkerServer>> Create(
      const ClusterSpec& cluster, WorkerServerOptions options);

  // Stop(absl::Now()): steps still running are aborted at once.
  ~WorkerServer();
  WorkerServer(const WorkerServer&) = delete;
  WorkerServer& operator=(const WorkerServer&) = delete;

  // Serves /tensorflow.WorkerService/* on the listen address. GrpcServer's
  // error (Unavailable naming the address) when it cannot be bound. Once.
  absl::Status Start();

  // Graceful stop, what tributary-worker does after SIGTERM: gRPC stops
  // accepting calls; running steps may finish until `deadline`; then
  // whatever still runs is aborted (Unavailable "Worker T is shutting
  // down", logged as a warning with the number of calls) and the worker
  // releases every session, graph and resource. Idempotent; the server
  // cannot be started again.
  void Stop(absl::Time deadline);
  // Stop(now + options.grace_period).
  void Stop();

  // "/job:J/replica:0/task:T".
  const std::string& task_name() const { return task_name_; }
  // The address given to Start (the option, else the spec's).
  const std::string& listen_address() const { return listen_address_; }
  // After Start: the address actually bound ("127.0.0.1:40123").
  std::string bound_address() const { return serving_->bound_address(); }
  const ClusterSpec& cluster() const { return cluster_; }
  const WorkerServerOptions& options() const { return options_; }
  // The budget in force (options' value, or the default it stands for);
  // 0: unlimited.
  int64_t session_memory_budget() const { return env_.session_memory_budget; }
  const FileAccessPolicy& file_access() const { return file_access_; }

  // The in-process worker; null after Stop.
  Worker* worker() const { return worker_.get(); }
  const DeviceMgr* device_mgr() const { return device_mgr_.get(); }
  int num_inter_op_threads() const { return pool_->num_threads(); }

 private:
  WorkerServer(const ClusterSpec& cluster, WorkerServerOptions options);
  absl::Status Init();

  const ClusterSpec cluster_;
  const WorkerServerOptions options_;
  std::string task_name_;
  std::string listen_address_;

  // Construction order is the dependency order; Stop releases in reverse.
  // The network thread serves this task and makes its calls to the others
  // (common/rpc/rpc_loop.h), so it comes first.
  std::unique_ptr<ServerLifecycle> serving_;
  std::unique_ptr<DeviceMgr> device_mgr_;
  std::unique_ptr<WorkerCacheInterface> peers_;
  std::unique_ptr<InterOpThreadPool> pool_;
  FileAccessPolicy file_access_;
  WorkerEnv env_;
  std::unique_ptr<Worker> worker_;
  std::unique_ptr<RpcService> service_;
  // /tributary.WorkerSessionHolds/HoldWorkerSession.
  std::unique_ptr<RpcService> holds_service_;
  // /tributary.Metrics/GetMetrics (tributary top, through the master).
  std::unique_ptr<RpcService> metrics_service_;
  // Allocators and the inter-op pool, in metrics::Default().
  int state_collector_ = -1;
};

}  // namespace tributary

#endif  // TRIBUTARY_WORKER_WORKER_SERVER_H_
