#ifndef TRIBUTARY_COMMON_DAEMON_GRACEFUL_STOP_H_
#define TRIBUTARY_COMMON_DAEMON_GRACEFUL_STOP_H_

// The graceful stop both servers (worker/worker_server.h,
// master/master_server.h) share: gRPC stops accepting calls and waits for
// those running until `deadline`, then cancels them; at the same time the
// service's own `drain` lets its work finish and, at the deadline at the
// latest, aborts what is left. Both waits must run together: gRPC's ends
// only when the service's calls end, and the service's drain is what ends
// them at the deadline.

#include "absl/functional/function_ref.h"
#include "absl/time/time.h"
#include "common/rpc/grpc_server.h"

namespace tributary {

// Returns once `server` is shut down and `drain` returned.
void ShutdownWhileDraining(GrpcServer& server, absl::Time deadline,
                           absl::FunctionRef<void()> drain);

}  // namespace tributary

#endif  // TRIBUTARY_COMMON_DAEMON_GRACEFUL_STOP_H_
