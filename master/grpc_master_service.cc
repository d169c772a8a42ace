#include "master/grpc_master_service.h"

#include <utility>

#include "absl/time/time.h"
#include "common/rpc/grpc_status.h"
#include "common/rpc/rpc_service.h"
#include "common/rpc/tensor_coding.h"
#include "protos/master_service.pb.h"

namespace tributary {
namespace {

// RunStep: feeds decoded straight into tensors, fetches written from their
// own buffers. The step itself never blocks the network thread
// (Master::RunStepAsync); only copying big feeds out of the network buffers
// would, so calls with big requests are handled on a pool thread.
RpcHandler RunStepHandler(Master* master, BlockingCallPool* pool,
                          Allocator* allocator) {
  struct Messages {
    RunStepRequestMsg request;
    RunStepResponseMsg response;
  };
  RpcHandler handler = MessagesHandler<Messages>(
      [allocator](const grpc::ByteBuffer& in, Messages* m) {
        return DecodeWithNamedTensors(in, kRunStepRequestFeedField, allocator,
                                      &m->request.proto, &m->request.feed);
      },
      [master](CallOptions* opts, Messages* m,
               std::function<void(const absl::Status&)> done) {
        master->RunStepAsync(opts, m->request, &m->response, std::move(done));
      },
      [](const Messages& m, grpc::ByteBuffer* out) {
        EncodeWithNamedTensors(m.response.proto, kRunStepResponseTensorField,
                               m.response.tensor, out);
      });
  constexpr size_t kDecodeOnPoolBytes = 1 << 20;
  return [handler, pool](RpcServerCall* call) {
    if (call->request().Length() >= kDecodeOnPoolBytes) {
      pool->Schedule([handler, call] { handler(call); });
    } else {
      handler(call);
    }
  };
}

// A method whose Master call blocks (bounded) while workers work: it runs
// on a pool thread, never on the network thread.
template <typename Request, typename Response, typename Fn>
RpcHandler OnPool(BlockingCallPool* pool, Fn fn) {
  return TypedHandler<Request, Response>(
      [pool, fn](CallOptions* opts, const Request* request, Response* response,
                 std::function<void(const absl::Status&)> done) {
        pool->Schedule([=] { done(fn(opts, *request, response)); });
      });
}

}  // namespace

std::unique_ptr<RpcService> NewGrpcMasterService(Master* master,
                                                 BlockingCallPool* pool,
                                                 Allocator* allocator) {
  if (allocator == nullptr) allocator = cpu_allocator();
  auto service = std::make_unique<RpcService>("tensorflow.MasterService");
  using tensorflow::CloseSessionRequest;
  using tensorflow::CloseSessionResponse;
  using tensorflow::CreateSessionRequest;
  using tensorflow::CreateSessionResponse;
  using tensorflow::ExtendSessionRequest;
  using tensorflow::ExtendSessionResponse;
  using tensorflow::ListDevicesRequest;
  using tensorflow::ListDevicesResponse;
  using tensorflow::MakeCallableRequest;
  using tensorflow::MakeCallableResponse;
  using tensorflow::PartialRunSetupRequest;
  using tensorflow::PartialRunSetupResponse;
  using tensorflow::ReleaseCallableRequest;
  using tensorflow::ReleaseCallableResponse;
  using tensorflow::ResetRequest;
  using tensorflow::ResetResponse;
  using tensorflow::RunCallableRequest;
  using tensorflow::RunCallableResponse;
  service->Add("CreateSession",
               OnPool<CreateSessionRequest, CreateSessionResponse>(
                   pool, [master](CallOptions* opts, const auto& request,
                                  auto* response) {
                     return master->CreateSession(opts, request, response);
                   }));
  service->Add("ExtendSession",
               OnPool<ExtendSessionRequest, ExtendSessionResponse>(
                   pool, [master](CallOptions*, const auto& request,
                                  auto* response) {
                     return master->ExtendSession(request, response);
                   }));
  service->Add("PartialRunSetup",
               OnPool<PartialRunSetupRequest, PartialRunSetupResponse>(
                   pool, [master](CallOptions*, const auto& request,
                                  auto* response) {
                     return master->PartialRunSetup(request, response);
                   }));
  service->Add("CloseSession",
               OnPool<CloseSessionRequest, CloseSessionResponse>(
                   pool, [master](CallOptions*, const auto& request,
                                  auto* response) {
                     return master->CloseSession(request, response);
                   }));
  service->Add("ListDevices",
               OnPool<ListDevicesRequest, ListDevicesResponse>(
                   pool, [master](CallOptions* opts, const auto& request,
                                  auto* response) {
                     return master->ListDevices(opts, request, response);
                   }));
  service->Add("Reset", OnPool<ResetRequest, ResetResponse>(
                            pool, [master](CallOptions*, const auto& request,
                                           auto* response) {
                              return master->Reset(request, response);
                            }));
  service->Add("MakeCallable",
               OnPool<MakeCallableRequest, MakeCallableResponse>(
                   pool, [master](CallOptions*, const auto& request,
                                  auto* response) {
                     return master->MakeCallable(request, response);
                   }));
  service->Add("RunCallable",
               OnPool<RunCallableRequest, RunCallableResponse>(
                   pool, [master](CallOptions* opts, const auto& request,
                                  auto* response) {
                     return master->RunCallable(opts, request, response);
                   }));
  service->Add("ReleaseCallable",
               OnPool<ReleaseCallableRequest, ReleaseCallableResponse>(
                   pool, [master](CallOptions*, const auto& request,
                                  auto* response) {
                     return master->ReleaseCallable(request, response);
                   }));
  service->Add("RunStep", RunStepHandler(master, pool, allocator));
  return service;
}

}  // namespace tributary
