#ifndef TRIBUTARY_COMMON_RPC_CLIENT_IDENTITY_H_
#define TRIBUTARY_COMMON_RPC_CLIENT_IDENTITY_H_

// Who a served call comes from, as the key of per-client limits
// (CallOptions::client(), master/client_limits.h).
//
// Without authentication a client is its network host: gRPC's peer string
// without the port ("ipv4:10.0.0.5:41234" -> "ipv4:10.0.0.5"), so the
// connections of one host (one process opening many channels, or many
// processes) share a limit. Once calls are authenticated (TLS client
// certificates, tokens), the server should key clients by the principal
// instead: ClientKeyForPrincipal(name) ("principal:NAME"), which cannot
// collide with an address key.

#include <string>

#include "absl/strings/string_view.h"

namespace tributary {

// "ipv4:10.0.0.5:41234" -> "ipv4:10.0.0.5"; "ipv6:[::1]:5000" ->
// "ipv6:[::1]"; "unix:/path" and anything without a port stay as they are.
std::string ClientKeyFromPeer(absl::string_view peer);

// "principal:NAME".
std::string ClientKeyForPrincipal(absl::string_view principal);

}  // namespace tributary

#endif  // TRIBUTARY_COMMON_RPC_CLIENT_IDENTITY_H_
