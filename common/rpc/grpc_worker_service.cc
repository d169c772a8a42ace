#include "common/rpc/grpc_worker_service.h"

#include <chrono>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "common/rpc/grpc_status.h"
#include "common/rpc/tensor_coding.h"
#include "common/rpc/call_options_reactor.h"
#include "grpcpp/server_context.h"
#include "grpcpp/support/server_callback.h"
#include "protos/worker_service.grpc.pb.h"

namespace tributary {
namespace {

using grpc::CallbackServerContext;
using grpc::ServerUnaryReactor;
using tensorflow::WorkerService;

// One call (common/rpc/call_options_reactor.h).
using WorkerCall = CallOptionsReactor;

// A call whose request and response are kept here (the tensor-coded ones).
template <typename Request, typename Response>
class WorkerCallWith : public WorkerCall {
 public:
  using WorkerCall::WorkerCall;
  Request request;
  Response response;
};

class GrpcWorkerService final
    : public WorkerService::WithRawCallbackMethod_RunGraph<
          WorkerService::WithRawCallbackMethod_RecvTensor<
              WorkerService::CallbackService>> {
 public:
  GrpcWorkerService(WorkerInterface* worker, Allocator* allocator)
      : worker_(worker),
        allocator_(allocator != nullptr ? allocator : cpu_allocator()) {}

  // --- Typed methods: the worker fills gRPC's own response message. ---
  // Each hands its request to the WorkerInterface method of the same name.
#define TRIB_SERVE_TYPED(Method)                                           \
  ServerUnaryReactor* Method(CallbackServerContext* context,              \
                             const tensorflow::Method##Request* request,  \
                             tensorflow::Method##Response* response)      \
      override {                                                          \
    return Serve(context, request, response,                              \
                 &WorkerInterface::Method##Async);                        \
  }
  TRIB_SERVE_TYPED(GetStatus)
  TRIB_SERVE_TYPED(CreateWorkerSession)
  TRIB_SERVE_TYPED(DeleteWorkerSession)
  TRIB_SERVE_TYPED(RegisterGraph)
  TRIB_SERVE_TYPED(DeregisterGraph)
  TRIB_SERVE_TYPED(CleanupGraph)
  TRIB_SERVE_TYPED(CleanupAll)
  TRIB_SERVE_TYPED(Logging)
  TRIB_SERVE_TYPED(Tracing)
#undef TRIB_SERVE_TYPED

  // --- Tensor-coded methods: ByteBuffers in and out. ---

  ServerUnaryReactor* RunGraph(CallbackServerContext* context,
                               const grpc::ByteBuffer* request,
                               grpc::ByteBuffer* response) override {
    auto* call =
        new WorkerCallWith<RunGraphRequestMsg, RunGraphResponseMsg>(context);
    const absl::Status decoded =
        DecodeWithNamedTensors(*request, kRunGraphRequestSendField, allocator_,
                               &call->request.proto, &call->request.send);
    if (!decoded.ok()) {
      call->Finish(ToGrpcStatus(decoded));
      return call;
    }
    worker_->RunGraphAsync(
        call->opts(), &call->request, &call->response,
        [call, response](const absl::Status& status) {
          if (status.ok()) {
            // Fetched tensors go out from their own buffers.
            EncodeWithNamedTensors(call->response.proto, kRunGraphResponseRecvField,
                                   call->response.recv, response);
          }
          call->Finish(ToGrpcStatus(status));
        });
    return call;
  }

  ServerUnaryReactor* RecvTensor(CallbackServerContext* context,
                                 const grpc::ByteBuffer* request,
                                 grpc::ByteBuffer* response) override {
    auto* call = new WorkerCallWith<tensorflow::RecvTensorRequest,
                                    TensorResponse>(context);
    const absl::Status parsed = ParseFromByteBuffer(*request, &call->request);
    if (!parsed.ok()) {
      call->Finish(ToGrpcStatus(parsed));
      return call;
    }
    worker_->RecvTensorAsync(
        call->opts(), &call->request, &call->response,
        [call, response](const absl::Status& status) {
          if (status.ok()) {
            // Zero-copy: the response's slices reference the tensor buffer.
            EncodeRecvTensorResponse(call->response.tensor,
                                     call->response.is_dead,
                                     call->response.send_start_micros,
                                     response);
          }
          call->Finish(ToGrpcStatus(status));
        });
    return call;
  }

  // --- Methods Tributary has no counterpart for. ---

  ServerUnaryReactor* RecvBuf(CallbackServerContext* context,
                              const tensorflow::RecvBufRequest*,
                              tensorflow::RecvBufResponse*) override {
    return Unsupported(context, "RecvBuf", "collective ops");
  }
  ServerUnaryReactor* GetStepSequence(
      CallbackServerContext* context, const tensorflow::GetStepSequenceRequest*,
      tensorflow::GetStepSequenceResponse*) override {
    return Unsupported(context, "GetStepSequence", "collective ops");
  }
  ServerUnaryReactor* CompleteGroup(CallbackServerContext* context,
                                    const tensorflow::CompleteGroupRequest*,
                                    tensorflow::CompleteGroupResponse*) override {
    return Unsupported(context, "CompleteGroup", "collective ops");
  }
  ServerUnaryReactor* CompleteInstance(
      CallbackServerContext* context, const tensorflow::CompleteInstanceRequest*,
      tensorflow::CompleteInstanceResponse*) override {
    return Unsupported(context, "CompleteInstance", "collective ops");
  }
  ServerUnaryReactor* MarkRecvFinished(
      CallbackServerContext* context,
      const tensorflow::MarkRecvFinishedRequest*,
      tensorflow::MarkRecvFinishedResponse*) override {
    return Unsupported(context, "MarkRecvFinished",
                       "RecvTensor request ids and retries");
  }

 private:
  template <typename Request, typename Response>
  ServerUnaryReactor* Serve(
      CallbackServerContext* context, const Request* request,
      Response* response,
      void (WorkerInterface::*method)(CallOptions*, const Request*, Response*,
                                      StatusCallback)) {
    auto* call = new WorkerCall(context);
    (worker_->*method)(call->opts(), request, response,
                       [call](const absl::Status& status) {
                         call->Finish(ToGrpcStatus(status));
                       });
    return call;
  }

  static ServerUnaryReactor* Unsupported(CallbackServerContext* context,
                                         absl::string_view method,
                                         absl::string_view feature) {
    ServerUnaryReactor* reactor = context->DefaultReactor();
    reactor->Finish(grpc::Status(
        grpc::StatusCode::UNIMPLEMENTED,
        absl::StrCat("Tributary does not support WorkerService.", method,
                     " (", feature, " are not implemented)")));
    return reactor;
  }

  WorkerInterface* const worker_;
  Allocator* const allocator_;
};

}  // namespace

std::unique_ptr<grpc::Service> NewGrpcWorkerService(WorkerInterface* worker,
                                                    Allocator* allocator) {
  return std::make_unique<GrpcWorkerService>(worker, allocator);
}

}  // namespace tributary
