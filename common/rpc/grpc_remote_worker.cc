#include "common/rpc/grpc_remote_worker.h"

#include <functional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "common/framework/status.h"
#include "common/rpc/grpc_status.h"
#include "common/rpc/grpc_worker_service.h"
#include "common/rpc/rpc_loop.h"
#include "common/rpc/tensor_coding.h"
#include "grpcpp/client_context.h"
#include "grpcpp/generic/generic_stub.h"
#include "protos/worker_service.pb.h"

namespace tributary {
namespace {

// A method's full path, built once (gRPC takes it as a std::string and may
// keep a pointer to it for the call's lifetime).
#define TRIB_WORKER_METHOD(name)                             \
  [] {                                                       \
    static const auto* path =                                \
        new std::string("/tensorflow.WorkerService/" #name); \
    return path;                                             \
  }()

// What a completing call needs of its worker. Calls hold it by shared_ptr,
// so a call completing after its GrpcRemoteWorker was destroyed is fine.
struct Peer {
  std::string task;
  std::string address;
  Allocator* allocator;
};

// One call in flight; the loop's tag for its completion. Shared between the
// call itself (`self`, until the completion ran) and the cancel hook in
// CallOptions: StartCancel may be running the hook (outside CallOptions'
// lock) while the call completes, so the context must outlive both.
struct Call : public RpcLoop::Tag {
  std::shared_ptr<const Peer> peer;
  grpc::ClientContext context;
  CallOptions* opts = nullptr;
  // A static path: outlives the call, as gRPC may keep a pointer.
  const std::string* method = nullptr;
  grpc::ByteBuffer request;
  grpc::ByteBuffer response;
  grpc::Status status;
  std::unique_ptr<grpc::GenericClientAsyncResponseReader> reader;
  // Decodes `response` (when the call succeeded) and ends the call.
  std::function<void(Call*, absl::Status)> on_complete;
  StatusCallback done;
  std::shared_ptr<Call> self;

  void OnEvent(bool /*ok: always true for a unary call's Finish*/) override {
    std::shared_ptr<Call> keep = std::move(self);
    on_complete(this, FromGrpcStatus(status));
  }
};

class GrpcRemoteWorker : public WorkerInterface {
 public:
  GrpcRemoteWorker(std::shared_ptr<grpc::Channel> channel, std::string task,
                   std::string address, Allocator* allocator,
                   std::shared_ptr<RpcLoop> loop)
      : channel_(channel),
        generic_(std::move(channel)),
        loop_(loop != nullptr ? std::move(loop) : RpcLoop::SharedClientLoop()),
        peer_(std::make_shared<Peer>(
            Peer{std::move(task), std::move(address),
                 allocator != nullptr ? allocator : cpu_allocator()})) {}

#define TRIB_CALL_TYPED(Method, wait_for_ready)                               \
  void Method##Async(                                                         \
      CallOptions* opts, const tensorflow::Method##Request* request,          \
      tensorflow::Method##Response* response, StatusCallback done) override { \
    CallTyped(*TRIB_WORKER_METHOD(Method), opts, wait_for_ready, *request,    \
              response, std::move(done));                                     \
  }
  bool HasLiveConnection() const override {
    return channel_->GetState(/*try_to_connect=*/false) == GRPC_CHANNEL_READY;
  }

  // Discovery waits for a task that is still starting (bounded by the
  // caller's deadline), and first cuts gRPC's reconnect backoff short (it
  // grows to two minutes while a task is down), so a task restarted since
  // its channel last failed is found at once. Every other call fails fast.
  void GetStatusAsync(CallOptions* opts,
                      const tensorflow::GetStatusRequest* request,
                      tensorflow::GetStatusResponse* response,
                      StatusCallback done) override {
    grpc::experimental::ChannelResetConnectionBackoff(channel_.get());
    CallTyped(*TRIB_WORKER_METHOD(GetStatus), opts, /*wait_for_ready=*/true,
              *request, response, std::move(done));
  }
  TRIB_CALL_TYPED(CreateWorkerSession, false)
  TRIB_CALL_TYPED(DeleteWorkerSession, false)
  TRIB_CALL_TYPED(RegisterGraph, false)
  TRIB_CALL_TYPED(DeregisterGraph, false)
  TRIB_CALL_TYPED(CleanupGraph, false)
  TRIB_CALL_TYPED(CleanupAll, false)
  TRIB_CALL_TYPED(Logging, false)
  TRIB_CALL_TYPED(Tracing, false)
#undef TRIB_CALL_TYPED

  void HoldWorkerSessionAsync(
      CallOptions* opts, const tensorflow::DeleteWorkerSessionRequest* request,
      tensorflow::DeleteWorkerSessionResponse* response,
      StatusCallback done) override {
    static const auto* const path = new std::string(
        absl::StrCat("/", kWorkerSessionHoldsService, "/HoldWorkerSession"));
    CallTyped(*path, opts, /*wait_for_ready=*/false, *request, response,
              std::move(done));
  }

  void RunGraphAsync(CallOptions* opts, const RunGraphRequestMsg* request,
                     RunGraphResponseMsg* response,
                     StatusCallback done) override {
    auto call = NewCall(opts, false, std::move(done));
    EncodeWithNamedTensors(request->proto, kRunGraphRequestSendField,
                           request->send, &call->request);
    call->on_complete = [response](Call* call, absl::Status status) {
      if (status.ok()) {
        status = DecodeWithNamedTensors(
            call->response, kRunGraphResponseRecvField, call->peer->allocator,
            &response->proto, &response->recv);
      }
      Finish(call, status);
    };
    StartCall(std::move(call), *TRIB_WORKER_METHOD(RunGraph));
  }

  void RecvTensorAsync(CallOptions* opts,
                       const tensorflow::RecvTensorRequest* request,
                       TensorResponse* response, StatusCallback done) override {
    auto call = NewCall(opts, false, std::move(done));
    SerializeToByteBuffer(*request, &call->request);
    call->on_complete = [response](Call* call, absl::Status status) {
      if (status.ok()) {
        // The one copy of the tensor bytes: network slices -> a buffer from
        // the worker's allocator.
        status = DecodeRecvTensorResponse(call->response, call->peer->allocator,
                                          response);
      }
      // The received slices are no longer needed; free them before the
      // caller's continuation runs.
      call->response.Clear();
      Finish(call, status);
    };
    StartCall(std::move(call), *TRIB_WORKER_METHOD(RecvTensor));
  }

 private:
  template <typename Request, typename Response>
  void CallTyped(const std::string& method, CallOptions* opts,
                 bool wait_for_ready, const Request& request,
                 Response* response, StatusCallback done) {
    auto call = NewCall(opts, wait_for_ready, std::move(done));
    SerializeToByteBuffer(request, &call->request);
    call->on_complete = [response](Call* call, absl::Status status) {
      if (status.ok()) status = ParseFromByteBuffer(call->response, response);
      Finish(call, status);
    };
    StartCall(std::move(call), method);
  }

  // Sets up a call: deadline, wait_for_ready, and the cancel hook. The hook
  // is set before the call starts: a context cancelled before its call
  // starts cancels the call as soon as it does.
  std::shared_ptr<Call> NewCall(CallOptions* opts, bool wait_for_ready,
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

  // Starts the call on the loop; its completion runs `on_complete` there.
  void StartCall(std::shared_ptr<Call> call, const std::string& method) {
    Call* raw = call.get();
    raw->method = &method;
    raw->self = std::move(call);
    const bool started = loop_->StartOp([&] {
      raw->reader = generic_.PrepareUnaryCall(&raw->context, *raw->method,
                                              raw->request, loop_->cq());
      raw->reader->StartCall();
      raw->reader->Finish(&raw->response, &raw->status, raw);
    });
    if (!started) {
      std::shared_ptr<Call> keep = std::move(raw->self);
      Finish(raw, errors::Unavailable("Not calling ", *raw->method,
                                      ": this process is shutting down"));
    }
  }

  // Ends the call: unhooks the cancel callback, names the task in errors
  // (keeping the code), and runs `done`.
  static void Finish(Call* call, absl::Status status) {
    if (call->opts != nullptr) call->opts->ClearCancelCallback();
    if (!status.ok()) {
      absl::Status named(
          status.code(),
          absl::StrCat(status.message(), " (worker ", call->peer->task, " at ",
                       call->peer->address, ")"));
      status.ForEachPayload(
          [&named](absl::string_view url, const absl::Cord& payload) {
            named.SetPayload(url, payload);
          });
      status = std::move(named);
    }
    StatusCallback done = std::move(call->done);
    done(status);
  }

  const std::shared_ptr<grpc::Channel> channel_;
  grpc::GenericStub generic_;
  const std::shared_ptr<RpcLoop> loop_;
  const std::shared_ptr<const Peer> peer_;
};

#undef TRIB_WORKER_METHOD

}  // namespace

std::unique_ptr<WorkerInterface> NewGrpcRemoteWorker(
    std::shared_ptr<grpc::Channel> channel, std::string task_name,
    std::string address, Allocator* allocator, std::shared_ptr<RpcLoop> loop) {
  return std::make_unique<GrpcRemoteWorker>(
      std::move(channel), std::move(task_name), std::move(address), allocator,
      std::move(loop));
}

}  // namespace tributary
