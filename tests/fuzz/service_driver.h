#ifndef TRIBUTARY_TESTS_FUZZ_SERVICE_DRIVER_H_
#define TRIBUTARY_TESTS_FUZZ_SERVICE_DRIVER_H_

// Drives an RpcService's handlers in this process the way GrpcServer does for
// a call off the network (common/rpc/rpc_service.h), without sockets: the
// request's bytes go to the method's handler, which decodes them, works and
// Finishes the call from whichever thread. The service fuzzers send every
// MasterService and WorkerService method fuzzed bytes this way.
//
// A fuzz input is a sequence of calls, each
//     [method: 1 byte][length: 2 bytes, little-endian][request: length bytes]
// (the last call takes what is left when its length runs past the end), so
// one input can create a session and then run steps in it.
//
// Handles the service makes up (a master's session handles, a worker's graph
// handles: 16 hex digits) cannot be guessed by a fuzzer, so a request may
// name one by a marker of the same length: kSessionMarker or kGraphMarker
// followed by a digit d, replaced in the raw bytes by the (d mod n)-th handle
// the input's earlier calls got. Same length: the bytes around stay valid.

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "common/rpc/rpc_service.h"
#include "google/protobuf/message.h"
#include "grpcpp/support/byte_buffer.h"
#include "grpcpp/support/status.h"

namespace tributary {
namespace fuzz {

inline constexpr absl::string_view kSessionMarker = "~~~~~~~session~";
inline constexpr absl::string_view kGraphMarker = "~~~~~~~~~graph~";

// Calls per fuzz input, at most: enough to make a session, use it and
// close it; more only slows every input down.
inline constexpr int kMaxCallsPerInput = 8;

struct FuzzCall {
  int method = 0;
  std::string request;
};

// The calls of a fuzz input, at most `max_calls`.
std::vector<FuzzCall> SplitCalls(const uint8_t* data, size_t size,
                                 int max_calls);

// Appends one call in the input format (for seed corpora). `request` is
// serialised as it is; put a marker where a handle goes.
void AppendCall(int method, const google::protobuf::Message& request,
                std::string* input);
// The marker naming the `index`-th handle (index < 10).
std::string Marker(absl::string_view kind, int index);

// Replaces every `marker_prefix` + digit in `bytes` by a handle of
// `handles` (all 16 bytes long); unchanged when `handles` is empty.
void ReplaceMarkers(absl::string_view marker_prefix,
                    const std::vector<std::string>& handles,
                    std::string* bytes);

struct CallResult {
  grpc::Status status;
  grpc::ByteBuffer response;
};

// Calls `path` ("/tensorflow.MasterService/RunStep") of `service` with
// `request` and a deadline `timeout` from now, and waits for its Finish. At
// the deadline the call is cancelled, as gRPC cancels a call whose deadline
// passed; a call not Finished 30 s later is a hang: the process aborts. A
// path the service does not serve is UNIMPLEMENTED, as GrpcServer answers.
CallResult CallInProcess(const RpcService& service, const std::string& path,
                         const std::string& request, absl::Duration timeout);

// Parses `result`'s response as `message`; false when the call failed or
// the bytes are not one.
bool ParseResponse(const CallResult& result,
                   google::protobuf::Message* message);

// Aborts when a call's gRPC status is one a handler must never give a bad
// request (UNKNOWN, INTERNAL, DATA_LOSS), or an error without a message.
void CheckCallStatus(const std::string& path, const grpc::Status& status);

}  // namespace fuzz
}  // namespace tributary

#endif  // TRIBUTARY_TESTS_FUZZ_SERVICE_DRIVER_H_
