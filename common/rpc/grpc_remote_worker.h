#ifndef TRIBUTARY_COMMON_RPC_GRPC_REMOTE_WORKER_H_
#define TRIBUTARY_COMMON_RPC_GRPC_REMOTE_WORKER_H_

// A WorkerInterface whose calls go over gRPC to a worker's WorkerService.
//
//  * Every call is an asynchronous call on `loop` (common/rpc/rpc_loop.h):
//    no thread is held while it is in flight, and `done` runs on the loop's
//    network thread, so it must not block (start further calls
//    asynchronously). A daemon passes its server's loop, so its calls and
//    its served calls share one thread; without one, the process's shared
//    client loop. Calls started while the loop shuts down fail at once with
//    Unavailable.
//  * One CallOptions per call: the call installs its cancel hook there,
//    replacing any other.
//  * Deadline: CallOptions::deadline() becomes the call's gRPC deadline.
//    Cancel: the call registers opts->SetCancelCallback(TryCancel) while in
//    flight, so CallOptions::StartCancel() ends it with Cancelled (and the
//    server side sees the cancellation).
//  * RunGraph and RecvTensor go through the generic (ByteBuffer) API with
//    tensor coding (tensor_coding.h): tensors are sent from their buffers
//    without copies and received straight into `allocator` memory.
//  * GetStatus waits for the channel to become ready (wait_for_ready), so
//    discovery of a starting task succeeds once it listens; callers bound it
//    with a deadline. It resets the channel's reconnect backoff first, so a
//    task restarted after a failure is reached at once. Every other call
//    fails fast with Unavailable when the task cannot be reached.
//  * Errors keep their code and name the task: "<message> (worker
//    /job:worker/replica:0/task:1 at 127.0.0.1:4321)".

#include <memory>
#include <string>

#include "common/distributed/worker_interface.h"
#include "common/framework/allocator.h"
#include "common/rpc/rpc_loop.h"
#include "grpcpp/channel.h"

namespace tributary {

std::unique_ptr<WorkerInterface> NewGrpcRemoteWorker(
    std::shared_ptr<grpc::Channel> channel, std::string task_name,
    std::string address, Allocator* allocator = cpu_allocator(),
    std::shared_ptr<RpcLoop> loop = nullptr);

}  // namespace tributary

#endif  // TRIBUTARY_COMMON_RPC_GRPC_REMOTE_WORKER_H_
