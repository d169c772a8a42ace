#ifndef TRIBUTARY_MASTER_CLUSTER_STATUS_SERVICE_H_
#define TRIBUTARY_MASTER_CLUSTER_STATUS_SERVICE_H_

// /tributary.ClusterStatus/GetClusterStatus (protos/cluster_status.proto):
// what `tributary top` shows, gathered by the master: its own metrics and
// each task's, asked with /tributary.Metrics/GetMetrics of every task of the
// cluster spec at once (over the master's channel credentials, 5 s each). A
// task that does not answer is listed with the error, not left out. Runs on
// `pool`: it waits for the tasks; more than 4 calls at once are
// RESOURCE_EXHAUSTED. With client authentication on, any valid token may
// ask (it reads no session's data); none is UNAUTHENTICATED.

#include <memory>

#include "common/cluster/cluster_spec.h"
#include "common/metrics/metrics.h"
#include "common/rpc/rpc_service.h"
#include "grpcpp/security/credentials.h"
#include "master/blocking_call_pool.h"
#include "master/client_auth.h"

namespace tributary {

inline constexpr char kClusterStatusService[] = "tributary.ClusterStatus";

// Not owned, must outlive the service: `pool`, `registry`, `auth` (null: no
// authentication).
std::unique_ptr<RpcService> NewClusterStatusService(
    const ClusterSpec& cluster,
    std::shared_ptr<grpc::ChannelCredentials> credentials,
    BlockingCallPool* pool, const metrics::Registry* registry,
    const ClientAuth* auth);

}  // namespace tributary

#endif  // TRIBUTARY_MASTER_CLUSTER_STATUS_SERVICE_H_
