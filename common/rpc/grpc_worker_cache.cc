#include "common/rpc/grpc_worker_cache.h"

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/strings/str_join.h"
#include "absl/synchronization/mutex.h"
#include "common/device/device_name_utils.h"
#include "common/framework/status.h"
#include "common/rpc/grpc_channel.h"
#include "common/rpc/grpc_remote_worker.h"
#include "grpcpp/channel.h"

namespace tributary {
namespace {

class GrpcWorkerCache : public WorkerCacheInterface {
 public:
  GrpcWorkerCache(const ClusterSpec& cluster, int64_t max_message_bytes,
                  Allocator* allocator, std::shared_ptr<RpcLoop> loop,
                  std::shared_ptr<grpc::ChannelCredentials> credentials)
      : cluster_(cluster),
        max_message_bytes_(max_message_bytes),
        allocator_(allocator),
        loop_(std::move(loop)),
        credentials_(std::move(credentials)) {}

  std::vector<std::string> ListWorkers() const override {
    return cluster_.TaskNames();
  }

  absl::StatusOr<std::shared_ptr<WorkerInterface>> GetWorker(
      absl::string_view task_or_device) override {
    TRIB_ASSIGN_OR_RETURN(std::string task, TaskNameOf(task_or_device));
    absl::MutexLock l(&mu_);
    auto it = workers_.find(task);
    if (it != workers_.end()) return it->second;

    DeviceNameUtils::ParsedName parsed;
    DeviceNameUtils::ParseFullName(task, &parsed);  // valid: TaskNameOf
    absl::StatusOr<std::string> address =
        parsed.replica == 0
            ? cluster_.TaskAddress(parsed.job, parsed.task)
            : absl::StatusOr<std::string>(errors::NotFound("replica"));
    if (!address.ok()) {
      return errors::NotFound("No worker for task ", task,
                              "; the cluster's tasks are [",
                              absl::StrJoin(cluster_.TaskNames(), ", "), "]");
    }
    // One channel (one HTTP/2 connection) per address, shared by every
    // task name that maps to it.
    std::shared_ptr<grpc::Channel>& channel = channels_[*address];
    if (channel == nullptr) {
      channel = NewGrpcChannel(*address, max_message_bytes_, credentials_);
    }
    std::shared_ptr<WorkerInterface> worker =
        NewGrpcRemoteWorker(channel, task, *address, allocator_, loop_);
    workers_[task] = worker;
    return worker;
  }

  void RetryFailedConnections() override {
    absl::MutexLock l(&mu_);
    for (auto& [address, channel] : channels_) {
      grpc::experimental::ChannelResetConnectionBackoff(channel.get());
    }
  }

 private:
  const ClusterSpec cluster_;
  const int64_t max_message_bytes_;
  Allocator* const allocator_;
  const std::shared_ptr<RpcLoop> loop_;
  const std::shared_ptr<grpc::ChannelCredentials> credentials_;
  absl::Mutex mu_;
  std::map<std::string, std::shared_ptr<grpc::Channel>> channels_
      ABSL_GUARDED_BY(mu_);
  std::map<std::string, std::shared_ptr<WorkerInterface>> workers_
      ABSL_GUARDED_BY(mu_);
};

}  // namespace

std::unique_ptr<WorkerCacheInterface> NewGrpcWorkerCache(
    const ClusterSpec& cluster, int64_t max_message_bytes, Allocator* allocator,
    std::shared_ptr<RpcLoop> loop,
    std::shared_ptr<grpc::ChannelCredentials> credentials) {
  return std::make_unique<GrpcWorkerCache>(cluster, max_message_bytes,
                                           allocator, std::move(loop),
                                           std::move(credentials));
}

}  // namespace tributary
