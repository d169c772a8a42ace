#include "common/rpc/grpc_worker_service.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "common/rpc/grpc_status.h"
#include "common/rpc/tensor_coding.h"
#include "protos/worker_service.pb.h"

namespace tributary {
namespace {

// RunGraph: the request's feeds are decoded straight into tensors, the
// fetched tensors go out from their own buffers.
RpcHandler RunGraphHandler(WorkerInterface* worker, Allocator* allocator) {
  struct Messages {
    RunGraphRequestMsg request;
    RunGraphResponseMsg response;
  };
  return MessagesHandler<Messages>(
      [allocator](const grpc::ByteBuffer& in, Messages* m) {
        return DecodeWithNamedTensors(in, kRunGraphRequestSendField, allocator,
                                      &m->request.proto, &m->request.send);
      },
      [worker](CallOptions* opts, Messages* m, StatusCallback done) {
        worker->RunGraphAsync(opts, &m->request, &m->response, std::move(done));
      },
      [](const Messages& m, grpc::ByteBuffer* out) {
        EncodeWithNamedTensors(m.response.proto, kRunGraphResponseRecvField,
                               m.response.recv, out);
      });
}

// RecvTensor: answered zero-copy, the response's slices reference the
// tensor's buffer (which they keep alive).
RpcHandler RecvTensorHandler(WorkerInterface* worker) {
  struct Messages {
    tensorflow::RecvTensorRequest request;
    TensorResponse response;
  };
  return MessagesHandler<Messages>(
      [](const grpc::ByteBuffer& in, Messages* m) {
        return ParseFromByteBuffer(in, &m->request);
      },
      [worker](CallOptions* opts, Messages* m, StatusCallback done) {
        worker->RecvTensorAsync(opts, &m->request, &m->response,
                                std::move(done));
      },
      [](const Messages& m, grpc::ByteBuffer* out) {
        EncodeRecvTensorResponse(m.response.tensor, m.response.is_dead,
                                 m.response.send_start_micros, out);
      });
}

std::string NotSupported(absl::string_view method, absl::string_view feature) {
  return absl::StrCat("Tributary does not support WorkerService.", method, " (",
                      feature, " are not implemented)");
}

}  // namespace

std::unique_ptr<RpcService> NewGrpcWorkerService(WorkerInterface* worker,
                                                 Allocator* allocator,
                                                 RpcRunner control_runner,
                                                 int64_t max_graph_nodes) {
  if (allocator == nullptr) allocator = cpu_allocator();
  auto service = std::make_unique<RpcService>("tensorflow.WorkerService");
  // Each typed method hands its request to the WorkerInterface method of
  // the same name, on the network thread or on `runner`.
#define TRIB_SERVE_TYPED(Method, runner, nodes)                          \
  service->Add(                                                          \
      #Method,                                                           \
      RunOn(runner,                                                      \
            LimitingGraphNodes(                                          \
                nodes, #Method,                                          \
                TypedHandler<tensorflow::Method##Request,                \
                             tensorflow::Method##Response>(              \
                    [worker](CallOptions* opts,                          \
                             const tensorflow::Method##Request* request, \
                             tensorflow::Method##Response* response,     \
                             StatusCallback done) {                      \
                      worker->Method##Async(opts, request, response,     \
                                            std::move(done));            \
                    }))));
  const GraphNodesLimit none;
  // The step's path stays on the network thread: these are short.
  TRIB_SERVE_TYPED(GetStatus, nullptr, none)
  TRIB_SERVE_TYPED(CleanupGraph, nullptr, none)
  TRIB_SERVE_TYPED(Logging, nullptr, none)
  TRIB_SERVE_TYPED(Tracing, nullptr, none)
  // The control plane may parse and build graphs of any size, or drop a
  // session's resources: off the network thread when a runner is given.
  TRIB_SERVE_TYPED(CreateWorkerSession, control_runner, none)
  TRIB_SERVE_TYPED(DeleteWorkerSession, control_runner, none)
  TRIB_SERVE_TYPED(
      RegisterGraph, control_runner,
      (GraphNodesLimit{/*RegisterGraphRequest.graph_def=*/2, max_graph_nodes}))
  TRIB_SERVE_TYPED(DeregisterGraph, control_runner, none)
  TRIB_SERVE_TYPED(CleanupAll, control_runner, none)
#undef TRIB_SERVE_TYPED
  service->Add("RunGraph", RunGraphHandler(worker, allocator));
  service->Add("RecvTensor", RecvTensorHandler(worker));

  // Methods Tributary has no counterpart for.
  service->Add("RecvBuf",
               UnimplementedHandler(NotSupported("RecvBuf", "collective ops")));
  service->Add("GetStepSequence", UnimplementedHandler(NotSupported(
                                      "GetStepSequence", "collective ops")));
  service->Add("CompleteGroup", UnimplementedHandler(NotSupported(
                                    "CompleteGroup", "collective ops")));
  service->Add("CompleteInstance", UnimplementedHandler(NotSupported(
                                       "CompleteInstance", "collective ops")));
  service->Add("MarkRecvFinished",
               UnimplementedHandler(NotSupported(
                   "MarkRecvFinished", "RecvTensor request ids and retries")));
  return service;
}

std::unique_ptr<RpcService> NewGrpcWorkerSessionHoldsService(
    WorkerInterface* worker) {
  auto service = std::make_unique<RpcService>(kWorkerSessionHoldsService);
  service->Add(
      "HoldWorkerSession",
      TypedHandler<tensorflow::DeleteWorkerSessionRequest,
                   tensorflow::DeleteWorkerSessionResponse>(
          [worker](CallOptions* opts,
                   const tensorflow::DeleteWorkerSessionRequest* request,
                   tensorflow::DeleteWorkerSessionResponse* response,
                   StatusCallback done) {
            worker->HoldWorkerSessionAsync(opts, request, response,
                                           std::move(done));
          }));
  return service;
}

}  // namespace tributary
