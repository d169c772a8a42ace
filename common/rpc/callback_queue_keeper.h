#ifndef TRIBUTARY_COMMON_RPC_CALLBACK_QUEUE_KEEPER_H_
#define TRIBUTARY_COMMON_RPC_CALLBACK_QUEUE_KEEPER_H_

namespace tributary {

// Keeps gRPC's shared callback completion queue alive for the rest of the
// process. Call before creating a channel or a server; cheap after the
// first call.
//
// Why: with the poller Debian's gRPC 1.51 uses, callback-API completions
// run on "nexting" threads polling one process-wide queue
// (CompletionQueue::CallbackAlternativeCQ). Every channel and server holds
// a reference on it, and the last release joins the nexting threads and
// frees the queue. When that last release happens on a nexting thread
// itself (a completion callback dropping the last channel, e.g. a session's
// worker cache), the thread cannot join itself, gRPC ignores the EDEADLK,
// frees the queue under the running thread, and the process aborts later
// in grpc_cq_internal_unref ("ref_counted.h: assertion failed: prior > 0";
// grpc/grpc#32584 describes the same race). One reference held here for
// the process's lifetime means the last release never happens.
void KeepCallbackQueueAlive();

}  // namespace tributary

#endif  // TRIBUTARY_COMMON_RPC_CALLBACK_QUEUE_KEEPER_H_
