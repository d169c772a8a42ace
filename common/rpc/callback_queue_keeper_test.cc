// A completion callback that drops the process's last gRPC channel used to
// free gRPC's shared callback queue under the thread running the callback
// (see callback_queue_keeper.h). Channels made by NewGrpcChannel pin the
// queue, so doing that over and over must neither crash nor hang.

#include <chrono>
#include <memory>
#include <string>

#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "common/rpc/grpc_channel.h"
#include "grpcpp/client_context.h"
#include "grpcpp/generic/generic_stub.h"
#include "grpcpp/support/byte_buffer.h"
#include "gtest/gtest.h"

namespace tributary {
namespace {

// A call that deletes itself when it completes, as calls made through
// GrpcRemoteWorker do: its ClientContext holds a reference to the channel.
struct OneCall {
  grpc::ClientContext context;
  grpc::ByteBuffer request;
  grpc::ByteBuffer response;
};

TEST(CallbackQueueKeeperTest, CallbackMayDropTheLastChannel) {
  for (int i = 0; i < 300; ++i) {
    // Nothing listens on port 1 of loopback: the call fails at once.
    std::shared_ptr<grpc::Channel> channel = NewGrpcChannel("127.0.0.1:1", -1);
    auto* call = new OneCall;
    grpc::Slice empty;
    call->request = grpc::ByteBuffer(&empty, 1);
    call->context.set_deadline(std::chrono::system_clock::now() +
                               std::chrono::seconds(10));
    absl::Notification done;
    grpc::StatusCode code = grpc::StatusCode::OK;
    grpc::GenericStub(channel).UnaryCall(
        &call->context, "/tributary.Test/Nothing", grpc::StubOptions(),
        &call->request, &call->response,
        [call, &done, &code](const grpc::Status& s) {
          code = s.error_code();
          // The context holds the last reference to the channel: it goes
          // here, on gRPC's callback thread.
          delete call;
          done.Notify();
        });
    channel.reset();
    ASSERT_TRUE(done.WaitForNotificationWithTimeout(absl::Seconds(30))) << i;
    EXPECT_EQ(code, grpc::StatusCode::UNAVAILABLE) << i;
  }
}

}  // namespace
}  // namespace tributary
