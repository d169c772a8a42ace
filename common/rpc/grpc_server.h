#ifndef TRIBUTARY_COMMON_RPC_GRPC_SERVER_H_
#define TRIBUTARY_COMMON_RPC_GRPC_SERVER_H_

// A gRPC server (ConfigureServerBuilder's settings; TLS or plaintext as its
// credentials say, common/rpc/transport_security.h) serving
// RpcServices (common/rpc/rpc_service.h) on one network thread, its RpcLoop,
// which the process's own calls to other tasks share (pass loop() to
// NewGrpcWorkerCache): see rpc_loop.h for why one thread.
//
// Life: construct, hand loop() to the clients, Start(), ... Shutdown(),
// destroy. Unknown methods answer Unimplemented naming the method.
//
// Besides the given services every server answers, without authentication
// (they reveal no data):
//   grpc.health.v1.Health (health_service.h) for "" and each service's
//     name: SERVING once Start succeeded, NOT_SERVING from Shutdown on
//     (answered while Shutdown drains the calls in flight);
//   grpc.reflection.v1[alpha].ServerReflection (server_reflection.h),
//     listing the services and describing them from the descriptor pool.

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "common/rpc/health_service.h"
#include "common/rpc/rpc_loop.h"
#include "common/rpc/rpc_service.h"
#include "common/rpc/server_reflection.h"
#include "grpcpp/generic/async_generic_service.h"
#include "grpcpp/server.h"
#include "grpcpp/server_builder.h"

namespace tributary {

class GrpcServer {
 public:
  // `credentials`: those of the listening port (null: plaintext).
  explicit GrpcServer(
      int64_t max_message_bytes = -1,
      std::shared_ptr<grpc::ServerCredentials> credentials = nullptr);
  // Shuts the server down (cancelling calls in flight) if that was not done,
  // then drains the network thread (bounded).
  ~GrpcServer();

  GrpcServer(const GrpcServer&) = delete;
  GrpcServer& operator=(const GrpcServer&) = delete;

  // Usable by clients from now on; their calls run once Start() succeeded.
  std::shared_ptr<RpcLoop> loop() const { return loop_; }

  // Registers `services` (not owned; they must outlive the server) and
  // listens on `listen_address` ("host:port", "[::]:port", "0.0.0.0:0";
  // port 0 picks a free one). Unavailable naming the address and why when
  // it cannot be bound (in use, not an address of this host, unresolvable);
  // InvalidArgument when it has no port or there is no service. Once.
  absl::Status Start(const std::string& listen_address,
                     const std::vector<const RpcService*>& services);

  // Before Start: also serve, in plaintext, on `loopback_address`
  // ("127.0.0.1:PORT", "[::1]:PORT", "localhost:PORT"), for clients that
  // cannot speak TLS (TensorFlow's Python client) on this host only.
  // InvalidArgument for an address that is not a loopback one. Calls that
  // came this way have RpcServerCall::peer().secure false.
  absl::Status AddPlaintextLoopbackPort(const std::string& loopback_address);
  // After Start: the plaintext port's address with its bound port; empty
  // without one.
  const std::string& plaintext_address() const { return plaintext_address_; }

  // The health service's answer for every service, "" included (after
  // Start; ignored once Shutdown began). Start marks them serving.
  void SetServing(bool serving);

  // The port actually bound, and `listen_address` with it
  // ("127.0.0.1:40123").
  int port() const { return port_; }
  const std::string& address() const { return address_; }

  // Drains, then stops: health turns NOT_SERVING at once; until no call to
  // the given services is in flight (or `deadline`), calls are still served,
  // so a probe reads NOT_SERVING and a running step can still be sent what it
  // needs (a peer's RecvTensor); then gRPC stops accepting calls, waits for
  // those in flight until `deadline`, cancels the rest and waits for their
  // handlers to finish them. The network thread keeps running for the
  // process's own calls until destruction. Blocks; call it once, from one
  // thread.
  void Shutdown(absl::Time deadline);
  void Shutdown() { Shutdown(absl::Now()); }

 private:
  class Call;
  void RequestNextCall();
  // `given`: the handler belongs to a service passed to Start (not health
  // or reflection), so its calls count as in flight for the drain.
  const RpcHandler* FindHandler(absl::string_view path, bool* given) const;
  void CallToGivenServiceEnded();
  const RpcStreamHandler* FindStreamHandler(absl::string_view path) const;
  const RpcPollingStream* FindPollingStream(absl::string_view path) const;

  grpc::ServerBuilder builder_;
  grpc::AsyncGenericService generic_;
  std::shared_ptr<RpcLoop> loop_;
  std::unique_ptr<grpc::Server> server_;
  std::vector<const RpcService*> services_;  // the reflection's included
  std::unique_ptr<ServerReflection> reflection_;
  std::unique_ptr<HealthStatus> health_;
  std::vector<RpcService> own_services_;  // reflection and health
  bool shut_down_ = false;
  size_t num_given_services_ = 0;  // services_' first ones
  // Calls to the given services from their handler's start to their end.
  std::atomic<int64_t> given_calls_in_flight_{0};
  std::atomic<bool> draining_{false};
  absl::Mutex drain_mu_;
  absl::CondVar drained_;  // signalled when the count drops to 0 while draining
  int port_ = 0;
  std::string address_;
  std::shared_ptr<grpc::ServerCredentials> credentials_;
  std::string plaintext_request_;
  int plaintext_port_ = 0;
  std::string plaintext_address_;
};

struct GrpcServerHandle {
  std::unique_ptr<GrpcServer> server;
  int port = 0;
  std::string address;
};

// Constructs and starts a server in one go (for servers whose services make
// no calls of their own through the server's loop, e.g. in tests).
absl::StatusOr<GrpcServerHandle> StartGrpcServer(
    const std::string& listen_address,
    const std::vector<const RpcService*>& services,
    int64_t max_message_bytes = -1);

}  // namespace tributary

#endif  // TRIBUTARY_COMMON_RPC_GRPC_SERVER_H_
