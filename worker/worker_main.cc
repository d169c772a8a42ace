// tributary-worker: the WorkerService daemon of one task. Serves
// TensorFlow's /tensorflow.WorkerService/* for task --task of job --job of
// the cluster in --cluster (or TF_CONFIG) on that task's address, with
// --cpu-devices CPU devices, and fetches tensors from its peers over gRPC.
//
// Exit status: 0 after a graceful stop (SIGTERM / SIGINT), 2 for bad flags,
// bad TLS files, a bad cluster spec or a task that is not in it, 1 when the
// devices cannot be created or the address cannot be served.

#include <unistd.h>

#include <iostream>
#include <memory>
#include <optional>
#include <string>

#include "CLI/CLI.hpp"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/time.h"
#include "common/daemon/daemon_cluster.h"
#include "common/daemon/daemon_main.h"
#include "common/daemon/daemon_memory.h"
#include "common/daemon/daemon_metrics.h"
#include "common/daemon/daemon_process.h"
#include "common/daemon/daemon_tls.h"
#include "common/daemon/log_format.h"
#include "common/daemon/version.h"
#include "common/device/device.h"
#include "common/framework/status.h"
#include "kernels/math/matmul_backend.h"
#include "spdlog/spdlog.h"
#include "worker/worker_server.h"

namespace tributary {
namespace {

struct WorkerFlags {
  std::string cluster_file;
  std::string log_level = "info";
  std::string log_format = "text";
  double grace_period_s = 10;
  double orphaned_session_grace_s = 30;
  TlsFiles tls;
  std::string metrics_listen;
  bool task_from_hostname = false;
  HostMemoryFlags memory;
  // --job, --task, --listen, thread counts, devices, message size.
  WorkerServerOptions server;
};

int Run(int argc, char** argv) {
  PrepareDaemonProcess();
  // The MatMul backend is chosen (and OpenBLAS loaded) now, while this is
  // the process's only thread: the loader sets OPENBLAS_CORETYPE around
  // dlopen, and setenv must not race another thread's getenv.
  const MatMulBackendChoice& matmul = ActiveMatMulBackend();

  WorkerFlags flags;
  CLI::App app{
      "tributary-worker: serves TensorFlow's WorkerService "
      "(/tensorflow.WorkerService/*) for one task of a cluster: it runs the "
      "graph partitions a tributary-master registers on it and exchanges "
      "tensors with the other tasks (RecvTensor)."};
  app.set_version_flag("--version", VersionLine("tributary-worker"),
                       "Print the version and commit, and exit");
  app.add_option("--cluster", flags.cluster_file,
                 "Cluster spec file, TensorFlow's JSON form: "
                 "{\"ps\": [\"host:port\"], \"worker\": [\"host:port\", ...]}. "
                 "Without it the cluster (and, without --job/--task, this "
                 "task) comes from the TF_CONFIG environment variable");
  app.add_option("--job", flags.server.job,
                 "This task's job in the cluster spec (e.g. worker, ps)");
  app.add_option("--task", flags.server.task,
                 "This task's index in its job (0, 1, ...)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--listen", flags.server.listen_address,
                 "Address to serve on, host:port; default: this task's "
                 "address in the cluster spec. Use it to bind another "
                 "interface (0.0.0.0:PORT in a container); peers still dial "
                 "the spec's address")
      ->default_str("the task's address");
  app.add_option("--log-format", flags.log_format, kLogFormatHelp)
      ->capture_default_str();
  app.add_option("--log-level", flags.log_level, kLogLevelHelp)
      ->capture_default_str();
  app.add_option("--inter-op-threads", flags.server.inter_op_threads,
                 "Threads of the pool that runs the graph partitions' "
                 "expensive kernels and lets partitions run side by side; "
                 "0: one per schedulable core")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  app.add_option("--intra-op-threads", flags.server.intra_op_threads,
                 "Threads each CPU device uses inside one kernel (Eigen); 0: "
                 "one per schedulable core")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  app.add_option("--cpu-devices", flags.server.cpu_devices,
                 "CPU devices of this task (/job:J/replica:0/task:T/device:"
                 "CPU:0..N-1)")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  app.add_option("--max-message-size", flags.server.max_message_size,
                 "Largest gRPC message in bytes, sent or received, to the "
                 "master and to peers; -1: unlimited (gRPC's own cap is 2 "
                 "GiB). A message over it fails its call with "
                 "RESOURCE_EXHAUSTED")
      ->type_name("BYTES")
      ->capture_default_str();
  app.add_option("--max-graph-nodes", flags.server.max_graph_nodes,
                 "Most nodes a graph partition RegisterGraph accepts, its "
                 "functions' included; more is RESOURCE_EXHAUSTED; 0: "
                 "unlimited")
      ->type_name("N")
      ->capture_default_str();
  app.add_option("--max-graph-bytes", flags.server.max_graph_bytes,
                 "Largest graph partition RegisterGraph accepts, in "
                 "serialised GraphDef bytes; more is RESOURCE_EXHAUSTED; 0: "
                 "unlimited")
      ->type_name("BYTES")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  app.add_option("--session-memory-budget", flags.server.session_memory_budget,
                 "Bytes the kernels of one session's steps may hold at once "
                 "(tensors still alive, variables they assigned); an "
                 "allocation beyond it fails the step with RESOURCE_EXHAUSTED "
                 "naming the budget and the session; 0: unlimited; default: "
                 "3/4 of the memory this process may use (RAM or cgroup "
                 "memory.max)")
      ->type_name("BYTES")
      ->default_str("auto")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--allowed-path", flags.server.allowed_paths,
                 "A directory (repeatable) under which SaveV2, RestoreV2 and "
                 "MergeV2Checkpoints may read and write (symlinks and .. "
                 "resolved); anything else is PERMISSION_DENIED. Without it "
                 "every path the worker's user can reach is allowed (a "
                 "warning is logged)")
      ->type_name("DIR")
      ->check(CLI::ExistingDirectory);
  app.add_option("--orphaned-session-grace", flags.orphaned_session_grace_s,
                 "Seconds a session is kept after its master stopped holding "
                 "it (the master died or can no longer reach this task); "
                 "then its steps are cancelled and its graphs and resources "
                 "freed")
      ->type_name("S")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  app.add_option("--grace-period", flags.grace_period_s,
                 "Seconds running steps get to finish after SIGTERM/SIGINT "
                 "before they are cancelled")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  app.add_flag("--task-from-hostname", flags.task_from_hostname,
               "Take the task index from this host's name, as a Kubernetes "
               "StatefulSet names its pods (<job>-<N>: task N of that job; "
               "with --job, only N is taken). Instead of --task");
  AddTlsFlags(app, &flags.tls);
  AddMetricsFlag(app, &flags.metrics_listen);
  AddHostMemoryFlags(app, &flags.memory);
  if (std::optional<int> exit = ParseDaemonFlags(app, argc, argv)) {
    return *exit;
  }

  absl::Status logging =
      InitDaemonLogging("worker", flags.log_level, flags.log_format);
  if (!logging.ok()) {
    std::cerr << "tributary-worker: " << logging.message() << "\n";
    return kExitUsage;
  }
  const std::unique_ptr<HostMemoryReleaser> memory_releaser =
      StartHostMemoryRelease(flags.memory);
  absl::StatusOr<std::shared_ptr<TransportSecurity>> security =
      LoadDaemonSecurity(flags.tls);
  if (!security.ok()) {
    std::cerr << "tributary-worker: " << security.status().message() << "\n";
    return kExitUsage;
  }
  // Which task this process is: the job and task from --job/--task, else
  // TF_CONFIG's "task".
  std::string source;
  absl::StatusOr<DaemonCluster> loaded =
      LoadDaemonCluster(flags.cluster_file, &source);
  WorkerServerOptions& options = flags.server;
  if (loaded.ok() && flags.task_from_hostname) {
    char hostname[256] = {};
    gethostname(hostname, sizeof(hostname) - 1);
    absl::StatusOr<TaskName> task =
        options.task >= 0
            ? absl::StatusOr<TaskName>(errors::InvalidArgument(
                  "--task-from-hostname and --task both say which task this "
                  "is: give one"))
            : TaskFromHostname(hostname, loaded->cluster, options.job);
    if (!task.ok()) {
      std::cerr << "tributary-worker: " << task.status().message() << "\n";
      return kExitUsage;
    }
    options.job = task->job;
    options.task = task->task;
  }
  if (loaded.ok()) {
    const std::optional<TfConfig>& tf_config = loaded->tf_config;
    if (options.job.empty() && tf_config.has_value() && tf_config->task_type) {
      options.job = *tf_config->task_type;
    }
    if (options.task < 0 && tf_config.has_value() && tf_config->task_index) {
      options.task = *tf_config->task_index;
    }
    if (options.job.empty() || options.task < 0) {
      loaded = errors::InvalidArgument(
          "which task is this? pass --job NAME --task N (or set TF_CONFIG's "
          "\"task\": {\"type\": ..., \"index\": ...})");
    }
  }
  if (!loaded.ok()) {
    std::cerr << "tributary-worker: bad cluster spec"
              << (flags.cluster_file.empty() ? ""
                                             : " (" + flags.cluster_file + ")")
              << ": " << loaded.status().message() << "\n";
    return kExitUsage;
  }
  absl::StatusOr<std::string> address =
      loaded->cluster.TaskAddress(options.job, options.task);
  if (!address.ok()) {
    std::cerr << "tributary-worker: task /job:" << options.job
              << "/task:" << options.task << " is not in the cluster spec ("
              << source << "): " << address.status().message() << "\n";
    return kExitUsage;
  }
  SetLogTask(
      absl::StrCat("/job:", options.job, "/replica:0/task:", options.task));
  options.grace_period = absl::Seconds(flags.grace_period_s);
  options.orphaned_session_grace =
      absl::Seconds(flags.orphaned_session_grace_s);
  options.security = *security;

  // The task is in the spec (checked above): only the devices can fail.
  absl::StatusOr<std::unique_ptr<WorkerServer>> server =
      WorkerServer::Create(loaded->cluster, options);
  if (!server.ok()) {
    spdlog::critical(
        "cannot create the devices of /job:{}/replica:0/task:{}: "
        "{}",
        options.job, options.task, server.status().ToString());
    return kExitRuntime;
  }
  WorkerServer& worker = **server;
  // Before serving: recording starts with it (the in-flight gauges count
  // only what began after).
  absl::StatusOr<std::unique_ptr<metrics::HttpExposer>> metrics_exposer =
      StartDaemonMetrics(flags.metrics_listen);
  if (!metrics_exposer.ok()) {
    return MetricsExitStatus(metrics_exposer.status());
  }
  const absl::Status started = worker.Start();
  if (!started.ok()) {
    spdlog::critical("cannot serve {} on {}: {}", worker.task_name(),
                     worker.listen_address(), started.ToString());
    return kExitRuntime;
  }
  spdlog::info("task {} with {} device(s), {} inter-op thread(s); cluster {}",
               worker.task_name(), worker.device_mgr()->NumDevices(),
               worker.num_inter_op_threads(), loaded->cluster.ToJson());
  for (const Device* d : worker.device_mgr()->ListDevices()) {
    spdlog::debug("device {} incarnation {:016x}", d->name(), d->incarnation());
  }
  spdlog::info("MatMul backend: {}", matmul.description);
  spdlog::info(
      "limits: --max-message-size {}, --max-graph-bytes {}, "
      "--max-graph-nodes {}, --session-memory-budget {} (0: unlimited)",
      options.max_message_size, options.max_graph_bytes,
      options.max_graph_nodes, worker.session_memory_budget());
  if (worker.file_access().restricted()) {
    spdlog::info("checkpoint ops may use only: {}",
                 absl::StrJoin(worker.file_access().dirs(), ", "));
  } else {
    spdlog::warn(
        "no --allowed-path: SaveV2/RestoreV2/MergeV2Checkpoints may "
        "read and write any file this process can; any client that "
        "reaches this task can use them (docs/limits.md)");
  }
  spdlog::info("listening on {}", worker.bound_address());

  return ServeUntilTerminated(
      options.grace_period, [&](absl::Time deadline) { worker.Stop(deadline); },
      ReloadOnHangup(*security));
}

}  // namespace
}  // namespace tributary

int main(int argc, char** argv) { return tributary::Run(argc, argv); }
