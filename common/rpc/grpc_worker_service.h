#ifndef TRIBUTARY_COMMON_RPC_GRPC_WORKER_SERVICE_H_
#define TRIBUTARY_COMMON_RPC_GRPC_WORKER_SERVICE_H_

// /tensorflow.WorkerService/* served by any WorkerInterface (the worker
// daemon passes its Worker; tests pass fakes).
//
//  * Served by GrpcServer on its network thread (common/rpc/rpc_loop.h):
//    no thread waits while the worker works; the response is finished from
//    the worker's `done` callback. The worker's *Async methods are called on
//    the network thread, so they must not block (run steps on the worker's
//    own threads), and `done` must run for every call, also when it is
//    cancelled: server shutdown waits for it.
//  * Per call a CallOptions carries the client's deadline, and is
//    StartCancel()ed when the call is cancelled (client cancel, deadline,
//    broken connection), so the worker can abort the step.
//  * RunGraph and RecvTensor are raw (ByteBuffer) methods using tensor
//    coding (tensor_coding.h): tensors are decoded straight into `allocator`
//    memory and answered from their buffers without copies.
//  * MarkRecvFinished, RecvBuf, CompleteGroup, CompleteInstance and
//    GetStepSequence (collectives and RDMA-style transfers) answer
//    Unimplemented saying Tributary does not support them.

#include <memory>

#include "common/distributed/worker_interface.h"
#include "common/framework/allocator.h"
#include "common/rpc/rpc_service.h"

namespace tributary {

// `worker` is not owned and must outlive the service (and the server).
// `control_runner`: where CreateWorkerSession, DeleteWorkerSession,
// RegisterGraph, DeregisterGraph and CleanupAll run, request parsing
// included (the worker daemon passes its compute pool, so registering a
// big graph never holds up the RecvTensor and RunGraph calls of running
// steps); null: on the network thread.
// `max_graph_nodes` (> 0): RegisterGraph requests whose GraphDef has more
// nodes are refused before they are parsed (--max-graph-nodes;
// LimitingGraphNodes in rpc_service.h).
std::unique_ptr<RpcService> NewGrpcWorkerService(
    WorkerInterface* worker, Allocator* allocator = cpu_allocator(),
    RpcRunner control_runner = nullptr, int64_t max_graph_nodes = 0);

// Tributary's own worker method beside TensorFlow's service:
// /tributary.WorkerSessionHolds/HoldWorkerSession, served by
// WorkerInterface::HoldWorkerSessionAsync (a call that stays open while the
// master holds a worker session; worker/session_holds.h). Served on the
// network thread. `worker` is not owned and must outlive the service.
inline constexpr char kWorkerSessionHoldsService[] =
    "tributary.WorkerSessionHolds";
std::unique_ptr<RpcService> NewGrpcWorkerSessionHoldsService(
    WorkerInterface* worker);

}  // namespace tributary

#endif  // TRIBUTARY_COMMON_RPC_GRPC_WORKER_SERVICE_H_
