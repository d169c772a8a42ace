#ifndef TRIBUTARY_COMMON_RPC_METRICS_SERVICE_H_
#define TRIBUTARY_COMMON_RPC_METRICS_SERVICE_H_

// /tributary.Metrics/GetMetrics (protos/cluster_status.proto): a daemon's
// metrics (metrics::Default(), Prometheus' text format) over its own gRPC
// port, so the master can gather a cluster's for `tributary top` without
// knowing the tasks' --metrics-listen ports. Answered on the network thread
// (rendering takes well under a millisecond); needs no token, like health.

#include <memory>

#include "common/metrics/metrics.h"
#include "common/rpc/rpc_service.h"

namespace tributary {

inline constexpr char kMetricsService[] = "tributary.Metrics";

// `registry` must outlive the service.
std::unique_ptr<RpcService> NewMetricsService(
    const metrics::Registry* registry);

}  // namespace tributary

#endif  // TRIBUTARY_COMMON_RPC_METRICS_SERVICE_H_
