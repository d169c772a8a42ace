// tributary-worker: the WorkerService daemon of one task. Serves
// TensorFlow's /tensorflow.WorkerService/* for task --task of job --job of
// the cluster in --cluster (or TF_CONFIG) on that task's address, with
// --cpu-devices CPU devices, and fetches tensors from its peers over gRPC.
//
// Exit status: 0 after a graceful stop (SIGTERM / SIGINT), 2 for bad flags,
// a bad cluster spec or a task that is not in it, 1 when the devices cannot
// be created or the address cannot be served.

#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "common/cluster/cluster_spec.h"
#include "common/cluster/tf_config.h"
#include "common/daemon/daemon_process.h"
#include "common/device/device_factory.h"
#include "common/device/device_mgr.h"
#include "common/framework/status.h"
#include "common/rpc/grpc_server.h"
#include "common/rpc/grpc_worker_cache.h"
#include "common/rpc/grpc_worker_service.h"
#include "common/runtime/executor/inter_op_thread_pool.h"
#include "kernels/math/matmul_backend.h"
#include "protos/config.pb.h"
#include "spdlog/spdlog.h"
#include "worker/worker.h"
#include "worker/worker_env.h"

namespace tributary {
namespace {

constexpr int kExitUsage = 2;
constexpr int kExitRuntime = 1;

struct Flags {
  std::string cluster_file;
  std::string job;
  int task = -1;
  std::string listen;
  std::string log_level = "info";
  int inter_op_threads = 0;
  int intra_op_threads = 0;
  int cpu_devices = 1;
  int64_t max_message_size = -1;
  double grace_period_s = 10;
};

// Which task this process is: the cluster from --cluster, else TF_CONFIG's;
// the job and task from --job/--task, else TF_CONFIG's "task".
struct Identity {
  ClusterSpec cluster;
  std::string job;
  int task = -1;
  std::string source;  // where the cluster came from, for messages
};

absl::StatusOr<Identity> LoadIdentity(const Flags& flags) {
  Identity id;
  std::optional<TfConfig> tf_config;
  absl::StatusOr<TfConfig> env = TfConfigFromEnvironment();
  if (env.ok()) {
    tf_config = *std::move(env);
  } else if (!absl::IsNotFound(env.status()) && flags.cluster_file.empty()) {
    return env.status();
  }
  if (!flags.cluster_file.empty()) {
    id.source = flags.cluster_file;
    TRIB_ASSIGN_OR_RETURN(id.cluster,
                          ClusterSpec::FromJsonFile(flags.cluster_file));
  } else if (tf_config.has_value()) {
    id.source = "TF_CONFIG";
    TRIB_ASSIGN_OR_RETURN(id.cluster,
                          ClusterSpec::FromClusterDef(tf_config->cluster));
  } else {
    return errors::InvalidArgument(
        "no cluster: pass --cluster FILE or set TF_CONFIG");
  }
  id.job = flags.job;
  id.task = flags.task;
  if (id.job.empty() && tf_config.has_value() && tf_config->task_type) {
    id.job = *tf_config->task_type;
  }
  if (id.task < 0 && tf_config.has_value() && tf_config->task_index) {
    id.task = *tf_config->task_index;
  }
  if (id.job.empty() || id.task < 0) {
    return errors::InvalidArgument(
        "which task is this? pass --job NAME --task N (or set TF_CONFIG's "
        "\"task\": {\"type\": ..., \"index\": ...})");
  }
  return id;
}

int Run(int argc, char** argv) {
  PrepareDaemonProcess();
  // The MatMul backend is chosen (and OpenBLAS loaded) now, while this is
  // the process's only thread: the loader sets OPENBLAS_CORETYPE around
  // dlopen, and setenv must not race another thread's getenv.
  const MatMulBackendChoice& matmul = ActiveMatMulBackend();

  Flags flags;
  CLI::App app{
      "tributary-worker: serves TensorFlow's WorkerService "
      "(/tensorflow.WorkerService/*) for one task of a cluster: it runs the "
      "graph partitions a tributary-master registers on it and exchanges "
      "tensors with the other tasks (RecvTensor)."};
  app.add_option("--cluster", flags.cluster_file,
                 "Cluster spec file, TensorFlow's JSON form: "
                 "{\"ps\": [\"host:port\"], \"worker\": [\"host:port\", ...]}. "
                 "Without it the cluster (and, without --job/--task, this "
                 "task) comes from the TF_CONFIG environment variable");
  app.add_option("--job", flags.job,
                 "This task's job in the cluster spec (e.g. worker, ps)");
  app.add_option("--task", flags.task,
                 "This task's index in its job (0, 1, ...)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--listen", flags.listen,
                 "Address to serve on, host:port; default: this task's "
                 "address in the cluster spec. Use it to bind another "
                 "interface (0.0.0.0:PORT in a container); peers still dial "
                 "the spec's address")
      ->default_str("the task's address");
  app.add_option("--log-level", flags.log_level, kLogLevelHelp)
      ->capture_default_str();
  app.add_option("--inter-op-threads", flags.inter_op_threads,
                 "Threads of the pool that runs the graph partitions' "
                 "expensive kernels and lets partitions run side by side; "
                 "0: one per schedulable core")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  app.add_option("--intra-op-threads", flags.intra_op_threads,
                 "Threads each CPU device uses inside one kernel (Eigen); 0: "
                 "one per schedulable core")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  app.add_option("--cpu-devices", flags.cpu_devices,
                 "CPU devices of this task (/job:J/replica:0/task:T/device:"
                 "CPU:0..N-1)")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  app.add_option("--max-message-size", flags.max_message_size,
                 "Largest gRPC message in bytes, sent or received, to the "
                 "master and to peers; -1: unlimited (gRPC's own cap is 2 GiB)")
      ->capture_default_str();
  app.add_option("--grace-period", flags.grace_period_s,
                 "Seconds running steps get to finish after SIGTERM/SIGINT "
                 "before they are cancelled")
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

  absl::Status logging = InitDaemonLogging("worker", flags.log_level);
  if (!logging.ok()) {
    std::cerr << "tributary-worker: " << logging.message() << "\n";
    return kExitUsage;
  }
  absl::StatusOr<Identity> id = LoadIdentity(flags);
  if (!id.ok()) {
    std::cerr << "tributary-worker: bad cluster spec"
              << (flags.cluster_file.empty() ? ""
                                             : " (" + flags.cluster_file + ")")
              << ": " << id.status().message() << "\n";
    return kExitUsage;
  }
  absl::StatusOr<std::string> address =
      id->cluster.TaskAddress(id->job, id->task);
  if (!address.ok()) {
    std::cerr << "tributary-worker: task /job:" << id->job
              << "/task:" << id->task << " is not in the cluster spec ("
              << id->source << "): " << address.status().message() << "\n";
    return kExitUsage;
  }
  const std::string task_name =
      absl::StrCat("/job:", id->job, "/replica:0/task:", id->task);
  const std::string listen = flags.listen.empty() ? *address : flags.listen;

  tensorflow::ConfigProto config;
  (*config.mutable_device_count())["CPU"] = flags.cpu_devices;
  config.set_intra_op_parallelism_threads(flags.intra_op_threads);
  std::vector<std::unique_ptr<Device>> devices;
  absl::Status s = DeviceFactory::AddDevices(config, task_name, &devices);
  absl::StatusOr<std::unique_ptr<DeviceMgr>> device_mgr =
      s.ok() ? DeviceMgr::Create(std::move(devices))
             : absl::StatusOr<std::unique_ptr<DeviceMgr>>(s);
  if (!device_mgr.ok()) {
    spdlog::critical("cannot create the devices of {}: {}", task_name,
                     device_mgr.status().ToString());
    return kExitRuntime;
  }

  // One network thread serves this task and makes its calls to the others
  // (common/rpc/rpc_loop.h).
  auto server = std::make_unique<GrpcServer>(flags.max_message_size);
  std::unique_ptr<WorkerCacheInterface> peers = NewGrpcWorkerCache(
      id->cluster, flags.max_message_size, cpu_allocator(), server->loop());
  auto pool = std::make_unique<InterOpThreadPool>(flags.inter_op_threads);
  WorkerEnv env;
  env.task_name = task_name;
  env.device_mgr = device_mgr->get();
  env.worker_cache = peers.get();
  // A master's own view of the cluster, for its sessions' RecvTensor calls.
  // The same view as ours (the usual case) shares our cache.
  env.session_worker_cache_factory =
      [loop = server->loop(), max = flags.max_message_size,
       ours = id->cluster.ToJson()](const tensorflow::ClusterDef& cluster)
      -> absl::StatusOr<std::shared_ptr<WorkerCacheInterface>> {
    TRIB_ASSIGN_OR_RETURN(ClusterSpec spec, ClusterSpec::FromClusterDef(cluster));
    if (spec.ToJson() == ours) return std::shared_ptr<WorkerCacheInterface>();
    return std::shared_ptr<WorkerCacheInterface>(
        NewGrpcWorkerCache(spec, max, cpu_allocator(), loop));
  };
  env.compute_pool = pool.get();
  auto worker = std::make_unique<Worker>(&env);
  InterOpThreadPool* compute_pool = pool.get();
  std::unique_ptr<RpcService> service = NewGrpcWorkerService(
      worker.get(), cpu_allocator(), [compute_pool](std::function<void()> fn) {
        compute_pool->Schedule(std::move(fn));
      });
  const absl::Status started = server->Start(listen, {service.get()});
  if (!started.ok()) {
    spdlog::critical("cannot serve {} on {}: {}", task_name, listen,
                     started.ToString());
    return kExitRuntime;
  }
  spdlog::info("task {} with {} device(s), {} inter-op thread(s); cluster {}",
               task_name, (*device_mgr)->NumDevices(), pool->num_threads(),
               id->cluster.ToJson());
  for (const Device* d : (*device_mgr)->ListDevices()) {
    spdlog::debug("device {} incarnation {:016x}", d->name(), d->incarnation());
  }
  spdlog::info("MatMul backend: {}", matmul.description);
  spdlog::info("listening on {}", server->address());

  const int sig = WaitForTerminationSignal();
  const absl::Duration grace = absl::Seconds(flags.grace_period_s);
  const absl::Time deadline = absl::Now() + grace;
  spdlog::info("signal {}: stopping (grace period {})", sig,
               absl::FormatDuration(grace));
  // gRPC stops accepting calls and waits for those running until the
  // deadline, then cancels them (which aborts their steps). Meanwhile the
  // worker lets its steps finish; whatever is left at the deadline is
  // aborted so nothing keeps either wait going.
  std::thread stop_server(
      [&] { server->Shutdown(deadline); });
  if (!worker->WaitUntilIdle(deadline)) {
    spdlog::warn("grace period over with {} call(s) running; cancelling them",
                 worker->NumCallsInFlight());
  }
  worker->AbortAll(
      errors::Unavailable("Worker ", task_name, " is shutting down"));
  stop_server.join();
  server.reset();
  service.reset();
  // Releases every session, graph and resource (CleanupAll of everything).
  worker.reset();
  pool.reset();
  peers.reset();
  spdlog::info("stopped");
  return 0;
}

}  // namespace
}  // namespace tributary

int main(int argc, char** argv) { return tributary::Run(argc, argv); }
