#ifndef TRIBUTARY_MASTER_MASTER_SERVER_H_
#define TRIBUTARY_MASTER_MASTER_SERVER_H_

// The master as an object (TensorFlow's GrpcServer for a master): the
// cache that reaches the cluster's workers, the Master, the pool its
// blocking calls run on and the gRPC MasterService over it.
// tributary-master is flags, logging and signals around one of these;
// tests embed it the same way.
//
//   auto server = MasterServer::Create(cluster, options);
//   (*server)->Start();          // binds; port 0 picks one
//   (*server)->bound_address();  // "127.0.0.1:40123", grpc://that for clients
//   (*server)->Stop(deadline);   // graceful, see Stop()
//
// Options are the single place for a master server's settings; what later
// features need (TLS, metrics, health) belongs there too. Thread-safety:
// Start and Stop may come from any thread (one at a time, see
// server_lifecycle.h); the accessors from any, master() not during Stop.

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "common/cluster/cluster_spec.h"
#include "common/daemon/server_lifecycle.h"
#include "common/distributed/resource_limits.h"
#include "common/distributed/worker_cache.h"
#include "common/rpc/grpc_channel.h"
#include "common/rpc/rpc_service.h"
#include "common/rpc/transport_security.h"
#include "master/blocking_call_pool.h"
#include "master/client_auth.h"
#include "master/master.h"

namespace tributary {

// Defaults of tributary-master's limits (docs/limits.md).
inline constexpr int64_t kDefaultMaxSessions = 1024;
inline constexpr int64_t kDefaultMaxStepsPerClient = 1024;
inline constexpr int64_t kDefaultMaxStepsPerSession = 256;

struct MasterServerOptions {
  // Where to listen, host:port (port 0: any free port) (--listen).
  std::string listen_address;
  // Largest gRPC message in bytes, sent or received, to clients and
  // workers; -1: unlimited (--max-message-size).
  int64_t max_message_size = kDefaultMaxMessageBytes;
  // Limits against abuse (docs/limits.md); 0: unlimited. Largest GraphDef
  // of a session, in serialised bytes (--max-graph-bytes).
  int64_t max_graph_bytes = kDefaultMaxGraphBytes;
  // The same in nodes, functions' included (--max-graph-nodes).
  int64_t max_graph_nodes = kDefaultMaxGraphNodes;
  // Sessions open at once (--max-sessions).
  int64_t max_sessions = kDefaultMaxSessions;
  // Steps in flight at once per client (its host, or its authenticated
  // identity) (--max-steps-per-client) and per session
  // (--max-steps-per-session).
  int64_t max_steps_per_client = kDefaultMaxStepsPerClient;
  int64_t max_steps_per_session = kDefaultMaxStepsPerSession;
  // GetStatus bound of CreateSession / ListDevices when the session config
  // gives none (--discovery-timeout).
  absl::Duration discovery_timeout = absl::Seconds(30);
  absl::Duration task_startup_window = absl::Seconds(30);
  // Bound of each control call to a worker (--control-timeout).
  absl::Duration control_timeout = absl::Seconds(30);
  // Sessions no call used for this long are closed; zero: never
  // (--idle-session-timeout).
  absl::Duration idle_session_timeout = absl::Hours(1);
  // After a step's first error, how long the master waits for the other
  // partitions to report (MasterOptions::cancel_grace).
  absl::Duration cancel_grace = absl::Seconds(10);
  // What Stop() without a deadline gives running calls (--grace-period).
  absl::Duration grace_period = absl::Seconds(10);
  // TLS for clients (a client certificate is optional) and mutual TLS to
  // the workers (--tls-cert/--tls-key/--tls-ca); null: plaintext.
  std::shared_ptr<TransportSecurity> security;
  // A second, plaintext port on a loopback address, for clients that
  // cannot speak TLS (--insecure-listen); empty: none.
  std::string insecure_listen_address;
  // Clients' tokens and roles (--auth-tokens); null: no authentication.
  std::shared_ptr<ClientAuth> auth;
  // How the master reaches the workers instead of a gRPC cache over the
  // cluster spec: in-process or fake workers (tests, one-process
  // clusters). Not owned; must outlive the server.
  WorkerCacheInterface* worker_cache = nullptr;
};

class MasterServer {
 public:
  // Builds the worker cache and the Master; listens on nothing yet.
  // InvalidArgument when the cluster has no task.
  static absl::StatusOr<std::unique_ptr<MasterServer>> Create(
      const ClusterSpec& cluster, MasterServerOptions options);

  // Stop(absl::Now()): running steps are cancelled at once.
  ~MasterServer();
  MasterServer(const MasterServer&) = delete;
  MasterServer& operator=(const MasterServer&) = delete;

  // Serves /tensorflow.MasterService/* on options.listen_address.
  // GrpcServer's error (Unavailable naming the address; InvalidArgument
  // without a port) when it cannot be bound. Once.
  absl::Status Start();

  // Graceful stop, what tributary-master does after SIGTERM: new calls are
  // refused; calls in flight may finish until `deadline`; then every
  // session is closed (its steps cancelled, its worker sessions deleted)
  // so gRPC's wait ends too. Idempotent; no restart.
  void Stop(absl::Time deadline);
  // Stop(now + options.grace_period).
  void Stop();

  // After Start: the address actually bound ("127.0.0.1:40123").
  std::string bound_address() const { return serving_->bound_address(); }
  // After Start with insecure_listen_address: its bound address.
  std::string bound_insecure_address() const {
    return serving_->bound_plaintext_address();
  }
  const ClusterSpec& cluster() const { return cluster_; }
  const MasterServerOptions& options() const { return options_; }
  // The service logic, for in-process calls; null after Stop.
  Master* master() const { return master_.get(); }

 private:
  MasterServer(const ClusterSpec& cluster, MasterServerOptions options);
  void Init();

  const ClusterSpec cluster_;
  const MasterServerOptions options_;

  // Construction order is the dependency order; Stop releases in reverse.
  // The network thread serves clients and makes the calls to the workers
  // (common/rpc/rpc_loop.h), so it comes first.
  std::unique_ptr<ServerLifecycle> serving_;
  std::unique_ptr<WorkerCacheInterface> workers_;
  std::unique_ptr<Master> master_;
  std::unique_ptr<BlockingCallPool> pool_;
  // /tributary.Metrics and /tributary.ClusterStatus (tributary top).
  std::unique_ptr<RpcService> metrics_service_;
  std::unique_ptr<RpcService> cluster_status_service_;
  std::unique_ptr<RpcService> service_;
};

}  // namespace tributary

#endif  // TRIBUTARY_MASTER_MASTER_SERVER_H_
