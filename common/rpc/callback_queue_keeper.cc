#include "common/rpc/callback_queue_keeper.h"

#include <chrono>
#include <memory>

#include "absl/base/call_once.h"
#include "grpcpp/client_context.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/generic/generic_stub.h"
#include "grpcpp/security/credentials.h"
#include "grpcpp/support/byte_buffer.h"

namespace tributary {
namespace {

// A channel takes its reference on the callback queue when its first
// callback call is created, and gRPC offers no other public way to take
// one. So the keeper is a channel that is never destroyed and has made one
// callback call. The call's deadline has already passed: gRPC ends it with
// DEADLINE_EXCEEDED without resolving the address or connecting.
struct KeeperCall {
  grpc::ClientContext context;
  grpc::ByteBuffer request;
  grpc::ByteBuffer response;
};

void StartKeeper() {
  // Never destroyed: destroying it would release the reference.
  auto* channel = new std::shared_ptr<grpc::Channel>(grpc::CreateChannel(
      "localhost:1", grpc::InsecureChannelCredentials()));
  auto* stub = new grpc::GenericStub(*channel);
  auto* call = new KeeperCall;
  // gRPC refuses to send a ByteBuffer that holds no slice at all.
  grpc::Slice empty;
  call->request = grpc::ByteBuffer(&empty, 1);
  call->context.set_deadline(std::chrono::system_clock::now());
  stub->UnaryCall(&call->context, "/tributary.CallbackQueueKeeper/Keep",
                  grpc::StubOptions(), &call->request, &call->response,
                  [call](const grpc::Status&) { delete call; });
}

}  // namespace

void KeepCallbackQueueAlive() {
  static absl::once_flag once;
  absl::call_once(once, StartKeeper);
}

}  // namespace tributary
