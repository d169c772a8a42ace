#ifndef TRIBUTARY_COMMON_RPC_GRPC_SERVER_H_
#define TRIBUTARY_COMMON_RPC_GRPC_SERVER_H_

// Starts a gRPC server (insecure, ConfigureServerBuilder's settings) for a
// set of services, reporting the port it bound: "127.0.0.1:0" picks a free
// port, which tests and `tributary cluster up` rely on.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "grpcpp/server.h"
#include "grpcpp/impl/service_type.h"

namespace tributary {

struct GrpcServerHandle {
  std::unique_ptr<grpc::Server> server;
  // The port actually bound (the chosen one when the address said port 0).
  int port = 0;
  // `listen_address` with the bound port ("127.0.0.1:40123").
  std::string address;
};

// Registers `services` (not owned; they must outlive the server) and starts
// listening on `listen_address` ("host:port", "[::]:port", "0.0.0.0:0").
// Unavailable naming the address and why when it cannot be bound (in use,
// not an address of this host, unresolvable); InvalidArgument when it has
// no port. The caller stops the server with
// server->Shutdown(deadline) and then destroys it.
absl::StatusOr<GrpcServerHandle> StartGrpcServer(
    const std::string& listen_address,
    const std::vector<grpc::Service*>& services,
    int64_t max_message_bytes = -1);

}  // namespace tributary

#endif  // TRIBUTARY_COMMON_RPC_GRPC_SERVER_H_
