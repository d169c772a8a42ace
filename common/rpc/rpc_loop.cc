#include "common/rpc/rpc_loop.h"

#include <utility>

#include "spdlog/spdlog.h"

namespace tributary {
namespace {
thread_local bool on_loop_thread = false;
}  // namespace

RpcLoop::RpcLoop(std::unique_ptr<grpc::ServerCompletionQueue> cq)
    : RpcLoop(nullptr, cq.get()) {
  cq_ = std::move(cq);
}

RpcLoop::RpcLoop(std::shared_ptr<grpc::CompletionQueue> cq,
                 grpc::ServerCompletionQueue* server_cq)
    : cq_(std::move(cq)),
      server_cq_(server_cq),
      drained_(std::make_shared<absl::Notification>()) {}

std::shared_ptr<RpcLoop> RpcLoop::NewClientLoop() {
  std::shared_ptr<RpcLoop> loop(
      new RpcLoop(std::make_unique<grpc::CompletionQueue>(), nullptr));
  loop->Start();
  return loop;
}

std::shared_ptr<RpcLoop> RpcLoop::SharedClientLoop() {
  // Never destroyed: calls may complete while the process exits.
  static auto* loop = new std::shared_ptr<RpcLoop>(NewClientLoop());
  return *loop;
}

RpcLoop::~RpcLoop() {
  if (!shut_down_) Shutdown(absl::Now() + absl::Seconds(5));
}

void RpcLoop::Start() {
  // The thread touches nothing of `this`: after a timed-out Shutdown it may
  // outlive the RpcLoop.
  thread_ = std::thread([cq = cq_, drained = drained_] {
    on_loop_thread = true;
    void* tag = nullptr;
    bool ok = false;
    while (cq->Next(&tag, &ok)) static_cast<Tag*>(tag)->OnEvent(ok);
    drained->Notify();
  });
}

bool RpcLoop::StartOp(const std::function<void()>& start) {
  absl::MutexLock l(&mu_);
  if (!accepting_) return false;
  start();
  return true;
}

void RpcLoop::Shutdown(absl::Time deadline) {
  if (shut_down_) return;
  shut_down_ = true;
  {
    absl::MutexLock l(&mu_);
    accepting_ = false;
    cq_->Shutdown();
  }
  if (!thread_.joinable()) return;  // Never started: nothing pending.
  if (thread_.get_id() == std::this_thread::get_id()) {
    // Cannot wait for ourselves: the thread drains after this event.
    thread_.detach();
    return;
  }
  if (drained_->WaitForNotificationWithDeadline(deadline)) {
    thread_.join();
    return;
  }
  // Some call never completed (a peer that does not answer, no deadline).
  // The thread keeps the queue; the process is on its way out.
  spdlog::warn("gRPC calls still pending at shutdown; not waiting for them");
  thread_.detach();
}

bool RpcLoop::OnLoopThread() { return on_loop_thread; }

}  // namespace tributary
