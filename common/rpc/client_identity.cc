#include "common/rpc/client_identity.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace tributary {

std::string ClientKeyFromPeer(absl::string_view peer) {
  if (!absl::StartsWith(peer, "ipv4:") && !absl::StartsWith(peer, "ipv6:")) {
    return std::string(peer);
  }
  const size_t colon = peer.rfind(':');
  // "ipv4:" / "ipv6:" itself, or an IPv6 address without brackets (no
  // port to strip): keep it whole.
  if (colon <= 4) return std::string(peer);
  if (absl::StartsWith(peer, "ipv6:") && peer.find(']') == peer.npos) {
    return std::string(peer);
  }
  return std::string(peer.substr(0, colon));
}

std::string ClientKeyForPrincipal(absl::string_view principal) {
  return absl::StrCat("principal:", principal);
}

}  // namespace tributary
