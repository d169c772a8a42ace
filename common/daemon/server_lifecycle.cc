#include "common/daemon/server_lifecycle.h"

#include <thread>

#include "common/framework/status.h"

namespace tributary {
namespace {

std::unique_ptr<GrpcServer> NewServer(int64_t max_message_size) {
  return std::make_unique<GrpcServer>(max_message_size);
}

}  // namespace

ServerLifecycle::ServerLifecycle(int64_t max_message_size)
    : server_(NewServer(max_message_size)), loop_(server_->loop()) {}

absl::Status ServerLifecycle::Start(
    const std::string& listen, const std::vector<const RpcService*>& services) {
  absl::MutexLock l(&mu_);
  if (started_ || stopped_) {
    return errors::FailedPrecondition(
        "The server was started or stopped before");
  }
  TRIB_RETURN_IF_ERROR(server_->Start(listen, services));
  started_ = true;
  bound_address_ = server_->address();
  return absl::OkStatus();
}

std::string ServerLifecycle::bound_address() const {
  absl::MutexLock l(&mu_);
  return bound_address_;
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
