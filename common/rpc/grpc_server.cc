#include "common/rpc/grpc_server.h"

#include <netdb.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "common/framework/status.h"
#include "common/rpc/grpc_channel.h"
#include "grpcpp/security/server_credentials.h"
#include "grpcpp/server_builder.h"

namespace tributary {
namespace {

// Splits "host:port" / "[v6]:port"; false when there is no port.
bool SplitHostPort(const std::string& address, std::string* host,
                   std::string* port) {
  const size_t colon = address.rfind(':');
  if (colon == std::string::npos || colon + 1 == address.size()) return false;
  *host = address.substr(0, colon);
  *port = address.substr(colon + 1);
  if (host->size() >= 2 && host->front() == '[' && host->back() == ']') {
    *host = host->substr(1, host->size() - 2);
  }
  return true;
}

// gRPC only logs why a bind failed; try it ourselves to say why in the
// error ("Address already in use", "Cannot assign requested address").
std::string WhyBindFails(const std::string& address) {
  std::string host, port;
  int port_number;
  if (!SplitHostPort(address, &host, &port) ||
      !absl::SimpleAtoi(port, &port_number) || port_number < 0 ||
      port_number > 65535) {
    return "not a host:port address";
  }
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE;
  addrinfo* result = nullptr;
  const int rc = getaddrinfo(host.empty() ? nullptr : host.c_str(),
                             port.c_str(), &hints, &result);
  if (rc != 0) return absl::StrCat("cannot resolve '", host, "': ", gai_strerror(rc));
  std::string why = "unknown reason (see the gRPC log)";
  for (addrinfo* ai = result; ai != nullptr; ai = ai->ai_next) {
    const int fd = socket(ai->ai_family, ai->ai_socktype, ai->ai_protocol);
    if (fd < 0) continue;
    const int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    const bool failed = bind(fd, ai->ai_addr, ai->ai_addrlen) != 0;
    const int err = errno;
    close(fd);
    if (failed) {
      why = std::strerror(err);
      break;
    }
  }
  freeaddrinfo(result);
  return why;
}

}  // namespace

absl::StatusOr<GrpcServerHandle> StartGrpcServer(
    const std::string& listen_address,
    const std::vector<grpc::Service*>& services, int64_t max_message_bytes) {
  std::string host, port_text;
  if (!SplitHostPort(listen_address, &host, &port_text)) {
    return errors::InvalidArgument("Cannot listen on '", listen_address,
                                   "': want host:port");
  }
  if (services.empty()) {
    // gRPC refuses to start a server with nothing to poll its queues.
    return errors::InvalidArgument("A gRPC server on ", listen_address,
                                   " needs at least one service");
  }
  grpc::ServerBuilder builder;
  ConfigureServerBuilder(&builder, max_message_bytes);
  int port = 0;
  builder.AddListeningPort(listen_address, grpc::InsecureServerCredentials(),
                           &port);
  for (grpc::Service* service : services) builder.RegisterService(service);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (server == nullptr || port == 0) {
    if (server != nullptr) server->Shutdown();
    return errors::Unavailable("Cannot listen on ", listen_address, ": ",
                               WhyBindFails(listen_address));
  }
  GrpcServerHandle handle;
  handle.server = std::move(server);
  handle.port = port;
  handle.address =
      listen_address.substr(0, listen_address.rfind(':') + 1) +
      std::to_string(port);
  return handle;
}

}  // namespace tributary
