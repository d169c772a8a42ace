#ifndef TRIBUTARY_COMMON_RPC_GRPC_CHANNEL_H_
#define TRIBUTARY_COMMON_RPC_GRPC_CHANNEL_H_

// The channel and server settings every Tributary process uses, so that
// clients and servers agree on them:
//  * message size limits: tensors travel in single messages, so gRPC's
//    defaults (4 MiB receive) are far too small; the default is 1 GiB
//    (kDefaultMaxMessageBytes), a bound on what one call can make a peer
//    buffer; -1 means unlimited (gRPC's own hard cap is 2 GiB - 1 per
//    message). A message over the limit fails its call with
//    ResourceExhausted (FromGrpcStatus names --max-message-size);
//  * HTTP/2 keepalive pings every 10 s with a 10 s timeout, also while no
//    call is active, so a peer that died without closing its socket (killed
//    host, dropped network) is noticed and its calls fail with Unavailable
//    instead of hanging until their deadline.

#include <cstdint>
#include <memory>
#include <string>

#include "grpcpp/channel.h"
#include "grpcpp/security/credentials.h"
#include "grpcpp/server_builder.h"
#include "grpcpp/support/channel_arguments.h"

namespace tributary {

// The daemons' and clients' message size limit unless told otherwise
// (--max-message-size; docs/limits.md).
inline constexpr int64_t kDefaultMaxMessageBytes = int64_t{1} << 30;

// Keepalive settings shared by channels and servers.
inline constexpr int kGrpcKeepaliveTimeMs = 10000;
inline constexpr int kGrpcKeepaliveTimeoutMs = 10000;

// The channel arguments NewGrpcChannel uses (exposed for tests and for
// callers that build channels themselves). `max_message_bytes` <= 0 or
// above INT32_MAX means unlimited.
grpc::ChannelArguments GrpcChannelArguments(
    int64_t max_message_bytes = kDefaultMaxMessageBytes);

// A channel to "host:port" with the settings above, secured by
// `credentials` (TransportSecurity::ChannelCredentials(); null: plaintext).
// Connecting is lazy: the first call (or a wait_for_ready call) connects.
std::shared_ptr<grpc::Channel> NewGrpcChannel(
    const std::string& address,
    int64_t max_message_bytes = kDefaultMaxMessageBytes,
    std::shared_ptr<grpc::ChannelCredentials> credentials = nullptr);

// Applies the same message size limits and keepalive policy to a server
// (the server accepts the clients' keepalive pings without calls), and
// turns off SO_REUSEPORT so a port in use is an error, not shared.
void ConfigureServerBuilder(
    grpc::ServerBuilder* builder,
    int64_t max_message_bytes = kDefaultMaxMessageBytes);

}  // namespace tributary

#endif  // TRIBUTARY_COMMON_RPC_GRPC_CHANNEL_H_
