// GrpcServer's streams (RpcStreamHandler) and the health and reflection
// services every server carries, driven by gRPC's own client library.
#include <string>
#include <thread>
#include <vector>

#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "common/metrics/metrics.h"
#include "common/rpc/grpc_channel.h"
#include "common/rpc/grpc_server.h"
#include "common/rpc/rpc_service.h"
#include "common/rpc/unary_call.h"
#include "google/protobuf/descriptor.pb.h"
#include "grpc/health/v1/health.pb.h"
#include "grpc/reflection/v1alpha/reflection.pb.h"
#include "grpcpp/client_context.h"
#include "grpcpp/completion_queue.h"
#include "grpcpp/generic/generic_stub.h"
#include "gtest/gtest.h"

namespace tributary {
namespace {

namespace health = ::grpc::health::v1;
namespace refl = ::grpc::reflection::v1alpha;

grpc::ByteBuffer Bytes(const std::string& text) {
  grpc::Slice slice(text);
  return grpc::ByteBuffer(&slice, 1);
}

std::string Text(const grpc::ByteBuffer& buffer) {
  std::vector<grpc::Slice> slices;
  (void)buffer.Dump(&slices);
  std::string out;
  for (const auto& s : slices) {
    out.append(reinterpret_cast<const char*>(s.begin()), s.size());
  }
  return out;
}

// "test.Stream": Upper answers each message in capitals and fails the
// stream at "stop"; "test.Unary": Echo.
std::vector<const RpcService*> Services() {
  static auto* stream = [] {
    auto* s = new RpcService("test.Stream");
    s->AddStream("Upper", [](const grpc::ByteBuffer& in,
                             grpc::ByteBuffer* out) {
      std::string text = Text(in);
      if (text == "stop") {
        return grpc::Status(grpc::StatusCode::FAILED_PRECONDITION, "stopped");
      }
      for (char& c : text) c = static_cast<char>(toupper(c));
      *out = Bytes(text);
      return grpc::Status::OK;
    });
    return s;
  }();
  static auto* unary = [] {
    auto* s = new RpcService("test.Unary");
    s->Add("Echo", [](RpcServerCall* call) {
      call->Finish(grpc::Status::OK, call->request());
    });
    return s;
  }();
  return {stream, unary};
}

// One bidirectional call, driven step by step on its own queue.
class Stream {
 public:
  Stream(const std::string& address, const std::string& method)
      : stub_(NewGrpcChannel(address)) {
    context_.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(20)));
    call_ = stub_.PrepareCall(&context_, method, &cq_);
    call_->StartCall(Tag());
    Wait();
  }
  bool Write(const std::string& text) {
    call_->Write(Bytes(text), Tag());
    return Wait();
  }
  bool Read(std::string* text) {
    grpc::ByteBuffer buffer;
    call_->Read(&buffer, Tag());
    if (!Wait()) return false;
    *text = Text(buffer);
    return true;
  }
  grpc::Status Finish() {
    call_->WritesDone(Tag());
    Wait();
    grpc::Status status;
    call_->Finish(&status, Tag());
    Wait();
    return status;
  }

 private:
  void* Tag() { return reinterpret_cast<void*>(++tags_); }
  bool Wait() {
    void* tag = nullptr;
    bool ok = false;
    EXPECT_TRUE(cq_.Next(&tag, &ok));
    return ok;
  }

  grpc::GenericStub stub_;
  grpc::ClientContext context_;
  grpc::CompletionQueue cq_;
  std::unique_ptr<grpc::GenericClientAsyncReaderWriter> call_;
  intptr_t tags_ = 0;
};

TEST(GrpcServerStreamTest, EachMessageIsAnsweredUntilTheClientHalfCloses) {
  absl::StatusOr<GrpcServerHandle> server =
      StartGrpcServer("127.0.0.1:0", Services());
  ASSERT_TRUE(server.ok()) << server.status();
  Stream stream(server->address, "/test.Stream/Upper");
  std::string answer;
  for (const std::string word : {"one", "two", "three"}) {
    ASSERT_TRUE(stream.Write(word));
    ASSERT_TRUE(stream.Read(&answer));
    std::string upper = word;
    for (char& c : upper) c = static_cast<char>(toupper(c));
    EXPECT_EQ(answer, upper);
  }
  EXPECT_TRUE(stream.Finish().ok());
}

TEST(GrpcServerStreamTest, AHandlersErrorEndsTheStreamWithIt) {
  absl::StatusOr<GrpcServerHandle> server =
      StartGrpcServer("127.0.0.1:0", Services());
  ASSERT_TRUE(server.ok()) << server.status();
  Stream stream(server->address, "/test.Stream/Upper");
  std::string answer;
  ASSERT_TRUE(stream.Write("a"));
  ASSERT_TRUE(stream.Read(&answer));
  ASSERT_TRUE(stream.Write("stop"));
  EXPECT_FALSE(stream.Read(&answer));
  const grpc::Status status = stream.Finish();
  EXPECT_EQ(status.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_EQ(status.error_message(), "stopped");
  // Unary calls on the same server are unaffected.
  grpc::GenericStub stub(NewGrpcChannel(server->address));
  grpc::ClientContext context;
  grpc::ByteBuffer response;
  ASSERT_TRUE(UnaryCallOnThisThread(&stub, &context, "/test.Unary/Echo",
                                    Bytes("x"), &response)
                  .ok());
  EXPECT_EQ(Text(response), "x");
}

health::HealthCheckResponse::ServingStatus Check(const std::string& address,
                                                 const std::string& service,
                                                 grpc::Status* status) {
  health::HealthCheckRequest request;
  request.set_service(service);
  grpc::GenericStub stub(NewGrpcChannel(address));
  grpc::ClientContext context;
  context.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(20)));
  health::HealthCheckResponse response;
  *status = ProtoCallOnThisThread(
      &stub, &context, "/grpc.health.v1.Health/Check", request, &response);
  return response.status();
}

TEST(GrpcServerHealthTest, ServingForTheServerAndEachServiceNotFoundForOthers) {
  absl::StatusOr<GrpcServerHandle> server =
      StartGrpcServer("127.0.0.1:0", Services());
  ASSERT_TRUE(server.ok()) << server.status();
  grpc::Status status;
  for (const std::string name : {"", "test.Stream", "test.Unary"}) {
    EXPECT_EQ(Check(server->address, name, &status),
              health::HealthCheckResponse::SERVING)
        << name;
    EXPECT_TRUE(status.ok()) << name << ": " << status.error_message();
  }
  Check(server->address, "test.Nope", &status);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::NOT_FOUND);

  server->server->SetServing(false);
  EXPECT_EQ(Check(server->address, "", &status),
            health::HealthCheckResponse::NOT_SERVING);
  EXPECT_EQ(Check(server->address, "test.Unary", &status),
            health::HealthCheckResponse::NOT_SERVING);
  server->server->SetServing(true);
  EXPECT_EQ(Check(server->address, "", &status),
            health::HealthCheckResponse::SERVING);
}

// While Shutdown drains a running call, the server still answers: Check
// says NOT_SERVING (not a refused connection), other calls are served (a
// step's RecvTensor), and Shutdown returns as soon as the call ends.
TEST(GrpcServerHealthTest, CheckAnswersNotServingWhileCallsDrain) {
  absl::Notification started, release;
  RpcService slow("test.Slow");
  slow.Add("Wait", [&](RpcServerCall* call) {
    started.Notify();
    std::thread([call, &release] {
      release.WaitForNotificationWithTimeout(absl::Seconds(60));
      call->Finish(grpc::Status::OK, call->request());
    }).detach();
  });
  std::vector<const RpcService*> services = Services();
  services.push_back(&slow);
  absl::StatusOr<GrpcServerHandle> server =
      StartGrpcServer("127.0.0.1:0", services);
  ASSERT_TRUE(server.ok()) << server.status();
  const std::string address = server->address;

  grpc::Status slow_status;
  std::thread client([&] {
    grpc::GenericStub stub(NewGrpcChannel(address));
    grpc::ClientContext context;
    context.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(60)));
    grpc::ByteBuffer response;
    slow_status = UnaryCallOnThisThread(&stub, &context, "/test.Slow/Wait",
                                        Bytes("late"), &response);
  });
  ASSERT_TRUE(started.WaitForNotificationWithTimeout(absl::Seconds(20)));

  absl::Notification shut_down;
  absl::Time shutdown_returned;
  std::thread stopper([&] {
    server->server->Shutdown(absl::Now() + absl::Seconds(60));
    shutdown_returned = absl::Now();
    shut_down.Notify();
  });
  grpc::Status status;
  health::HealthCheckResponse::ServingStatus answer =
      health::HealthCheckResponse::SERVING;
  for (int i = 0; i < 200 && answer == health::HealthCheckResponse::SERVING;
       ++i) {
    answer = Check(address, "", &status);
    if (answer == health::HealthCheckResponse::SERVING) {
      absl::SleepFor(absl::Milliseconds(10));
    }
  }
  EXPECT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(answer, health::HealthCheckResponse::NOT_SERVING);
  EXPECT_EQ(Check(address, "test.Unary", &status),
            health::HealthCheckResponse::NOT_SERVING);
  EXPECT_TRUE(status.ok()) << status.error_message();
  {
    grpc::GenericStub stub(NewGrpcChannel(address));
    grpc::ClientContext context;
    context.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(20)));
    grpc::ByteBuffer response;
    ASSERT_TRUE(UnaryCallOnThisThread(&stub, &context, "/test.Unary/Echo",
                                      Bytes("during drain"), &response)
                    .ok());
    EXPECT_EQ(Text(response), "during drain");
  }
  EXPECT_FALSE(shut_down.HasBeenNotified());  // the slow call holds it

  const absl::Time released = absl::Now();
  release.Notify();
  ASSERT_TRUE(shut_down.WaitForNotificationWithTimeout(absl::Seconds(30)));
  stopper.join();
  client.join();
  EXPECT_TRUE(slow_status.ok()) << slow_status.error_message();
  // Well before the 60 s deadline: the drain ended with the call.
  EXPECT_LT(shutdown_returned - released, absl::Seconds(20));
  // And now the port is closed.
  Check(address, "", &status);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAVAILABLE);
}

health::HealthCheckResponse::ServingStatus StatusIn(const std::string& bytes) {
  health::HealthCheckResponse response;
  EXPECT_TRUE(response.ParseFromString(bytes));
  return response.status();
}

TEST(GrpcServerHealthTest, WatchReportsEachChangeAndEndsAtShutdown) {
  absl::StatusOr<GrpcServerHandle> server =
      StartGrpcServer("127.0.0.1:0", Services());
  ASSERT_TRUE(server.ok()) << server.status();
  Stream watch(server->address, "/grpc.health.v1.Health/Watch");
  Stream unknown(server->address, "/grpc.health.v1.Health/Watch");
  health::HealthCheckRequest request;
  request.set_service("test.Unary");
  ASSERT_TRUE(watch.Write(request.SerializeAsString()));
  request.set_service("test.Later");
  ASSERT_TRUE(unknown.Write(request.SerializeAsString()));
  std::string bytes;
  ASSERT_TRUE(watch.Read(&bytes));
  EXPECT_EQ(StatusIn(bytes), health::HealthCheckResponse::SERVING);
  ASSERT_TRUE(unknown.Read(&bytes));
  EXPECT_EQ(StatusIn(bytes), health::HealthCheckResponse::SERVICE_UNKNOWN);

  server->server->SetServing(false);
  ASSERT_TRUE(watch.Read(&bytes));
  EXPECT_EQ(StatusIn(bytes), health::HealthCheckResponse::NOT_SERVING);
  server->server->SetServing(true);
  ASSERT_TRUE(watch.Read(&bytes));
  EXPECT_EQ(StatusIn(bytes), health::HealthCheckResponse::SERVING);

  // Shutdown waits for calls until its deadline: the watchers must end well
  // before this one.
  const absl::Time began = absl::Now();
  server->server->Shutdown(absl::Now() + absl::Seconds(30));
  EXPECT_LT(absl::Now() - began, absl::Seconds(10));
  ASSERT_TRUE(watch.Read(&bytes));
  EXPECT_EQ(StatusIn(bytes), health::HealthCheckResponse::NOT_SERVING);
  EXPECT_FALSE(watch.Read(&bytes));
  EXPECT_TRUE(watch.Finish().ok());
  // The unknown name's answer did not change: the call just ends.
  EXPECT_FALSE(unknown.Read(&bytes));
  EXPECT_TRUE(unknown.Finish().ok());
}

refl::ServerReflectionResponse Ask(
    Stream* stream, const refl::ServerReflectionRequest& request) {
  EXPECT_TRUE(stream->Write(request.SerializeAsString()));
  std::string bytes;
  EXPECT_TRUE(stream->Read(&bytes));
  refl::ServerReflectionResponse response;
  EXPECT_TRUE(response.ParseFromString(bytes));
  return response;
}

TEST(GrpcServerReflectionTest, ListsServicesAndDescribesThemOnOneStream) {
  absl::StatusOr<GrpcServerHandle> server =
      StartGrpcServer("127.0.0.1:0", Services());
  ASSERT_TRUE(server.ok()) << server.status();
  for (const std::string version : {"v1", "v1alpha"}) {
    Stream stream(server->address,
                  "/grpc.reflection." + version +
                      ".ServerReflection/ServerReflectionInfo");
    refl::ServerReflectionRequest request;
    request.set_list_services("");
    refl::ServerReflectionResponse response = Ask(&stream, request);
    std::vector<std::string> names;
    for (const auto& s : response.list_services_response().service()) {
      names.push_back(s.name());
    }
    EXPECT_EQ(names, (std::vector<std::string>{
                         "grpc.health.v1.Health",
                         "grpc.reflection.v1.ServerReflection",
                         "grpc.reflection.v1alpha.ServerReflection",
                         "test.Stream", "test.Unary"}));

    // The health service's file, and google.protobuf's is not imported.
    request.set_file_containing_symbol("grpc.health.v1.Health.Check");
    response = Ask(&stream, request);
    ASSERT_EQ(response.file_descriptor_response().file_descriptor_proto_size(),
              1);
    google::protobuf::FileDescriptorProto file;
    ASSERT_TRUE(file.ParseFromString(
        response.file_descriptor_response().file_descriptor_proto(0)));
    EXPECT_EQ(file.name(), "grpc/health/v1/health.proto");
    ASSERT_EQ(file.service_size(), 1);
    EXPECT_EQ(file.service(0).method(0).name(), "Check");
    EXPECT_EQ(response.original_request().file_containing_symbol(),
              "grpc.health.v1.Health.Check");

    request.set_file_containing_symbol("no.Such");
    response = Ask(&stream, request);
    EXPECT_EQ(response.error_response().error_code(),
              grpc::StatusCode::NOT_FOUND);
    EXPECT_NE(response.error_response().error_message().find("no.Such"),
              std::string::npos);

    // An empty request asks for nothing: an error answer, the stream goes on.
    response = Ask(&stream, refl::ServerReflectionRequest());
    EXPECT_EQ(response.error_response().error_code(),
              grpc::StatusCode::INVALID_ARGUMENT);

    request.set_file_by_filename("google/protobuf/descriptor.proto");
    response = Ask(&stream, request);
    EXPECT_EQ(response.file_descriptor_response().file_descriptor_proto_size(),
              1);
    EXPECT_TRUE(stream.Finish().ok());
  }
}

TEST(GrpcServerReflectionTest, BytesThatAreNotARequestEndTheStream) {
  absl::StatusOr<GrpcServerHandle> server =
      StartGrpcServer("127.0.0.1:0", Services());
  ASSERT_TRUE(server.ok()) << server.status();
  Stream stream(server->address,
                "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo");
  ASSERT_TRUE(stream.Write(std::string("\xff\xff\xff", 3)));
  std::string answer;
  EXPECT_FALSE(stream.Read(&answer));
  EXPECT_EQ(stream.Finish().error_code(), grpc::StatusCode::INVALID_ARGUMENT);
}

TEST(GrpcServerMetricsTest, CallsAreCountedByMethodAndUnknownMethodsAsOne) {
  metrics::EnableRecording();
  absl::StatusOr<GrpcServerHandle> server =
      StartGrpcServer("127.0.0.1:0", Services());
  ASSERT_TRUE(server.ok()) << server.status();
  grpc::GenericStub stub(NewGrpcChannel(server->address));
  auto call = [&](const std::string& method) {
    grpc::ClientContext context;
    grpc::ByteBuffer response;
    return UnaryCallOnThisThread(&stub, &context, method, Bytes("x"), &response)
        .error_code();
  };
  EXPECT_EQ(call("/test.Unary/Echo"), grpc::StatusCode::OK);
  EXPECT_EQ(call("/test.Unary/Echo"), grpc::StatusCode::OK);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(call("/made.Up/Name" + std::to_string(i)),
              grpc::StatusCode::UNIMPLEMENTED);
  }
  const std::string text = metrics::Default().Render();
  EXPECT_NE(text.find("tributary_rpc_server_handled_total{method=\"/test.Unary/"
                      "Echo\",code=\"OK\"} 2\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("tributary_rpc_server_handled_total{method=\"unknown\","
                      "code=\"UNIMPLEMENTED\"} 3\n"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("made.Up"), std::string::npos);
}

}  // namespace
}  // namespace tributary
