#ifndef TRIBUTARY_COMMON_DAEMON_SERVER_LIFECYCLE_H_
#define TRIBUTARY_COMMON_DAEMON_SERVER_LIFECYCLE_H_

// The life both server objects (worker/worker_server.h,
// master/master_server.h) share around their one GrpcServer: started once
// on a listen address, its bound address, and the graceful stop: gRPC
// stops accepting calls and waits for those running until the deadline,
// then cancels them, while the service's own `drain` lets its work finish
// and aborts what is left at the deadline. Both waits run together: gRPC's
// ends only when the service's calls end, and the drain is what ends them.
// What later features add to serving (TLS, metrics, health) goes here
// once, configured from each server's options.
//
// Thread-safe; Start and Stop are serialised (Stop holds the lock until
// the drain returned and the GrpcServer is gone).

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "common/rpc/grpc_server.h"
#include "common/rpc/rpc_loop.h"
#include "common/rpc/rpc_service.h"

namespace tributary {

class ServerLifecycle {
 public:
  // `credentials`: the listening port's (null: plaintext).
  explicit ServerLifecycle(
      int64_t max_message_size,
      std::shared_ptr<grpc::ServerCredentials> credentials = nullptr);

  // The network thread: the server's and the process's own calls to other
  // tasks (common/rpc/rpc_loop.h). Valid from construction on.
  std::shared_ptr<RpcLoop> loop() const { return loop_; }

  // Serves `services` (not owned; they must outlive Stop) on `listen`.
  // GrpcServer's error when it cannot be bound; FailedPrecondition when
  // started or stopped before.
  // `plaintext_loopback` (may be empty): a second, plaintext port on a
  // loopback address (GrpcServer::AddPlaintextLoopbackPort).
  absl::Status Start(const std::string& listen,
                     const std::vector<const RpcService*>& services,
                     const std::string& plaintext_loopback = "");
  // After Start: the address actually bound; empty before.
  std::string bound_address() const;
  // After Start with a plaintext loopback port: its bound address.
  std::string bound_plaintext_address() const;

  // The first call shuts gRPC down until `deadline` while `drain` runs,
  // then destroys the GrpcServer, and returns true; later calls return
  // false at once. Works whether or not the server was started.
  bool Stop(absl::Time deadline, absl::FunctionRef<void()> drain);

 private:
  mutable absl::Mutex mu_;
  std::unique_ptr<GrpcServer> server_ ABSL_GUARDED_BY(mu_);
  const std::shared_ptr<RpcLoop> loop_;
  bool started_ ABSL_GUARDED_BY(mu_) = false;
  bool stopped_ ABSL_GUARDED_BY(mu_) = false;
  std::string bound_address_ ABSL_GUARDED_BY(mu_);
  std::string bound_plaintext_address_ ABSL_GUARDED_BY(mu_);
};

}  // namespace tributary

#endif  // TRIBUTARY_COMMON_DAEMON_SERVER_LIFECYCLE_H_
