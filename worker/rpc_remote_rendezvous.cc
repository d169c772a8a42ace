#include "worker/rpc_remote_rendezvous.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "common/distributed/call_options.h"
#include "common/distributed/tensor_messages.h"
#include "common/distributed/worker_interface.h"
#include "common/framework/derived_status.h"
#include "common/framework/status.h"
#include "common/kernel/cancellation.h"
#include "worker/worker_metrics.h"

namespace tributary {
namespace {

// One RecvTensor call in flight, owned jointly by the rendezvous's table
// (so StartAbort can cancel it) and by the call's callbacks.
struct RemoteCall {
  CallOptions opts;
  tensorflow::RecvTensorRequest request;
  TensorResponse response;
  CancellationManager* cm = nullptr;  // The receiver's; not owned.
  CancellationToken token = CancellationManager::kInvalidToken;
  int64_t start_micros = 0;
};

int64_t NowMicros() { return absl::ToUnixMicros(absl::Now()); }

}  // namespace

struct RpcRemoteRendezvous::RemoteState {
  mutable absl::Mutex mu;
  absl::Status status ABSL_GUARDED_BY(mu);
  absl::Time deadline ABSL_GUARDED_BY(mu) = absl::InfiniteFuture();
  std::shared_ptr<WorkerCacheInterface> worker_cache ABSL_GUARDED_BY(mu);
  bool record_transfers ABSL_GUARDED_BY(mu) = false;
  tensorflow::StepStats transfers ABSL_GUARDED_BY(mu);
  absl::flat_hash_map<RemoteCall*, std::shared_ptr<RemoteCall>> calls
      ABSL_GUARDED_BY(mu);
};

RpcRemoteRendezvous::RpcRemoteRendezvous(const WorkerEnv* env, int64_t step_id)
    : env_(env), step_id_(step_id), remote_(std::make_shared<RemoteState>()) {
  // A malformed task name leaves task_ empty, which matches every device:
  // everything is then received locally (a worker without peers).
  DeviceNameUtils::ParseFullName(env_->task_name, &task_);
}

RpcRemoteRendezvous::~RpcRemoteRendezvous() {
  // Calls still in flight hold only the shared state; cancel them so their
  // receivers are released rather than left to the deadline.
  StartAbort(errors::Cancelled("Rendezvous of step ", step_id_, " deleted"));
}

void RpcRemoteRendezvous::SetDeadline(absl::Time deadline) {
  absl::MutexLock l(&remote_->mu);
  remote_->deadline = deadline;
}

void RpcRemoteRendezvous::SetWorkerCache(
    std::shared_ptr<WorkerCacheInterface> cache) {
  absl::MutexLock l(&remote_->mu);
  remote_->worker_cache = std::move(cache);
}

void RpcRemoteRendezvous::set_record_transfers(bool on) {
  absl::MutexLock l(&remote_->mu);
  remote_->record_transfers = on;
}

tensorflow::StepStats RpcRemoteRendezvous::TakeTransferStats() {
  absl::MutexLock l(&remote_->mu);
  tensorflow::StepStats out;
  out.Swap(&remote_->transfers);
  return out;
}

absl::Status RpcRemoteRendezvous::status() const {
  absl::MutexLock l(&remote_->mu);
  return remote_->status;
}

int RpcRemoteRendezvous::NumRemoteCallsInFlight() const {
  absl::MutexLock l(&remote_->mu);
  return static_cast<int>(remote_->calls.size());
}

absl::Status RpcRemoteRendezvous::Send(const ParsedKey& key,
                                       const Args& send_args,
                                       const Tensor& value, bool is_dead) {
  // Only this task's devices produce tensors here; a key naming another
  // task's device would sit in this table where no peer ever looks.
  if (!IsDeviceOfTask(key.src, task_)) {
    return errors::InvalidArgument(
        "Invalid rendezvous key (src): ", key.FullKey(),
        " is not sent by a device of ", env_->task_name);
  }
  return local_.Send(key, send_args, value, is_dead);
}

void RpcRemoteRendezvous::RecvAsync(const ParsedKey& key, const Args& recv_args,
                                    DoneCallback done) {
  if (IsDeviceOfTask(key.src, task_)) {
    local_.RecvAsync(key, recv_args, std::move(done));
    return;
  }
  RecvFromRemoteAsync(key, recv_args, std::move(done));
}

void RpcRemoteRendezvous::RecvFromRemoteAsync(const ParsedKey& key,
                                              const Args& recv_args,
                                              DoneCallback done) {
  auto fail = [&](const absl::Status& s) {
    done(s, Args(), recv_args, Tensor(), false);
  };
  std::shared_ptr<WorkerCacheInterface> session_cache;
  {
    absl::MutexLock l(&remote_->mu);
    session_cache = remote_->worker_cache;
  }
  WorkerCacheInterface* const cache =
      session_cache != nullptr ? session_cache.get() : env_->worker_cache;
  if (cache == nullptr) {
    fail(errors::Internal("Worker ", env_->task_name,
                          " has no worker cache to receive ", key.FullKey(),
                          " from ", key.src_device));
    return;
  }
  absl::StatusOr<std::shared_ptr<WorkerInterface>> peer =
      cache->GetWorker(key.src_device);
  if (!peer.ok()) {
    fail(errors::Create(peer.status().code(), "Cannot receive ", key.FullKey(),
                        " from its sender: ", peer.status().message()));
    return;
  }
  std::shared_ptr<WorkerInterface> worker = *std::move(peer);

  auto call = std::make_shared<RemoteCall>();
  call->request.set_step_id(step_id_);
  call->request.set_rendezvous_key(std::string(key.FullKey()));
  call->start_micros = NowMicros();
  absl::Status aborted;
  {
    absl::MutexLock l(&remote_->mu);
    aborted = remote_->status;
    if (aborted.ok()) {
      call->opts.SetDeadline(remote_->deadline);
      remote_->calls.emplace(call.get(), call);
    }
  }
  if (!aborted.ok()) {
    fail(aborted);
    return;
  }
  if (recv_args.cancellation_manager != nullptr) {
    call->cm = recv_args.cancellation_manager;
    call->token = call->cm->get_cancellation_token();
    // The hook only cancels the call; its completion below reports.
    if (!call->cm->RegisterCallback(call->token,
                                    [call] { call->opts.StartCancel(); })) {
      call->cm = nullptr;
      {
        absl::MutexLock l(&remote_->mu);
        remote_->calls.erase(call.get());
      }
      fail(errors::Cancelled("RecvAsync is cancelled."));
      return;
    }
  }

  std::shared_ptr<RemoteState> state = remote_;
  const std::string dst_device(key.dst_device);
  std::string peer_task;
  DeviceNameUtils::GetTaskName(key.src, &peer_task);
  worker->RecvTensorAsync(
      &call->opts, &call->request, &call->response,
      [state, call, worker, recv_args, dst_device, parsed_key = key,
       peer_task = std::move(peer_task),
       done = std::move(done)](const absl::Status& rpc_status) {
        if (call->cm != nullptr) {
          // Never waits: the hook may be what is completing this call.
          call->cm->TryDeregisterCallback(call->token);
        }
        absl::Status s = rpc_status;
        {
          absl::MutexLock l(&state->mu);
          state->calls.erase(call.get());
          // A call cancelled by an abort reports the abort's cause, not the
          // transport's "Cancelled". Any other error is the sender's (its
          // step failed, it is gone): passed on, so marked as derived and the
          // master reports the sender's own error in its place.
          if (!s.ok()) {
            s = state->status.ok() ? errors::MarkDerived(s) : state->status;
          }
          if (s.ok() && state->record_transfers) {
            tensorflow::DeviceStepStats* dev = nullptr;
            for (auto& d : *state->transfers.mutable_dev_stats()) {
              if (d.device() == dst_device) dev = &d;
            }
            if (dev == nullptr) {
              dev = state->transfers.add_dev_stats();
              dev->set_device(dst_device);
            }
            tensorflow::NodeExecStats* ns = dev->add_node_stats();
            const int64_t end = NowMicros();
            ns->set_node_name("RecvTensor");
            ns->set_all_start_micros(call->start_micros);
            ns->set_op_end_rel_micros(end - call->start_micros);
            // When the sender had the value (its clock; the same host's on
            // loopback): before it, the call waited for the producer, after
            // it the bytes moved.
            const int64_t sent = call->response.send_start_micros;
            if (sent > 0) {
              ns->set_op_start_rel_micros(std::clamp<int64_t>(
                  sent - call->start_micros, 0, end - call->start_micros));
            }
            ns->set_all_end_rel_micros(end - call->start_micros);
            ns->set_timeline_label(absl::StrCat(
                "RecvTensor ", call->request.rendezvous_key(), " (",
                call->response.tensor.TotalBytes(), " bytes)"));
          }
        }
        if (!s.ok()) {
          done(s, Args(), recv_args, Tensor(), false);
          return;
        }
        WorkerMetrics::Get()
            .recv_tensor_bytes->With({peer_task})
            ->Increment(
                static_cast<double>(call->response.tensor.TotalBytes()));
        Args send_args;
        // The value arrived in host memory (the transport's allocator).
        send_args.alloc_attrs.set_on_host(true);
        if (call->response.is_dead || ReceiverIsOnHost(parsed_key, recv_args)) {
          done(s, send_args, recv_args, call->response.tensor,
               call->response.is_dead);
          return;
        }
        // A receiver on a GPU: copy the value into its memory first.
        auto in_device = std::make_shared<Tensor>();
        SameProcessCopy(parsed_key, send_args, recv_args, call->response.tensor,
                        in_device.get(),
                        [done, send_args, recv_args,
                         in_device](const absl::Status& copied) {
                          done(copied, send_args, recv_args,
                               copied.ok() ? *in_device : Tensor(), false);
                        });
      });
}

void RpcRemoteRendezvous::StartAbort(const absl::Status& status) {
  const absl::Status s =
      status.ok() ? errors::Internal("StartAbort called with an OK status")
                  : status;
  std::vector<std::shared_ptr<RemoteCall>> calls;
  {
    absl::MutexLock l(&remote_->mu);
    if (remote_->status.ok()) remote_->status = s;
    calls.reserve(remote_->calls.size());
    for (auto& [ptr, call] : remote_->calls) calls.push_back(call);
  }
  local_.StartAbort(s);
  // Outside the lock: a cancelled call may complete on this thread.
  for (auto& call : calls) call->opts.StartCancel();
}

}  // namespace tributary
