// How the `tributary` commands that talk to a master (run, devices) get
// their credentials:
//   TLS    --tls-ca [--tls-cert --tls-key]; without them, the TLS files of
//          a `tributary cluster up` whose master is the --target (found
//          through the state files, cluster_state.h); else plaintext.
//   token  --token-file FILE (the token is its first line); else
//          $TRIBUTARY_TOKEN; else none.
// Local targets need none and ignore them.
#ifndef TRIBUTARY_TOOLS_CLI_CLIENT_CREDENTIALS_H_
#define TRIBUTARY_TOOLS_CLI_CLIENT_CREDENTIALS_H_

#include <string>

#include "CLI/CLI.hpp"
#include "absl/status/statusor.h"
#include "tools/client/grpc_session.h"

namespace tributary {

struct ClientCredentialFlags {
  TlsFiles tls;
  std::string token_file;
  std::string state_dir;  // Where to look for cluster up's state files.
};

void AddClientCredentialFlags(CLI::App* command, ClientCredentialFlags* flags);

// The credentials for `target` (see above). InvalidArgument for unreadable
// or bad files, naming them.
absl::StatusOr<ClientCredentials> ResolveClientCredentials(
    const ClientCredentialFlags& flags, const std::string& target);

}  // namespace tributary

#endif  // TRIBUTARY_TOOLS_CLI_CLIENT_CREDENTIALS_H_
