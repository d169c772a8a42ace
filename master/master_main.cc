// tributary-master: the MasterService daemon. Serves TensorFlow's
// /tensorflow.MasterService/* on --listen for the cluster in --cluster (or
// TF_CONFIG), reaching the cluster's workers over gRPC.
//
// Exit status: 0 after a graceful stop (SIGTERM / SIGINT), 2 for bad flags,
// bad TLS files or a bad cluster spec, 1 when the address cannot be served.

#include <functional>
#include <iostream>
#include <memory>
#include <optional>
#include <string>

#include "CLI/CLI.hpp"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "common/daemon/daemon_cluster.h"
#include "common/daemon/daemon_main.h"
#include "common/daemon/daemon_memory.h"
#include "common/daemon/daemon_metrics.h"
#include "common/daemon/daemon_process.h"
#include "common/daemon/daemon_tls.h"
#include "common/daemon/log_format.h"
#include "common/daemon/version.h"
#include "master/master_server.h"
#include "spdlog/spdlog.h"

namespace tributary {
namespace {

struct MasterFlags {
  std::string cluster_file;
  std::string log_level = "info";
  std::string log_format = "text";
  int64_t discovery_timeout_ms = 30000;
  int64_t task_startup_window_s = 30;
  int64_t control_timeout_ms = 30000;
  int64_t idle_session_timeout_s = 3600;
  double grace_period_s = 10;
  TlsFiles tls;
  std::string metrics_listen;
  HostMemoryFlags memory;
  std::string auth_tokens_file;
  // --listen, --max-message-size, --insecure-listen.
  MasterServerOptions server;
};

int Run(int argc, char** argv) {
  PrepareDaemonProcess();

  MasterFlags flags;
  CLI::App app{
      "tributary-master: serves TensorFlow's MasterService "
      "(/tensorflow.MasterService/*) for a cluster of tributary-worker tasks.\n"
      "Clients connect with target grpc://ADDR (ADDR as given to --listen)."};
  app.set_version_flag("--version", VersionLine("tributary-master"),
                       "Print the version and commit, and exit");
  app.add_option("--cluster", flags.cluster_file,
                 "Cluster spec file, TensorFlow's JSON form: "
                 "{\"ps\": [\"host:port\"], \"worker\": [\"host:port\", ...]}. "
                 "Without it the cluster comes from the TF_CONFIG environment "
                 "variable")
      ->type_name("FILE");
  app.add_option("--listen", flags.server.listen_address,
                 "Address to serve on, host:port (port 0: any free port; the "
                 "bound address is logged as \"listening on ADDR\")")
      ->type_name("ADDR")
      ->required();
  app.add_option("--log-format", flags.log_format, kLogFormatHelp)
      ->capture_default_str();
  app.add_option("--log-level", flags.log_level, kLogLevelHelp)
      ->type_name("LEVEL")
      ->capture_default_str();
  app.add_option("--discovery-timeout", flags.discovery_timeout_ms,
                 "Milliseconds CreateSession / ListDevices wait for every task "
                 "to answer GetStatus when the session config sets no "
                 "operation_timeout_in_ms; a task that does not answer in "
                 "time fails the call with Unavailable naming it")
      ->type_name("MS")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  app.add_option("--task-startup-window", flags.task_startup_window_s,
                 "Seconds after the master starts during which a task that "
                 "never answered is waited for as still starting; after it, "
                 "or once a task answered, a task that does not answer is "
                 "down and discovery fails within 2 s with Aborted naming it")
      ->type_name("S")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  app.add_option("--control-timeout", flags.control_timeout_ms,
                 "Milliseconds allowed to each control call to a worker "
                 "(CreateWorkerSession, RegisterGraph of a step without a "
                 "timeout, DeregisterGraph, CleanupGraph, DeleteWorkerSession, "
                 "CleanupAll)")
      ->type_name("MS")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  app.add_option("--idle-session-timeout", flags.idle_session_timeout_s,
                 "Seconds after which a session no call has used is closed "
                 "(its graphs and worker sessions released); 0: never")
      ->type_name("SECONDS")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  app.add_option("--max-message-size", flags.server.max_message_size,
                 "Largest gRPC message in bytes, sent or received, to clients "
                 "and workers (one step's feeds or fetches travel in one "
                 "message); -1: unlimited (gRPC's own cap is 2 GiB). A "
                 "message over it fails its call with RESOURCE_EXHAUSTED")
      ->type_name("BYTES")
      ->capture_default_str();
  app.add_option("--max-graph-nodes", flags.server.max_graph_nodes,
                 "Most nodes a session's graph may have, its functions' "
                 "included (CreateSession's, and the graph grown by "
                 "ExtendSession); more is RESOURCE_EXHAUSTED; 0: unlimited")
      ->type_name("N")
      ->capture_default_str();
  app.add_option("--max-graph-bytes", flags.server.max_graph_bytes,
                 "Largest GraphDef a session may have, in serialised bytes "
                 "(CreateSession's, and the graph grown by ExtendSession); "
                 "more is RESOURCE_EXHAUSTED; 0: unlimited")
      ->type_name("BYTES")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  app.add_option("--max-sessions", flags.server.max_sessions,
                 "Sessions open at once; CreateSession beyond it is "
                 "RESOURCE_EXHAUSTED; 0: unlimited")
      ->type_name("N")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  app.add_option(
         "--max-steps-per-client", flags.server.max_steps_per_client,
         "Steps (RunStep, RunCallable) one client may have in flight "
         "at once, a client being its token's name under --auth-tokens, "
         "else its host address; more is "
         "RESOURCE_EXHAUSTED; 0: unlimited")
      ->type_name("N")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  app.add_option("--max-steps-per-session", flags.server.max_steps_per_session,
                 "Steps one session may have in flight at once; more is "
                 "RESOURCE_EXHAUSTED; 0: unlimited")
      ->type_name("N")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  app.add_option("--grace-period", flags.grace_period_s,
                 "Seconds running calls get to finish after SIGTERM/SIGINT "
                 "before their steps are cancelled")
      ->type_name("SECONDS")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  AddTlsFlags(app, &flags.tls);
  AddMetricsFlag(app, &flags.metrics_listen);
  AddHostMemoryFlags(app, &flags.memory);
  app.add_option("--insecure-listen", flags.server.insecure_listen_address,
                 "With TLS on: also serve plaintext on this loopback address "
                 "(127.0.0.1:PORT), for clients that cannot speak TLS such "
                 "as TensorFlow's Python client, on this host only "
                 "(docs/operations.md, \"Security\")")
      ->type_name("ADDR");
  app.add_option("--auth-tokens", flags.auth_tokens_file,
                 "File of client tokens, one per line as \"SHA256-HEX ROLE "
                 "[NAME]\" (ROLE: run or admin); clients must then send one "
                 "(UNAUTHENTICATED otherwise; PERMISSION_DENIED beyond their "
                 "role). Reloaded on SIGHUP")
      ->type_name("FILE");
  if (std::optional<int> exit = ParseDaemonFlags(app, argc, argv)) {
    return *exit;
  }

  absl::Status logging =
      InitDaemonLogging("master", flags.log_level, flags.log_format);
  SetLogTask("master");
  if (!logging.ok()) {
    std::cerr << "tributary-master: " << logging.message() << "\n";
    return kExitUsage;
  }
  const std::unique_ptr<HostMemoryReleaser> memory_releaser =
      StartHostMemoryRelease(flags.memory);
  absl::StatusOr<std::shared_ptr<TransportSecurity>> security =
      LoadDaemonSecurity(flags.tls);
  if (!security.ok()) {
    std::cerr << "tributary-master: " << security.status().message() << "\n";
    return kExitUsage;
  }
  if (!flags.server.insecure_listen_address.empty() && !(*security)->tls()) {
    std::cerr << "tributary-master: --insecure-listen is for a master that "
                 "serves TLS on --listen (give --tls-cert/--tls-key/--tls-ca)"
              << "\n";
    return kExitUsage;
  }
  std::string source;
  absl::StatusOr<DaemonCluster> loaded =
      LoadDaemonCluster(flags.cluster_file, &source);
  if (!loaded.ok()) {
    std::cerr << "tributary-master: bad cluster spec (" << source
              << "): " << loaded.status().message() << "\n";
    return kExitUsage;
  }
  MasterServerOptions& options = flags.server;
  options.discovery_timeout = absl::Milliseconds(flags.discovery_timeout_ms);
  options.task_startup_window = absl::Seconds(flags.task_startup_window_s);
  options.control_timeout = absl::Milliseconds(flags.control_timeout_ms);
  options.idle_session_timeout = absl::Seconds(flags.idle_session_timeout_s);
  options.grace_period = absl::Seconds(flags.grace_period_s);
  options.security = *security;
  if (!flags.auth_tokens_file.empty()) {
    absl::StatusOr<std::unique_ptr<ClientAuth>> auth = ClientAuth::FromFile(
        flags.auth_tokens_file,
        /*plaintext_is_loopback=*/!options.insecure_listen_address.empty());
    if (!auth.ok()) {
      std::cerr << "tributary-master: " << auth.status().message() << "\n";
      return kExitUsage;
    }
    options.auth = *std::move(auth);
    spdlog::info("clients authenticate with tokens: {} known ({})",
                 options.auth->num_tokens(), flags.auth_tokens_file);
    if (!(*security)->tls()) {
      spdlog::warn(
          "--auth-tokens without TLS: tokens cross the network in "
          "plaintext");
    }
  }
  // Fails only for a cluster without tasks.
  absl::StatusOr<std::unique_ptr<MasterServer>> server =
      MasterServer::Create(loaded->cluster, options);
  if (!server.ok()) {
    std::cerr << "tributary-master: bad cluster spec (" << source
              << "): " << server.status().message() << "\n";
    return kExitUsage;
  }
  MasterServer& master = **server;
  // Before serving: recording starts with it (the in-flight gauges count
  // only what began after).
  absl::StatusOr<std::unique_ptr<metrics::HttpExposer>> metrics_exposer =
      StartDaemonMetrics(flags.metrics_listen);
  if (!metrics_exposer.ok()) {
    return MetricsExitStatus(metrics_exposer.status());
  }
  const absl::Status started = master.Start();
  if (!started.ok()) {
    spdlog::critical("cannot serve on {}: {}", options.listen_address,
                     started.ToString());
    return kExitRuntime;
  }
  spdlog::info("cluster: {}", loaded->cluster.ToJson());
  if (!options.insecure_listen_address.empty()) {
    spdlog::warn(
        "also serving plaintext, without TLS, on {} (this host "
        "only)",
        master.bound_insecure_address());
  }
  spdlog::info(
      "limits (0: unlimited): --max-message-size {}, "
      "--max-graph-bytes {}, --max-graph-nodes {}, --max-sessions {}, "
      "--max-steps-per-client {}, --max-steps-per-session {}",
      options.max_message_size, options.max_graph_bytes,
      options.max_graph_nodes, options.max_sessions,
      options.max_steps_per_client, options.max_steps_per_session);
  spdlog::info("listening on {}", master.bound_address());

  // SIGHUP reloads the TLS files and the tokens, whichever are in use.
  std::function<void()> reload_tls = ReloadOnHangup(*security);
  std::function<void()> reload;
  if (reload_tls != nullptr || options.auth != nullptr) {
    reload = [reload_tls, auth = options.auth] {
      if (reload_tls != nullptr) reload_tls();
      if (auth == nullptr) return;
      const absl::Status reloaded = auth->Reload();
      if (reloaded.ok()) {
        spdlog::info("SIGHUP: {} client token(s) loaded", auth->num_tokens());
      } else {
        spdlog::error(
            "SIGHUP: client tokens NOT reloaded (the previous "
            "ones stay): {}",
            std::string(reloaded.message()));
      }
    };
  }
  return ServeUntilTerminated(
      options.grace_period, [&](absl::Time deadline) { master.Stop(deadline); },
      reload);
}

}  // namespace
}  // namespace tributary

int main(int argc, char** argv) { return tributary::Run(argc, argv); }
