#include "common/rpc/grpc_remote_worker.h"

#include <functional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "common/rpc/grpc_status.h"
#include "common/rpc/tensor_coding.h"
#include "grpcpp/client_context.h"
#include "grpcpp/generic/generic_stub.h"
#include "protos/worker_service.grpc.pb.h"

namespace tributary {
namespace {

// Method paths of the generic (tensor-coded) calls. gRPC keeps the pointer
// for the call's lifetime, so they are static.
const char kRunGraphMethod[] = "/tensorflow.WorkerService/RunGraph";
const char kRecvTensorMethod[] = "/tensorflow.WorkerService/RecvTensor";

// What a completing call needs of its worker. Calls hold it by shared_ptr,
// so a call completing after its GrpcRemoteWorker was destroyed is fine.
struct Peer {
  std::string task;
  std::string address;
  Allocator* allocator;
};

// One call in flight. Shared between the completion callback and the
// cancel hook in CallOptions: StartCancel may be running the hook (outside
// CallOptions' lock) while the call completes, so the context must outlive
// both.
struct Call {
  std::shared_ptr<const Peer> peer;
  grpc::ClientContext context;
  CallOptions* opts = nullptr;
  StatusCallback done;
  // For the generic calls.
  grpc::ByteBuffer request;
  grpc::ByteBuffer response;
};

class GrpcRemoteWorker : public WorkerInterface {
 public:
  GrpcRemoteWorker(std::shared_ptr<grpc::Channel> channel, std::string task,
                   std::string address, Allocator* allocator)
      : stub_(tensorflow::WorkerService::NewStub(channel)),
        generic_(channel),
        peer_(std::make_shared<Peer>(
            Peer{std::move(task), std::move(address),
                 allocator != nullptr ? allocator : cpu_allocator()})) {}

  void GetStatusAsync(CallOptions* opts,
                      const tensorflow::GetStatusRequest* request,
                      tensorflow::GetStatusResponse* response,
                      StatusCallback done) override {
    // Discovery: wait for a task that is still starting (bounded by the
    // caller's deadline).
    auto call = Start(opts, /*wait_for_ready=*/true, std::move(done));
    stub_->async()->GetStatus(&call->context, request, response,
                              Completion(call));
  }

  void CreateWorkerSessionAsync(
      CallOptions* opts, const tensorflow::CreateWorkerSessionRequest* request,
      tensorflow::CreateWorkerSessionResponse* response,
      StatusCallback done) override {
    auto call = Start(opts, false, std::move(done));
    stub_->async()->CreateWorkerSession(&call->context, request, response,
                                        Completion(call));
  }

  void DeleteWorkerSessionAsync(
      CallOptions* opts, const tensorflow::DeleteWorkerSessionRequest* request,
      tensorflow::DeleteWorkerSessionResponse* response,
      StatusCallback done) override {
    auto call = Start(opts, false, std::move(done));
    stub_->async()->DeleteWorkerSession(&call->context, request, response,
                                        Completion(call));
  }

  void RegisterGraphAsync(CallOptions* opts,
                          const tensorflow::RegisterGraphRequest* request,
                          tensorflow::RegisterGraphResponse* response,
                          StatusCallback done) override {
    auto call = Start(opts, false, std::move(done));
    stub_->async()->RegisterGraph(&call->context, request, response,
                                  Completion(call));
  }

  void DeregisterGraphAsync(CallOptions* opts,
                            const tensorflow::DeregisterGraphRequest* request,
                            tensorflow::DeregisterGraphResponse* response,
                            StatusCallback done) override {
    auto call = Start(opts, false, std::move(done));
    stub_->async()->DeregisterGraph(&call->context, request, response,
                                    Completion(call));
  }

  void RunGraphAsync(CallOptions* opts, const RunGraphRequestMsg* request,
                     RunGraphResponseMsg* response,
                     StatusCallback done) override {
    auto call = Start(opts, false, std::move(done));
    EncodeWithNamedTensors(request->proto, kRunGraphRequestSendField, request->send,
                           &call->request);
    generic_.UnaryCall(
        &call->context, kRunGraphMethod, grpc::StubOptions(), &call->request,
        &call->response, [call, response](const grpc::Status& s) {
          absl::Status status = FromGrpcStatus(s);
          if (status.ok()) {
            status = DecodeWithNamedTensors(call->response, kRunGraphResponseRecvField,
                                            call->peer->allocator, &response->proto,
                                            &response->recv);
          }
          Finish(call, status);
        });
  }

  void CleanupGraphAsync(CallOptions* opts,
                         const tensorflow::CleanupGraphRequest* request,
                         tensorflow::CleanupGraphResponse* response,
                         StatusCallback done) override {
    auto call = Start(opts, false, std::move(done));
    stub_->async()->CleanupGraph(&call->context, request, response,
                                 Completion(call));
  }

  void CleanupAllAsync(CallOptions* opts,
                       const tensorflow::CleanupAllRequest* request,
                       tensorflow::CleanupAllResponse* response,
                       StatusCallback done) override {
    auto call = Start(opts, false, std::move(done));
    stub_->async()->CleanupAll(&call->context, request, response,
                               Completion(call));
  }

  void RecvTensorAsync(CallOptions* opts,
                       const tensorflow::RecvTensorRequest* request,
                       TensorResponse* response, StatusCallback done) override {
    auto call = Start(opts, false, std::move(done));
    SerializeToByteBuffer(*request, &call->request);
    generic_.UnaryCall(
        &call->context, kRecvTensorMethod, grpc::StubOptions(), &call->request,
        &call->response, [call, response](const grpc::Status& s) {
          absl::Status status = FromGrpcStatus(s);
          if (status.ok()) {
            // The one copy of the tensor bytes: network slices -> a buffer
            // from the worker's allocator.
            status = DecodeRecvTensorResponse(call->response, call->peer->allocator,
                                              response);
          }
          // The received slices are no longer needed; free them before the
          // caller's continuation runs.
          call->response.Clear();
          Finish(call, status);
        });
  }

  void LoggingAsync(CallOptions* opts, const tensorflow::LoggingRequest* request,
                    tensorflow::LoggingResponse* response,
                    StatusCallback done) override {
    auto call = Start(opts, false, std::move(done));
    stub_->async()->Logging(&call->context, request, response,
                            Completion(call));
  }

  void TracingAsync(CallOptions* opts, const tensorflow::TracingRequest* request,
                    tensorflow::TracingResponse* response,
                    StatusCallback done) override {
    auto call = Start(opts, false, std::move(done));
    stub_->async()->Tracing(&call->context, request, response,
                            Completion(call));
  }

 private:
  // Sets up a call: deadline, wait_for_ready, and the cancel hook. The hook
  // is set before the call starts: a context cancelled before its call
  // starts cancels the call as soon as it does.
  std::shared_ptr<Call> Start(CallOptions* opts, bool wait_for_ready,
                              StatusCallback done) {
    auto call = std::make_shared<Call>();
    call->peer = peer_;
    call->opts = opts;
    call->done = std::move(done);
    call->context.set_wait_for_ready(wait_for_ready);
    if (opts != nullptr) {
      const absl::Time deadline = opts->deadline();
      if (deadline != absl::InfiniteFuture()) {
        call->context.set_deadline(absl::ToChronoTime(deadline));
      }
      opts->SetCancelCallback([call] { call->context.TryCancel(); });
    }
    return call;
  }

  static std::function<void(grpc::Status)> Completion(
      std::shared_ptr<Call> call) {
    return [call = std::move(call)](const grpc::Status& s) {
      Finish(call, FromGrpcStatus(s));
    };
  }

  // Ends the call: unhooks the cancel callback, names the task in errors
  // (keeping the code), and runs `done`.
  static void Finish(const std::shared_ptr<Call>& call, absl::Status status) {
    if (call->opts != nullptr) call->opts->ClearCancelCallback();
    if (!status.ok()) {
      status = absl::Status(
          status.code(), absl::StrCat(status.message(), " (worker ",
                                      call->peer->task, " at ",
                                      call->peer->address, ")"));
    }
    StatusCallback done = std::move(call->done);
    done(status);
  }

  std::unique_ptr<tensorflow::WorkerService::Stub> stub_;
  grpc::GenericStub generic_;
  const std::shared_ptr<const Peer> peer_;
};

}  // namespace

std::unique_ptr<WorkerInterface> NewGrpcRemoteWorker(
    std::shared_ptr<grpc::Channel> channel, std::string task_name,
    std::string address, Allocator* allocator) {
  return std::make_unique<GrpcRemoteWorker>(
      std::move(channel), std::move(task_name), std::move(address), allocator);
}

}  // namespace tributary
