#include "common/rpc/metrics_service.h"

#include "protos/cluster_status.pb.h"

namespace tributary {

std::unique_ptr<RpcService> NewMetricsService(
    const metrics::Registry* registry) {
  auto service = std::make_unique<RpcService>(kMetricsService);
  service->Add("GetMetrics",
               TypedHandler<GetMetricsRequest, GetMetricsResponse>(
                   [registry](CallOptions*, const GetMetricsRequest*,
                              GetMetricsResponse* response,
                              std::function<void(const absl::Status&)> done) {
                     response->set_text(registry->Render());
                     done(absl::OkStatus());
                   }));
  return service;
}

}  // namespace tributary
