#ifndef TRIBUTARY_COMMON_RENDEZVOUS_RENDEZVOUS_UTIL_H_
#define TRIBUTARY_COMMON_RENDEZVOUS_RENDEZVOUS_UTIL_H_

// Feeding and fetching through a rendezvous: how a session or worker hands
// feeds to client-terminated _Recv nodes and collects what client-terminated
// _Send nodes produce (the rendezvous alternative to _Arg/_Retval).

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "common/kernel/allocator_attributes.h"
#include "common/framework/tensor.h"
#include "common/rendezvous/intra_process_rendezvous.h"
#include "common/rendezvous/rendezvous.h"

namespace tributary {

// Sends tensors[i] under keys[i] (full key strings). `alloc_attrs` is empty
// (defaults) or one per key. InvalidArgument for mismatched sizes, a null
// rendezvous or a malformed key; otherwise the first Send error.
absl::Status SendTensorsToRendezvous(
    RendezvousInterface* rendezvous, absl::Span<const std::string> keys,
    absl::Span<const Tensor> tensors,
    absl::Span<const AllocatorAttributes> alloc_attrs = {});

// Receives keys[i] into (*received)[i] (resized to keys.size()); `done`
// runs exactly once, after every receive has completed, with the first
// error. A dead value is InvalidArgument ("The tensor returned for <key> was
// not valid."), as in TensorFlow. `received` must stay alive until `done`.
void RecvOutputsFromRendezvousAsync(
    RendezvousInterface* rendezvous, absl::Span<const std::string> keys,
    std::vector<Tensor>* received, StatusCallback done,
    const RendezvousInterface::Args& args = RendezvousInterface::Args());

// Synchronous form. Each receive waits at most `timeout_ms` (> 0), or until
// the rendezvous is aborted / args.cancellation_manager is cancelled.
absl::Status RecvOutputsFromRendezvous(
    RendezvousInterface* rendezvous, absl::Span<const std::string> keys,
    std::vector<Tensor>* received, int64_t timeout_ms,
    const RendezvousInterface::Args& args = RendezvousInterface::Args());

}  // namespace tributary

#endif  // TRIBUTARY_COMMON_RENDEZVOUS_RENDEZVOUS_UTIL_H_
