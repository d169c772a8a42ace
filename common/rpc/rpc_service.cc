#include "common/rpc/rpc_service.h"

#include <utility>

#include "absl/strings/str_cat.h"

namespace tributary {

void RpcService::Add(absl::string_view method, RpcHandler handler) {
  handlers_[absl::StrCat("/", name_, "/", method)] = std::move(handler);
}

const RpcHandler* RpcService::Find(absl::string_view path) const {
  auto it = handlers_.find(path);
  return it == handlers_.end() ? nullptr : &it->second;
}

RpcHandler RunOn(RpcRunner runner, RpcHandler handler) {
  if (runner == nullptr) return handler;
  return [runner = std::move(runner),
          handler = std::move(handler)](RpcServerCall* call) {
    runner([handler, call] { handler(call); });
  };
}

RpcHandler UnimplementedHandler(std::string why) {
  return [why = std::move(why)](RpcServerCall* call) {
    call->Finish(grpc::Status(grpc::StatusCode::UNIMPLEMENTED, why),
                 grpc::ByteBuffer());
  };
}

}  // namespace tributary
