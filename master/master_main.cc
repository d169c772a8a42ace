// tributary-master: the MasterService daemon. Serves TensorFlow's
// /tensorflow.MasterService/* on --listen for the cluster in --cluster (or
// TF_CONFIG), reaching the cluster's workers over gRPC.
//
// Exit status: 0 after a graceful stop (SIGTERM / SIGINT), 2 for bad flags
// or a bad cluster spec, 1 when the address cannot be served.

#include <iostream>
#include <memory>
#include <string>
#include <thread>

#include "CLI/CLI.hpp"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/time.h"
#include "common/cluster/cluster_spec.h"
#include "common/cluster/tf_config.h"
#include "common/daemon/daemon_process.h"
#include "common/framework/status.h"
#include "common/rpc/grpc_server.h"
#include "common/rpc/grpc_worker_cache.h"
#include "master/blocking_call_pool.h"
#include "master/grpc_master_service.h"
#include "master/master.h"
#include "spdlog/spdlog.h"

namespace tributary {
namespace {

constexpr int kExitUsage = 2;
constexpr int kExitRuntime = 1;

struct Flags {
  std::string cluster_file;
  std::string listen;
  std::string log_level = "info";
  int64_t discovery_timeout_ms = 30000;
  int64_t control_timeout_ms = 30000;
  int64_t idle_session_timeout_s = 3600;
  int64_t max_message_size = -1;
  double grace_period_s = 10;
};

// The cluster from --cluster, else from TF_CONFIG.
absl::StatusOr<ClusterSpec> LoadCluster(const Flags& flags,
                                        std::string* source) {
  if (!flags.cluster_file.empty()) {
    *source = flags.cluster_file;
    return ClusterSpec::FromJsonFile(flags.cluster_file);
  }
  *source = "TF_CONFIG";
  absl::StatusOr<TfConfig> config = TfConfigFromEnvironment();
  if (absl::IsNotFound(config.status())) {
    return errors::InvalidArgument(
        "no cluster: pass --cluster FILE or set TF_CONFIG");
  }
  TRIB_RETURN_IF_ERROR(config.status());
  return ClusterSpec::FromClusterDef(config->cluster);
}

int Run(int argc, char** argv) {
  PrepareDaemonProcess();

  Flags flags;
  CLI::App app{
      "tributary-master: serves TensorFlow's MasterService "
      "(/tensorflow.MasterService/*) for a cluster of tributary-worker tasks.\n"
      "Clients connect with target grpc://ADDR (ADDR as given to --listen)."};
  app.add_option("--cluster", flags.cluster_file,
                 "Cluster spec file, TensorFlow's JSON form: "
                 "{\"ps\": [\"host:port\"], \"worker\": [\"host:port\", ...]}. "
                 "Without it the cluster comes from the TF_CONFIG environment "
                 "variable")
      ->type_name("FILE");
  app.add_option("--listen", flags.listen,
                 "Address to serve on, host:port (port 0: any free port; the "
                 "bound address is logged as \"listening on ADDR\")")
      ->type_name("ADDR")
      ->required();
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
  app.add_option("--max-message-size", flags.max_message_size,
                 "Largest gRPC message in bytes, sent or received, to clients "
                 "and workers; -1: unlimited (gRPC's own cap is 2 GiB)")
      ->type_name("BYTES")
      ->capture_default_str();
  app.add_option("--grace-period", flags.grace_period_s,
                 "Seconds running calls get to finish after SIGTERM/SIGINT "
                 "before their steps are cancelled")
      ->type_name("SECONDS")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return kExitUsage;
  }

  absl::Status logging = InitDaemonLogging("master", flags.log_level);
  if (!logging.ok()) {
    std::cerr << "tributary-master: " << logging.message() << "\n";
    return kExitUsage;
  }
  std::string source;
  absl::StatusOr<ClusterSpec> cluster = LoadCluster(flags, &source);
  if (!cluster.ok()) {
    std::cerr << "tributary-master: bad cluster spec (" << source
              << "): " << cluster.status().message() << "\n";
    return kExitUsage;
  }
  if (cluster->TaskNames().empty()) {
    std::cerr << "tributary-master: bad cluster spec (" << source
              << "): the cluster has no tasks\n";
    return kExitUsage;
  }

  // One network thread serves clients and makes the calls to the workers
  // (common/rpc/rpc_loop.h).
  auto server = std::make_unique<GrpcServer>(flags.max_message_size);
  std::unique_ptr<WorkerCacheInterface> workers = NewGrpcWorkerCache(
      *cluster, flags.max_message_size, cpu_allocator(), server->loop());
  MasterOptions options;
  options.worker_cache = workers.get();
  options.cluster = *cluster;
  options.discovery_timeout = absl::Milliseconds(flags.discovery_timeout_ms);
  options.control_timeout = absl::Milliseconds(flags.control_timeout_ms);
  options.idle_session_timeout = absl::Seconds(flags.idle_session_timeout_s);
  auto master = std::make_unique<Master>(options);
  auto pool = std::make_unique<BlockingCallPool>();
  std::unique_ptr<RpcService> service =
      NewGrpcMasterService(master.get(), pool.get());
  const absl::Status started = server->Start(flags.listen, {service.get()});
  if (!started.ok()) {
    spdlog::critical("cannot serve on {}: {}", flags.listen,
                     started.ToString());
    return kExitRuntime;
  }
  spdlog::info("cluster: {}", cluster->ToJson());
  spdlog::info("listening on {}", server->address());

  const int sig = WaitForTerminationSignal();
  const absl::Duration grace = absl::Seconds(flags.grace_period_s);
  spdlog::info("signal {}: stopping (grace period {})", sig,
               absl::FormatDuration(grace));
  // gRPC stops accepting calls and waits for those running; meanwhile the
  // master lets them finish within the grace period, then closes every
  // session, which cancels what still runs so gRPC's wait ends too.
  std::thread stop_server([&] {
    server->Shutdown(absl::Now() + grace);
  });
  master->Shutdown(grace);
  stop_server.join();
  server.reset();
  pool.reset();
  service.reset();
  master.reset();
  workers.reset();
  spdlog::info("stopped");
  return 0;
}

}  // namespace
}  // namespace tributary

int main(int argc, char** argv) { return tributary::Run(argc, argv); }
