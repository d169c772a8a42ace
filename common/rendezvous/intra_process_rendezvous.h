#ifndef TRIBUTARY_COMMON_RENDEZVOUS_INTRA_PROCESS_RENDEZVOUS_H_
#define TRIBUTARY_COMMON_RENDEZVOUS_INTRA_PROCESS_RENDEZVOUS_H_

#include <functional>

#include "absl/status/status.h"
#include "common/framework/tensor.h"
#include "common/rendezvous/local_rendezvous.h"
#include "common/rendezvous/rendezvous.h"

namespace tributary {

// Makes the sender's tensor `in` usable on the receiving device: fills *out
// and calls `done` exactly once (possibly later, e.g. after a DMA). The key
// names both devices; the Args carry each side's memory attributes and
// device context.
using SameProcessCopyFn = std::function<void(
    const RendezvousParsedKey& key,
    const RendezvousInterface::Args& send_args,
    const RendezvousInterface::Args& recv_args, const Tensor& in, Tensor* out,
    StatusCallback done)>;

// True when the sender's value is in host memory: the source device is a
// CPU, or the sender said so (on_host, e.g. a _HostSend on a GPU).
bool SenderIsOnHost(const RendezvousParsedKey& key,
                    const RendezvousInterface::Args& send_args);
// Likewise for where the receiver wants it.
bool ReceiverIsOnHost(const RendezvousParsedKey& key,
                      const RendezvousInterface::Args& recv_args);

// The default copy, through the devices' DeviceContexts
// (common/kernel/device_context.h):
//  * host to host needs no copy at all: *out shares `in`'s buffer, exactly
//    TensorFlow's same-worker shortcut;
//  * device memory to host: the sender's device context copies it out;
//  * host to device memory: the receiver's device context copies it in;
//  * one device's memory to the same device: shared, like host to host;
//  * between two devices: out to host through the sender's context, then
//    in through the receiver's.
// Unimplemented when the side that owns device memory has no context;
// InvalidArgument for a dtype that cannot be copied byte for byte.
void SameProcessCopy(const RendezvousParsedKey& key,
                     const RendezvousInterface::Args& send_args,
                     const RendezvousInterface::Args& recv_args,
                     const Tensor& in, Tensor* out, StatusCallback done);

// The rendezvous of one step inside one process (the local session, or the
// device-to-device half of a worker): a LocalRendezvous whose receivers get
// the value through the copy hook, so a tensor produced on one device
// arrives in memory the receiving device can use. Errors and dead values
// skip the copy. Thread-safe.
class IntraProcessRendezvous : public RendezvousInterface {
 public:
  // `copy` defaults to SameProcessCopy.
  explicit IntraProcessRendezvous(SameProcessCopyFn copy = nullptr);
  ~IntraProcessRendezvous() override;

  absl::Status Send(const ParsedKey& key, const Args& send_args,
                    const Tensor& value, bool is_dead) override;
  void RecvAsync(const ParsedKey& key, const Args& recv_args,
                 DoneCallback done) override;
  void StartAbort(const absl::Status& status) override;

  absl::Status status() const { return local_.status(); }

 private:
  const SameProcessCopyFn copy_;
  LocalRendezvous local_;
};

}  // namespace tributary

#endif  // TRIBUTARY_COMMON_RENDEZVOUS_INTRA_PROCESS_RENDEZVOUS_H_
