#include "common/daemon/daemon_tls.h"

#include <utility>

#include "spdlog/spdlog.h"

namespace tributary {

void AddTlsFlags(CLI::App& app, TlsFiles* files) {
  app.add_option("--tls-cert", files->cert_file,
                 "PEM certificate (chain) of this task, signed by the cluster "
                 "CA (--tls-ca); with --tls-key and --tls-ca, every gRPC "
                 "connection is TLS and workers accept only peers holding a "
                 "certificate of that CA. Reloaded on SIGHUP")
      ->type_name("FILE");
  app.add_option("--tls-key", files->key_file,
                 "PEM private key of --tls-cert (unencrypted; keep it mode "
                 "0600)")
      ->type_name("FILE");
  app.add_option("--tls-ca", files->ca_file,
                 "PEM certificate(s) of the cluster CA that peers' "
                 "certificates must chain to")
      ->type_name("FILE");
}

absl::StatusOr<std::shared_ptr<TransportSecurity>> LoadDaemonSecurity(
    const TlsFiles& files) {
  RouteGrpcLogsToSpdlog();
  if (!files.any()) {
    spdlog::warn(
        "no --tls-cert/--tls-key/--tls-ca: serving in plaintext, without "
        "authentication of peers (private networks only; docs/operations.md, "
        "\"Security\")");
    return TransportSecurity::Plaintext();
  }
  absl::StatusOr<std::shared_ptr<TransportSecurity>> security =
      TransportSecurity::Load(files, TransportSecurity::Role::kDaemon);
  if (security.ok()) spdlog::info("transport: {}", (*security)->Describe());
  return security;
}

std::function<void()> ReloadOnHangup(
    std::shared_ptr<TransportSecurity> security) {
  if (security == nullptr || !security->tls()) return nullptr;
  return [security = std::move(security)] {
    const absl::Status reloaded = security->Reload();
    if (reloaded.ok()) {
      spdlog::info("SIGHUP: TLS credentials reloaded: {}",
                   security->Describe());
    } else {
      spdlog::error(
          "SIGHUP: TLS credentials NOT reloaded (still using the "
          "previous ones): {}",
          std::string(reloaded.message()));
    }
  };
}

}  // namespace tributary
