#ifndef TRIBUTARY_COMMON_RPC_GRPC_WORKER_CACHE_H_
#define TRIBUTARY_COMMON_RPC_GRPC_WORKER_CACHE_H_

// WorkerCacheInterface over gRPC for the tasks of a ClusterSpec: GetWorker
// returns a GrpcRemoteWorker for the task's address. Channels are created
// lazily (first GetWorker of an address) and shared by every task and
// caller using that address, so all calls to a peer multiplex one HTTP/2
// connection. Thread-safe.

#include <cstdint>
#include <memory>

#include "common/cluster/cluster_spec.h"
#include "common/distributed/worker_cache.h"
#include "common/framework/allocator.h"
#include "common/rpc/grpc_channel.h"
#include "common/rpc/rpc_loop.h"
#include "grpcpp/security/credentials.h"

namespace tributary {

// `allocator`: where received tensors (RunGraph recv, RecvTensor) are
// allocated; a reusing allocator avoids faulting in fresh pages per
// transfer. `loop`: the network thread the calls run on (a daemon passes
// its GrpcServer's loop; nullptr: RpcLoop::SharedClientLoop()).
// `credentials`: how the channels are secured
// (TransportSecurity::ChannelCredentials(); nullptr: plaintext).
std::unique_ptr<WorkerCacheInterface> NewGrpcWorkerCache(
    const ClusterSpec& cluster,
    int64_t max_message_bytes = kDefaultMaxMessageBytes,
    Allocator* allocator = cpu_allocator(),
    std::shared_ptr<RpcLoop> loop = nullptr,
    std::shared_ptr<grpc::ChannelCredentials> credentials = nullptr);

}  // namespace tributary

#endif  // TRIBUTARY_COMMON_RPC_GRPC_WORKER_CACHE_H_
