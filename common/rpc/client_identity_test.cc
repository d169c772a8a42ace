#include "common/rpc/client_identity.h"

#include "gtest/gtest.h"

namespace tributary {
namespace {

TEST(ClientIdentityTest, AddressKeyDropsThePort) {
  EXPECT_EQ(ClientKeyFromPeer("ipv4:10.0.0.5:41234"), "ipv4:10.0.0.5");
  EXPECT_EQ(ClientKeyFromPeer("ipv4:127.0.0.1:1"), "ipv4:127.0.0.1");
  EXPECT_EQ(ClientKeyFromPeer("ipv6:[::1]:5000"), "ipv6:[::1]");
  EXPECT_EQ(ClientKeyFromPeer("ipv6:[fe80::1%eth0]:80"), "ipv6:[fe80::1%eth0]");
}

TEST(ClientIdentityTest, OtherPeersStayWhole) {
  EXPECT_EQ(ClientKeyFromPeer("unix:/tmp/sock"), "unix:/tmp/sock");
  EXPECT_EQ(ClientKeyFromPeer(""), "");
  EXPECT_EQ(ClientKeyFromPeer("ipv4:"), "ipv4:");
  EXPECT_EQ(ClientKeyFromPeer("ipv6:::1"), "ipv6:::1");
}

TEST(ClientIdentityTest, PrincipalsDoNotCollideWithAddresses) {
  EXPECT_EQ(ClientKeyForPrincipal("alice"), "principal:alice");
  EXPECT_NE(ClientKeyForPrincipal("ipv4:10.0.0.5"), "ipv4:10.0.0.5");
}

}  // namespace
}  // namespace tributary
