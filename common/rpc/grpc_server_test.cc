#include "common/rpc/grpc_server.h"

#include <chrono>
#include <string>
#include <thread>

#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "common/rpc/grpc_channel.h"
#include "common/rpc/rpc_service.h"
#include "common/rpc/unary_call.h"
#include "grpcpp/client_context.h"
#include "grpcpp/generic/generic_stub.h"
#include "gtest/gtest.h"

namespace tributary {
namespace {

// A service with one method, Echo, answering its request's bytes.
std::vector<const RpcService*> SomeService() {
  static auto* service = [] {
    auto* s = new RpcService("test.Echo");
    s->Add("Echo", [](RpcServerCall* call) {
      call->Finish(grpc::Status::OK, call->request());
    });
    return s;
  }();
  return {service};
}

// A unary generic call to `address`; `answer` gets the response's bytes.
grpc::Status CallOnThisThread(const std::string& address,
                              const std::string& method,
                              const std::string& payload, std::string* answer,
                              absl::Duration timeout = absl::Seconds(10)) {
  grpc::GenericStub stub(NewGrpcChannel(address));
  grpc::ClientContext context;
  context.set_deadline(absl::ToChronoTime(absl::Now() + timeout));
  grpc::Slice slice(payload);
  grpc::ByteBuffer request(&slice, 1), response;
  const grpc::Status status =
      UnaryCallOnThisThread(&stub, &context, method, request, &response);
  if (status.ok() && answer != nullptr) {
    std::vector<grpc::Slice> slices;
    (void)response.Dump(&slices);
    answer->clear();
    for (const auto& s : slices) {
      answer->append(reinterpret_cast<const char*>(s.begin()), s.size());
    }
  }
  return status;
}

TEST(GrpcServerTest, PortZeroPicksAPortAndChannelsConnect) {
  absl::StatusOr<GrpcServerHandle> server =
      StartGrpcServer("127.0.0.1:0", SomeService(), -1);
  ASSERT_TRUE(server.ok()) << server.status();
  EXPECT_GT(server->port, 0);
  EXPECT_EQ(server->address, "127.0.0.1:" + std::to_string(server->port));

  auto channel = NewGrpcChannel(server->address);
  EXPECT_TRUE(channel->WaitForConnected(std::chrono::system_clock::now() +
                                        std::chrono::seconds(10)));
  server->server->Shutdown();
}

TEST(GrpcServerTest, ServesItsMethodsAndRefusesOthersByName) {
  absl::StatusOr<GrpcServerHandle> server =
      StartGrpcServer("127.0.0.1:0", SomeService());
  ASSERT_TRUE(server.ok()) << server.status();
  std::string answer;
  grpc::Status s =
      CallOnThisThread(server->address, "/test.Echo/Echo", "hello", &answer);
  ASSERT_TRUE(s.ok()) << s.error_message();
  EXPECT_EQ(answer, "hello");

  s = CallOnThisThread(server->address, "/test.Echo/Nope", "x", nullptr);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::UNIMPLEMENTED);
  EXPECT_NE(s.error_message().find("/test.Echo/Nope"), std::string::npos)
      << s.error_message();
}

// A handler that answers later from another thread, and a client that gives
// up first: the call's CallOptions are cancelled, and the late Finish is
// harmless.
TEST(GrpcServerTest, CancelledCallCancelsItsOptionsAndLateFinishIsSafe) {
  absl::Notification cancelled, finished;
  RpcService service("test.Slow");
  service.Add("Wait", [&](RpcServerCall* call) {
    std::thread([&, call] {
      // Until the client's deadline cancels the call.
      for (int i = 0; i < 1000 && !call->opts()->IsCancelled(); ++i) {
        absl::SleepFor(absl::Milliseconds(10));
      }
      if (call->opts()->IsCancelled()) cancelled.Notify();
      call->Finish(grpc::Status::OK, grpc::ByteBuffer());
      finished.Notify();
    }).detach();
  });
  absl::StatusOr<GrpcServerHandle> server =
      StartGrpcServer("127.0.0.1:0", {&service});
  ASSERT_TRUE(server.ok()) << server.status();
  grpc::Status s = CallOnThisThread(server->address, "/test.Slow/Wait", "x",
                                    nullptr, absl::Milliseconds(200));
  EXPECT_EQ(s.error_code(), grpc::StatusCode::DEADLINE_EXCEEDED);
  EXPECT_TRUE(cancelled.WaitForNotificationWithTimeout(absl::Seconds(10)));
  EXPECT_TRUE(finished.WaitForNotificationWithTimeout(absl::Seconds(10)));
  server->server->Shutdown();
}

// Shutdown waits for a call in flight to be finished by its handler.
TEST(GrpcServerTest, ShutdownLetsARunningCallFinish) {
  absl::Notification started;
  RpcService service("test.Slow");
  service.Add("Wait", [&](RpcServerCall* call) {
    started.Notify();
    std::thread([call] {
      absl::SleepFor(absl::Milliseconds(300));
      call->Finish(grpc::Status::OK, call->request());
    }).detach();
  });
  absl::StatusOr<GrpcServerHandle> server =
      StartGrpcServer("127.0.0.1:0", {&service});
  ASSERT_TRUE(server.ok()) << server.status();
  grpc::Status status;
  std::string answer;
  std::thread client([&] {
    status = CallOnThisThread(server->address, "/test.Slow/Wait", "late",
                              &answer);
  });
  ASSERT_TRUE(started.WaitForNotificationWithTimeout(absl::Seconds(10)));
  server->server->Shutdown(absl::Now() + absl::Seconds(10));
  client.join();
  EXPECT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(answer, "late");
}

TEST(GrpcServerTest, AddressInUseIsUnavailable) {
  absl::StatusOr<GrpcServerHandle> first = StartGrpcServer("127.0.0.1:0", SomeService());
  ASSERT_TRUE(first.ok()) << first.status();
  absl::StatusOr<GrpcServerHandle> second =
      StartGrpcServer(first->address, SomeService());
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_NE(second.status().message().find(first->address), std::string::npos)
      << second.status();
  EXPECT_NE(second.status().message().find("in use"), std::string::npos)
      << second.status();
  first->server->Shutdown();
}

TEST(GrpcServerTest, ForeignAddressIsUnavailable) {
  // TEST-NET-1 (RFC 5737) is never an address of this host.
  absl::StatusOr<GrpcServerHandle> server = StartGrpcServer("192.0.2.1:0", SomeService());
  ASSERT_FALSE(server.ok());
  EXPECT_EQ(server.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_NE(server.status().message().find("192.0.2.1:0"), std::string::npos)
      << server.status();
}

TEST(GrpcServerTest, AddressWithoutPortIsInvalid) {
  absl::StatusOr<GrpcServerHandle> server = StartGrpcServer("localhost", SomeService());
  EXPECT_EQ(server.status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(GrpcServerTest, NoServicesIsInvalid) {
  EXPECT_EQ(StartGrpcServer("127.0.0.1:0", {}).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(GrpcChannelTest, ArgumentsCarryLimitsAndKeepalive) {
  grpc_channel_args args;
  grpc::ChannelArguments a = GrpcChannelArguments(-1);
  a.SetChannelArgs(&args);
  int found = 0;
  for (size_t i = 0; i < args.num_args; ++i) {
    const std::string key = args.args[i].key;
    if (key == GRPC_ARG_MAX_RECEIVE_MESSAGE_LENGTH ||
        key == GRPC_ARG_MAX_SEND_MESSAGE_LENGTH) {
      EXPECT_EQ(args.args[i].value.integer, -1);
      ++found;
    }
    if (key == GRPC_ARG_KEEPALIVE_TIME_MS ||
        key == GRPC_ARG_KEEPALIVE_TIMEOUT_MS) {
      EXPECT_EQ(args.args[i].value.integer, 10000);
      ++found;
    }
    if (key == GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS) {
      EXPECT_EQ(args.args[i].value.integer, 1);
      ++found;
    }
  }
  EXPECT_EQ(found, 5);

  grpc::ChannelArguments limited = GrpcChannelArguments(1 << 20);
  limited.SetChannelArgs(&args);
  for (size_t i = 0; i < args.num_args; ++i) {
    if (std::string(args.args[i].key) == GRPC_ARG_MAX_RECEIVE_MESSAGE_LENGTH) {
      EXPECT_EQ(args.args[i].value.integer, 1 << 20);
    }
  }
}

}  // namespace
}  // namespace tributary
