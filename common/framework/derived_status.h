#ifndef TRIBUTARY_COMMON_FRAMEWORK_DERIVED_STATUS_H_
#define TRIBUTARY_COMMON_FRAMEWORK_DERIVED_STATUS_H_

// The mark of an error that was passed on: a consequence of another task's
// failure (a RecvTensor answered with the sender's error), so that whoever
// gathers the errors of a step (the master, a worker's executor barrier)
// reports the original one. The mark is a status payload with TensorFlow's
// URL (its StatusGroup skips statuses carrying it the same way), and it
// crosses gRPC in the status's error_details (common/rpc/grpc_status.h).

#include "absl/status/status.h"
#include "absl/strings/cord.h"
#include "absl/strings/string_view.h"

namespace tributary {
namespace errors {

inline constexpr absl::string_view kDerivedStatusUrl =
    "type.googleapis.com/tensorflow.DerivedStatus";

// `status` with the mark (OK stays OK).
inline absl::Status MarkDerived(absl::Status status) {
  if (!status.ok()) status.SetPayload(kDerivedStatusUrl, absl::Cord());
  return status;
}

inline bool IsMarkedDerived(const absl::Status& status) {
  return !status.ok() && status.GetPayload(kDerivedStatusUrl).has_value();
}

// Whether `status` is a consequence of another failure rather than one of
// its own: a cancellation or abort (what a step's other parts report once
// the first failure stopped it) or an error marked as passed on. Whoever
// gathers several errors reports a failure of its own before these.
inline bool IsFallout(const absl::Status& status) {
  return absl::IsCancelled(status) || absl::IsAborted(status) ||
         IsMarkedDerived(status);
}

}  // namespace errors
}  // namespace tributary

#endif  // TRIBUTARY_COMMON_FRAMEWORK_DERIVED_STATUS_H_
