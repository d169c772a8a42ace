#include "tools/cli/client_credentials.h"

#include <cstdlib>
#include <fstream>

#include "absl/strings/match.h"
#include "absl/strings/strip.h"
#include "common/framework/status.h"
#include "tools/cli/cluster_state.h"

namespace tributary {
namespace {

absl::StatusOr<std::string> ReadToken(const ClientCredentialFlags& flags) {
  if (flags.token_file.empty()) {
    const char* env = std::getenv("TRIBUTARY_TOKEN");
    return std::string(env != nullptr ? env : "");
  }
  std::ifstream in(flags.token_file);
  std::string line;
  if (!in || !std::getline(in, line)) {
    return errors::InvalidArgument("--token-file ", flags.token_file,
                                   ": cannot be read");
  }
  std::string token(absl::StripAsciiWhitespace(line));
  if (token.empty()) {
    return errors::InvalidArgument("--token-file ", flags.token_file,
                                   ": its first line holds no token");
  }
  return token;
}

// The client TLS files `cluster up` recorded for a master at `target`.
TlsFiles FromClusterState(const std::string& state_dir,
                          const std::string& target) {
  for (const std::string& path : ListStateFiles(StateDirectory(state_dir))) {
    absl::StatusOr<ClusterState> state = ReadClusterState(path);
    if (state.ok() && state->master_target == target &&
        !state->tls_ca.empty()) {
      return {state->tls_cert, state->tls_key, state->tls_ca};
    }
  }
  return {};
}

}  // namespace

void AddClientCredentialFlags(CLI::App* command, ClientCredentialFlags* flags) {
  command
      ->add_option("--tls-ca", flags->tls.ca_file,
                   "PEM CA certificate the master's certificate chains to "
                   "(a master serving TLS); default: the files of the "
                   "`tributary cluster up` whose master is --target")
      ->type_name("FILE");
  command
      ->add_option("--tls-cert", flags->tls.cert_file,
                   "PEM client certificate, with --tls-key (optional)")
      ->type_name("FILE");
  command
      ->add_option("--tls-key", flags->tls.key_file,
                   "PEM private key of --tls-cert")
      ->type_name("FILE");
  command
      ->add_option("--token-file", flags->token_file,
                   "File whose first line is the token for a master "
                   "started with --auth-tokens (default: "
                   "$TRIBUTARY_TOKEN)")
      ->type_name("FILE");
}

absl::StatusOr<ClientCredentials> ResolveClientCredentials(
    const ClientCredentialFlags& flags, const std::string& target) {
  ClientCredentials credentials;
  if (!absl::StartsWith(target, "grpc://")) return credentials;
  TRIB_ASSIGN_OR_RETURN(credentials.token, ReadToken(flags));
  const TlsFiles files =
      flags.tls.any() ? flags.tls : FromClusterState(flags.state_dir, target);
  if (files.any()) {
    TRIB_ASSIGN_OR_RETURN(
        credentials.transport,
        TransportSecurity::Load(files, TransportSecurity::Role::kClient));
  }
  return credentials;
}

}  // namespace tributary
