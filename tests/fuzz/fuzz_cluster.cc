#include "tests/fuzz/fuzz_cluster.h"

#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/cluster/cluster_spec.h"
#include "common/distributed/worker_cache.h"
#include "common/framework/allocator.h"
#include "common/framework/logging.h"
#include "common/rpc/grpc_worker_service.h"
#include "master/blocking_call_pool.h"
#include "master/grpc_master_service.h"
#include "worker/worker_server.h"

namespace tributary {
namespace fuzz {
namespace {

constexpr int kTasks = 2;

// A fresh private folder under $TEST_TMPDIR (Bazel's), else the system's
// temporary folder ($TMPDIR).
std::string MakeScratchDir() {
  const char* base = std::getenv("TEST_TMPDIR");
  std::string pattern = absl::StrCat(
      base != nullptr ? std::string(base)
                      : std::filesystem::temp_directory_path().string(),
      "/tributary-fuzz-XXXXXX");
  CHECK(mkdtemp(pattern.data()) != nullptr) << "cannot make " << pattern;
  return pattern;
}

}  // namespace

struct FuzzCluster::Parts {
  InProcessWorkerCache cache;
  std::map<std::string, std::unique_ptr<WorkerServer>> servers;
  BlockingCallPool pool;
};

FuzzCluster& FuzzCluster::Get() {
  static FuzzCluster* cluster = new FuzzCluster();
  return *cluster;
}

FuzzCluster::FuzzCluster()
    : parts_(std::make_unique<Parts>()), scratch_dir_(MakeScratchDir()) {
  // Nobody listens at these addresses: the tasks reach each other through
  // the in-process cache (WorkerServerOptions::worker_cache).
  absl::StatusOr<ClusterSpec> cluster =
      ClusterSpec::FromJson(R"({"worker": ["127.0.0.1:1", "127.0.0.1:2"]})");
  CHECK(cluster.ok()) << cluster.status();
  for (int task = 0; task < kTasks; ++task) {
    WorkerServerOptions options;
    options.job = "worker";
    options.task = task;
    options.inter_op_threads = 2;
    options.intra_op_threads = 1;
    options.session_memory_budget = int64_t{256} << 20;
    options.max_graph_bytes = int64_t{1} << 20;
    options.max_graph_nodes = 1 << 16;
    options.allowed_paths = {scratch_dir_};
    options.grace_period = absl::Seconds(1);
    options.orphaned_session_grace = absl::Seconds(1);
    options.worker_cache = &parts_->cache;
    absl::StatusOr<std::unique_ptr<WorkerServer>> server =
        WorkerServer::Create(*cluster, options);
    CHECK(server.ok()) << server.status();
    const std::string name = (*server)->task_name();
    // The cache does not own workers: their servers do.
    parts_->cache.AddWorker(
        name, std::shared_ptr<WorkerInterface>((*server)->worker(),
                                               [](WorkerInterface*) {}));
    parts_->servers[name] = *std::move(server);
  }
  MasterOptions options;
  options.worker_cache = &parts_->cache;
  options.discovery_timeout = absl::Seconds(2);
  options.control_timeout = absl::Seconds(2);
  options.cancel_grace = absl::Seconds(1);
  options.max_graph_bytes = int64_t{1} << 20;
  options.max_graph_nodes = 1 << 16;
  options.max_sessions = 64;
  options.max_steps_per_session = 8;
  master_ = std::make_unique<Master>(std::move(options));
  master_service_ = NewGrpcMasterService(master_.get(), &parts_->pool);
  worker_service_ = NewGrpcWorkerService(worker(), cpu_allocator(), nullptr,
                                         /*max_graph_nodes=*/1 << 16);
  holds_service_ = NewGrpcWorkerSessionHoldsService(worker());
}

Worker* FuzzCluster::worker() {
  return parts_->servers.begin()->second->worker();
}

}  // namespace fuzz
}  // namespace tributary
