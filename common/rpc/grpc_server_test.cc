#include "common/rpc/grpc_server.h"

#include <chrono>

#include "common/rpc/grpc_channel.h"
#include "gtest/gtest.h"
#include "protos/worker_service.grpc.pb.h"

namespace tributary {
namespace {

// Any service will do; this one answers Unimplemented to everything.
std::vector<grpc::Service*> SomeService() {
  static auto* service = new tensorflow::WorkerService::CallbackService();
  return {service};
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
