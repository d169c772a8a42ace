#include "common/rpc/unary_call.h"

#include <memory>
#include <string>
#include <vector>

#include "grpcpp/completion_queue.h"

namespace tributary {

grpc::Status UnaryCallOnThisThread(grpc::GenericStub* stub,
                                   grpc::ClientContext* context,
                                   const std::string& method,
                                   const grpc::ByteBuffer& request,
                                   grpc::ByteBuffer* response) {
  grpc::CompletionQueue cq;
  grpc::Status status;
  std::unique_ptr<grpc::GenericClientAsyncResponseReader> call =
      stub->PrepareUnaryCall(context, method, request, &cq);
  call->StartCall();
  call->Finish(response, &status, /*tag=*/&cq);
  void* tag = nullptr;
  bool ok = false;
  // The one tag comes back by the context's deadline at the latest.
  if (!cq.Next(&tag, &ok) || tag != &cq) {
    status = grpc::Status(grpc::StatusCode::INTERNAL,
                          "completion queue ended without the call");
  }
  cq.Shutdown();
  while (cq.Next(&tag, &ok)) {
  }
  return status;
}

grpc::Status ProtoCallOnThisThread(grpc::GenericStub* stub,
                                   grpc::ClientContext* context,
                                   const std::string& method,
                                   const google::protobuf::MessageLite& request,
                                   google::protobuf::MessageLite* response) {
  grpc::Slice request_slice(request.SerializeAsString());
  grpc::ByteBuffer request_bytes(&request_slice, 1), response_bytes;
  const grpc::Status status = UnaryCallOnThisThread(
      stub, context, method, request_bytes, &response_bytes);
  if (!status.ok()) return status;
  std::vector<grpc::Slice> slices;
  (void)response_bytes.Dump(&slices);
  std::string bytes;
  for (const grpc::Slice& slice : slices) {
    bytes.append(reinterpret_cast<const char*>(slice.begin()), slice.size());
  }
  if (!response->ParseFromString(bytes)) {
    return grpc::Status(grpc::StatusCode::INTERNAL,
                        "The answer to " + method + " does not parse");
  }
  return grpc::Status::OK;
}

}  // namespace tributary
