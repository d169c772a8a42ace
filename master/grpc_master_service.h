#ifndef TRIBUTARY_MASTER_GRPC_MASTER_SERVICE_H_
#define TRIBUTARY_MASTER_GRPC_MASTER_SERVICE_H_

// /tensorflow.MasterService/* served by a Master, so TensorFlow's own
// client (tf.compat.v1.Session("grpc://...")) and ours can use it.
//
//  * Served by GrpcServer on its network thread (common/rpc/rpc_loop.h).
//    RunStep starts there (Master::RunStepAsync never blocks it); every
//    other call is handed to a BlockingCallPool thread (Master methods
//    block, bounded, while workers work) and finished from there. The
//    network thread never waits for a worker.
//  * Each call gets a CallOptions with the client's deadline, cancelled
//    when gRPC cancels the call (client cancel, deadline, broken
//    connection): a RunStep in flight is then cancelled on every worker.
//  * RunStep is a raw (ByteBuffer) method with tensor coding
//    (common/rpc/tensor_coding.h): feeds are decoded straight into tensors
//    and fetches written from their buffers, never re-encoded through
//    TensorProto. The bytes are ordinary protobuf: TensorFlow's client
//    sends and reads them with its generated code.
//  * Authentication (with a ClientAuth): every call's token is checked
//    before its request is parsed (UNAUTHENTICATED), then its role and the
//    session's owner (PERMISSION_DENIED); see client_auth.h.
//  * Errors: the Master's status as the gRPC status (long messages are
//    truncated as TensorFlow does); RunStep with
//    store_errors_in_response_body answers OK with the error in the body.

#include <memory>

#include "common/framework/allocator.h"
#include "common/rpc/rpc_service.h"
#include "master/blocking_call_pool.h"
#include "master/client_auth.h"
#include "master/master.h"

namespace tributary {

// `master` and `pool` are not owned and must outlive the service (and the
// server's last call). Feeds are allocated from `allocator`. `auth`: the
// clients' tokens and roles (client_auth.h; not owned); null: every caller
// may make every call.
std::unique_ptr<RpcService> NewGrpcMasterService(
    Master* master, BlockingCallPool* pool,
    Allocator* allocator = cpu_allocator(), ClientAuth* auth = nullptr);

}  // namespace tributary

#endif  // TRIBUTARY_MASTER_GRPC_MASTER_SERVICE_H_
