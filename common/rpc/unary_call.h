#ifndef TRIBUTARY_COMMON_RPC_UNARY_CALL_H_
#define TRIBUTARY_COMMON_RPC_UNARY_CALL_H_

// A unary generic call whose completion the calling thread polls itself, on
// a completion queue of its own, as gRPC's synchronous API does (with the
// callback API a gRPC thread would take the completion and wake the caller:
// two more thread switches per call). For clients that wait for the answer
// anyway: the grpc:// session's RunStep, tests.

#include <string>

#include "google/protobuf/message_lite.h"
#include "grpcpp/client_context.h"
#include "grpcpp/generic/generic_stub.h"
#include "grpcpp/support/byte_buffer.h"
#include "grpcpp/support/status.h"

namespace tributary {

// Blocks until the call ends; bound it with the context's deadline.
grpc::Status UnaryCallOnThisThread(grpc::GenericStub* stub,
                                   grpc::ClientContext* context,
                                   const std::string& method,
                                   const grpc::ByteBuffer& request,
                                   grpc::ByteBuffer* response);

// UnaryCallOnThisThread with protobuf messages: `request` serialised, the
// answer parsed into `response` (INTERNAL naming the method when it does not
// parse). For the few typed calls made through a generic stub (health,
// metrics, cluster status).
grpc::Status ProtoCallOnThisThread(grpc::GenericStub* stub,
                                   grpc::ClientContext* context,
                                   const std::string& method,
                                   const google::protobuf::MessageLite& request,
                                   google::protobuf::MessageLite* response);

}  // namespace tributary

#endif  // TRIBUTARY_COMMON_RPC_UNARY_CALL_H_
