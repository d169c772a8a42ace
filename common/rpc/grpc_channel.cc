#include "common/rpc/grpc_channel.h"

#include <climits>

#include "grpc/grpc.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/security/credentials.h"
#include "grpcpp/security/server_credentials.h"

namespace tributary {
namespace {

// gRPC takes sizes as int, -1 meaning unlimited.
int MessageLimit(int64_t max_message_bytes) {
  if (max_message_bytes <= 0 || max_message_bytes > INT_MAX) return -1;
  return static_cast<int>(max_message_bytes);
}

// Reconnection after a failure: gRPC's defaults back off up to 120 s, so a
// restarted task (or one that starts after its peers looked for it) would
// stay unreachable long after it listens. Retrying within a second keeps
// discovery and recovery prompt; on loopback and LANs this costs nothing.
constexpr int kMinReconnectBackoffMs = 100;
constexpr int kMaxReconnectBackoffMs = 1000;

// A server accepts pings from a client no more often than this when no
// data flows; below the clients' keepalive interval so keepalive pings are
// never answered with GOAWAY "too_many_pings".
constexpr int kMinRecvPingIntervalMs = 5000;

}  // namespace

grpc::ChannelArguments GrpcChannelArguments(int64_t max_message_bytes) {
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(MessageLimit(max_message_bytes));
  args.SetMaxSendMessageSize(MessageLimit(max_message_bytes));
  args.SetInt(GRPC_ARG_KEEPALIVE_TIME_MS, kGrpcKeepaliveTimeMs);
  args.SetInt(GRPC_ARG_KEEPALIVE_TIMEOUT_MS, kGrpcKeepaliveTimeoutMs);
  args.SetInt(GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS, 1);
  // By default a client stops pinging after 2 pings without data, which
  // would blind keepalive on an idle channel.
  args.SetInt(GRPC_ARG_HTTP2_MAX_PINGS_WITHOUT_DATA, 0);
  args.SetInt(GRPC_ARG_MIN_RECONNECT_BACKOFF_MS, kMinReconnectBackoffMs);
  args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, kMinReconnectBackoffMs);
  args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, kMaxReconnectBackoffMs);
  return args;
}

std::shared_ptr<grpc::Channel> NewGrpcChannel(
    const std::string& address, int64_t max_message_bytes,
    std::shared_ptr<grpc::ChannelCredentials> credentials) {
  if (credentials == nullptr) {
    credentials = grpc::InsecureChannelCredentials();
  }
  return grpc::CreateCustomChannel(address, credentials,
                                   GrpcChannelArguments(max_message_bytes));
}

void ConfigureServerBuilder(grpc::ServerBuilder* builder,
                            int64_t max_message_bytes) {
  builder->SetMaxReceiveMessageSize(MessageLimit(max_message_bytes));
  builder->SetMaxSendMessageSize(MessageLimit(max_message_bytes));
  // The server pings its clients too, so calls of a client that vanished
  // are cancelled (and their steps aborted) instead of lingering.
  builder->AddChannelArgument(GRPC_ARG_KEEPALIVE_TIME_MS, kGrpcKeepaliveTimeMs);
  builder->AddChannelArgument(GRPC_ARG_KEEPALIVE_TIMEOUT_MS,
                              kGrpcKeepaliveTimeoutMs);
  builder->AddChannelArgument(GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS, 1);
  builder->AddChannelArgument(GRPC_ARG_HTTP2_MAX_PINGS_WITHOUT_DATA, 0);
  builder->AddChannelArgument(
      GRPC_ARG_HTTP2_MIN_RECV_PING_INTERVAL_WITHOUT_DATA_MS,
      kMinRecvPingIntervalMs);
  builder->AddChannelArgument(GRPC_ARG_HTTP2_MAX_PING_STRIKES, 0);
  // gRPC sets SO_REUSEPORT by default, which lets a second process (a task
  // started twice) bind the same port and silently share its connections.
  builder->AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
}

}  // namespace tributary
