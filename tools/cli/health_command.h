// `tributary health --target grpc://HOST:PORT [--service NAME] [--timeout S]`:
// asks a daemon's standard health service (grpc.health.v1.Health/Check, on
// the master's or a worker's own gRPC port) whether it serves, as
// grpc_health_probe does, with the TLS and token options of the other
// commands (client_credentials.h): so an exec probe works where a built-in
// gRPC probe cannot speak TLS (deploy/kubernetes).
//
// Prints the status ("SERVING", "NOT_SERVING") on stdout; exit 0 only for
// SERVING, 1 otherwise (not serving, unknown service, unreachable: the
// reason on stderr), 2 for bad flags.
#ifndef TRIBUTARY_TOOLS_CLI_HEALTH_COMMAND_H_
#define TRIBUTARY_TOOLS_CLI_HEALTH_COMMAND_H_

#include <ostream>
#include <string>

#include "tools/cli/client_credentials.h"

namespace tributary {

struct HealthCommandOptions {
  std::string target;
  std::string service;  // "": the whole daemon
  double timeout_s = 5;
  ClientCredentialFlags credentials;
};

int RunHealthCommand(const HealthCommandOptions& options, std::ostream& out,
                     std::ostream& err);

}  // namespace tributary

#endif  // TRIBUTARY_TOOLS_CLI_HEALTH_COMMAND_H_
