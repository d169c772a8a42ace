// TransportSecurity against real gRPC servers on loopback, with PKI made by
// OpenSSL (ThrowawayCa): mutual TLS accepted from the cluster's CA and
// refused to plaintext, foreign-CA and certificate-less peers; the
// server's name checked by clients; files validated before use; reload.

#include "common/rpc/transport_security.h"

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "common/rpc/grpc_channel.h"
#include "common/rpc/grpc_server.h"
#include "common/rpc/rpc_service.h"
#include "common/rpc/throwaway_pki.h"
#include "common/rpc/unary_call.h"
#include "grpc/grpc.h"
#include "grpcpp/client_context.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/generic/generic_stub.h"
#include "gtest/gtest.h"

namespace tributary {
namespace {

// Answers the caller as the server saw it: "tls=<0|1> subject=<...>".
const RpcService* WhoAmIService() {
  static auto* service = [] {
    auto* s = new RpcService("test.WhoAmI");
    s->Add("Ask", [](RpcServerCall* call) {
      const RpcCaller& caller = call->caller();
      const std::string text = absl::StrCat(
          "tls=", caller.tls ? 1 : 0, " subject=", caller.certificate_subject,
          " token=", caller.bearer_token);
      grpc::Slice slice(text);
      call->Finish(grpc::Status::OK, grpc::ByteBuffer(&slice, 1));
    });
    return s;
  }();
  return service;
}

struct CallResult {
  grpc::Status status;
  std::string answer;
  std::string server_subject;  // From the client's view of the handshake.
};

CallResult Ask(const std::shared_ptr<grpc::Channel>& channel,
               const std::string& token = "") {
  grpc::GenericStub stub(channel);
  grpc::ClientContext context;
  context.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(10)));
  if (!token.empty()) context.AddMetadata("authorization", "Bearer " + token);
  grpc::Slice slice(std::string("?"));
  grpc::ByteBuffer request(&slice, 1), response;
  CallResult result;
  result.status = UnaryCallOnThisThread(&stub, &context, "/test.WhoAmI/Ask",
                                        request, &response);
  if (result.status.ok()) {
    std::vector<grpc::Slice> slices;
    (void)response.Dump(&slices);
    for (const auto& s : slices) {
      result.answer.append(reinterpret_cast<const char*>(s.begin()), s.size());
    }
    auto auth = context.auth_context();
    for (const auto& v : auth->FindPropertyValues("x509_subject")) {
      result.server_subject.assign(v.data(), v.size());
    }
  }
  return result;
}

// A directory of PEM files: the cluster CA, a server certificate for
// 127.0.0.1/localhost, a client certificate, and a foreign CA's client
// certificate.
class TransportSecurityTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* tmp = std::getenv("TEST_TMPDIR");
    dir_ = absl::StrCat(
        tmp != nullptr ? tmp : "/tmp", "/pki_",
        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
    absl::StatusOr<ThrowawayCa> ca = ThrowawayCa::Create("cluster CA");
    ASSERT_TRUE(ca.ok()) << ca.status();
    ca_ = std::move(*ca);
    Write("ca.pem", ca_.ca().certificate);
    WritePair("server", *ca_.Issue("server", {"127.0.0.1", "localhost"}));
    WritePair("client", *ca_.Issue("client", {}));
    absl::StatusOr<ThrowawayCa> foreign = ThrowawayCa::Create("foreign CA");
    ASSERT_TRUE(foreign.ok()) << foreign.status();
    Write("foreign_ca.pem", foreign->ca().certificate);
    WritePair("foreign", *foreign->Issue("intruder", {"127.0.0.1"}));
  }

  std::string Path(const std::string& name) const { return dir_ + "/" + name; }
  void Write(const std::string& name, const std::string& text) {
    ASSERT_TRUE(WritePrivateFile(Path(name), text).ok());
  }
  void WritePair(const std::string& name, const PemPair& pair) {
    Write(name + ".crt", pair.certificate);
    Write(name + ".key", pair.private_key);
  }
  TlsFiles Files(const std::string& name, const std::string& ca = "ca.pem") {
    return {Path(name + ".crt"), Path(name + ".key"), Path(ca)};
  }

  std::shared_ptr<TransportSecurity> Daemon(const std::string& name) {
    auto security =
        TransportSecurity::Load(Files(name), TransportSecurity::Role::kDaemon);
    EXPECT_TRUE(security.ok()) << security.status();
    return security.ok() ? *security : nullptr;
  }

  // A server on 127.0.0.1:0 with `security`'s credentials.
  std::unique_ptr<GrpcServer> Serve(const TransportSecurity& security,
                                    PeerCertificates peers) {
    auto server =
        std::make_unique<GrpcServer>(-1, security.ServerCredentials(peers));
    EXPECT_TRUE(server->Start("127.0.0.1:0", {WhoAmIService()}).ok());
    return server;
  }

  // A channel with a connection of its own: gRPC otherwise shares one
  // connection (one handshake) among channels with equal settings.
  std::shared_ptr<grpc::Channel> Channel(
      const GrpcServer& server, const TransportSecurity& security,
      const std::string& host = "127.0.0.1") {
    grpc::ChannelArguments args = GrpcChannelArguments();
    args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
    return grpc::CreateCustomChannel(absl::StrCat(host, ":", server.port()),
                                     security.ChannelCredentials(), args);
  }

  std::string dir_;
  ThrowawayCa ca_;
};

TEST_F(TransportSecurityTest, MutualTlsBetweenMembersOfTheCluster) {
  auto server_security = Daemon("server");
  auto client_security = Daemon("client");
  ASSERT_NE(server_security, nullptr);
  ASSERT_NE(client_security, nullptr);
  EXPECT_TRUE(server_security->tls());
  EXPECT_NE(server_security->Describe().find("CN=server"), std::string::npos)
      << server_security->Describe();
  auto server = Serve(*server_security, PeerCertificates::kRequired);
  CallResult result = Ask(Channel(*server, *client_security), "s3cret");
  ASSERT_TRUE(result.status.ok()) << result.status.error_message();
  EXPECT_NE(result.answer.find("tls=1"), std::string::npos) << result.answer;
  EXPECT_NE(result.answer.find("CN=client"), std::string::npos)
      << result.answer;
  EXPECT_NE(result.answer.find("token=s3cret"), std::string::npos);
  EXPECT_NE(result.server_subject.find("CN=server"), std::string::npos)
      << result.server_subject;
  // "localhost" is a name of the server's certificate too.
  EXPECT_TRUE(Ask(Channel(*server, *client_security, "localhost")).status.ok());
}

TEST_F(TransportSecurityTest, RefusesPlaintextForeignAndCertificatelessPeers) {
  auto server_security = Daemon("server");
  ASSERT_NE(server_security, nullptr);
  auto server = Serve(*server_security, PeerCertificates::kRequired);

  CallResult plaintext = Ask(Channel(*server, *TransportSecurity::Plaintext()));
  EXPECT_EQ(plaintext.status.error_code(), grpc::StatusCode::UNAVAILABLE)
      << plaintext.status.error_message();

  // A client trusting our CA but holding a foreign CA's certificate.
  auto intruder = TransportSecurity::Load(
      {Path("foreign.crt"), Path("foreign.key"), Path("foreign_ca.pem")},
      TransportSecurity::Role::kDaemon);
  ASSERT_TRUE(intruder.ok()) << intruder.status();
  CallResult foreign = Ask(Channel(*server, **intruder));
  EXPECT_EQ(foreign.status.error_code(), grpc::StatusCode::UNAVAILABLE);

  // A client with only the CA (no certificate of its own).
  auto anonymous = TransportSecurity::Load({"", "", Path("ca.pem")},
                                           TransportSecurity::Role::kClient);
  ASSERT_TRUE(anonymous.ok()) << anonymous.status();
  EXPECT_EQ(Ask(Channel(*server, **anonymous)).status.error_code(),
            grpc::StatusCode::UNAVAILABLE);

  // The server still serves a member afterwards.
  EXPECT_TRUE(Ask(Channel(*server, *Daemon("client"))).status.ok());
}

TEST_F(TransportSecurityTest, OptionalClientCertificatesForTheMaster) {
  auto server_security = Daemon("server");
  ASSERT_NE(server_security, nullptr);
  auto server = Serve(*server_security, PeerCertificates::kOptional);
  auto anonymous = TransportSecurity::Load({"", "", Path("ca.pem")},
                                           TransportSecurity::Role::kClient);
  ASSERT_TRUE(anonymous.ok()) << anonymous.status();
  CallResult result = Ask(Channel(*server, **anonymous));
  ASSERT_TRUE(result.status.ok()) << result.status.error_message();
  EXPECT_NE(result.answer.find("tls=1 subject= "), std::string::npos)
      << result.answer;
  // A certificate that is presented must still chain to the CA.
  auto intruder = TransportSecurity::Load(
      {Path("foreign.crt"), Path("foreign.key"), Path("ca.pem")},
      TransportSecurity::Role::kClient);
  ASSERT_FALSE(intruder.ok());  // Refused before any handshake, too.
  EXPECT_NE(std::string(intruder.status().message()).find("foreign.crt"),
            std::string::npos);
}

TEST_F(TransportSecurityTest, ClientsCheckTheServersName) {
  // A server whose certificate names another host only.
  WritePair("elsewhere", *ca_.Issue("elsewhere", {"10.9.8.7", "db.example"}));
  auto server_security = Daemon("elsewhere");
  ASSERT_NE(server_security, nullptr);
  auto server = Serve(*server_security, PeerCertificates::kRequired);
  CallResult result = Ask(Channel(*server, *Daemon("client")));
  EXPECT_EQ(result.status.error_code(), grpc::StatusCode::UNAVAILABLE)
      << result.status.error_message();
}

TEST_F(TransportSecurityTest, ValidatesFilesBeforeUse) {
  using Role = TransportSecurity::Role;
  auto message =
      [](const absl::StatusOr<std::shared_ptr<TransportSecurity>>& s) {
        return std::string(s.status().message());
      };

  auto missing = TransportSecurity::Load(
      {Path("nope.crt"), Path("server.key"), Path("ca.pem")}, Role::kDaemon);
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(message(missing).find("nope.crt: cannot be read"),
            std::string::npos)
      << message(missing);

  Write("garbage.pem", "not a certificate\n");
  auto garbage = TransportSecurity::Load(
      {Path("garbage.pem"), Path("server.key"), Path("ca.pem")}, Role::kDaemon);
  EXPECT_NE(message(garbage).find("not a PEM file"), std::string::npos)
      << message(garbage);

  auto mismatch = TransportSecurity::Load(
      {Path("server.crt"), Path("client.key"), Path("ca.pem")}, Role::kDaemon);
  EXPECT_NE(message(mismatch).find("is not the key of"), std::string::npos)
      << message(mismatch);

  auto foreign = TransportSecurity::Load(
      {Path("foreign.crt"), Path("foreign.key"), Path("ca.pem")},
      Role::kDaemon);
  EXPECT_NE(message(foreign).find("is not valid under --tls-ca"),
            std::string::npos)
      << message(foreign);

  WritePair("expired", *ca_.Issue("expired", {"127.0.0.1"}, absl::Hours(1),
                                  -absl::Hours(48)));
  auto expired = TransportSecurity::Load(Files("expired"), Role::kDaemon);
  EXPECT_NE(message(expired).find("expired"), std::string::npos)
      << message(expired);

  auto partial =
      TransportSecurity::Load({Path("server.crt"), "", ""}, Role::kDaemon);
  EXPECT_NE(message(partial).find("all of --tls-cert, --tls-key and --tls-ca"),
            std::string::npos);
}

TEST_F(TransportSecurityTest, ReloadTakesNewCertificatesAndKeepsOldOnError) {
  auto server_security = Daemon("server");
  ASSERT_NE(server_security, nullptr);
  auto server = Serve(*server_security, PeerCertificates::kRequired);
  auto client_security = Daemon("client");
  std::shared_ptr<grpc::Channel> old_channel =
      Channel(*server, *client_security);
  ASSERT_TRUE(Ask(old_channel).status.ok());

  // A broken rotation is refused; the server keeps its certificate.
  Write("server.crt", "-----BEGIN CERTIFICATE-----\ntruncated\n");
  EXPECT_FALSE(server_security->Reload().ok());
  EXPECT_NE(
      Ask(Channel(*server, *client_security)).server_subject.find("CN=server"),
      std::string::npos);

  // A good one: new handshakes present it within the refresh interval,
  // and the connection made before keeps working.
  WritePair("server", *ca_.Issue("renewed", {"127.0.0.1"}));
  ASSERT_TRUE(server_security->Reload().ok());
  std::string subject;
  for (int i = 0; i < 100 && subject.find("CN=renewed") == std::string::npos;
       ++i) {
    absl::SleepFor(absl::Milliseconds(100));
    subject = Ask(Channel(*server, *client_security)).server_subject;
  }
  EXPECT_NE(subject.find("CN=renewed"), std::string::npos) << subject;
  EXPECT_TRUE(Ask(old_channel).status.ok());
}

TEST_F(TransportSecurityTest, PlaintextIsPlaintext) {
  auto plaintext = TransportSecurity::Plaintext();
  EXPECT_FALSE(plaintext->tls());
  EXPECT_EQ(plaintext->Reload().code(), absl::StatusCode::kFailedPrecondition);
  auto server = Serve(*plaintext, PeerCertificates::kRequired);
  CallResult result = Ask(Channel(*server, *plaintext));
  ASSERT_TRUE(result.status.ok());
  EXPECT_NE(result.answer.find("tls=0"), std::string::npos);
}

}  // namespace
}  // namespace tributary
