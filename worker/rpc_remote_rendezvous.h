#ifndef TRIBUTARY_WORKER_RPC_REMOTE_RENDEZVOUS_H_
#define TRIBUTARY_WORKER_RPC_REMOTE_RENDEZVOUS_H_

// The rendezvous of one step on one worker (TensorFlow's
// RpcRemoteRendezvous, core/distributed_runtime/rpc/
// rpc_rendezvous_mgr.cc; transfers are driven by the receiver):
//
//  * Send is always local: a _Send (or a RunGraph feed) puts its tensor in
//    this worker's table and never blocks. A peer that needs it asks with
//    RecvTensor, which the worker answers from this same table
//    (Worker::RecvTensorAsync), so the transfer is driven by the receiver.
//  * RecvAsync of a key whose src_device is on this task is a local receive
//    (IntraProcessRendezvous, with its device-to-device copy hook).
//    Otherwise it calls RecvTensorAsync on the sending task's
//    WorkerInterface (WorkerCacheInterface::GetWorker(src_device)) and
//    completes the receiver's callback from the response.
//  * StartAbort fails everything pending and later, locally, and cancels
//    every RecvTensor call in flight (their CallOptions), so a step that
//    fails or is cleaned up never leaves a _Recv waiting on a peer.
//
// Every remote call carries the step's deadline (SetDeadline, which
// RunGraph sets from its own call's deadline before the executors start)
// and is also cancelled when the receiver's cancellation manager (the
// step's) fires. Thread-safe.

#include <cstdint>
#include <memory>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "common/device/device_name_utils.h"
#include "common/rendezvous/intra_process_rendezvous.h"
#include "common/rendezvous/rendezvous.h"
#include "protos/step_stats.pb.h"
#include "worker/worker_env.h"

namespace tributary {

class RpcRemoteRendezvous : public RendezvousInterface {
 public:
  // `env` must outlive the rendezvous and every call it starts.
  RpcRemoteRendezvous(const WorkerEnv* env, int64_t step_id);
  ~RpcRemoteRendezvous() override;

  // Deadline of the RecvTensor calls started from now on
  // (absl::InfiniteFuture(): none; abort still cancels them).
  void SetDeadline(absl::Time deadline);
  // Where this step's receives find their senders: the step's session's own
  // view of the cluster (WorkerSession::worker_cache) instead of the
  // worker's env->worker_cache. Set before the step's executors start.
  void SetWorkerCache(std::shared_ptr<WorkerCacheInterface> cache);

  // When on, every remote receive adds a NodeExecStats record ("RecvTensor":
  // the key, bytes, start and duration) under its receiving device, which
  // TakeTransferStats returns; the worker's Logging service shows them
  // with the step's stats.
  void set_record_transfers(bool on);
  // The records so far (cleared).
  tensorflow::StepStats TakeTransferStats();

  absl::Status Send(const ParsedKey& key, const Args& send_args,
                    const Tensor& value, bool is_dead) override;
  void RecvAsync(const ParsedKey& key, const Args& recv_args,
                 DoneCallback done) override;
  void StartAbort(const absl::Status& status) override;

  int64_t step_id() const { return step_id_; }
  // OK, or the status this rendezvous was aborted with.
  absl::Status status() const;
  // RecvTensor calls in flight (for tests).
  int NumRemoteCallsInFlight() const;

  // Shared with the callbacks of remote calls, which may finish after the
  // rendezvous is gone.
  struct RemoteState;

 private:
  void RecvFromRemoteAsync(const ParsedKey& key, const Args& recv_args,
                           DoneCallback done);

  const WorkerEnv* const env_;
  const int64_t step_id_;
  DeviceNameUtils::ParsedName task_;
  IntraProcessRendezvous local_;
  const std::shared_ptr<RemoteState> remote_;
};

}  // namespace tributary

#endif  // TRIBUTARY_WORKER_RPC_REMOTE_RENDEZVOUS_H_
