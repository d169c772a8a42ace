#include "tools/client/session.h"

#include <utility>

#include "absl/strings/match.h"
#include "common/framework/status.h"
#include "common/runtime/session/local_session.h"
#include "tools/client/grpc_session.h"

namespace tributary {

absl::StatusOr<std::unique_ptr<Session>> NewSession(
    const std::string& target, const tensorflow::ConfigProto& config,
    ClientCredentials credentials) {
  if (target.empty() || target == "local") {
    TRIB_ASSIGN_OR_RETURN(std::unique_ptr<LocalSession> session,
                          LocalSession::New(config));
    return std::unique_ptr<Session>(std::move(session));
  }
  if (absl::StartsWith(target, "grpc://")) {
    GrpcSessionOptions options;
    options.target = target;
    options.config = config;
    options.credentials = std::move(credentials);
    TRIB_ASSIGN_OR_RETURN(std::unique_ptr<GrpcSession> session,
                          GrpcSession::New(std::move(options)));
    return std::unique_ptr<Session>(std::move(session));
  }
  return errors::InvalidArgument("Unknown session target '", target,
                                 "'; expected \"\", \"local\" or "
                                 "\"grpc://host:port\"");
}

}  // namespace tributary
