#ifndef TRIBUTARY_MASTER_CLIENT_AUTH_H_
#define TRIBUTARY_MASTER_CLIENT_AUTH_H_

// Who may call the master (tributary-master --auth-tokens FILE) and what
// they may do.
//
// The tokens file holds one token per line as its SHA-256 (hex) and a
// role, optionally a name for the logs; '#' starts a comment:
//
//   # sha256(token)                                                  role  name
//   9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08 run alice
//   60303ae22b998861bce3b28f33eec1be758a213c86c93c076dbe9f558c11c752 admin ops
//
// (`printf %s "$TOKEN" | sha256sum` gives the hash; the file never holds a
// token, so reading it does not let anyone call the master.) Clients send
// "authorization: Bearer TOKEN" with every call.
//
//   no or an unknown token       UNAUTHENTICATED (the token is never logged)
//   run                          CreateSession, ListDevices; every call on
//                                the sessions it created
//   admin                        also calls on anyone's sessions (close,
//                                run, extend) and Reset
//   beyond the role              PERMISSION_DENIED naming the method
//
// A call that came over the master's plaintext loopback port
// (--insecure-listen, for TensorFlow's Python client, which cannot send
// tokens) without a token acts as the client "insecure-listen" with role
// run: whoever can reach the loopback port of the master's host can run
// steps (docs/operations.md, "Security").
//
// Thread-safe.

#include <map>
#include <memory>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "common/rpc/rpc_service.h"

namespace tributary {

enum class ClientRole { kRun, kAdmin };

struct ClientIdentity {
  // For logs and ownership: the name from the tokens file, else
  // "token <first 8 hex digits of its hash>".
  std::string name;
  ClientRole role = ClientRole::kRun;
};

class ClientAuth {
 public:
  // Reads `tokens_file` (see above). InvalidArgument naming the file and
  // line for a malformed line or unknown role; a file without a token too.
  // `plaintext_is_loopback`: calls without TLS came over --insecure-listen.
  static absl::StatusOr<std::unique_ptr<ClientAuth>> FromFile(
      const std::string& tokens_file, bool plaintext_is_loopback);

  // Unauthenticated unless the caller presents a known token (or came over
  // the loopback plaintext port, see above).
  absl::StatusOr<ClientIdentity> Authenticate(const RpcCaller& caller) const;

  // Whether `client` may call `method` ("RunStep", ...) on session
  // `session_handle` (empty for methods without a session). PermissionDenied
  // naming the method otherwise. A session this object never saw created
  // is left to the master (which answers that it does not exist).
  absl::Status Authorize(const ClientIdentity& client, absl::string_view method,
                         const std::string& session_handle) const;

  // Records the creator of a session; `exists` prunes records of sessions
  // that have gone (closed, collected as idle).
  void RecordOwner(const std::string& session_handle,
                   const ClientIdentity& client,
                   absl::FunctionRef<bool(const std::string&)> exists);
  void ForgetSession(const std::string& session_handle);

  // Re-reads the tokens file (SIGHUP): on success the new tokens replace
  // the old ones for every later call; on an error nothing changes.
  absl::Status Reload();

  int num_tokens() const;

 private:
  using TokenTable = std::map<std::string, ClientIdentity>;
  ClientAuth() = default;
  static absl::StatusOr<TokenTable> ReadTokens(const std::string& path);

  std::string tokens_file_;
  bool plaintext_is_loopback_ = false;
  mutable absl::Mutex mu_;
  // By SHA-256 hex of the token.
  TokenTable tokens_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, std::string> owners_ ABSL_GUARDED_BY(mu_);
  int records_since_prune_ ABSL_GUARDED_BY(mu_) = 0;
};

// Lower-case hex SHA-256 of `text`.
std::string Sha256Hex(absl::string_view text);

}  // namespace tributary

#endif  // TRIBUTARY_MASTER_CLIENT_AUTH_H_
