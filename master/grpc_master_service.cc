#include "master/grpc_master_service.h"

#include <chrono>
#include <utility>

#include "absl/time/time.h"
#include "common/rpc/grpc_status.h"
#include "common/rpc/tensor_coding.h"
#include "grpcpp/server_context.h"
#include "common/rpc/call_options_reactor.h"
#include "grpcpp/support/server_callback.h"
#include "protos/master_service.grpc.pb.h"

namespace tributary {
namespace {

using grpc::CallbackServerContext;
using grpc::ServerUnaryReactor;
using tensorflow::MasterService;

// One call (common/rpc/call_options_reactor.h).
using MasterCall = CallOptionsReactor;

// RunStep keeps its tensor-coded request and response here.
class RunStepCall : public MasterCall {
 public:
  using MasterCall::MasterCall;
  RunStepRequestMsg request;
  RunStepResponseMsg response;
};

class GrpcMasterService final
    : public MasterService::WithRawCallbackMethod_RunStep<
          MasterService::CallbackService> {
 public:
  GrpcMasterService(Master* master, BlockingCallPool* pool,
                    Allocator* allocator)
      : master_(master),
        pool_(pool),
        allocator_(allocator != nullptr ? allocator : cpu_allocator()) {}

  ServerUnaryReactor* CreateSession(
      CallbackServerContext* context,
      const tensorflow::CreateSessionRequest* request,
      tensorflow::CreateSessionResponse* response) override {
    return Serve(context, [this, request, response](CallOptions* opts) {
      return master_->CreateSession(opts, *request, response);
    });
  }
  ServerUnaryReactor* ExtendSession(
      CallbackServerContext* context,
      const tensorflow::ExtendSessionRequest* request,
      tensorflow::ExtendSessionResponse* response) override {
    return Serve(context, [this, request, response](CallOptions*) {
      return master_->ExtendSession(*request, response);
    });
  }
  ServerUnaryReactor* PartialRunSetup(
      CallbackServerContext* context,
      const tensorflow::PartialRunSetupRequest* request,
      tensorflow::PartialRunSetupResponse* response) override {
    return Serve(context, [this, request, response](CallOptions*) {
      return master_->PartialRunSetup(*request, response);
    });
  }
  ServerUnaryReactor* CloseSession(
      CallbackServerContext* context,
      const tensorflow::CloseSessionRequest* request,
      tensorflow::CloseSessionResponse* response) override {
    return Serve(context, [this, request, response](CallOptions*) {
      return master_->CloseSession(*request, response);
    });
  }
  ServerUnaryReactor* ListDevices(
      CallbackServerContext* context,
      const tensorflow::ListDevicesRequest* request,
      tensorflow::ListDevicesResponse* response) override {
    return Serve(context, [this, request, response](CallOptions* opts) {
      return master_->ListDevices(opts, *request, response);
    });
  }
  ServerUnaryReactor* Reset(CallbackServerContext* context,
                            const tensorflow::ResetRequest* request,
                            tensorflow::ResetResponse* response) override {
    return Serve(context, [this, request, response](CallOptions*) {
      return master_->Reset(*request, response);
    });
  }
  ServerUnaryReactor* MakeCallable(
      CallbackServerContext* context,
      const tensorflow::MakeCallableRequest* request,
      tensorflow::MakeCallableResponse* response) override {
    return Serve(context, [this, request, response](CallOptions*) {
      return master_->MakeCallable(*request, response);
    });
  }
  ServerUnaryReactor* RunCallable(
      CallbackServerContext* context,
      const tensorflow::RunCallableRequest* request,
      tensorflow::RunCallableResponse* response) override {
    return Serve(context, [this, request, response](CallOptions* opts) {
      return master_->RunCallable(opts, *request, response);
    });
  }
  ServerUnaryReactor* ReleaseCallable(
      CallbackServerContext* context,
      const tensorflow::ReleaseCallableRequest* request,
      tensorflow::ReleaseCallableResponse* response) override {
    return Serve(context, [this, request, response](CallOptions*) {
      return master_->ReleaseCallable(*request, response);
    });
  }

  ServerUnaryReactor* RunStep(CallbackServerContext* context,
                              const grpc::ByteBuffer* request,
                              grpc::ByteBuffer* response) override {
    auto* call = new RunStepCall(context);
    // The step itself never blocks this thread (Master::RunStepAsync); only
    // copying big feeds out of the network buffers would, so that happens
    // on a pool thread.
    if (request->Length() >= kDecodeOnPoolBytes) {
      pool_->Schedule([this, call, request, response] {
        StartRunStep(call, request, response);
      });
    } else {
      StartRunStep(call, request, response);
    }
    return call;
  }

 private:
  static constexpr size_t kDecodeOnPoolBytes = 1 << 20;

  void StartRunStep(RunStepCall* call, const grpc::ByteBuffer* request,
                    grpc::ByteBuffer* response) {
    absl::Status s =
        DecodeWithNamedTensors(*request, kRunStepRequestFeedField, allocator_,
                               &call->request.proto, &call->request.feed);
    if (!s.ok()) {
      call->Finish(ToGrpcStatus(s));
      return;
    }
    master_->RunStepAsync(
        call->opts(), call->request, &call->response,
        [call, response](const absl::Status& s) {
          if (s.ok()) {
            // Fetched tensors go out from their own buffers.
            EncodeWithNamedTensors(call->response.proto, kRunStepResponseTensorField,
                                   call->response.tensor, response);
          }
          call->Finish(ToGrpcStatus(s));
        });
  }

  // Runs `fn` on a pool thread and finishes the call with its status.
  template <typename Fn>
  ServerUnaryReactor* Serve(CallbackServerContext* context, Fn fn) {
    auto* call = new MasterCall(context);
    pool_->Schedule([call, fn = std::move(fn)] {
      const absl::Status s = fn(call->opts());
      call->Finish(ToGrpcStatus(s));
    });
    return call;
  }

  Master* const master_;
  BlockingCallPool* const pool_;
  Allocator* const allocator_;
};

}  // namespace

std::unique_ptr<grpc::Service> NewGrpcMasterService(Master* master,
                                                    BlockingCallPool* pool,
                                                    Allocator* allocator) {
  return std::make_unique<GrpcMasterService>(master, pool, allocator);
}

}  // namespace tributary
