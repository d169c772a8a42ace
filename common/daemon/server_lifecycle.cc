#include "common/daemon/server_lifecycle.h"

#include <thread>
#include <utility>

#include "common/framework/status.h"

namespace tributary {
namespace {

std::unique_ptr<GrpcServer> NewServer(
    int64_t max_message_size,
    std::shared_ptr<grpc::ServerCredentials> credentials) {
  return std::make_unique<GrpcServer>(max_message_size,
                                      std::move(credentials));
}

}  // namespace

ServerLifecycle::ServerLifecycle(
    int64_t max_message_size,
    std::shared_ptr<grpc::ServerCredentials> credentials)
    : server_(NewServer(max_message_size, std::move(credentials))),
      loop_(server_->loop()) {}

absl::Status ServerLifecycle::Start(
    const std::string& listen, const std::vector<const RpcService*>& services,
    const std::string& plaintext_loopback) {
  absl::MutexLock l(&mu_);
  if (started_ || stopped_) {
    return errors::FailedPrecondition(
        "The server was started or stopped before");
  }
  if (!plaintext_loopback.empty()) {
    TRIB_RETURN_IF_ERROR(server_->AddPlaintextLoopbackPort(plaintext_loopback));
  }
  TRIB_RETURN_IF_ERROR(server_->Start(listen, services));
  started_ = true;
  bound_address_ = server_->address();
  bound_plaintext_address_ = server_->plaintext_address();
  return absl::OkStatus();
}

std::string ServerLifecycle::bound_address() const {
  absl::MutexLock l(&mu_);
  return bound_address_;
}

std::string ServerLifecycle::bound_plaintext_address() const {
  absl::MutexLock l(&mu_);
  return bound_plaintext_address_;
}

bool ServerLifecycle::Stop(absl::Time deadline,
                           absl::FunctionRef<void()> drain) {
  absl::MutexLock l(&mu_);
  if (stopped_) return false;
  stopped_ = true;
  GrpcServer* server = server_.get();
  std::thread stop_server([server, deadline] { server->Shutdown(deadline); });
  drain();
  stop_server.join();
  server_.reset();
  return true;
}

}  // namespace tributary
