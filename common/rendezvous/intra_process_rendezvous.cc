#include "common/rendezvous/intra_process_rendezvous.h"

#include <memory>
#include <string>
#include <utility>

#include "common/framework/status.h"
#include "common/kernel/device_context.h"
#include "common/framework/types.h"

namespace tributary {

bool SenderIsOnHost(const RendezvousParsedKey& key,
                    const RendezvousInterface::Args& send_args) {
  return send_args.alloc_attrs.on_host() || key.src.type == "CPU";
}

bool ReceiverIsOnHost(const RendezvousParsedKey& key,
                      const RendezvousInterface::Args& recv_args) {
  return recv_args.alloc_attrs.on_host() || key.dst.type == "CPU";
}

namespace {

absl::Status NoDeviceContext(const RendezvousParsedKey& key,
                             absl::string_view device) {
  return errors::Unimplemented(
      "No copy is available in this process for tensor '", key.edge_name,
      "' from ", key.src_device, " to ", key.dst_device, ": ", device,
      " has device memory but no device context (key ", key.FullKey(), ")");
}

}  // namespace

void SameProcessCopy(const RendezvousParsedKey& key,
                     const RendezvousInterface::Args& send_args,
                     const RendezvousInterface::Args& recv_args,
                     const Tensor& in, Tensor* out, StatusCallback done) {
  const bool from_host = SenderIsOnHost(key, send_args);
  const bool to_host = ReceiverIsOnHost(key, recv_args);
  // Both sides address the same memory (the host's, or one device's):
  // share the buffer. Safe because tensors are immutable once produced
  // (ref-typed variables do not cross partitions by value).
  if ((from_host && to_host) ||
      (!from_host && !to_host && key.src_device == key.dst_device)) {
    *out = in;
    done(absl::OkStatus());
    return;
  }
  if (!DataTypeCanUseMemcpy(in.dtype())) {
    done(errors::InvalidArgument("Non-DMA-safe ", DataTypeString(in.dtype()),
                                 " tensor may not be copied from/to a "
                                 "device. Key: ",
                                 key.FullKey()));
    return;
  }
  DeviceContext* const sender = send_args.device_context;
  DeviceContext* const receiver = recv_args.device_context;
  if (!from_host && sender == nullptr) {
    done(NoDeviceContext(key, key.src_device));
    return;
  }
  if (!to_host && receiver == nullptr) {
    done(NoDeviceContext(key, key.dst_device));
    return;
  }
  if (from_host) {
    receiver->CopyHostToDevice(in, out, std::move(done));
    return;
  }
  if (to_host) {
    sender->CopyDeviceToHost(in, out, std::move(done));
    return;
  }
  // Device to another device: staged through host memory.
  auto staged = std::make_shared<Tensor>();
  sender->CopyDeviceToHost(
      in, staged.get(),
      [receiver, staged, out, done = std::move(done)](const absl::Status& s) {
        if (!s.ok()) {
          done(s);
          return;
        }
        receiver->CopyHostToDevice(*staged, out,
                                   [staged, done](const absl::Status& s2) {
                                     done(s2);
                                   });
      });
}

IntraProcessRendezvous::IntraProcessRendezvous(SameProcessCopyFn copy)
    : copy_(copy ? std::move(copy) : SameProcessCopyFn(SameProcessCopy)) {}

IntraProcessRendezvous::~IntraProcessRendezvous() = default;

absl::Status IntraProcessRendezvous::Send(const ParsedKey& key,
                                          const Args& send_args,
                                          const Tensor& value, bool is_dead) {
  return local_.Send(key, send_args, value, is_dead);
}

void IntraProcessRendezvous::RecvAsync(const ParsedKey& key,
                                       const Args& recv_args,
                                       DoneCallback done) {
  // The copy runs when the pair completes, on the completing thread; the key
  // is copied because the caller's may be gone by then.
  local_.RecvAsync(
      key, recv_args,
      [copy = copy_, key_copy = key, done = std::move(done)](
          const absl::Status& status, const Args& send_args,
          const Args& recv_args, const Tensor& in, bool is_dead) {
        // Errors and dead values carry no data to move.
        if (!status.ok() || is_dead || !in.IsInitialized()) {
          done(status, send_args, recv_args, in, is_dead);
          return;
        }
        auto out = std::make_shared<Tensor>();
        copy(key_copy, send_args, recv_args, in, out.get(),
             [out, send_args, recv_args, is_dead,
              done](const absl::Status& copy_status) {
               done(copy_status, send_args, recv_args,
                    copy_status.ok() ? *out : Tensor(), is_dead);
             });
      });
}

void IntraProcessRendezvous::StartAbort(const absl::Status& status) {
  local_.StartAbort(status);
}

}  // namespace tributary
