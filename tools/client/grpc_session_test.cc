// GrpcSession against a fake MasterService: a real gRPC server on
// 127.0.0.1 (ephemeral port) whose handlers use protobuf's generated code,
// so what GrpcSession writes with tensor coding is checked against what an
// ordinary protobuf peer (TensorFlow's master) reads, and the other way.
#include "tools/client/grpc_session.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "common/framework/tensor.h"
#include "common/framework/tensor_testutil.h"
#include "grpcpp/security/server_credentials.h"
#include "grpcpp/server.h"
#include "grpcpp/server_builder.h"
#include "gtest/gtest.h"
#include "protos/master_service.grpc.pb.h"

namespace tributary {
namespace {

// Fetch names the fake understands; any other fetch echoes the feed of
// that name.
constexpr char kBigFetch[] = "big";              // 2M floats, value = index.
constexpr char kBodyError[] = "body_error";      // Error in the response body.
constexpr char kStatusError[] = "status_error";  // Error as gRPC status.
constexpr char kSlowFetch[] = "slow";            // Answers only when cancelled.
constexpr char kStrayFetch[] = "stray";          // Returns an unrequested name.
constexpr int64_t kBigElements = 2 << 20;

class FakeMaster final : public tensorflow::MasterService::Service {
 public:
  grpc::Status CreateSession(
      grpc::ServerContext*, const tensorflow::CreateSessionRequest* request,
      tensorflow::CreateSessionResponse* response) override {
    absl::MutexLock l(&mu_);
    creates_.push_back(*request);
    response->set_session_handle("handle-1");
    response->set_graph_version(version_ = 7);
    return grpc::Status::OK;
  }

  grpc::Status ExtendSession(
      grpc::ServerContext*, const tensorflow::ExtendSessionRequest* request,
      tensorflow::ExtendSessionResponse* response) override {
    absl::MutexLock l(&mu_);
    extends_.push_back(*request);
    if (request->current_graph_version() != version_) {
      return grpc::Status(grpc::StatusCode::ABORTED, "stale graph version");
    }
    response->set_new_graph_version(++version_);
    return grpc::Status::OK;
  }

  grpc::Status RunStep(grpc::ServerContext* context,
                       const tensorflow::RunStepRequest* request,
                       tensorflow::RunStepResponse* response) override {
    {
      absl::MutexLock l(&mu_);
      runs_.push_back(*request);
    }
    for (const std::string& fetch : request->fetch()) {
      if (fetch == kBodyError) {
        response->set_status_code(tensorflow::error::INVALID_ARGUMENT);
        response->set_status_error_message("bad node n1 (in the body)");
        return grpc::Status::OK;
      }
      if (fetch == kStatusError) {
        return grpc::Status(grpc::StatusCode::FAILED_PRECONDITION,
                            "variable v uninitialised (in the status)");
      }
      if (fetch == kSlowFetch) {
        slow_started_.Notify();
        // Bounded: the test's deadline or Close cancels long before.
        const absl::Time give_up = absl::Now() + absl::Seconds(60);
        while (!context->IsCancelled() && absl::Now() < give_up) {
          absl::SleepFor(absl::Milliseconds(5));
        }
        return grpc::Status(grpc::StatusCode::CANCELLED, "cancelled");
      }
      auto* named = response->add_tensor();
      if (fetch == kStrayFetch) {
        named->set_name("not-asked-for");
        Tensor(1.0f).AsProtoTensorContent(named->mutable_tensor());
        continue;
      }
      named->set_name(fetch);
      if (fetch == kBigFetch) {
        Tensor big(tensorflow::DT_FLOAT, TensorShape({kBigElements}));
        auto flat = big.flat<float>();
        for (int64_t i = 0; i < kBigElements; ++i) flat(i) = i;
        big.AsProtoTensorContent(named->mutable_tensor());
        continue;
      }
      bool found = false;
      for (const auto& feed : request->feed()) {
        if (feed.name() == fetch) {
          *named->mutable_tensor() = feed.tensor();
          found = true;
        }
      }
      if (!found) {
        return grpc::Status(grpc::StatusCode::NOT_FOUND,
                            absl::StrCat("no feed named ", fetch));
      }
    }
    response->mutable_metadata()
        ->mutable_step_stats()
        ->add_dev_stats()
        ->set_device("/job:worker/replica:0/task:0/device:CPU:0");
    return grpc::Status::OK;
  }

  grpc::Status CloseSession(grpc::ServerContext*,
                            const tensorflow::CloseSessionRequest* request,
                            tensorflow::CloseSessionResponse*) override {
    absl::MutexLock l(&mu_);
    closed_.push_back(request->session_handle());
    return grpc::Status::OK;
  }

  grpc::Status ListDevices(grpc::ServerContext*,
                           const tensorflow::ListDevicesRequest* request,
                           tensorflow::ListDevicesResponse* response) override {
    absl::MutexLock l(&mu_);
    list_handles_.push_back(request->session_handle());
    response->add_local_device()->set_name(
        "/job:worker/replica:0/task:0/device:CPU:0");
    response->add_remote_device()->set_name(
        "/job:worker/replica:0/task:1/device:CPU:0");
    response->add_remote_device()->set_name(
        "/job:ps/replica:0/task:0/device:CPU:0");
    return grpc::Status::OK;
  }

  absl::Mutex mu_;
  int64_t version_ ABSL_GUARDED_BY(mu_) = 0;
  std::vector<tensorflow::CreateSessionRequest> creates_ ABSL_GUARDED_BY(mu_);
  std::vector<tensorflow::ExtendSessionRequest> extends_ ABSL_GUARDED_BY(mu_);
  std::vector<tensorflow::RunStepRequest> runs_ ABSL_GUARDED_BY(mu_);
  std::vector<std::string> closed_ ABSL_GUARDED_BY(mu_);
  std::vector<std::string> list_handles_ ABSL_GUARDED_BY(mu_);
  absl::Notification slow_started_;
};

tensorflow::GraphDef GraphWithNodes(std::vector<std::string> names) {
  tensorflow::GraphDef g;
  for (const std::string& n : names) {
    auto* node = g.add_node();
    node->set_name(n);
    node->set_op("NoOp");
  }
  return g;
}

class GrpcSessionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    grpc::ServerBuilder builder;
    builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(),
                             &port_);
    builder.RegisterService(&master_);
    builder.SetMaxReceiveMessageSize(-1);
    builder.SetMaxSendMessageSize(-1);
    server_ = builder.BuildAndStart();
    ASSERT_NE(server_, nullptr);
    ASSERT_GT(port_, 0);
  }

  void TearDown() override {
    server_->Shutdown(absl::ToChronoTime(absl::Now() + absl::Seconds(5)));
  }

  std::string Target() const {
    return absl::StrCat("grpc://127.0.0.1:", port_);
  }

  std::unique_ptr<GrpcSession> NewSession(tensorflow::ConfigProto config = {}) {
    GrpcSessionOptions options;
    options.target = Target();
    options.config = config;
    // Keep a fallback that a broken test would hit in bounded time.
    options.default_control_timeout = absl::Seconds(30);
    options.default_run_step_timeout = absl::Seconds(60);
    auto session = GrpcSession::New(options);
    EXPECT_TRUE(session.ok()) << session.status();
    return session.ok() ? *std::move(session) : nullptr;
  }

  FakeMaster master_;
  int port_ = 0;
  std::unique_ptr<grpc::Server> server_;
};

TEST_F(GrpcSessionTest, CreateExtendRunClose) {
  tensorflow::ConfigProto config;
  config.set_operation_timeout_in_ms(120000);
  auto session = NewSession(config);
  ASSERT_TRUE(session->Create(GraphWithNodes({"a", "b"})).ok());
  EXPECT_EQ(session->handle(), "handle-1");
  ASSERT_TRUE(session->Extend(GraphWithNodes({"c"})).ok());
  ASSERT_TRUE(session->Extend(GraphWithNodes({"d"})).ok());
  {
    absl::MutexLock l(&master_.mu_);
    ASSERT_EQ(master_.creates_.size(), 1u);
    EXPECT_EQ(master_.creates_[0].graph_def().node_size(), 2);
    EXPECT_EQ(master_.creates_[0].config().operation_timeout_in_ms(), 120000);
    EXPECT_EQ(master_.creates_[0].target(), Target());
    ASSERT_EQ(master_.extends_.size(), 2u);
    EXPECT_EQ(master_.extends_[0].session_handle(), "handle-1");
    EXPECT_EQ(master_.extends_[0].current_graph_version(), 7);
    EXPECT_EQ(master_.extends_[1].current_graph_version(), 8);
    EXPECT_EQ(master_.extends_[1].graph_def().node(0).name(), "d");
  }

  Tensor x = test::AsTensor<float>({1, 2, 3, 4}, {2, 2});
  Tensor y = test::AsTensor<int32_t>({7}, {1});
  tensorflow::RunOptions options;
  options.set_trace_level(tensorflow::RunOptions::FULL_TRACE);
  std::vector<Tensor> out;
  tensorflow::RunMetadata metadata;
  absl::Status s = session->Run(options, {{"x", x}, {"y:0", y}},
                                {"x", "y:0", "x"}, {"train"}, &out, &metadata);
  ASSERT_TRUE(s.ok()) << s;
  ASSERT_EQ(out.size(), 3u);
  test::ExpectTensorEqual<float>(out[0], x);
  test::ExpectTensorEqual<int32_t>(out[1], y);
  test::ExpectTensorEqual<float>(out[2], x);  // Duplicate fetch filled in.
  EXPECT_EQ(metadata.step_stats().dev_stats_size(), 1);
  {
    absl::MutexLock l(&master_.mu_);
    ASSERT_EQ(master_.runs_.size(), 1u);
    const tensorflow::RunStepRequest& r = master_.runs_[0];
    EXPECT_EQ(r.session_handle(), "handle-1");
    ASSERT_EQ(r.feed_size(), 2);
    EXPECT_EQ(r.feed(0).name(), "x");
    EXPECT_EQ(r.feed(1).name(), "y:0");
    ASSERT_EQ(r.fetch_size(), 2);  // Deduplicated.
    EXPECT_EQ(r.fetch(0), "x");
    EXPECT_EQ(r.fetch(1), "y:0");
    ASSERT_EQ(r.target_size(), 1);
    EXPECT_EQ(r.target(0), "train");
    EXPECT_TRUE(r.store_errors_in_response_body());
    EXPECT_GT(r.request_id(), 0);
    EXPECT_EQ(r.options().trace_level(), tensorflow::RunOptions::FULL_TRACE);
  }

  ASSERT_TRUE(session->Close().ok());
  {
    absl::MutexLock l(&master_.mu_);
    EXPECT_EQ(master_.closed_, std::vector<std::string>{"handle-1"});
  }
  EXPECT_TRUE(absl::IsCancelled(session->Run({}, {"x"}, {}, &out)));
  EXPECT_TRUE(absl::IsCancelled(session->Extend(GraphWithNodes({"e"}))));
  EXPECT_TRUE(absl::IsCancelled(session->ListDevices().status()));
  EXPECT_TRUE(session->Close().ok());  // Idempotent.
}

TEST_F(GrpcSessionTest, BigFetchArrivesWhole) {
  auto session = NewSession();
  ASSERT_TRUE(session->Create(GraphWithNodes({"a"})).ok());
  std::vector<Tensor> out;
  absl::Status s = session->Run({}, {kBigFetch}, {}, &out);
  ASSERT_TRUE(s.ok()) << s;
  ASSERT_EQ(out[0].NumElements(), kBigElements);
  auto flat = out[0].flat<float>();
  EXPECT_EQ(flat(0), 0);
  EXPECT_EQ(flat(12345), 12345);
  EXPECT_EQ(flat(kBigElements - 1), kBigElements - 1);
}

TEST_F(GrpcSessionTest, ErrorsFromBodyAndStatusKeepCodeAndMessage) {
  auto session = NewSession();
  ASSERT_TRUE(session->Create(GraphWithNodes({"a"})).ok());
  std::vector<Tensor> out;
  absl::Status body = session->Run({}, {kBodyError}, {}, &out);
  EXPECT_TRUE(absl::IsInvalidArgument(body)) << body;
  EXPECT_EQ(body.message(), "bad node n1 (in the body)");
  absl::Status status = session->Run({}, {kStatusError}, {}, &out);
  EXPECT_TRUE(absl::IsFailedPrecondition(status)) << status;
  EXPECT_EQ(status.message(), "variable v uninitialised (in the status)");
  absl::Status stray = session->Run({}, {kStrayFetch}, {}, &out);
  EXPECT_TRUE(absl::IsInternal(stray)) << stray;
  EXPECT_TRUE(absl::StrContains(stray.message(), "not-asked-for"));
}

TEST_F(GrpcSessionTest, SessionStateRules) {
  auto session = NewSession();
  std::vector<Tensor> out;
  EXPECT_TRUE(absl::IsInvalidArgument(session->Run({}, {"x"}, {}, &out)));
  // An empty graph creates nothing, as in the local session.
  ASSERT_TRUE(session->Create(tensorflow::GraphDef()).ok());
  EXPECT_EQ(session->handle(), "");
  ASSERT_TRUE(session->Create(GraphWithNodes({"a"})).ok());
  EXPECT_TRUE(absl::IsAlreadyExists(session->Create(GraphWithNodes({"b"}))));
  absl::MutexLock l(&master_.mu_);
  EXPECT_EQ(master_.creates_.size(), 1u);
}

TEST_F(GrpcSessionTest, ExtendWithoutCreateCreates) {
  auto session = NewSession();
  ASSERT_TRUE(session->Extend(GraphWithNodes({"a"})).ok());
  EXPECT_EQ(session->handle(), "handle-1");
  absl::MutexLock l(&master_.mu_);
  EXPECT_EQ(master_.creates_.size(), 1u);
  EXPECT_TRUE(master_.extends_.empty());
}

TEST_F(GrpcSessionTest, ListDevicesBeforeAndAfterCreate) {
  auto session = NewSession();
  auto devices = session->ListDevices();
  ASSERT_TRUE(devices.ok()) << devices.status();
  ASSERT_EQ(devices->size(), 3u);
  EXPECT_EQ((*devices)[0].name(), "/job:worker/replica:0/task:0/device:CPU:0");
  EXPECT_EQ((*devices)[2].name(), "/job:ps/replica:0/task:0/device:CPU:0");
  ASSERT_TRUE(session->Create(GraphWithNodes({"a"})).ok());
  ASSERT_TRUE(session->ListDevices().ok());
  absl::MutexLock l(&master_.mu_);
  EXPECT_EQ(master_.list_handles_, (std::vector<std::string>{"", "handle-1"}));
}

TEST_F(GrpcSessionTest, RunTimeoutIsEnforcedByTheClientToo) {
  GrpcSessionOptions options;
  options.target = Target();
  options.deadline_margin = absl::Milliseconds(10);
  auto session = GrpcSession::New(options);
  ASSERT_TRUE(session.ok());
  ASSERT_TRUE((*session)->Create(GraphWithNodes({"a"})).ok());
  tensorflow::RunOptions run_options;
  run_options.set_timeout_in_ms(50);
  std::vector<Tensor> out;
  absl::Status s =
      (*session)->Run(run_options, {}, {kSlowFetch}, {}, &out, nullptr);
  EXPECT_TRUE(absl::IsDeadlineExceeded(s)) << s;
  EXPECT_TRUE(absl::StrContains(s.message(), "RunStep")) << s;
}

TEST_F(GrpcSessionTest, CloseCancelsARunningStep) {
  auto session = NewSession();
  ASSERT_TRUE(session->Create(GraphWithNodes({"a"})).ok());
  absl::Status run_status;
  std::thread runner([&] {
    std::vector<Tensor> out;
    run_status = session->Run({}, {kSlowFetch}, {}, &out);
  });
  ASSERT_TRUE(
      master_.slow_started_.WaitForNotificationWithTimeout(absl::Seconds(60)));
  EXPECT_TRUE(session->Close().ok());
  runner.join();
  EXPECT_TRUE(absl::IsCancelled(run_status)) << run_status;
}

TEST(GrpcSessionUnreachableTest, UnavailableNamingTheAddress) {
  // A port that was just free: nothing listens there.
  int port = 0;
  {
    const int fd = socket(AF_INET, SOCK_STREAM, 0);
    ASSERT_GE(fd, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
    socklen_t len = sizeof(addr);
    ASSERT_EQ(getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len), 0);
    port = ntohs(addr.sin_port);
    close(fd);  // Bound but never listening: connections are refused.
  }
  const std::string address = absl::StrCat("127.0.0.1:", port);
  GrpcSessionOptions options;
  options.target = "grpc://" + address;
  options.default_control_timeout = absl::Seconds(30);
  auto session = GrpcSession::New(options);
  ASSERT_TRUE(session.ok());
  absl::Status s = (*session)->Create(GraphWithNodes({"a"}));
  EXPECT_TRUE(absl::IsUnavailable(s)) << s;
  EXPECT_TRUE(absl::StrContains(s.message(), address)) << s;
  auto devices = (*session)->ListDevices();
  EXPECT_TRUE(absl::IsUnavailable(devices.status())) << devices.status();
  EXPECT_TRUE(absl::StrContains(devices.status().message(), address));
}

TEST(GrpcTargetAddressTest, ParsesAndRejects) {
  EXPECT_EQ(*GrpcTargetAddress("grpc://localhost:2222"), "localhost:2222");
  EXPECT_EQ(*GrpcTargetAddress("grpc://[::1]:5/"), "[::1]:5");
  EXPECT_TRUE(absl::IsInvalidArgument(GrpcTargetAddress("grpc://").status()));
  EXPECT_TRUE(
      absl::IsInvalidArgument(GrpcTargetAddress("http://h:1").status()));
  EXPECT_FALSE(GrpcSession::New({}).ok());
}

}  // namespace
}  // namespace tributary
