#include "master/master_server.h"

#include <algorithm>
#include <utility>

#include "common/framework/allocator.h"
#include "common/framework/status.h"
#include "common/metrics/metrics.h"
#include "common/rpc/grpc_worker_cache.h"
#include "common/rpc/metrics_service.h"
#include "master/cluster_status_service.h"
#include "master/grpc_master_service.h"

namespace tributary {

absl::StatusOr<std::unique_ptr<MasterServer>> MasterServer::Create(
    const ClusterSpec& cluster, MasterServerOptions options) {
  if (cluster.TaskNames().empty()) {
    return errors::InvalidArgument("the cluster has no tasks");
  }
  std::unique_ptr<MasterServer> server(
      new MasterServer(cluster, std::move(options)));
  server->Init();
  return server;
}

MasterServer::MasterServer(const ClusterSpec& cluster,
                           MasterServerOptions options)
    : cluster_(cluster), options_(std::move(options)) {}

void MasterServer::Init() {
  const std::shared_ptr<TransportSecurity> security =
      options_.security != nullptr ? options_.security
                                   : TransportSecurity::Plaintext();
  serving_ = std::make_unique<ServerLifecycle>(
      options_.max_message_size,
      security->ServerCredentials(PeerCertificates::kOptional));
  WorkerCacheInterface* workers = options_.worker_cache;
  if (workers == nullptr) {
    workers_ =
        NewGrpcWorkerCache(cluster_, options_.max_message_size, cpu_allocator(),
                           serving_->loop(), security->ChannelCredentials());
    workers = workers_.get();
  }
  MasterOptions master;
  master.worker_cache = workers;
  master.cluster = cluster_;
  master.discovery_timeout = options_.discovery_timeout;
  master.task_startup_window = options_.task_startup_window;
  master.control_timeout = options_.control_timeout;
  master.cancel_grace = options_.cancel_grace;
  master.idle_session_timeout = options_.idle_session_timeout;
  master.max_graph_bytes = options_.max_graph_bytes;
  master.max_graph_nodes = options_.max_graph_nodes;
  master.max_sessions = options_.max_sessions;
  master.max_steps_per_client = options_.max_steps_per_client;
  master.max_steps_per_session = options_.max_steps_per_session;
  master_ = std::make_unique<Master>(master);
  pool_ = std::make_unique<BlockingCallPool>();
  service_ = NewGrpcMasterService(master_.get(), pool_.get(), cpu_allocator(),
                                  options_.auth.get());
  metrics_service_ = NewMetricsService(&metrics::Default());
  cluster_status_service_ = NewClusterStatusService(
      cluster_, security->ChannelCredentials(), pool_.get(),
      &metrics::Default(), options_.auth.get());
}

MasterServer::~MasterServer() { Stop(absl::Now()); }

absl::Status MasterServer::Start() {
  return serving_->Start(
      options_.listen_address,
      {service_.get(), metrics_service_.get(), cluster_status_service_.get()},
      options_.insecure_listen_address);
}

void MasterServer::Stop() { Stop(absl::Now() + options_.grace_period); }

void MasterServer::Stop(absl::Time deadline) {
  // The master lets calls finish until the deadline, then closes every
  // session, which cancels what still runs so gRPC's wait ends too.
  const bool first = serving_->Stop(deadline, [&] {
    master_->Shutdown(std::max(deadline - absl::Now(), absl::ZeroDuration()));
  });
  if (!first) return;
  pool_.reset();
  service_.reset();
  metrics_service_.reset();
  cluster_status_service_.reset();
  master_.reset();
  workers_.reset();
}

}  // namespace tributary
