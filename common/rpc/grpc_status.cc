#include "common/rpc/grpc_status.h"

#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "protos/distributed_runtime_payloads.pb.h"

namespace tributary {
namespace {

// Keeps the start of the message, where the op and node are named.
std::string TruncatedMessage(absl::string_view message) {
  if (message.size() <= kMaxGrpcStatusMessageBytes) return std::string(message);
  constexpr absl::string_view kMarker = "...[truncated]";
  return absl::StrCat(
      message.substr(0, kMaxGrpcStatusMessageBytes - kMarker.size()), kMarker);
}

constexpr absl::string_view kSizeHintMarker = "--max-message-size";

}  // namespace

std::string WithMessageSizeHint(absl::string_view message) {
  const bool size_error =
      absl::StrContains(message, "message larger than max (");
  if (!size_error || absl::StrContains(message, kSizeHintMarker)) {
    return std::string(message);
  }
  return absl::StrCat(
      message,
      " [bytes vs. the gRPC message size limit; the limit is "
      "--max-message-size of tributary-master and tributary-worker (default "
      "1 GiB, -1: unlimited up to gRPC's 2 GiB) and the client's own "
      "(GrpcSessionOptions::max_message_size); see docs/limits.md]");
}

grpc::Status ToGrpcStatus(const absl::Status& status) {
  if (status.ok()) return grpc::Status::OK;
  const int code = static_cast<int>(status.code());
  // Both enums carry gRPC's canonical numbers 1..16; anything else (absl's
  // reserved value) has no gRPC meaning.
  const grpc::StatusCode grpc_code =
      (code >= 1 && code <= 16) ? static_cast<grpc::StatusCode>(code)
                                : grpc::StatusCode::UNKNOWN;
  tensorflow::distributed_runtime::GrpcPayloadContainer payloads;
  status.ForEachPayload([&payloads](absl::string_view url,
                                    const absl::Cord& payload) {
    (*payloads.mutable_payloads())[std::string(url)] = std::string(payload);
  });
  if (payloads.payloads().empty()) {
    return grpc::Status(grpc_code, TruncatedMessage(status.message()));
  }
  return grpc::Status(grpc_code, TruncatedMessage(status.message()),
                      payloads.SerializeAsString());
}

absl::Status FromGrpcStatus(const grpc::Status& status) {
  if (status.ok()) return absl::OkStatus();
  const int code = static_cast<int>(status.error_code());
  const absl::StatusCode absl_code = (code >= 1 && code <= 16)
                                         ? static_cast<absl::StatusCode>(code)
                                         : absl::StatusCode::kUnknown;
  // absl::Status(code, "") with a non-OK code stays an error; keep it that way
  // even when the peer sent no message.
  absl::Status out(absl_code,
                   absl_code == absl::StatusCode::kResourceExhausted
                       ? WithMessageSizeHint(status.error_message())
                       : status.error_message());
  tensorflow::distributed_runtime::GrpcPayloadContainer payloads;
  if (!status.error_details().empty() &&
      payloads.ParseFromString(status.error_details())) {
    for (const auto& [url, payload] : payloads.payloads()) {
      out.SetPayload(url, absl::Cord(payload));
    }
  }
  return out;
}

}  // namespace tributary
