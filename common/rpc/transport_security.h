#ifndef TRIBUTARY_COMMON_RPC_TRANSPORT_SECURITY_H_
#define TRIBUTARY_COMMON_RPC_TRANSPORT_SECURITY_H_

// How a process's gRPC connections are secured: plaintext, or TLS from PEM
// files (a certificate chain, its private key and the CA bundle peers must
// chain to). One object per process serves its server (who may connect to
// us) and its channels (how we connect to other tasks), so both sides use
// the same identity and the same trust.
//
//   auto security = TransportSecurity::Load({cert, key, ca});   // validates
//   server: security->ServerCredentials(PeerCertificates::kRequired)
//   client: security->ChannelCredentials()
//   SIGHUP: security->Reload();   // new handshakes use the new files
//
// Validation happens here, with OpenSSL, before gRPC sees the files, so a
// daemon refuses to start (or a reload is refused, keeping the old
// credentials) with a message naming the file and the reason: unreadable,
// not PEM, a key that does not match the certificate, a certificate that
// does not chain to the CA or has expired.
//
// Reload without dropping anything: gRPC reads the credentials from private
// copies (a 0700 directory this object owns) through its file-watching
// certificate provider, which re-reads them every second. Load and Reload
// publish validated files there atomically (write, then rename), so a
// rotation tool half-way through rewriting the user's files is never picked
// up, and connections already established (running steps) are untouched.
//
// Peer names: a client checks that the server's certificate names the host
// it dialled (a DNS or IP subject alternative name), as HTTPS does. A
// server checks that the client's certificate chains to the CA; which task
// a peer claims to be is not checked (any holder of a cluster certificate
// is a member of the cluster: docs/operations.md, "Security").
//
// Thread-safe.

#include <memory>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "grpcpp/security/credentials.h"
#include "grpcpp/security/server_credentials.h"
#include "grpcpp/security/tls_certificate_provider.h"

namespace tributary {

// The PEM files of --tls-cert, --tls-key and --tls-ca.
struct TlsFiles {
  std::string cert_file;  // This process's certificate (chain), leaf first.
  std::string key_file;   // Its private key.
  std::string ca_file;    // The CA certificate(s) peers must chain to.

  bool any() const {
    return !cert_file.empty() || !key_file.empty() || !ca_file.empty();
  }
};

// Whether a server demands a certificate from its clients.
enum class PeerCertificates {
  // Mutual TLS: a client without a certificate chaining to the CA is
  // refused in the handshake (WorkerService: only cluster members).
  kRequired,
  // A client may present one (it is then verified) or not (MasterService:
  // clients authenticate with tokens).
  kOptional,
};

class TransportSecurity {
 public:
  // No TLS: insecure credentials on both sides.
  static std::shared_ptr<TransportSecurity> Plaintext();

  // TLS from `files`, validated. A daemon needs all three files; a client
  // needs the CA and may add its own certificate and key (both or neither).
  // InvalidArgument naming the file and why.
  enum class Role { kDaemon, kClient };
  static absl::StatusOr<std::shared_ptr<TransportSecurity>> Load(
      const TlsFiles& files, Role role);

  ~TransportSecurity();
  TransportSecurity(const TransportSecurity&) = delete;
  TransportSecurity& operator=(const TransportSecurity&) = delete;

  bool tls() const { return provider_ != nullptr; }

  // For a gRPC server's listening port. Requires a certificate (daemon role)
  // when TLS is on.
  std::shared_ptr<grpc::ServerCredentials> ServerCredentials(
      PeerCertificates peers) const;
  // For channels to other processes.
  std::shared_ptr<grpc::ChannelCredentials> ChannelCredentials() const;

  // Re-reads and validates the files given to Load and, when they are
  // good, makes them the credentials of every new handshake (within about a
  // second). On an error the credentials in use stay as they were.
  // FailedPrecondition for plaintext.
  absl::Status Reload();

  // One line for the log: "mutual TLS as CN=... (expires ...), CA CN=...".
  std::string Describe() const;

 private:
  TransportSecurity() = default;
  absl::Status Publish(Role role) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  mutable absl::Mutex mu_;
  TlsFiles files_;
  Role role_ = Role::kDaemon;
  std::string staging_dir_;
  std::string description_ ABSL_GUARDED_BY(mu_);
  std::shared_ptr<grpc::experimental::CertificateProviderInterface> provider_;
};

// Installs a gRPC log sink that writes gRPC's own warnings and errors
// (among them why a TLS handshake failed) into the process's spdlog logger,
// so they appear in the daemon's log in its format. Idempotent.
void RouteGrpcLogsToSpdlog();

}  // namespace tributary

#endif  // TRIBUTARY_COMMON_RPC_TRANSPORT_SECURITY_H_
