#include "common/rendezvous/rendezvous_util.h"

#include <atomic>
#include <memory>
#include <utility>

#include "absl/synchronization/mutex.h"
#include "common/framework/status.h"

namespace tributary {
namespace {

absl::Status NotValidError(absl::string_view key) {
  return errors::InvalidArgument("The tensor returned for ", key,
                                 " was not valid.");
}

// Counts outstanding receives; the last one to finish reports the first
// error.
struct RecvBarrier {
  RecvBarrier(int n, StatusCallback cb) : pending(n), done(std::move(cb)) {}

  void Finish(const absl::Status& s) {
    if (!s.ok()) {
      absl::MutexLock lock(&mu);
      if (status.ok()) status = s;
    }
    if (pending.fetch_sub(1, std::memory_order_acq_rel) == 1) {
      absl::Status final_status;
      {
        absl::MutexLock lock(&mu);
        final_status = status;
      }
      done(final_status);
    }
  }

  std::atomic<int> pending;
  StatusCallback done;
  absl::Mutex mu;
  absl::Status status ABSL_GUARDED_BY(mu);
};

}  // namespace

absl::Status SendTensorsToRendezvous(
    RendezvousInterface* rendezvous, absl::Span<const std::string> keys,
    absl::Span<const Tensor> tensors,
    absl::Span<const AllocatorAttributes> alloc_attrs) {
  if (rendezvous == nullptr) {
    return errors::InvalidArgument("Rendezvous is null.");
  }
  if (keys.size() != tensors.size()) {
    return errors::InvalidArgument("keys and tensors are not the same size: ",
                                   keys.size(), " keys, ", tensors.size(),
                                   " tensors");
  }
  if (!alloc_attrs.empty() && alloc_attrs.size() != keys.size()) {
    return errors::InvalidArgument(
        "keys and alloc_attrs are not the same size: ", keys.size(), " keys, ",
        alloc_attrs.size(), " alloc_attrs");
  }
  RendezvousParsedKey parsed;
  for (size_t i = 0; i < keys.size(); ++i) {
    RendezvousInterface::Args args;
    if (!alloc_attrs.empty()) args.alloc_attrs = alloc_attrs[i];
    TRIB_RETURN_IF_ERROR(ParseRendezvousKey(keys[i], &parsed));
    TRIB_RETURN_IF_ERROR(rendezvous->Send(parsed, args, tensors[i], false));
  }
  return absl::OkStatus();
}

void RecvOutputsFromRendezvousAsync(RendezvousInterface* rendezvous,
                                    absl::Span<const std::string> keys,
                                    std::vector<Tensor>* received,
                                    StatusCallback done,
                                    const RendezvousInterface::Args& args) {
  if (rendezvous == nullptr) {
    done(errors::InvalidArgument("Rendezvous is null."));
    return;
  }
  received->assign(keys.size(), Tensor());
  // Parse everything first so a bad key fails before any receive starts
  // (otherwise started receives would outlive the error report).
  std::vector<RendezvousParsedKey> parsed(keys.size());
  for (size_t i = 0; i < keys.size(); ++i) {
    absl::Status s = ParseRendezvousKey(keys[i], &parsed[i]);
    if (!s.ok()) {
      done(s);
      return;
    }
  }
  if (keys.empty()) {
    done(absl::OkStatus());
    return;
  }
  auto barrier =
      std::make_shared<RecvBarrier>(static_cast<int>(keys.size()), std::move(done));
  for (size_t i = 0; i < keys.size(); ++i) {
    Tensor* slot = &(*received)[i];
    rendezvous->RecvAsync(
        parsed[i], args,
        [barrier, slot, key = keys[i]](const absl::Status& s,
                                       const RendezvousInterface::Args&,
                                       const RendezvousInterface::Args&,
                                       const Tensor& value, bool is_dead) {
          absl::Status status = s;
          if (status.ok()) {
            if (is_dead) {
              status = NotValidError(key);
            } else {
              *slot = value;
            }
          }
          barrier->Finish(status);
        });
  }
}

absl::Status RecvOutputsFromRendezvous(RendezvousInterface* rendezvous,
                                       absl::Span<const std::string> keys,
                                       std::vector<Tensor>* received,
                                       int64_t timeout_ms,
                                       const RendezvousInterface::Args& args) {
  if (rendezvous == nullptr) {
    return errors::InvalidArgument("Rendezvous is null.");
  }
  received->assign(keys.size(), Tensor());
  RendezvousParsedKey parsed;
  for (size_t i = 0; i < keys.size(); ++i) {
    TRIB_RETURN_IF_ERROR(ParseRendezvousKey(keys[i], &parsed));
    bool is_dead = false;
    TRIB_RETURN_IF_ERROR(
        rendezvous->Recv(parsed, args, &(*received)[i], &is_dead, timeout_ms));
    if (is_dead) return NotValidError(keys[i]);
  }
  return absl::OkStatus();
}

}  // namespace tributary
