#ifndef TRIBUTARY_COMMON_RPC_CALL_OPTIONS_REACTOR_H_
#define TRIBUTARY_COMMON_RPC_CALL_OPTIONS_REACTOR_H_

// The server side of one unary callback-API call, as both services need
// it: the call's CallOptions carry the client's deadline and are cancelled
// when gRPC cancels the call (client cancel, deadline, broken connection),
// so whatever the call started (a step, a wait for a tensor) stops too.
// Deletes itself when gRPC is done with the call, which is only after
// Finish: the code that finishes the call never sees freed options.

#include <chrono>

#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "common/distributed/call_options.h"
#include "grpcpp/server_context.h"
#include "grpcpp/support/server_callback.h"

namespace tributary {

class CallOptionsReactor : public grpc::ServerUnaryReactor {
 public:
  explicit CallOptionsReactor(grpc::CallbackServerContext* context) {
    const auto deadline = context->deadline();
    if (deadline != std::chrono::system_clock::time_point::max()) {
      opts_.SetDeadline(absl::FromChrono(deadline));
    }
  }

  CallOptions* opts() { return &opts_; }

  void OnCancel() override { opts_.StartCancel(); }
  void OnDone() override { delete this; }

  // Both reactions are short and never block: OnDone deletes this reactor,
  // OnCancel starts the cancellation (hooks that cancel calls, abort a
  // rendezvous, start CleanupGraph; none waits). So gRPC may run them on the
  // thread that noticed the event. Otherwise it hands every OnDone to its
  // executor thread: two thread switches per served call, about a fifth of
  // a trivial step's switches in the master and the worker. (gRPC marks
  // this hook as internal; its own DefaultReactor overrides it the same way
  // for the same reason.)
  bool InternalInlineable() override { return true; }

 private:
  CallOptions opts_;
};

}  // namespace tributary

#endif  // TRIBUTARY_COMMON_RPC_CALL_OPTIONS_REACTOR_H_
