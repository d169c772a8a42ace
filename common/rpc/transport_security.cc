#include "common/rpc/transport_security.h"

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/framework/status.h"
#include "common/rpc/openssl_handles.h"
#include "common/rpc/throwaway_pki.h"
#include "grpc/grpc_security_constants.h"
#include "grpc/support/log.h"
#include "grpcpp/security/tls_credentials_options.h"
#include "spdlog/spdlog.h"

namespace tributary {
namespace {

// How often gRPC re-reads the staged copies; Reload takes effect within it.
constexpr unsigned int kRefreshIntervalSeconds = 1;

using openssl::BioPtr;
using openssl::X509Ptr;

// OpenSSL's last error as text, clearing its queue.
std::string OpenSslError() {
  std::string why = openssl::TakeError();
  return why.empty() ? "no PEM data" : why;
}

absl::StatusOr<std::string> ReadPemFile(const std::string& flag,
                                        const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return errors::InvalidArgument(flag, " ", path, ": cannot be read");
  }
  std::ostringstream text;
  text << in.rdbuf();
  if (text.str().find("-----BEGIN ") == std::string::npos) {
    return errors::InvalidArgument(flag, " ", path, ": not a PEM file");
  }
  return text.str();
}

// Every certificate of a PEM text, in order.
absl::StatusOr<std::vector<X509Ptr>> ParseCertificates(const std::string& flag,
                                                       const std::string& path,
                                                       const std::string& pem) {
  BioPtr bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  std::vector<X509Ptr> certs;
  while (X509* cert = PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr)) {
    certs.emplace_back(cert);
  }
  ERR_clear_error();  // The end of the data reads as an error.
  if (certs.empty()) {
    return errors::InvalidArgument(flag, " ", path,
                                   ": holds no PEM certificate");
  }
  return certs;
}

std::string NameOf(X509_NAME* name) {
  char buffer[512];
  X509_NAME_oneline(name, buffer, sizeof(buffer));
  return buffer;
}

std::string NotAfter(X509* cert) {
  BioPtr bio(BIO_new(BIO_s_mem()));
  ASN1_TIME_print(bio.get(), X509_get0_notAfter(cert));
  return openssl::MemoryBioText(bio.get());
}

// Checks that `chain`'s leaf (with the rest as intermediates) chains to a
// certificate of `ca` and is valid now.
absl::Status VerifyChain(const TlsFiles& files,
                         const std::vector<X509Ptr>& chain,
                         const std::vector<X509Ptr>& ca) {
  openssl::StorePtr store(X509_STORE_new());
  for (const X509Ptr& cert : ca) X509_STORE_add_cert(store.get(), cert.get());
  openssl::CertStackPtr intermediates(sk_X509_new_null());
  for (size_t i = 1; i < chain.size(); ++i) {
    X509_up_ref(chain[i].get());
    sk_X509_push(intermediates.get(), chain[i].get());
  }
  openssl::StoreCtxPtr ctx(X509_STORE_CTX_new());
  X509_STORE_CTX_init(ctx.get(), store.get(), chain[0].get(),
                      intermediates.get());
  if (X509_verify_cert(ctx.get()) != 1) {
    const int error = X509_STORE_CTX_get_error(ctx.get());
    ERR_clear_error();
    return errors::InvalidArgument(
        "--tls-cert ", files.cert_file, " (",
        NameOf(X509_get_subject_name(chain[0].get())),
        ") is not valid under --tls-ca ", files.ca_file, ": ",
        X509_verify_cert_error_string(error));
  }
  return absl::OkStatus();
}

// Writes `contents` to `dir/name` as the only version a reader can see
// (a temporary file renamed over it), readable by this user only.
absl::Status WriteAtomically(const std::string& dir, const std::string& name,
                             const std::string& contents) {
  const std::string path = dir + "/" + name;
  const std::string temporary = path + ".new";
  TRIB_RETURN_IF_ERROR(WritePrivateFile(temporary, contents));
  if (std::rename(temporary.c_str(), path.c_str()) != 0) {
    return errors::Internal("Cannot rename ", temporary, " to ", path);
  }
  return absl::OkStatus();
}

struct ValidatedFiles {
  std::string cert_pem, key_pem, ca_pem;
  std::string description;
};

absl::StatusOr<ValidatedFiles> Validate(const TlsFiles& files,
                                        TransportSecurity::Role role) {
  const bool daemon = role == TransportSecurity::Role::kDaemon;
  if (daemon && (files.cert_file.empty() || files.key_file.empty() ||
                 files.ca_file.empty())) {
    return errors::InvalidArgument(
        "TLS needs all of --tls-cert, --tls-key and --tls-ca");
  }
  if (files.ca_file.empty()) {
    return errors::InvalidArgument(
        "TLS needs --tls-ca, the CA the server's certificate chains to");
  }
  if (files.cert_file.empty() != files.key_file.empty()) {
    return errors::InvalidArgument(
        "--tls-cert and --tls-key go together (a client certificate)");
  }
  ValidatedFiles out;
  TRIB_ASSIGN_OR_RETURN(out.ca_pem, ReadPemFile("--tls-ca", files.ca_file));
  TRIB_ASSIGN_OR_RETURN(
      std::vector<X509Ptr> ca,
      ParseCertificates("--tls-ca", files.ca_file, out.ca_pem));
  const std::string ca_name = NameOf(X509_get_subject_name(ca[0].get()));
  if (files.cert_file.empty()) {
    out.description = absl::StrCat("TLS, trusting CA ", ca_name);
    return out;
  }
  TRIB_ASSIGN_OR_RETURN(out.cert_pem,
                        ReadPemFile("--tls-cert", files.cert_file));
  TRIB_ASSIGN_OR_RETURN(
      std::vector<X509Ptr> chain,
      ParseCertificates("--tls-cert", files.cert_file, out.cert_pem));
  TRIB_ASSIGN_OR_RETURN(out.key_pem, ReadPemFile("--tls-key", files.key_file));
  BioPtr key_bio(BIO_new_mem_buf(out.key_pem.data(),
                                 static_cast<int>(out.key_pem.size())));
  openssl::KeyPtr key(
      PEM_read_bio_PrivateKey(key_bio.get(), nullptr, nullptr, nullptr));
  if (key == nullptr) {
    return errors::InvalidArgument("--tls-key ", files.key_file,
                                   ": not an unencrypted PEM private key (",
                                   OpenSslError(), ")");
  }
  if (X509_check_private_key(chain[0].get(), key.get()) != 1) {
    ERR_clear_error();
    return errors::InvalidArgument("--tls-key ", files.key_file,
                                   " is not the key of --tls-cert ",
                                   files.cert_file);
  }
  TRIB_RETURN_IF_ERROR(VerifyChain(files, chain, ca));
  out.description = absl::StrCat(
      "mutual TLS as ", NameOf(X509_get_subject_name(chain[0].get())),
      " (valid until ", NotAfter(chain[0].get()), "), trusting CA ", ca_name);
  return out;
}

void GrpcLogToSpdlog(gpr_log_func_args* args) {
  switch (args->severity) {
    case GPR_LOG_SEVERITY_ERROR:
      spdlog::warn("grpc: {}", args->message);
      break;
    case GPR_LOG_SEVERITY_INFO:
      spdlog::info("grpc: {}", args->message);
      break;
    default:
      spdlog::debug("grpc: {}", args->message);
  }
}

}  // namespace

std::shared_ptr<TransportSecurity> TransportSecurity::Plaintext() {
  return std::shared_ptr<TransportSecurity>(new TransportSecurity());
}

absl::StatusOr<std::shared_ptr<TransportSecurity>> TransportSecurity::Load(
    const TlsFiles& files, Role role) {
  std::shared_ptr<TransportSecurity> security(new TransportSecurity());
  security->files_ = files;
  security->role_ = role;
  const char* tmp = getenv("TMPDIR");
  std::string pattern = absl::StrCat(
      tmp != nullptr && *tmp != '\0' ? tmp : "/tmp", "/tributary-tls-XXXXXX");
  if (mkdtemp(pattern.data()) == nullptr) {
    return errors::Internal(
        "Cannot create a private directory for the TLS "
        "credentials (",
        pattern, ")");
  }
  security->staging_dir_ = pattern;
  {
    absl::MutexLock l(&security->mu_);
    TRIB_RETURN_IF_ERROR(security->Publish(role));
  }
  const std::string dir = security->staging_dir_;
  if (files.cert_file.empty()) {
    security->provider_ =
        std::make_shared<grpc::experimental::FileWatcherCertificateProvider>(
            dir + "/ca.pem", kRefreshIntervalSeconds);
  } else {
    security->provider_ =
        std::make_shared<grpc::experimental::FileWatcherCertificateProvider>(
            dir + "/key.pem", dir + "/cert.pem", dir + "/ca.pem",
            kRefreshIntervalSeconds);
  }
  return security;
}

TransportSecurity::~TransportSecurity() {
  provider_.reset();
  if (!staging_dir_.empty()) {
    std::error_code ignored;
    std::filesystem::remove_all(staging_dir_, ignored);
  }
}

absl::Status TransportSecurity::Publish(Role role) {
  TRIB_ASSIGN_OR_RETURN(ValidatedFiles validated, Validate(files_, role));
  // Two renames, so for an instant the key is new and the certificate old;
  // a watcher reading in that instant reads the matching pair a second
  // later (its next refresh).
  if (!validated.key_pem.empty()) {
    TRIB_RETURN_IF_ERROR(
        WriteAtomically(staging_dir_, "key.pem", validated.key_pem));
    TRIB_RETURN_IF_ERROR(
        WriteAtomically(staging_dir_, "cert.pem", validated.cert_pem));
  }
  TRIB_RETURN_IF_ERROR(
      WriteAtomically(staging_dir_, "ca.pem", validated.ca_pem));
  description_ = std::move(validated.description);
  return absl::OkStatus();
}

std::shared_ptr<grpc::ServerCredentials> TransportSecurity::ServerCredentials(
    PeerCertificates peers) const {
  if (!tls()) return grpc::InsecureServerCredentials();
  grpc::experimental::TlsServerCredentialsOptions options(provider_);
  options.watch_root_certs();
  options.watch_identity_key_cert_pairs();
  options.set_cert_request_type(
      peers == PeerCertificates::kRequired
          ? GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY
          : GRPC_SSL_REQUEST_CLIENT_CERTIFICATE_AND_VERIFY);
  return grpc::experimental::TlsServerCredentials(options);
}

std::shared_ptr<grpc::ChannelCredentials>
TransportSecurity::ChannelCredentials() const {
  if (!tls()) return grpc::InsecureChannelCredentials();
  grpc::experimental::TlsChannelCredentialsOptions options;
  options.set_certificate_provider(provider_);
  options.watch_root_certs();
  if (!files_.cert_file.empty()) options.watch_identity_key_cert_pairs();
  options.set_verify_server_certs(true);
  return grpc::experimental::TlsCredentials(options);
}

absl::Status TransportSecurity::Reload() {
  if (!tls()) {
    return errors::FailedPrecondition("TLS is off: nothing to reload");
  }
  absl::MutexLock l(&mu_);
  return Publish(role_);
}

std::string TransportSecurity::Describe() const {
  if (!tls()) return "plaintext (no TLS)";
  absl::MutexLock l(&mu_);
  return description_;
}

void RouteGrpcLogsToSpdlog() { gpr_set_log_function(&GrpcLogToSpdlog); }

}  // namespace tributary
