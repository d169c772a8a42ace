#ifndef TRIBUTARY_COMMON_RPC_RPC_LOOP_H_
#define TRIBUTARY_COMMON_RPC_RPC_LOOP_H_

// One thread that runs every gRPC completion of a process's server and of
// its calls to other tasks: the daemon's network thread.
//
// Why one thread: with the poller of Debian's gRPC 1.51 (epoll1), the
// process has a single epoll set and one thread at a time waits in it.
// When several threads wait for completions (gRPC's callback API has at
// least two "nexting" threads, a sync server two pollers), every network
// event wakes the waiting thread, which first wakes another one to take over
// the polling: three to six thread switches per call, each a few tens of
// microseconds on a small VM. With exactly one thread waiting, an event is
// read, handled and answered by the thread that was already awake:
// tools/benchmarks/grpc_polling_benchmark measures 1 switch per served call
// instead of about 5, and docs/protocol.md says what it did to the daemons.
//
// The price is the event loop's rule: what runs on this thread must not
// block. Handlers and `done` callbacks that may wait for anything (another
// call, a lock held across a call, a long computation) hand their work to a
// pool.
//
// Tags: everything handed to gRPC as a tag is an RpcLoop::Tag; the loop
// calls its OnEvent(ok) with gRPC's `ok`.
//
// Shutdown: Shutdown() stops accepting new operations (StartOp returns
// false), shuts the queue down, and waits (bounded) until every pending
// operation has completed. Operations must be started through StartOp so
// that none is started on a queue that is shut down (gRPC aborts then).

#include <functional>
#include <memory>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "grpcpp/completion_queue.h"

namespace tributary {

class RpcLoop {
 public:
  class Tag {
   public:
    virtual ~Tag() = default;
    virtual void OnEvent(bool ok) = 0;
  };

  // A loop for a server: `cq` comes from ServerBuilder::AddCompletionQueue.
  // Start() once the server is built.
  explicit RpcLoop(std::unique_ptr<grpc::ServerCompletionQueue> cq);
  // A loop for client calls only, already running.
  static std::shared_ptr<RpcLoop> NewClientLoop();
  // The process's loop for client calls of processes without a server of
  // their own (tools, tests): created on first use, never shut down.
  static std::shared_ptr<RpcLoop> SharedClientLoop();

  RpcLoop(const RpcLoop&) = delete;
  RpcLoop& operator=(const RpcLoop&) = delete;
  // Shuts down (as Shutdown with a 5 s bound) if that was not done. May
  // run on the loop's own thread (a completion dropping the last owner):
  // the thread then drains the queue and exits on its own.
  ~RpcLoop();

  void Start();

  // The queue, for starting operations inside StartOp.
  grpc::CompletionQueue* cq() { return cq_.get(); }
  // The same, typed for RequestCall.
  grpc::ServerCompletionQueue* server_cq() { return server_cq_; }

  // Runs `start` (which starts gRPC operations on cq()) unless the loop is
  // shutting down; false when it did not run. Never call it from inside
  // `start` (the lock is not reentrant).
  bool StartOp(const std::function<void()>& start);

  // Stops accepting operations, shuts the queue down, and waits until the
  // loop has drained every pending operation or `deadline` passed. A server
  // using the queue must be shut down first. After a timeout the thread and
  // the queue are left to the process's exit (never freed under them).
  void Shutdown(absl::Time deadline);

  // True on the thread of any RpcLoop.
  static bool OnLoopThread();

 private:
  RpcLoop(std::shared_ptr<grpc::CompletionQueue> cq,
          grpc::ServerCompletionQueue* server_cq);

  // Shared with the thread, which may outlive this object (a Shutdown that
  // timed out, or the last owner let go on the loop's own thread).
  std::shared_ptr<grpc::CompletionQueue> cq_;
  grpc::ServerCompletionQueue* const server_cq_;
  std::thread thread_;
  std::shared_ptr<absl::Notification> drained_;
  absl::Mutex mu_;
  bool accepting_ ABSL_GUARDED_BY(mu_) = true;
  bool shut_down_ = false;  // Shutdown() ran (owner's thread only).
};

}  // namespace tributary

#endif  // TRIBUTARY_COMMON_RPC_RPC_LOOP_H_
