// Conversion between absl::Status and grpc::Status at the RPC boundary.
// Both use gRPC's canonical code numbers; the mapping is still explicit so a
// code outside the canonical range becomes UNKNOWN rather than a bad enum.
// An error's payloads (e.g. errors::MarkDerived's) travel in the gRPC
// status's error_details as TensorFlow's GrpcPayloadContainer; details that
// are not such a container are ignored.
#ifndef TRIBUTARY_COMMON_RPC_GRPC_STATUS_H_
#define TRIBUTARY_COMMON_RPC_GRPC_STATUS_H_

#include <cstddef>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "grpcpp/support/status.h"

namespace tributary {

// gRPC (and proxies) cap the size of the status message in trailers; longer
// messages are truncated to this many bytes with a marker, like TensorFlow.
inline constexpr size_t kMaxGrpcStatusMessageBytes = 3072;

grpc::Status ToGrpcStatus(const absl::Status& status);
// gRPC's own "Received/Sent message larger than max (N vs. L)"
// (ResourceExhausted) gets a hint naming the limit's flag,
// --max-message-size, so the user knows what to raise.
absl::Status FromGrpcStatus(const grpc::Status& status);

// `message` with that hint when it is gRPC's message size error; as it is
// otherwise.
std::string WithMessageSizeHint(absl::string_view message);

}  // namespace tributary

#endif  // TRIBUTARY_COMMON_RPC_GRPC_STATUS_H_
