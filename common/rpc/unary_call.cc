#include "common/rpc/unary_call.h"

#include <memory>

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

}  // namespace tributary
