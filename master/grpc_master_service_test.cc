// The master's gRPC service (a MasterServer) on 127.0.0.1, called the way
// TensorFlow's client calls it: generated protobuf stubs (typed float_val
// feeds, as TensorFlow's Python sends them), store_errors_in_response_body,
// call deadlines. The workers are fakes.

#include <cstdlib>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/synchronization/notification.h"
#include "common/framework/tensor_testutil.h"
#include "common/rpc/grpc_channel.h"
#include "gmock/gmock.h"
#include "grpcpp/client_context.h"
#include "gtest/gtest.h"
#include "master/client_auth.h"
#include "master/master_server.h"
#include "master/testing/master_test_util.h"
#include "protos/master_service.grpc.pb.h"

namespace tributary {
namespace test {
namespace {

using ::testing::HasSubstr;

class GrpcMasterServiceTest : public MasterTest {
 protected:
  // The fixture's fake cluster behind a MasterServer of its own, as the
  // daemon serves it.
  void SetUp() override {
    MasterTest::SetUp();
    MasterServerOptions options;
    options.listen_address = "127.0.0.1:0";
    options.worker_cache = &cache_;
    options.cancel_grace = DefaultOptions().cancel_grace;
    options.auth = Auth();
    Configure(&options);
    absl::StatusOr<std::unique_ptr<MasterServer>> server =
        MasterServer::Create(cluster_, options);
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = *std::move(server);
    ASSERT_TRUE(server_->Start().ok());
    stub_ = tensorflow::MasterService::NewStub(
        NewGrpcChannel(server_->bound_address()));
  }
  // The server's client authentication; none here.
  virtual std::shared_ptr<ClientAuth> Auth() { return nullptr; }
  // Other server options of a derived fixture.
  virtual void Configure(MasterServerOptions*) {}
  void TearDown() override {
    if (server_ != nullptr) server_->Stop(absl::Now() + absl::Seconds(5));
    server_.reset();
    MasterTest::TearDown();
  }

  std::string CreateOverGrpc(const tensorflow::GraphDef& graph) {
    grpc::ClientContext ctx;
    tensorflow::CreateSessionRequest req;
    *req.mutable_graph_def() = graph;
    tensorflow::CreateSessionResponse resp;
    grpc::Status s = stub_->CreateSession(&ctx, req, &resp);
    EXPECT_TRUE(s.ok()) << s.error_message();
    return resp.session_handle();
  }

  std::unique_ptr<MasterServer> server_;
  std::unique_ptr<tensorflow::MasterService::Stub> stub_;
};

TEST_F(GrpcMasterServiceTest, RunStepWithTypedFeedsAndFetches) {
  const std::string h = CreateOverGrpc(PsWorkerGraph());
  w0_->SetFetchValue("z:0", test::AsTensor<float>({5, 6}));
  grpc::ClientContext ctx;
  tensorflow::RunStepRequest req;
  req.set_session_handle(h);
  auto* feed = req.add_feed();
  feed->set_name("x:0");
  feed->mutable_tensor()->set_dtype(tensorflow::DT_FLOAT);
  feed->mutable_tensor()->mutable_tensor_shape()->add_dim()->set_size(2);
  feed->mutable_tensor()->add_float_val(1);
  feed->mutable_tensor()->add_float_val(2);
  req.add_fetch("z:0");
  req.add_fetch("x:0");
  tensorflow::RunStepResponse resp;
  grpc::Status s = stub_->RunStep(&ctx, req, &resp);
  ASSERT_TRUE(s.ok()) << s.error_message();
  ASSERT_EQ(resp.tensor_size(), 2);
  EXPECT_EQ(resp.tensor(0).name(), "z:0");
  absl::StatusOr<Tensor> z = Tensor::FromProto(resp.tensor(0).tensor());
  absl::StatusOr<Tensor> x = Tensor::FromProto(resp.tensor(1).tensor());
  ASSERT_TRUE(z.ok() && x.ok());
  test::ExpectTensorEqual<float>(*z, test::AsTensor<float>({5, 6}));
  test::ExpectTensorEqual<float>(*x, test::AsTensor<float>({1, 2}));
}

TEST_F(GrpcMasterServiceTest, BigFetch) {
  const std::string h = CreateOverGrpc(PsWorkerGraph());
  std::vector<float> big(4 << 20);  // 16 MiB, over gRPC's default limit.
  for (size_t i = 0; i < big.size(); ++i) big[i] = static_cast<float>(i % 977);
  w0_->SetFetchValue("z:0", test::AsTensor<float>(big));
  grpc::ClientContext ctx;
  tensorflow::RunStepRequest req;
  req.set_session_handle(h);
  auto* feed = req.add_feed();
  feed->set_name("x:0");
  test::AsTensor<float>({1, 2}).AsProtoTensorContent(feed->mutable_tensor());
  req.add_fetch("z:0");
  tensorflow::RunStepResponse resp;
  grpc::Status s = stub_->RunStep(&ctx, req, &resp);
  ASSERT_TRUE(s.ok()) << s.error_message();
  absl::StatusOr<Tensor> z = Tensor::FromProto(resp.tensor(0).tensor());
  ASSERT_TRUE(z.ok());
  test::ExpectTensorEqual<float>(*z, test::AsTensor<float>(big));
}

TEST_F(GrpcMasterServiceTest, ErrorsAsStatusOrInTheBody) {
  {
    grpc::ClientContext ctx;
    tensorflow::RunStepRequest req;
    req.set_session_handle("nope");
    tensorflow::RunStepResponse resp;
    grpc::Status s = stub_->RunStep(&ctx, req, &resp);
    EXPECT_EQ(s.error_code(), grpc::StatusCode::ABORTED);
    EXPECT_EQ(s.error_message(), "Session nope is not found.");
  }
  {
    grpc::ClientContext ctx;
    tensorflow::RunStepRequest req;
    req.set_session_handle("nope");
    req.set_store_errors_in_response_body(true);
    tensorflow::RunStepResponse resp;
    grpc::Status s = stub_->RunStep(&ctx, req, &resp);
    EXPECT_TRUE(s.ok());
    EXPECT_EQ(resp.status_code(), tensorflow::error::ABORTED);
    EXPECT_EQ(resp.status_error_message(), "Session nope is not found.");
  }
  {
    grpc::ClientContext ctx;
    tensorflow::ExtendSessionRequest req;
    req.set_session_handle("nope");
    tensorflow::ExtendSessionResponse resp;
    EXPECT_EQ(stub_->ExtendSession(&ctx, req, &resp).error_code(),
              grpc::StatusCode::ABORTED);
  }
}

TEST_F(GrpcMasterServiceTest, ClientDeadlineCancelsTheStepOnTheWorkers) {
  const std::string h = CreateOverGrpc(PsWorkerGraph());
  w0_->SetFetchValue("z:0", test::AsTensor<float>({5, 6}));
  w1_->HangRunGraphUntilCancelled();
  grpc::ClientContext ctx;
  ctx.set_deadline(std::chrono::system_clock::now() +
                   std::chrono::milliseconds(200));
  tensorflow::RunStepRequest req;
  req.set_session_handle(h);
  req.add_target("z");
  auto* feed = req.add_feed();
  feed->set_name("x:0");
  test::AsTensor<float>({1, 2}).AsProtoTensorContent(feed->mutable_tensor());
  tensorflow::RunStepResponse resp;
  grpc::Status s = stub_->RunStep(&ctx, req, &resp);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::DEADLINE_EXCEEDED);
  // The step was cancelled and cleaned up on the workers.
  tensorflow::CloseSessionRequest close;
  close.set_session_handle(h);
  tensorflow::CloseSessionResponse closed;
  grpc::ClientContext close_ctx;
  EXPECT_TRUE(stub_->CloseSession(&close_ctx, close, &closed).ok());
  WaitForBackgroundCalls();
  EXPECT_FALSE(w1_->cleanup_step_ids().empty());
}

TEST_F(GrpcMasterServiceTest, ListDevicesAndCallables) {
  {
    grpc::ClientContext ctx;
    tensorflow::ListDevicesRequest req;
    tensorflow::ListDevicesResponse resp;
    ASSERT_TRUE(stub_->ListDevices(&ctx, req, &resp).ok());
    EXPECT_EQ(resp.remote_device_size(), 4);
  }
  const std::string h = CreateOverGrpc(PsWorkerGraph());
  tensorflow::MakeCallableResponse made;
  {
    grpc::ClientContext ctx;
    tensorflow::MakeCallableRequest req;
    req.set_session_handle(h);
    req.mutable_options()->add_feed("x:0");
    req.mutable_options()->add_fetch("x:0");
    ASSERT_TRUE(stub_->MakeCallable(&ctx, req, &made).ok());
  }
  {
    grpc::ClientContext ctx;
    tensorflow::RunCallableRequest req;
    req.set_session_handle(h);
    req.set_handle(made.handle());
    test::AsTensor<float>({3}).AsProtoField(req.add_feed());
    tensorflow::RunCallableResponse resp;
    grpc::Status s = stub_->RunCallable(&ctx, req, &resp);
    ASSERT_TRUE(s.ok()) << s.error_message();
    ASSERT_EQ(resp.fetch_size(), 1);
    absl::StatusOr<Tensor> t = Tensor::FromProto(resp.fetch(0));
    ASSERT_TRUE(t.ok());
    test::ExpectTensorEqual<float>(*t, test::AsTensor<float>({3}));
  }
}

// The same service behind --auth-tokens: every call needs a token; run
// clients keep to their own sessions; Reset is an admin's.
class GrpcMasterServiceAuthTest : public GrpcMasterServiceTest {
 protected:
  std::shared_ptr<ClientAuth> Auth() override {
    const char* tmp = std::getenv("TEST_TMPDIR");
    const std::string tokens =
        std::string(tmp != nullptr ? tmp : "/tmp") + "/auth_tokens";
    std::ofstream(tokens) << Sha256Hex("alice") << " run alice\n"
                          << Sha256Hex("bob") << " run bob\n"
                          << Sha256Hex("ops") << " admin ops\n";
    absl::StatusOr<std::unique_ptr<ClientAuth>> auth =
        ClientAuth::FromFile(tokens, false);
    EXPECT_TRUE(auth.ok()) << auth.status();
    return auth.ok() ? std::shared_ptr<ClientAuth>(*std::move(auth)) : nullptr;
  }

  // A context carrying `token` (none when empty).
  static void As(grpc::ClientContext* ctx, const std::string& token) {
    if (!token.empty()) ctx->AddMetadata("authorization", "Bearer " + token);
  }

  grpc::Status Create(const std::string& token, std::string* handle) {
    grpc::ClientContext ctx;
    As(&ctx, token);
    tensorflow::CreateSessionRequest req;
    *req.mutable_graph_def() = PsWorkerGraph();
    tensorflow::CreateSessionResponse resp;
    grpc::Status s = stub_->CreateSession(&ctx, req, &resp);
    *handle = resp.session_handle();
    return s;
  }

  grpc::Status Run(const std::string& token, const std::string& handle) {
    grpc::ClientContext ctx;
    return RunFetching(&ctx, token, handle, "x:0");
  }

  // A step feeding x:0 and fetching `fetch` (x:0 itself: no worker runs).
  grpc::Status RunFetching(grpc::ClientContext* ctx, const std::string& token,
                           const std::string& handle,
                           const std::string& fetch) {
    As(ctx, token);
    tensorflow::RunStepRequest req;
    req.set_session_handle(handle);
    auto* feed = req.add_feed();
    feed->set_name("x:0");
    test::AsTensor<float>({1, 2}).AsProtoTensorContent(feed->mutable_tensor());
    req.add_fetch(fetch);
    tensorflow::RunStepResponse resp;
    return stub_->RunStep(ctx, req, &resp);
  }

  grpc::Status Close(const std::string& token, const std::string& handle) {
    grpc::ClientContext ctx;
    As(&ctx, token);
    tensorflow::CloseSessionRequest req;
    req.set_session_handle(handle);
    tensorflow::CloseSessionResponse resp;
    return stub_->CloseSession(&ctx, req, &resp);
  }

  grpc::Status Reset(const std::string& token) {
    grpc::ClientContext ctx;
    As(&ctx, token);
    tensorflow::ResetResponse resp;
    return stub_->Reset(&ctx, tensorflow::ResetRequest(), &resp);
  }
};

TEST_F(GrpcMasterServiceAuthTest, EveryCallNeedsAValidToken) {
  std::string handle;
  grpc::Status s = Create("", &handle);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_THAT(s.error_message(), HasSubstr("requires a token"));
  s = Create("mallory", &handle);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_THAT(s.error_message(), ::testing::Not(HasSubstr("mallory")));
  grpc::ClientContext ctx;
  tensorflow::ListDevicesResponse devices;
  EXPECT_EQ(stub_->ListDevices(&ctx, tensorflow::ListDevicesRequest(), &devices)
                .error_code(),
            grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_EQ(Run("", "whatever").error_code(),
            grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_EQ(server_->master()->num_sessions(), 0);
  ASSERT_TRUE(Create("alice", &handle).ok());
  EXPECT_EQ(server_->master()->num_sessions(), 1);
}

TEST_F(GrpcMasterServiceAuthTest, RunClientsKeepToTheirOwnSessions) {
  std::string alices;
  ASSERT_TRUE(Create("alice", &alices).ok());
  EXPECT_TRUE(Run("alice", alices).ok());
  grpc::Status s = Run("bob", alices);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_THAT(s.error_message(), HasSubstr("belongs to another client"));
  EXPECT_EQ(Close("bob", alices).error_code(),
            grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_EQ(server_->master()->num_sessions(), 1);
  // The owner still uses it, and an admin may close it.
  EXPECT_TRUE(Run("alice", alices).ok());
  EXPECT_TRUE(Close("ops", alices).ok());
  EXPECT_EQ(server_->master()->num_sessions(), 0);
}

TEST_F(GrpcMasterServiceAuthTest, ResetIsAnAdminsCall) {
  std::string handle;
  ASSERT_TRUE(Create("alice", &handle).ok());
  grpc::Status s = Reset("alice");
  EXPECT_EQ(s.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_THAT(s.error_message(), HasSubstr("admin"));
  EXPECT_EQ(server_->master()->num_sessions(), 1);
  EXPECT_TRUE(Reset("ops").ok());
  EXPECT_EQ(server_->master()->num_sessions(), 0);
}

// Under --auth-tokens, --max-steps-per-client counts the steps of each
// token's name, not of each host (every caller here is 127.0.0.1).
class GrpcMasterServiceStepLimitTest : public GrpcMasterServiceAuthTest {
 protected:
  void Configure(MasterServerOptions* options) override {
    options->max_steps_per_client = 1;
  }
};

TEST_F(GrpcMasterServiceStepLimitTest, StepsPerClientAreCountedPerToken) {
  w0_->SetFetchValue("z:0", test::AsTensor<float>({5, 6}));
  std::string alices_first, alices_second, bobs;
  ASSERT_TRUE(Create("alice", &alices_first).ok());
  ASSERT_TRUE(Create("alice", &alices_second).ok());
  ASSERT_TRUE(Create("bob", &bobs).ok());
  absl::Notification started;
  w1_->HangRunGraphUntilCancelled(&started);
  grpc::ClientContext hanging;
  std::thread step([&] {
    RunFetching(&hanging, "alice", alices_first, "z:0").error_code();
  });
  ASSERT_TRUE(started.WaitForNotificationWithTimeout(absl::Seconds(30)));
  w1_->HangRunGraphUntilCancelled(nullptr);

  // Alice's second step, in another session, is over her limit.
  grpc::ClientContext second;
  grpc::Status s = RunFetching(&second, "alice", alices_second, "z:0");
  EXPECT_EQ(s.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_THAT(s.error_message(), HasSubstr("principal:alice"));
  EXPECT_THAT(s.error_message(), HasSubstr("--max-steps-per-client=1"));
  // Bob, from the same host, is not: his step runs (and hangs until its
  // deadline).
  grpc::ClientContext bobs_ctx;
  bobs_ctx.set_deadline(std::chrono::system_clock::now() +
                        std::chrono::milliseconds(300));
  s = RunFetching(&bobs_ctx, "bob", bobs, "z:0");
  EXPECT_EQ(s.error_code(), grpc::StatusCode::DEADLINE_EXCEEDED)
      << s.error_message();

  hanging.TryCancel();
  step.join();
  w1_->SetRunGraphHandler(nullptr);
  grpc::ClientContext again;
  s = RunFetching(&again, "alice", alices_second, "z:0");
  EXPECT_TRUE(s.ok()) << s.error_message();
}

}  // namespace
}  // namespace test
}  // namespace tributary
