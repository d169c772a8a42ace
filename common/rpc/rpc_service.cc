#include "common/rpc/rpc_service.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "common/distributed/resource_limits.h"

namespace tributary {

void RpcService::Add(absl::string_view method, RpcHandler handler) {
  handlers_[absl::StrCat("/", name_, "/", method)] = std::move(handler);
}

const RpcHandler* RpcService::Find(absl::string_view path) const {
  auto it = handlers_.find(path);
  return it == handlers_.end() ? nullptr : &it->second;
}

void RpcService::AddStream(absl::string_view method, RpcStreamHandler handler) {
  stream_handlers_[absl::StrCat("/", name_, "/", method)] = std::move(handler);
}

const RpcStreamHandler* RpcService::FindStream(absl::string_view path) const {
  auto it = stream_handlers_.find(path);
  return it == stream_handlers_.end() ? nullptr : &it->second;
}

void RpcService::AddPollingStream(absl::string_view method,
                                  RpcPollingStream stream) {
  polling_streams_[absl::StrCat("/", name_, "/", method)] = std::move(stream);
}

const RpcPollingStream* RpcService::FindPollingStream(
    absl::string_view path) const {
  auto it = polling_streams_.find(path);
  return it == polling_streams_.end() ? nullptr : &it->second;
}

RpcHandler RunOn(RpcRunner runner, RpcHandler handler) {
  if (runner == nullptr) return handler;
  return [runner = std::move(runner),
          handler = std::move(handler)](RpcServerCall* call) {
    runner([handler, call] { handler(call); });
  };
}

RpcHandler LimitingGraphNodes(const GraphNodesLimit& nodes,
                              absl::string_view method, RpcHandler handler) {
  if (nodes.graph_field == 0 || nodes.limit <= 0) return handler;
  return [nodes, method = std::string(method), handler](RpcServerCall* call) {
    absl::StatusOr<int64_t> count =
        CountGraphNodesOnWire(call->request(), nodes.graph_field);
    if (count.ok()) {
      absl::Status s =
          CheckGraphNodes(*count, nodes.limit, "--max-graph-nodes", method);
      if (!s.ok()) {
        call->Finish(ToGrpcStatus(s), grpc::ByteBuffer());
        return;
      }
    }
    handler(call);
  };
}

RpcHandler UnimplementedHandler(std::string why) {
  return [why = std::move(why)](RpcServerCall* call) {
    call->Finish(grpc::Status(grpc::StatusCode::UNIMPLEMENTED, why),
                 grpc::ByteBuffer());
  };
}

}  // namespace tributary
