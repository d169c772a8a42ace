#include "master/client_auth.h"

#include <openssl/evp.h>

#include <fstream>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "common/framework/status.h"

namespace tributary {
namespace {

constexpr char kInsecureListenClient[] = "insecure-listen";
// RecordOwner looks for records of vanished sessions this often.
constexpr int kPruneEvery = 64;

bool IsSha256Hex(absl::string_view text) {
  if (text.size() != 64) return false;
  for (char c : text) {
    if (!absl::ascii_isxdigit(c)) return false;
  }
  return true;
}

// Methods on no session that any authenticated client may call.
bool OpenToEveryone(absl::string_view method) {
  return method == "CreateSession" || method == "ListDevices";
}

}  // namespace

std::string Sha256Hex(absl::string_view text) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  EVP_Digest(text.data(), text.size(), digest, &size, EVP_sha256(), nullptr);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex;
  for (unsigned int i = 0; i < size; ++i) {
    hex.push_back(kHex[digest[i] >> 4]);
    hex.push_back(kHex[digest[i] & 15]);
  }
  return hex;
}

absl::StatusOr<ClientAuth::TokenTable> ClientAuth::ReadTokens(
    const std::string& tokens_file) {
  std::ifstream in(tokens_file);
  if (!in) {
    return errors::InvalidArgument("--auth-tokens ", tokens_file,
                                   ": cannot be read");
  }
  TokenTable tokens;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    const std::string content(
        absl::StripAsciiWhitespace(line.substr(0, line.find('#'))));
    if (content.empty()) continue;
    std::vector<std::string> fields =
        absl::StrSplit(content, absl::ByAnyChar(" \t"), absl::SkipEmpty());
    auto bad = [&](absl::string_view why) {
      return errors::InvalidArgument("--auth-tokens ", tokens_file, " line ",
                                     number, ": ", why);
    };
    if (fields.size() < 2 || fields.size() > 3) {
      return bad("want \"SHA256-HEX ROLE [NAME]\"");
    }
    std::string hash = absl::AsciiStrToLower(fields[0]);
    if (absl::StartsWith(hash, "sha256:")) hash = hash.substr(7);
    if (!IsSha256Hex(hash)) {
      return bad(
          "the first field is not a SHA-256 in hex (64 digits); "
          "store `printf %s TOKEN | sha256sum`, never the token");
    }
    ClientIdentity identity;
    if (fields[1] == "run") {
      identity.role = ClientRole::kRun;
    } else if (fields[1] == "admin") {
      identity.role = ClientRole::kAdmin;
    } else {
      return bad(absl::StrCat("unknown role '", fields[1], "' (run or admin)"));
    }
    identity.name = fields.size() == 3
                        ? fields[2]
                        : absl::StrCat("token ", hash.substr(0, 8));
    if (!tokens.emplace(hash, identity).second) {
      return bad("the same token twice");
    }
  }
  if (tokens.empty()) {
    return errors::InvalidArgument("--auth-tokens ", tokens_file,
                                   " holds no token: nobody could call");
  }
  return tokens;
}

absl::StatusOr<std::unique_ptr<ClientAuth>> ClientAuth::FromFile(
    const std::string& tokens_file, bool plaintext_is_loopback) {
  TRIB_ASSIGN_OR_RETURN(TokenTable tokens, ReadTokens(tokens_file));
  std::unique_ptr<ClientAuth> auth(new ClientAuth());
  auth->tokens_file_ = tokens_file;
  auth->plaintext_is_loopback_ = plaintext_is_loopback;
  absl::MutexLock l(&auth->mu_);
  auth->tokens_ = std::move(tokens);
  return auth;
}

absl::Status ClientAuth::Reload() {
  TRIB_ASSIGN_OR_RETURN(TokenTable tokens, ReadTokens(tokens_file_));
  absl::MutexLock l(&mu_);
  tokens_ = std::move(tokens);
  return absl::OkStatus();
}

int ClientAuth::num_tokens() const {
  absl::MutexLock l(&mu_);
  return static_cast<int>(tokens_.size());
}

absl::StatusOr<ClientIdentity> ClientAuth::Authenticate(
    const RpcCaller& caller) const {
  if (caller.bearer_token.empty()) {
    if (!caller.tls && plaintext_is_loopback_) {
      return ClientIdentity{kInsecureListenClient, ClientRole::kRun};
    }
    return errors::Unauthenticated(
        "This master requires a token: send \"authorization: Bearer TOKEN\" "
        "(tributary: --token-file or $TRIBUTARY_TOKEN)");
  }
  const std::string hash = Sha256Hex(caller.bearer_token);
  absl::MutexLock l(&mu_);
  auto it = tokens_.find(hash);
  if (it == tokens_.end()) {
    return errors::Unauthenticated("The token is not valid for this master");
  }
  return it->second;
}

absl::Status ClientAuth::Authorize(const ClientIdentity& client,
                                   absl::string_view method,
                                   const std::string& session_handle) const {
  if (client.role == ClientRole::kAdmin) return absl::OkStatus();
  if (method == "Reset") {
    return errors::PermissionDenied("Reset needs the admin role; client '",
                                    client.name, "' has run");
  }
  if (session_handle.empty()) {
    if (OpenToEveryone(method)) return absl::OkStatus();
    // ListDevices of a session and the like come with a handle; a method
    // on no session that is not open to everyone is an admin's.
    return errors::PermissionDenied(method, " needs the admin role; client '",
                                    client.name, "' has run");
  }
  absl::MutexLock l(&mu_);
  auto it = owners_.find(session_handle);
  if (it == owners_.end() || it->second == client.name) {
    return absl::OkStatus();
  }
  return errors::PermissionDenied(method, " on session ", session_handle,
                                  ": the session belongs to another client ('",
                                  client.name,
                                  "' has the run role, not admin)");
}

void ClientAuth::RecordOwner(
    const std::string& session_handle, const ClientIdentity& client,
    absl::FunctionRef<bool(const std::string&)> exists) {
  absl::MutexLock l(&mu_);
  owners_[session_handle] = client.name;
  if (++records_since_prune_ < kPruneEvery) return;
  records_since_prune_ = 0;
  for (auto it = owners_.begin(); it != owners_.end();) {
    it = exists(it->first) ? std::next(it) : owners_.erase(it);
  }
}

void ClientAuth::ForgetSession(const std::string& session_handle) {
  absl::MutexLock l(&mu_);
  owners_.erase(session_handle);
}

}  // namespace tributary
