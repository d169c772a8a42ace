#ifndef TRIBUTARY_COMMON_DAEMON_DAEMON_TLS_H_
#define TRIBUTARY_COMMON_DAEMON_DAEMON_TLS_H_

// The TLS flags both daemons take (--tls-cert, --tls-key, --tls-ca), what
// they become (a TransportSecurity, plaintext without them), and the SIGHUP
// reload, written once for both mains:
//
//   TlsFiles tls;
//   AddTlsFlags(app, &tls);
//   ... parse, InitDaemonLogging ...
//   auto security = LoadDaemonSecurity(tls);        // logs what it uses
//   ... options.security = *security ...
//   ServeUntilTerminated(grace, stop, ReloadOnHangup(*security));

#include <functional>
#include <memory>

#include "CLI/CLI.hpp"
#include "absl/status/statusor.h"
#include "common/rpc/transport_security.h"

namespace tributary {

// Adds --tls-cert, --tls-key and --tls-ca to `app`, filling `files`.
void AddTlsFlags(CLI::App& app, TlsFiles* files);

// Plaintext when no TLS flag was given, else the validated files (the
// error names the flag and the file). Logs the outcome; routes gRPC's own
// log (handshake failures among it) into the daemon's log.
absl::StatusOr<std::shared_ptr<TransportSecurity>> LoadDaemonSecurity(
    const TlsFiles& files);

// What SIGHUP does: reloads `security`'s files and logs the outcome; null
// for plaintext.
std::function<void()> ReloadOnHangup(
    std::shared_ptr<TransportSecurity> security);

}  // namespace tributary

#endif  // TRIBUTARY_COMMON_DAEMON_DAEMON_TLS_H_
