#include "tools/cli/health_command.h"

#include "absl/time/clock.h"
#include "common/rpc/grpc_channel.h"
#include "common/rpc/unary_call.h"
#include "grpc/health/v1/health.pb.h"
#include "grpcpp/client_context.h"
#include "grpcpp/generic/generic_stub.h"
#include "tools/client/grpc_session.h"

namespace tributary {

int RunHealthCommand(const HealthCommandOptions& options, std::ostream& out,
                     std::ostream& err) {
  absl::StatusOr<std::string> address = GrpcTargetAddress(options.target);
  if (!address.ok()) {
    err << "tributary health: " << address.status().message() << "\n";
    return 2;
  }
  absl::StatusOr<ClientCredentials> credentials =
      ResolveClientCredentials(options.credentials, options.target);
  if (!credentials.ok()) {
    err << "tributary health: " << credentials.status().message() << "\n";
    return 2;
  }
  grpc::GenericStub stub(
      NewGrpcChannel(*address, kDefaultMaxMessageBytes,
                     credentials->transport != nullptr
                         ? credentials->transport->ChannelCredentials()
                         : nullptr));
  grpc::ClientContext context;
  context.set_deadline(
      absl::ToChronoTime(absl::Now() + absl::Seconds(options.timeout_s)));
  // The health service needs no token.
  grpc::health::v1::HealthCheckRequest request;
  request.set_service(options.service);
  grpc::health::v1::HealthCheckResponse response;
  const grpc::Status status = ProtoCallOnThisThread(
      &stub, &context, "/grpc.health.v1.Health/Check", request, &response);
  if (!status.ok()) {
    err << "tributary health: " << *address
        << (options.service.empty() ? "" : " (service " + options.service + ")")
        << ": " << status.error_message() << "\n";
    return 1;
  }
  out << grpc::health::v1::HealthCheckResponse::ServingStatus_Name(
             response.status())
      << "\n";
  return response.status() == grpc::health::v1::HealthCheckResponse::SERVING
             ? 0
             : 1;
}

}  // namespace tributary
