// Hostile bytes on every RPC of a real cluster (1 ps + 2 workers + master):
// each WorkerService method (and our HoldWorkerSession) of a worker and each
// MasterService method of the master gets payloads that are not what the
// method expects -- empty, random bytes, a field claiming 4 GiB, deeply
// nested groups, a valid message of another method, a truncated one --
// each call bounded by a 2 s deadline. Every call must end with a status
// (never a crash, never UNKNOWN: an unhandled error) and afterwards every
// daemon still runs and a session across all tasks works. Also RecvTensor
// for a key that will never be produced ends at its deadline, and after
// CleanupGraph of its step it is refused at once (ABORTED).
//
// Issue 17's fuzzing proper (libFuzzer, millions of runs) is not this; this
// is the quick, deterministic version CI runs on the daemons themselves.

#include <cstdint>
#include <iostream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "common/rpc/grpc_channel.h"
#include "common/rpc/unary_call.h"
#include "grpcpp/generic/generic_stub.h"
#include "gtest/gtest.h"
#include "tests/distributed/cluster_fixture.h"
#include "tests/distributed/distributed_test_util.h"
#include "tests/fuzz/service_methods.h"
#include "tools/client/graph_builder.h"
#include "tools/client/session.h"

namespace tributary {
namespace test {
namespace {

// Every method of each service (tests/fuzz/service_methods.h, which the
// service fuzzers call too), and one the worker does not serve.
const std::vector<std::string>& WorkerMethods() {
  static const auto* methods = [] {
    auto* paths = new std::vector<std::string>(
        std::begin(fuzz::kWorkerMethods), std::end(fuzz::kWorkerMethods));
    paths->push_back("/tensorflow.WorkerService/NoSuchMethod");
    return paths;
  }();
  return *methods;
}

const std::vector<std::string>& MasterMethods() {
  static const auto* methods = [] {
    auto* paths = new std::vector<std::string>();
    for (const char* method : fuzz::kMasterMethods) {
      paths->push_back(std::string("/tensorflow.MasterService/") + method);
    }
    return paths;
  }();
  return *methods;
}

// Payloads no method expects.
std::vector<std::pair<std::string, std::string>> HostilePayloads() {
  std::vector<std::pair<std::string, std::string>> out;
  out.emplace_back("empty", "");
  std::mt19937 rng(17);
  for (int size : {1, 7, 64, 1000, 65536}) {
    std::string bytes(size, '\0');
    for (char& c : bytes) c = static_cast<char>(rng());
    out.emplace_back(absl::StrCat(size, " random bytes"), bytes);
  }
  // Field 1, length-delimited, claiming 4 GiB that never come.
  out.emplace_back("a 4 GiB length",
                   std::string("\x0a\xff\xff\xff\xff\x0f", 6));
  // Field 1 as a string of nested start-group tags, 100k deep.
  out.emplace_back("nested groups", std::string(100000, '\x0b'));
  // Every field number 1..30 as a varint of the largest value.
  std::string varints;
  for (int field = 1; field <= 30; ++field) {
    varints += static_cast<char>(field << 3);
    varints += std::string("\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", 10);
  }
  out.emplace_back("huge varints", varints);
  // A session handle / graph handle / step id that exists nowhere, as
  // field 1 of every message (a string for most, a varint for some).
  out.emplace_back("unknown handle", std::string("\x0a\x07nothing", 9));
  out.emplace_back("truncated", std::string("\x0a\x10short", 7));
  return out;
}

grpc::Status Call(grpc::GenericStub* stub, const std::string& method,
                  const std::string& payload) {
  grpc::ClientContext context;
  context.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(2)));
  grpc::Slice slice(payload);
  grpc::ByteBuffer request(&slice, 1), response;
  return UnaryCallOnThisThread(stub, &context, method, request, &response);
}

class HostileRequestsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto cluster = TestCluster::Start();
    ASSERT_TRUE(cluster.ok()) << cluster.status();
    cluster_ = std::move(cluster).value();
  }
  void TearDown() override {
    if (cluster_ && HasFailure()) cluster_->DumpLogs();
  }

  // Every daemon runs and a session across all tasks works.
  void ExpectClusterServes() {
    for (const char* job : {"ps", "worker"}) {
      for (int t = 0; t < (std::string(job) == "ps" ? 1 : 2); ++t) {
        EXPECT_TRUE(cluster_->TaskRunning(job, t)) << job << " " << t;
      }
    }
    EXPECT_TRUE(cluster_->MasterRunning());
    GraphBuilder b;
    AddTimesThreeAcrossTasks(&b);
    auto session = OpenSession(cluster_->master_target(), b.Build().value());
    ASSERT_TRUE(session.ok()) << session.status();
    std::vector<Tensor> out;
    ASSERT_TRUE(
        RunStep(session->get(), {{"x", Tensor(2.0f)}}, {"out"}, {}, &out).ok());
    EXPECT_EQ(out[0].scalar<float>()(), 6.0f);
  }

  std::unique_ptr<TestCluster> cluster_;
};

TEST_F(HostileRequestsTest, HostileBytesOnEveryMethodGetAStatus) {
  struct Target {
    std::string address;
    const std::vector<std::string>* methods;
  };
  const std::vector<Target> targets = {
      {cluster_->TaskAddress("worker", 1), &WorkerMethods()},
      {cluster_->master_address(), &MasterMethods()},
  };
  int calls = 0;
  for (const Target& target : targets) {
    grpc::GenericStub stub(NewGrpcChannel(target.address));
    for (const std::string& method : *target.methods) {
      for (const auto& [what, payload] : HostilePayloads()) {
        const grpc::Status s = Call(&stub, method, payload);
        ++calls;
        // A status of its own, not a dead peer or an unhandled error.
        EXPECT_NE(s.error_code(), grpc::StatusCode::UNAVAILABLE)
            << method << " with " << what << ": " << s.error_message();
        EXPECT_NE(s.error_code(), grpc::StatusCode::UNKNOWN)
            << method << " with " << what << ": " << s.error_message();
        if (!s.ok() && s.error_code() != grpc::StatusCode::DEADLINE_EXCEEDED) {
          EXPECT_FALSE(s.error_message().empty()) << method << " " << what;
        }
      }
    }
  }
  std::cout << calls << " hostile calls answered\n";
  ExpectClusterServes();
}

// A 20-byte TensorProto may describe a terabyte (fewer values than
// elements repeat the last): refused before anything is allocated, on the
// master (a RunStep feed) and on a worker (a RunGraph send).
TEST_F(HostileRequestsTest, TensorsThatExpandToATerabyteAreRefused) {
  tensorflow::TensorProto terabyte;
  terabyte.set_dtype(tensorflow::DT_FLOAT);
  terabyte.mutable_tensor_shape()->add_dim()->set_size(int64_t{1} << 38);
  terabyte.add_float_val(1.0f);
  tensorflow::RunStepRequest step;
  step.set_session_handle("no-such-session");
  *step.add_feed()->mutable_tensor() = terabyte;
  step.mutable_feed(0)->set_name("x:0");
  tensorflow::RunGraphRequest graph;
  graph.set_graph_handle("no-such-graph");
  graph.set_step_id(1);
  *graph.add_send()->mutable_tensor() = terabyte;
  graph.mutable_send(0)->set_name("x");
  const struct {
    std::string address, method, payload;
  } calls[] = {
      {cluster_->master_address(), "/tensorflow.MasterService/RunStep",
       step.SerializeAsString()},
      {cluster_->TaskAddress("worker", 1), "/tensorflow.WorkerService/RunGraph",
       graph.SerializeAsString()},
  };
  for (const auto& call : calls) {
    grpc::GenericStub stub(NewGrpcChannel(call.address));
    const grpc::Status s = Call(&stub, call.method, call.payload);
    EXPECT_EQ(s.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED)
        << call.method << ": " << s.error_message();
    EXPECT_NE(s.error_message().find("send its values"), std::string::npos)
        << s.error_message();
  }
  ExpectClusterServes();
}

TEST_F(HostileRequestsTest, RecvTensorForAKeyNeverProducedEndsAtItsDeadline) {
  auto worker = cluster_->NewWorkerStub("worker", 1);
  tensorflow::GetStatusResponse status;
  {
    grpc::ClientContext ctx;
    ctx.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(30)));
    ASSERT_TRUE(
        worker->GetStatus(&ctx, tensorflow::GetStatusRequest(), &status).ok());
  }
  ASSERT_GT(status.device_attributes_size(), 0);
  const auto& device = status.device_attributes(0);
  const std::string key = absl::StrCat(
      device.name(), ";", absl::Hex(device.incarnation(), absl::kZeroPad16),
      ";", Cpu(kWorker0), ";never_sent;0:0");
  constexpr int64_t kStep = 987654321;
  auto recv = [&](absl::Duration timeout) {
    grpc::ClientContext ctx;
    ctx.set_deadline(absl::ToChronoTime(absl::Now() + timeout));
    tensorflow::RecvTensorRequest req;
    req.set_step_id(kStep);
    req.set_rendezvous_key(key);
    tensorflow::RecvTensorResponse resp;
    return worker->RecvTensor(&ctx, req, &resp);
  };
  const absl::Time start = absl::Now();
  grpc::Status s = recv(absl::Milliseconds(500));
  std::cout << "RecvTensor of a key never produced: " << s.error_code() << " "
            << s.error_message() << " after " << absl::Now() - start << "\n";
  EXPECT_EQ(s.error_code(), grpc::StatusCode::DEADLINE_EXCEEDED)
      << s.error_message();

  // The step cleaned up: the same key is refused at once.
  {
    grpc::ClientContext ctx;
    ctx.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(30)));
    tensorflow::CleanupGraphRequest req;
    req.set_step_id(kStep);
    tensorflow::CleanupGraphResponse resp;
    ASSERT_TRUE(worker->CleanupGraph(&ctx, req, &resp).ok());
  }
  s = recv(absl::Seconds(30));
  std::cout << "after CleanupGraph: " << s.error_code() << " "
            << s.error_message() << "\n";
  EXPECT_EQ(s.error_code(), grpc::StatusCode::ABORTED) << s.error_message();
  ExpectClusterServes();
}

}  // namespace
}  // namespace test
}  // namespace tributary
