#include "master/cluster_status_service.h"

#include <atomic>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "common/rpc/grpc_channel.h"
#include "common/rpc/grpc_status.h"
#include "common/rpc/metrics_service.h"
#include "common/rpc/tensor_coding.h"
#include "common/rpc/unary_call.h"
#include "grpcpp/client_context.h"
#include "grpcpp/generic/generic_stub.h"
#include "protos/cluster_status.pb.h"

namespace tributary {
namespace {

constexpr absl::Duration kTaskTimeout = absl::Seconds(5);
constexpr int kMaxConcurrent = 4;
// Metrics texts are tens of KiB; this bounds what a task can make us hold.
constexpr int64_t kMaxMetricsBytes = 16 << 20;

// Fills `status` with the task's metrics, or why there are none.
void AskTask(const std::string& address,
             const std::shared_ptr<grpc::ChannelCredentials>& credentials,
             TaskStatus* status) {
  grpc::GenericStub stub(
      NewGrpcChannel(address, kMaxMetricsBytes, credentials));
  grpc::ClientContext context;
  context.set_deadline(absl::ToChronoTime(absl::Now() + kTaskTimeout));
  GetMetricsResponse metrics;
  const grpc::Status called = ProtoCallOnThisThread(
      &stub, &context, absl::StrCat("/", kMetricsService, "/GetMetrics"),
      GetMetricsRequest(), &metrics);
  if (called.ok()) {
    status->set_metrics(std::move(*metrics.mutable_text()));
  } else {
    status->set_error(called.error_message());
  }
}

void Gather(const ClusterSpec& cluster,
            const std::shared_ptr<grpc::ChannelCredentials>& credentials,
            const metrics::Registry* registry,
            GetClusterStatusResponse* response) {
  TaskStatus* master = response->add_task();
  master->set_task("master");
  master->set_metrics(registry->Render());
  std::vector<std::pair<std::string, std::string>> tasks;  // name, address
  for (const std::string& job : cluster.jobs()) {
    for (int index : cluster.task_indices(job)) {
      absl::StatusOr<std::string> address = cluster.TaskAddress(job, index);
      if (address.ok()) {
        tasks.emplace_back(
            absl::StrCat("/job:", job, "/replica:0/task:", index), *address);
      }
    }
  }
  std::vector<TaskStatus*> statuses;
  for (const auto& [name, address] : tasks) {
    TaskStatus* status = response->add_task();
    status->set_task(name);
    status->set_address(address);
    statuses.push_back(status);
  }
  // All at once: a task that does not answer costs its timeout once.
  std::vector<std::thread> askers;
  for (size_t i = 0; i < tasks.size(); ++i) {
    askers.emplace_back(AskTask, tasks[i].second, credentials, statuses[i]);
  }
  for (std::thread& asker : askers) asker.join();
}

}  // namespace

std::unique_ptr<RpcService> NewClusterStatusService(
    const ClusterSpec& cluster,
    std::shared_ptr<grpc::ChannelCredentials> credentials,
    BlockingCallPool* pool, const metrics::Registry* registry,
    const ClientAuth* auth) {
  auto service = std::make_unique<RpcService>(kClusterStatusService);
  auto in_flight = std::make_shared<std::atomic<int>>(0);
  service->Add("GetClusterStatus", [cluster, credentials, pool, registry, auth,
                                    in_flight](RpcServerCall* call) {
    if (auth != nullptr) {
      absl::StatusOr<ClientIdentity> client =
          auth->Authenticate(call->caller());
      if (!client.ok()) {
        call->Finish(ToGrpcStatus(client.status()), grpc::ByteBuffer());
        return;
      }
    }
    // Each asks every task (a thread per task, up to 5 s): a few at once
    // serve any number of `top`s; more are refused, not queued.
    if (in_flight->fetch_add(1) >= kMaxConcurrent) {
      in_flight->fetch_sub(1);
      call->Finish(
          grpc::Status(grpc::StatusCode::RESOURCE_EXHAUSTED,
                       absl::StrCat("More than ", kMaxConcurrent,
                                    " GetClusterStatus calls at once")),
          grpc::ByteBuffer());
      return;
    }
    pool->Schedule([cluster, credentials, registry, call, in_flight] {
      GetClusterStatusResponse response;
      Gather(cluster, credentials, registry, &response);
      grpc::ByteBuffer bytes;
      SerializeToByteBuffer(response, &bytes);
      in_flight->fetch_sub(1);
      call->Finish(grpc::Status::OK, std::move(bytes));
    });
  });
  return service;
}

}  // namespace tributary
