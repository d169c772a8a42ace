// NewGrpcRemoteWorker against NewGrpcWorkerService over a real gRPC server on
// 127.0.0.1, serving the FakeWorker (common/distributed/testing): every method
// round-trips, tensors travel both ways, and deadlines, cancellation and
// errors behave as WorkerInterface promises.
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "common/distributed/call_options.h"
#include "common/distributed/testing/fake_worker.h"
#include "common/distributed/worker_interface.h"
#include "common/framework/status.h"
#include "common/framework/tensor.h"
#include "common/framework/tensor_testutil.h"
#include "common/rpc/grpc_channel.h"
#include "common/rpc/grpc_remote_worker.h"
#include "common/rpc/grpc_server.h"
#include "common/rpc/grpc_worker_service.h"
#include "common/rpc/rpc_loop.h"
#include "grpcpp/client_context.h"
#include "grpcpp/generic/generic_stub.h"
#include "gtest/gtest.h"
#include "protos/worker_service.grpc.pb.h"

namespace tributary {
namespace {

constexpr char kTask[] = "/job:worker/replica:0/task:1";
constexpr int64_t kBigBytes = 64 << 20;
const absl::Duration kTimeout = absl::Seconds(30);

Tensor BigTensor() {
  Tensor t(DT_FLOAT, TensorShape({kBigBytes / 4}));
  auto flat = t.flat<float>();
  for (int64_t i = 0; i < t.NumElements(); ++i) flat(i) = static_cast<float>(i);
  return t;
}

// Waits for `status` from an async call, bounded.
class Done {
 public:
  StatusCallback Callback() {
    return [this](const absl::Status& s) {
      status_ = s;
      done_.Notify();
    };
  }
  absl::Status Wait() {
    if (!done_.WaitForNotificationWithTimeout(absl::Seconds(60))) {
      return errors::Internal("test: the call never completed");
    }
    return status_;
  }

 private:
  absl::Notification done_;
  absl::Status status_;
};

// Keeps freed blocks for reuse, like the runtime's caching allocator, so a
// repeated transfer does not fault in fresh pages.
class ReusingAllocator : public Allocator {
 public:
  ~ReusingAllocator() override {
    for (auto& [size, p] : free_) std::free(p);
  }
  std::string Name() override { return "test_reusing"; }
  void* AllocateRaw(size_t alignment, size_t bytes) override {
    absl::MutexLock l(&mu_);
    auto it = free_.find(bytes);
    void* p;
    if (it != free_.end()) {
      p = it->second;
      free_.erase(it);
    } else {
      p = std::aligned_alloc(kAllocatorAlignment,
                             (std::max<size_t>(bytes, 1) + 63) / 64 * 64);
    }
    sizes_[p] = bytes;
    return p;
  }
  void DeallocateRaw(void* p) override {
    if (p == nullptr) return;
    absl::MutexLock l(&mu_);
    free_.emplace(sizes_[p], p);
    sizes_.erase(p);
  }

 private:
  absl::Mutex mu_;
  std::multimap<size_t, void*> free_;
  std::map<void*, size_t> sizes_;
};

class GrpcWorkerE2ETest : public ::testing::Test {
 protected:
  void SetUp() override {
    service_ = NewGrpcWorkerService(&fake_, &server_allocator_);
    absl::StatusOr<GrpcServerHandle> server =
        StartGrpcServer("127.0.0.1:0", {service_.get()});
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = std::move(server->server);
    address_ = server->address;
    channel_ = NewGrpcChannel(address_);
    worker_ = NewGrpcRemoteWorker(channel_, kTask, address_,
                                  &client_allocator_);
  }
  void TearDown() override {
    if (server_ != nullptr) {
      server_->Shutdown(absl::Now() + absl::Seconds(5));
    }
  }

  std::string Annotation() const {
    return absl::StrCat("(worker ", kTask, " at ", address_, ")");
  }

  // Creates session "s" and registers a graph in it through the remote
  // worker, as the master does before a RunGraph; returns the handle.
  std::string RegisterGraph() {
    tensorflow::CreateWorkerSessionRequest create;
    create.set_session_handle("s");
    tensorflow::CreateWorkerSessionResponse create_response;
    absl::Status s =
        worker_->CreateWorkerSession(create, &create_response, kTimeout);
    EXPECT_TRUE(s.ok()) << s;
    tensorflow::RegisterGraphRequest reg;
    reg.set_session_handle("s");
    tensorflow::RegisterGraphResponse reg_response;
    s = worker_->RegisterGraph(reg, &reg_response, kTimeout);
    EXPECT_TRUE(s.ok()) << s;
    return reg_response.graph_handle();
  }

  // A RunGraph that the fake holds until the caller cancels it.
  struct HangingCall {
    CallOptions opts;
    RunGraphRequestMsg request;
    RunGraphResponseMsg response;
    Done done;
  };
  // Starts one and returns once it hangs in the fake.
  std::unique_ptr<HangingCall> StartHangingRunGraph() {
    fake_.HangRunGraphUntilCancelled();
    auto call = std::make_unique<HangingCall>();
    call->request.proto.set_graph_handle(RegisterGraph());
    worker_->RunGraphAsync(&call->opts, &call->request, &call->response,
                           call->done.Callback());
    EXPECT_TRUE(fake_.WaitForHungCalls(1, kTimeout));
    return call;
  }

  // Every typed method once, checked on both sides: what the fake recorded
  // and what the client got back.
  void RoundTripTypedMethods() {
    tensorflow::GetStatusResponse status;
    ASSERT_TRUE(
        worker_->GetStatus(tensorflow::GetStatusRequest(), &status, kTimeout)
            .ok());
    ASSERT_EQ(status.device_attributes_size(), 1);
    EXPECT_EQ(status.device_attributes(0).name(), fake_.devices()[0].name());
    EXPECT_EQ(status.device_attributes(0).incarnation(),
              fake_.devices()[0].incarnation());
    // The client's deadline reached the worker.
    EXPECT_LE(fake_.last_deadline(), absl::Now() + 2 * kTimeout);

    tensorflow::CreateWorkerSessionRequest create;
    create.set_session_handle("s1");
    tensorflow::CreateWorkerSessionResponse create_response;
    EXPECT_TRUE(
        worker_->CreateWorkerSession(create, &create_response, kTimeout).ok());
    EXPECT_EQ(fake_.live_sessions(), std::set<std::string>{"s1"});

    tensorflow::RegisterGraphRequest reg;
    reg.set_session_handle("s1");
    reg.mutable_graph_def()->add_node()->set_name("a");
    reg.mutable_graph_def()->add_node()->set_name("b");
    tensorflow::RegisterGraphResponse reg_response;
    ASSERT_TRUE(worker_->RegisterGraph(reg, &reg_response, kTimeout).ok());
    EXPECT_EQ(fake_.live_graphs(),
              std::set<std::string>{reg_response.graph_handle()});
    ASSERT_EQ(fake_.register_requests().size(), 1u);
    EXPECT_EQ(fake_.register_requests()[0].graph_def().node(1).name(), "b");

    tensorflow::DeregisterGraphRequest dereg;
    dereg.set_graph_handle(reg_response.graph_handle());
    tensorflow::DeregisterGraphResponse dereg_response;
    EXPECT_TRUE(
        worker_->DeregisterGraph(dereg, &dereg_response, kTimeout).ok());
    EXPECT_TRUE(fake_.live_graphs().empty());

    tensorflow::CleanupGraphRequest cleanup;
    cleanup.set_step_id(5);
    tensorflow::CleanupGraphResponse cleanup_response;
    EXPECT_TRUE(
        worker_->CleanupGraph(cleanup, &cleanup_response, kTimeout).ok());
    EXPECT_EQ(fake_.cleanup_step_ids(), std::vector<int64_t>{5});

    tensorflow::CleanupAllRequest cleanup_all;
    cleanup_all.add_container("c");
    tensorflow::CleanupAllResponse cleanup_all_response;
    EXPECT_TRUE(
        worker_->CleanupAll(cleanup_all, &cleanup_all_response, kTimeout)
            .ok());
    EXPECT_EQ(fake_.cleanup_all_containers(),
              std::vector<std::vector<std::string>>{{"c"}});

    tensorflow::LoggingRequest logging;
    logging.add_fetch_step_id(11);
    logging.add_fetch_step_id(12);
    tensorflow::LoggingResponse logging_response;
    ASSERT_TRUE(worker_->Logging(logging, &logging_response, kTimeout).ok());
    ASSERT_EQ(logging_response.step_size(), 2);
    EXPECT_EQ(logging_response.step(1).step_id(), 12);

    tensorflow::TracingResponse tracing_response;
    EXPECT_TRUE(worker_
                    ->Tracing(tensorflow::TracingRequest(), &tracing_response,
                              kTimeout)
                    .ok());

    tensorflow::DeleteWorkerSessionRequest del;
    del.set_session_handle("s1");
    tensorflow::DeleteWorkerSessionResponse del_response;
    EXPECT_TRUE(
        worker_->DeleteWorkerSession(del, &del_response, kTimeout).ok());
    EXPECT_TRUE(fake_.live_sessions().empty());
  }

  // Destroyed in reverse: the fake's records hold tensors from the
  // allocators, and the service and its calls refer to the fake.
  ReusingAllocator server_allocator_;
  ReusingAllocator client_allocator_;
  FakeWorker fake_{kTask};
  std::unique_ptr<RpcService> service_;
  std::unique_ptr<GrpcServer> server_;
  std::string address_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<WorkerInterface> worker_;
};

// Starts a server for `service` on a free port and stops it: the address
// nobody listens on, until a test starts a server there again.
std::string StoppedServerAddress(RpcService* service) {
  absl::StatusOr<GrpcServerHandle> server =
      StartGrpcServer("127.0.0.1:0", {service});
  if (!server.ok()) {
    ADD_FAILURE() << server.status();
    return "";
  }
  server->server->Shutdown();
  return server->address;
}

TEST_F(GrpcWorkerE2ETest, TypedMethodsRoundTrip) { RoundTripTypedMethods(); }

// The service must not care on which thread the worker answers.
TEST_F(GrpcWorkerE2ETest, TypedMethodsRoundTripAnsweredFromAnotherThread) {
  fake_.AnswerFromAnotherThread(true);
  RoundTripTypedMethods();
}

TEST_F(GrpcWorkerE2ETest, RunGraphCarriesTensorsBothWays) {
  // The default answer (fetches of feeds), plus step stats naming the step.
  fake_.SetRunGraphHandler([this](CallOptions*,
                                  const RunGraphRequestMsg& request,
                                  RunGraphResponseMsg* response,
                                  StatusCallback done) {
    response->proto.mutable_step_stats()->add_dev_stats()->set_device(
        absl::StrCat("step ", request.proto.step_id()));
    fake_.DefaultRunGraph(request, response, std::move(done));
  });
  RunGraphRequestMsg request;
  request.proto.set_graph_handle(RegisterGraph());
  request.proto.set_step_id(77);
  request.send.emplace_back("x", test::AsTensor<float>({1, 2, 3, 4}, {2, 2}));
  request.send.emplace_back("s", test::AsTensor<std::string>({"a", "bc"}));
  request.send.emplace_back("big", BigTensor());
  request.proto.add_recv_key("big");
  request.proto.add_recv_key("s");
  request.proto.add_recv_key("x");
  RunGraphResponseMsg response;
  absl::Status s = worker_->RunGraph(request, &response, kTimeout);
  ASSERT_TRUE(s.ok()) << s;
  ASSERT_EQ(response.recv.size(), 3u);
  EXPECT_EQ(response.recv[0].first, "big");
  EXPECT_TRUE(response.recv[0].second.tensor_data() ==
              request.send[2].second.tensor_data());
  EXPECT_EQ(response.recv[1].first, "s");
  test::ExpectTensorEqual<std::string>(response.recv[1].second,
                                       request.send[1].second);
  EXPECT_EQ(response.recv[2].first, "x");
  test::ExpectTensorEqual<float>(response.recv[2].second,
                                 request.send[0].second);
  ASSERT_EQ(response.proto.step_stats().dev_stats_size(), 1);
  EXPECT_EQ(response.proto.step_stats().dev_stats(0).device(), "step 77");
  EXPECT_EQ(response.proto.recv_size(), 0);
  ASSERT_EQ(fake_.num_run_graph(), 1);
  EXPECT_EQ(fake_.run_graph_requests()[0].proto.step_id(), 77);
}

TEST_F(GrpcWorkerE2ETest, RecvTensorSmallDeadAndBig) {
  const Tensor big = BigTensor();
  fake_.SetRecvTensorHandler([&big](CallOptions*,
                                    const tensorflow::RecvTensorRequest& request,
                                    TensorResponse* response,
                                    StatusCallback done) {
    if (request.rendezvous_key() == "dead") {
      response->is_dead = true;
    } else if (request.rendezvous_key() == "big") {
      response->tensor = big;
    } else {
      response->tensor = test::AsTensor<int64_t>({request.step_id(), 7});
    }
    response->send_start_micros = 1234;
    done(absl::OkStatus());
  });
  tensorflow::RecvTensorRequest request;
  request.set_step_id(99);
  request.set_rendezvous_key("small");
  TensorResponse response;
  ASSERT_TRUE(worker_->RecvTensor(request, &response, kTimeout).ok());
  test::ExpectTensorEqual<int64_t>(response.tensor,
                                   test::AsTensor<int64_t>({99, 7}));
  EXPECT_FALSE(response.is_dead);
  EXPECT_EQ(response.send_start_micros, 1234);

  request.set_rendezvous_key("dead");
  TensorResponse dead;
  ASSERT_TRUE(worker_->RecvTensor(request, &dead, kTimeout).ok());
  EXPECT_TRUE(dead.is_dead);

  request.set_rendezvous_key("big");
  TensorResponse big_response;
  ASSERT_TRUE(worker_->RecvTensor(request, &big_response, kTimeout).ok());
  EXPECT_TRUE(big_response.tensor.tensor_data() == big.tensor_data());
}

TEST_F(GrpcWorkerE2ETest, RecvTensorThroughput) {
  // Informational (no timing assert): 64 MiB transfers, buffers reused.
  const Tensor big = BigTensor();
  fake_.SetRecvTensorHandler([&big](CallOptions*,
                                    const tensorflow::RecvTensorRequest&,
                                    TensorResponse* response,
                                    StatusCallback done) {
    response->tensor = big;
    done(absl::OkStatus());
  });
  tensorflow::RecvTensorRequest request;
  for (int round = 0; round < 2; ++round) {
    const int n = 8;
    const absl::Time start = absl::Now();
    for (int i = 0; i < n; ++i) {
      TensorResponse response;
      ASSERT_TRUE(worker_->RecvTensor(request, &response, kTimeout).ok());
    }
    const double seconds = absl::ToDoubleSeconds(absl::Now() - start);
    std::cout << "RecvTensor 64 MiB x " << n << ": "
              << n * kBigBytes / seconds / 1e6 << " MB/s" << std::endl;
  }
}

TEST_F(GrpcWorkerE2ETest, ErrorsKeepTheirCodeAndNameTheTask) {
  const std::string graph = RegisterGraph();

  fake_.SetCreateWorkerSessionError(
      errors::AlreadyExists("session fail exists"));
  tensorflow::CreateWorkerSessionRequest create;
  create.set_session_handle("fail");
  tensorflow::CreateWorkerSessionResponse create_response;
  absl::Status s = worker_->CreateWorkerSession(create, &create_response,
                                                kTimeout);
  EXPECT_EQ(s.code(), absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(s.message(), "session fail exists " + Annotation());

  fake_.FailRunGraphWith(errors::InvalidArgument("node 'x' failed: bad input"));
  RunGraphRequestMsg request;
  request.proto.set_graph_handle(graph);
  RunGraphResponseMsg response;
  s = worker_->RunGraph(request, &response, kTimeout);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("node 'x' failed"), std::string::npos) << s;
  EXPECT_NE(s.message().find(Annotation()), std::string::npos) << s;

  fake_.SetRecvTensorHandler([](CallOptions*,
                                const tensorflow::RecvTensorRequest&,
                                TensorResponse*, StatusCallback done) {
    done(errors::Aborted("stale incarnation"));
  });
  tensorflow::RecvTensorRequest recv;
  TensorResponse tensor;
  s = worker_->RecvTensor(recv, &tensor, kTimeout);
  EXPECT_EQ(s.code(), absl::StatusCode::kAborted);
}

TEST_F(GrpcWorkerE2ETest, DeadlineExceededCancelsTheServerSide) {
  fake_.HangRunGraphUntilCancelled();
  RunGraphRequestMsg request;
  request.proto.set_graph_handle(RegisterGraph());
  RunGraphResponseMsg response;
  const absl::Duration timeout = absl::Milliseconds(300);
  absl::Status s = worker_->RunGraph(request, &response, timeout);
  EXPECT_EQ(s.code(), absl::StatusCode::kDeadlineExceeded) << s;
  EXPECT_NE(s.message().find(Annotation()), std::string::npos) << s;
  // gRPC cancels the server side at the deadline; the worker's options saw
  // the deadline and then the cancellation.
  EXPECT_TRUE(fake_.WaitForCancelledCalls(1, kTimeout));
  EXPECT_LE(fake_.last_deadline(), absl::Now() + timeout);
}

TEST_F(GrpcWorkerE2ETest, ClientCancelReachesTheWorker) {
  std::unique_ptr<HangingCall> call = StartHangingRunGraph();
  call->opts.StartCancel();
  absl::Status s = call->done.Wait();
  EXPECT_EQ(s.code(), absl::StatusCode::kCancelled) << s;
  EXPECT_TRUE(fake_.WaitForCancelledCalls(1, kTimeout));
}

TEST_F(GrpcWorkerE2ETest, RecvTensorCancel) {
  fake_.SetRecvTensorHandler([this](CallOptions* opts,
                                    const tensorflow::RecvTensorRequest&,
                                    TensorResponse*, StatusCallback done) {
    fake_.HangUntilCancelled(opts, std::move(done));
  });
  CallOptions opts;
  tensorflow::RecvTensorRequest request;
  TensorResponse response;
  Done done;
  worker_->RecvTensorAsync(&opts, &request, &response, done.Callback());
  ASSERT_TRUE(fake_.WaitForHungCalls(1, kTimeout));
  opts.StartCancel();
  EXPECT_EQ(done.Wait().code(), absl::StatusCode::kCancelled);
  EXPECT_TRUE(fake_.WaitForCancelledCalls(1, kTimeout));
}

TEST_F(GrpcWorkerE2ETest, CancelledBeforeTheCallStarts) {
  CallOptions opts;
  opts.StartCancel();
  tensorflow::GetStatusRequest request;
  tensorflow::GetStatusResponse response;
  Done done;
  worker_->GetStatusAsync(&opts, &request, &response, done.Callback());
  EXPECT_EQ(done.Wait().code(), absl::StatusCode::kCancelled);
}

TEST_F(GrpcWorkerE2ETest, CallOutlivesTheRemoteWorkerObject) {
  std::unique_ptr<HangingCall> call = StartHangingRunGraph();
  worker_.reset();
  call->opts.StartCancel();
  absl::Status s = call->done.Wait();
  EXPECT_EQ(s.code(), absl::StatusCode::kCancelled);
  EXPECT_NE(s.message().find(Annotation()), std::string::npos) << s;
}

TEST_F(GrpcWorkerE2ETest, UnsupportedMethodsSaySo) {
  auto stub = tensorflow::WorkerService::NewStub(channel_);
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() +
                       std::chrono::seconds(30));
  tensorflow::RecvBufRequest request;
  tensorflow::RecvBufResponse response;
  grpc::Status s = stub->RecvBuf(&context, request, &response);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::UNIMPLEMENTED);
  EXPECT_NE(s.error_message().find(
                "Tributary does not support WorkerService.RecvBuf"),
            std::string::npos)
      << s.error_message();

  grpc::ClientContext context2;
  tensorflow::CompleteGroupRequest group;
  tensorflow::CompleteGroupResponse group_response;
  s = stub->CompleteGroup(&context2, group, &group_response);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::UNIMPLEMENTED);
}

TEST_F(GrpcWorkerE2ETest, MalformedRequestIsInvalidArgument) {
  // Garbage bytes to the tensor-coded method; the service must not crash.
  grpc::GenericStub stub(channel_);
  const std::string garbage = "\x1a\xff\xff\xff\x0f";
  grpc::Slice slice(garbage.data(), garbage.size());
  grpc::ByteBuffer request(&slice, 1);
  grpc::ByteBuffer response;
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() +
                       std::chrono::seconds(30));
  absl::Notification finished;
  grpc::Status status;
  stub.UnaryCall(&context, "/tensorflow.WorkerService/RunGraph",
                 grpc::StubOptions(), &request, &response,
                 [&](grpc::Status s) {
                   status = s;
                   finished.Notify();
                 });
  ASSERT_TRUE(finished.WaitForNotificationWithTimeout(kTimeout));
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT)
      << status.error_message();
}

// With a control runner, RegisterGraph runs there, and the step's methods
// stay on the network thread.
TEST_F(GrpcWorkerE2ETest, ControlPlaneRunsOnTheGivenRunner) {
  std::atomic<bool> register_graph_on_loop_thread{false};
  fake_.SetCallObserver([&](absl::string_view method) {
    if (method == "RegisterGraph") {
      register_graph_on_loop_thread = RpcLoop::OnLoopThread();
    }
  });
  tensorflow::CreateWorkerSessionRequest create;
  create.set_session_handle("s");
  tensorflow::CreateWorkerSessionResponse create_response;
  ASSERT_TRUE(
      worker_->CreateWorkerSession(create, &create_response, kTimeout).ok());

  std::atomic<int> ran_on_runner{0};
  auto service = NewGrpcWorkerService(
      &fake_, cpu_allocator(), [&ran_on_runner](std::function<void()> fn) {
        ++ran_on_runner;
        std::thread(std::move(fn)).detach();
      });
  absl::StatusOr<GrpcServerHandle> server =
      StartGrpcServer("127.0.0.1:0", {service.get()});
  ASSERT_TRUE(server.ok()) << server.status();
  auto worker = NewGrpcRemoteWorker(NewGrpcChannel(server->address), kTask,
                                    server->address);
  tensorflow::RegisterGraphRequest request;
  request.set_session_handle("s");
  tensorflow::RegisterGraphResponse response;
  ASSERT_TRUE(worker->RegisterGraph(request, &response, kTimeout).ok());
  EXPECT_EQ(ran_on_runner.load(), 1);
  EXPECT_FALSE(register_graph_on_loop_thread);
  tensorflow::GetStatusResponse status;
  ASSERT_TRUE(
      worker->GetStatus(tensorflow::GetStatusRequest(), &status, kTimeout).ok());
  EXPECT_EQ(ran_on_runner.load(), 1);

  // Without one, everything is handled on the network thread.
  ASSERT_TRUE(worker_->RegisterGraph(request, &response, kTimeout).ok());
  EXPECT_TRUE(register_graph_on_loop_thread);
  fake_.SetCallObserver(nullptr);  // it refers to this test's locals
  server->server->Shutdown();
}

TEST_F(GrpcWorkerE2ETest, DeadAddressIsUnavailableNamingTheTask) {
  auto service = NewGrpcWorkerService(&fake_);
  const std::string dead = StoppedServerAddress(service.get());
  ASSERT_FALSE(dead.empty());

  auto worker = NewGrpcRemoteWorker(NewGrpcChannel(dead), kTask, dead);
  tensorflow::CleanupAllResponse response;
  absl::Status s =
      worker->CleanupAll(tensorflow::CleanupAllRequest(), &response, kTimeout);
  EXPECT_EQ(s.code(), absl::StatusCode::kUnavailable) << s;
  EXPECT_NE(s.message().find(absl::StrCat("(worker ", kTask, " at ", dead,
                                          ")")),
            std::string::npos)
      << s;

  // GetStatus waits for the task instead, until its deadline.
  tensorflow::GetStatusResponse status;
  s = worker->GetStatus(tensorflow::GetStatusRequest(), &status,
                        absl::Milliseconds(300));
  EXPECT_EQ(s.code(), absl::StatusCode::kDeadlineExceeded) << s;
}

TEST_F(GrpcWorkerE2ETest, GetStatusWaitsForAStartingTask) {
  auto service = NewGrpcWorkerService(&fake_);
  const std::string address = StoppedServerAddress(service.get());
  ASSERT_FALSE(address.empty());

  auto worker = NewGrpcRemoteWorker(NewGrpcChannel(address), kTask, address);
  CallOptions opts;
  opts.SetTimeout(kTimeout);
  tensorflow::GetStatusRequest request;
  tensorflow::GetStatusResponse response;
  Done done;
  worker->GetStatusAsync(&opts, &request, &response, done.Callback());
  // The task starts after the call was made.
  absl::StatusOr<GrpcServerHandle> restarted =
      StartGrpcServer(address, {service.get()});
  ASSERT_TRUE(restarted.ok()) << restarted.status();
  EXPECT_TRUE(done.Wait().ok());
  EXPECT_EQ(response.device_attributes_size(), 1);
  restarted->server->Shutdown();
}

}  // namespace
}  // namespace tributary
