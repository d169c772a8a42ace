// ClientAuth: the tokens file (hashes, roles, names, errors), who is
// authenticated, what each role may do, session ownership and reload.

#include "master/client_auth.h"

#include <cstdlib>
#include <fstream>
#include <string>

#include "gtest/gtest.h"

namespace tributary {
namespace {

std::string WriteFile(const std::string& name, const std::string& text) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  const std::string path =
      std::string(tmp != nullptr ? tmp : "/tmp") + "/" + name;
  std::ofstream(path) << text;
  return path;
}

RpcCaller WithToken(const std::string& token, bool tls = true) {
  RpcCaller caller;
  caller.address = "ipv4:10.0.0.9:4000";
  caller.tls = tls;
  caller.bearer_token = token;
  return caller;
}

std::string TokensFile() {
  return WriteFile("tokens",
                   "# hashes of tokens, never tokens\n"
                   "\n" +
                       Sha256Hex("alice-secret") + " run alice\n" +
                       Sha256Hex("bob-secret") + "   run   # no name\n" +
                       "sha256:" + Sha256Hex("ops-secret") + " admin ops\n");
}

TEST(ClientAuthTest, Sha256HexIsSha256) {
  // printf %s test | sha256sum
  EXPECT_EQ(Sha256Hex("test"),
            "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08");
}

TEST(ClientAuthTest, KnownTokensAuthenticateWithTheirRoleAndName) {
  auto auth = ClientAuth::FromFile(TokensFile(), false);
  ASSERT_TRUE(auth.ok()) << auth.status();
  EXPECT_EQ((*auth)->num_tokens(), 3);
  auto alice = (*auth)->Authenticate(WithToken("alice-secret"));
  ASSERT_TRUE(alice.ok());
  EXPECT_EQ(alice->name, "alice");
  EXPECT_EQ(alice->role, ClientRole::kRun);
  auto bob = (*auth)->Authenticate(WithToken("bob-secret"));
  ASSERT_TRUE(bob.ok());
  EXPECT_EQ(bob->name, "token " + Sha256Hex("bob-secret").substr(0, 8));
  EXPECT_EQ((*auth)->Authenticate(WithToken("ops-secret"))->role,
            ClientRole::kAdmin);
}

TEST(ClientAuthTest, MissingOrUnknownTokensAreUnauthenticated) {
  auto auth = ClientAuth::FromFile(TokensFile(), false);
  ASSERT_TRUE(auth.ok());
  auto none = (*auth)->Authenticate(WithToken(""));
  EXPECT_EQ(none.status().code(), absl::StatusCode::kUnauthenticated);
  auto wrong = (*auth)->Authenticate(WithToken("guess"));
  EXPECT_EQ(wrong.status().code(), absl::StatusCode::kUnauthenticated);
  EXPECT_EQ(std::string(wrong.status().message()).find("guess"),
            std::string::npos);
  // The hash itself is not a token.
  EXPECT_FALSE(
      (*auth)->Authenticate(WithToken(Sha256Hex("alice-secret"))).ok());
  // Plaintext callers without a token are refused unless the plaintext
  // port is the loopback one.
  EXPECT_FALSE((*auth)->Authenticate(WithToken("", false)).ok());
  auto loopback = ClientAuth::FromFile(TokensFile(), true);
  ASSERT_TRUE(loopback.ok());
  auto local = (*loopback)->Authenticate(WithToken("", false));
  ASSERT_TRUE(local.ok());
  EXPECT_EQ(local->name, "insecure-listen");
  EXPECT_EQ(local->role, ClientRole::kRun);
  EXPECT_FALSE((*loopback)->Authenticate(WithToken("", true)).ok());
}

TEST(ClientAuthTest, RolesAndSessionOwners) {
  auto auth = ClientAuth::FromFile(TokensFile(), false);
  ASSERT_TRUE(auth.ok());
  const ClientIdentity alice =
      *(*auth)->Authenticate(WithToken("alice-secret"));
  const ClientIdentity bob = *(*auth)->Authenticate(WithToken("bob-secret"));
  const ClientIdentity ops = *(*auth)->Authenticate(WithToken("ops-secret"));
  auto exists = [](const std::string&) { return true; };
  (*auth)->RecordOwner("s1", alice, exists);

  EXPECT_TRUE((*auth)->Authorize(alice, "CreateSession", "").ok());
  EXPECT_TRUE((*auth)->Authorize(bob, "ListDevices", "").ok());
  EXPECT_TRUE((*auth)->Authorize(alice, "RunStep", "s1").ok());
  EXPECT_TRUE((*auth)->Authorize(alice, "CloseSession", "s1").ok());
  absl::Status denied = (*auth)->Authorize(bob, "RunStep", "s1");
  EXPECT_EQ(denied.code(), absl::StatusCode::kPermissionDenied);
  EXPECT_NE(std::string(denied.message()).find("RunStep"), std::string::npos);
  EXPECT_EQ((*auth)->Authorize(bob, "CloseSession", "s1").code(),
            absl::StatusCode::kPermissionDenied);
  EXPECT_TRUE((*auth)->Authorize(ops, "CloseSession", "s1").ok());
  EXPECT_EQ((*auth)->Authorize(alice, "Reset", "").code(),
            absl::StatusCode::kPermissionDenied);
  EXPECT_TRUE((*auth)->Authorize(ops, "Reset", "").ok());
  // A session nobody recorded is the master's to answer for.
  EXPECT_TRUE((*auth)->Authorize(bob, "RunStep", "unknown").ok());
  (*auth)->ForgetSession("s1");
  EXPECT_TRUE((*auth)->Authorize(bob, "RunStep", "s1").ok());
}

TEST(ClientAuthTest, OwnersOfVanishedSessionsArePruned) {
  auto auth = ClientAuth::FromFile(TokensFile(), false);
  ASSERT_TRUE(auth.ok());
  const ClientIdentity alice =
      *(*auth)->Authenticate(WithToken("alice-secret"));
  const ClientIdentity bob = *(*auth)->Authenticate(WithToken("bob-secret"));
  (*auth)->RecordOwner("old", alice, [](const std::string&) { return true; });
  for (int i = 0; i < 100; ++i) {
    (*auth)->RecordOwner("s" + std::to_string(i), alice,
                         [](const std::string& h) { return h != "old"; });
  }
  // "old" was pruned: its record no longer denies bob.
  EXPECT_TRUE((*auth)->Authorize(bob, "RunStep", "old").ok());
  EXPECT_FALSE((*auth)->Authorize(bob, "RunStep", "s99").ok());
}

TEST(ClientAuthTest, BadFilesNameTheLine) {
  auto message = [](const std::string& text) {
    auto auth = ClientAuth::FromFile(WriteFile("bad", text), false);
    EXPECT_EQ(auth.status().code(), absl::StatusCode::kInvalidArgument);
    return std::string(auth.status().message());
  };
  EXPECT_NE(message("alice-secret run\n").find("line 1"), std::string::npos);
  EXPECT_NE(message("\n" + Sha256Hex("x") + " root\n").find("unknown role"),
            std::string::npos);
  EXPECT_NE(message("# nothing\n").find("holds no token"), std::string::npos);
  EXPECT_NE(message(Sha256Hex("x") + " run\n" + Sha256Hex("x") + " admin\n")
                .find("the same token twice"),
            std::string::npos);
  EXPECT_NE(ClientAuth::FromFile("/nonexistent/tokens", false)
                .status()
                .message()
                .find("cannot be read"),
            std::string::npos);
}

TEST(ClientAuthTest, ReloadReplacesTokensAndKeepsThemOnError) {
  const std::string path =
      WriteFile("reloaded", Sha256Hex("first") + " run first\n");
  auto auth = ClientAuth::FromFile(path, false);
  ASSERT_TRUE(auth.ok());
  EXPECT_TRUE((*auth)->Authenticate(WithToken("first")).ok());
  WriteFile("reloaded", "garbage\n");
  EXPECT_FALSE((*auth)->Reload().ok());
  EXPECT_TRUE((*auth)->Authenticate(WithToken("first")).ok());
  WriteFile("reloaded", Sha256Hex("second") + " admin second\n");
  ASSERT_TRUE((*auth)->Reload().ok());
  EXPECT_FALSE((*auth)->Authenticate(WithToken("first")).ok());
  EXPECT_EQ((*auth)->Authenticate(WithToken("second"))->role,
            ClientRole::kAdmin);
}

}  // namespace
}  // namespace tributary
