#include "worker/worker_server.h"

#include <unistd.h>

#include <fstream>
#include <utility>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "common/device/device_factory.h"
#include "common/framework/status.h"
#include "common/metrics/metrics.h"
#include "common/rpc/grpc_worker_cache.h"
#include "common/rpc/grpc_worker_service.h"
#include "common/rpc/metrics_service.h"
#include "protos/config.pb.h"
#include "spdlog/spdlog.h"
#include "worker/worker_metrics.h"

namespace tributary {
namespace {

// Each device's default allocator (its device memory; the host's for CPU
// devices, which share one), at scrape time.
void CollectAllocators(const DeviceMgr& devices,
                       std::vector<metrics::CollectedFamily>* out) {
  metrics::CollectedFamily in_use{
      "tributary_allocator_bytes_in_use",
      "Bytes handed out by a device's allocator and not yet freed.", "gauge"};
  metrics::CollectedFamily peak{
      "tributary_allocator_peak_bytes",
      "Most bytes a device's allocator had handed out at once.", "gauge"};
  metrics::CollectedFamily cached{
      "tributary_allocator_cached_bytes",
      "Memory a device's allocator holds for reuse, not handed out (CPU "
      "devices: the host block cache they share).",
      "gauge"};
  for (Device* device : devices.ListDevices()) {
    Allocator* allocator = device->GetAllocator();
    if (allocator == nullptr) continue;
    const AllocatorStats stats = allocator->GetStats();
    std::vector<std::pair<std::string, std::string>> labels = {
        {"device", device->name()}, {"allocator", allocator->Name()}};
    in_use.samples.push_back({labels, double(stats.bytes_in_use)});
    peak.samples.push_back({labels, double(stats.peak_bytes_in_use)});
    cached.samples.push_back({labels, double(stats.bytes_cached)});
  }
  out->push_back(std::move(in_use));
  out->push_back(std::move(peak));
  out->push_back(std::move(cached));
}

// The inter-op pool every executor of this worker schedules its expensive
// kernels and partitions on.
void CollectInterOpPool(const InterOpThreadPool& pool,
                        std::vector<metrics::CollectedFamily>* out) {
  out->push_back({"tributary_executor_queue_depth",
                  "Kernels and partitions waiting for an inter-op thread.",
                  "gauge",
                  {metrics::Sample{{}, double(pool.queued())}}});
  out->push_back({"tributary_executor_busy_threads",
                  "Inter-op threads running a kernel or partition now.",
                  "gauge",
                  {metrics::Sample{{}, double(pool.running())}}});
  out->push_back({"tributary_executor_threads", "Inter-op threads.", "gauge",
                  {metrics::Sample{{}, double(pool.num_threads())}}});
}

}  // namespace

absl::StatusOr<std::unique_ptr<WorkerServer>> WorkerServer::Create(
    const ClusterSpec& cluster, WorkerServerOptions options) {
  std::unique_ptr<WorkerServer> server(
      new WorkerServer(cluster, std::move(options)));
  TRIB_RETURN_IF_ERROR(server->Init());
  return server;
}

WorkerServer::WorkerServer(const ClusterSpec& cluster,
                           WorkerServerOptions options)
    : cluster_(cluster), options_(std::move(options)) {}

int64_t DefaultSessionMemoryBudget() {
  int64_t total = 0;
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page = sysconf(_SC_PAGE_SIZE);
  if (pages > 0 && page > 0) total = int64_t{pages} * page;
  // cgroup v2 (containers, systemd's MemoryMax=): "max" or bytes.
  std::ifstream cgroup("/sys/fs/cgroup/memory.max");
  std::string max;
  int64_t limit = 0;
  if (cgroup >> max && absl::SimpleAtoi(max, &limit) && limit > 0 &&
      (total == 0 || limit < total)) {
    total = limit;
  }
  return total / 4 * 3;
}

absl::Status WorkerServer::Init() {
  TRIB_ASSIGN_OR_RETURN(std::string address,
                        cluster_.TaskAddress(options_.job, options_.task));
  task_name_ =
      absl::StrCat("/job:", options_.job, "/replica:0/task:", options_.task);
  listen_address_ =
      options_.listen_address.empty() ? address : options_.listen_address;

  TRIB_ASSIGN_OR_RETURN(file_access_,
                        FileAccessPolicy::Create(options_.allowed_paths));
  env_.file_access = file_access_.restricted() ? &file_access_ : nullptr;
  env_.max_graph_bytes = options_.max_graph_bytes;
  env_.max_graph_nodes = options_.max_graph_nodes;
  env_.orphaned_session_grace = options_.orphaned_session_grace;
  env_.session_memory_budget = options_.session_memory_budget < 0
                                   ? DefaultSessionMemoryBudget()
                                   : options_.session_memory_budget;

  tensorflow::ConfigProto config;
  (*config.mutable_device_count())["CPU"] = options_.cpu_devices;
  config.set_intra_op_parallelism_threads(options_.intra_op_threads);
  std::vector<std::unique_ptr<Device>> devices;
  TRIB_RETURN_IF_ERROR(DeviceFactory::AddDevices(config, task_name_, &devices));
  TRIB_ASSIGN_OR_RETURN(device_mgr_, DeviceMgr::Create(std::move(devices)));

  const std::shared_ptr<TransportSecurity> security =
      options_.security != nullptr ? options_.security
                                   : TransportSecurity::Plaintext();
  serving_ = std::make_unique<ServerLifecycle>(
      options_.max_message_size,
      security->ServerCredentials(PeerCertificates::kRequired));
  std::shared_ptr<grpc::ChannelCredentials> credentials =
      security->ChannelCredentials();
  WorkerCacheInterface* peers = options_.worker_cache;
  if (peers == nullptr) {
    peers_ = NewGrpcWorkerCache(cluster_, options_.max_message_size,
                                cpu_allocator(), serving_->loop(), credentials);
    peers = peers_.get();
  }
  pool_ = std::make_unique<InterOpThreadPool>(options_.inter_op_threads);
  env_.task_name = task_name_;
  env_.device_mgr = device_mgr_.get();
  env_.worker_cache = peers;
  // A master's own view of the cluster, for its sessions' RecvTensor calls.
  // The same view as ours (the usual case) shares our cache.
  env_.session_worker_cache_factory =
      [loop = serving_->loop(), max = options_.max_message_size,
       ours = cluster_.ToJson(),
       credentials](const tensorflow::ClusterDef& cluster)
      -> absl::StatusOr<std::shared_ptr<WorkerCacheInterface>> {
    TRIB_ASSIGN_OR_RETURN(ClusterSpec spec,
                          ClusterSpec::FromClusterDef(cluster));
    if (spec.ToJson() == ours) return std::shared_ptr<WorkerCacheInterface>();
    return std::shared_ptr<WorkerCacheInterface>(
        NewGrpcWorkerCache(spec, max, cpu_allocator(), loop, credentials));
  };
  env_.compute_pool = pool_.get();
  worker_ = std::make_unique<Worker>(&env_);
  // Control calls (registering a big graph) run on the compute pool so the
  // network thread stays free for the RecvTensor and RunGraph of running
  // steps.
  InterOpThreadPool* compute_pool = pool_.get();
  service_ = NewGrpcWorkerService(
      worker_.get(), cpu_allocator(),
      [compute_pool](std::function<void()> fn) {
        compute_pool->Schedule(std::move(fn));
      },
      options_.max_graph_nodes);
  holds_service_ = NewGrpcWorkerSessionHoldsService(worker_.get());
  metrics_service_ = NewMetricsService(&metrics::Default());
  // Families made here, outside any lock, so they are listed from the start.
  WorkerMetrics::Get();
  state_collector_ = metrics::Default().AddCollector(
      [devices = device_mgr_.get(),
       pool = pool_.get()](std::vector<metrics::CollectedFamily>* out) {
        CollectAllocators(*devices, out);
        CollectInterOpPool(*pool, out);
      });
  return absl::OkStatus();
}

WorkerServer::~WorkerServer() {
  if (state_collector_ >= 0) {
    metrics::Default().RemoveCollector(state_collector_);
  }
  Stop(absl::Now());
}

absl::Status WorkerServer::Start() {
  return serving_->Start(listen_address_, {service_.get(), holds_service_.get(),
                                           metrics_service_.get()});
}

void WorkerServer::Stop() { Stop(absl::Now() + options_.grace_period); }

void WorkerServer::Stop(absl::Time deadline) {
  // A server whose Create failed has nothing to stop.
  if (serving_ == nullptr || worker_ == nullptr) return;
  // The worker lets its steps finish; whatever is left at the deadline is
  // aborted so neither its wait nor gRPC's goes on.
  const bool first = serving_->Stop(deadline, [&] {
    worker_->ReleaseHolds(
        errors::Unavailable("Worker ", task_name_, " is shutting down"));
    if (!worker_->WaitUntilIdle(deadline)) {
      spdlog::warn(
          "grace period over with {} call(s) running; cancelling "
          "them",
          worker_->NumCallsInFlight());
    }
    worker_->AbortAll(
        errors::Unavailable("Worker ", task_name_, " is shutting down"));
  });
  if (!first) return;
  service_.reset();
  holds_service_.reset();
  // Releases every session, graph and resource (CleanupAll of everything).
  worker_.reset();
  pool_.reset();
  peers_.reset();
}

}  // namespace tributary
