#ifndef TRIBUTARY_TOOLS_CLIENT_SESSION_H_
#define TRIBUTARY_TOOLS_CLIENT_SESSION_H_

// The client entry point: a Session (common/runtime/session/session.h) for a
// target string, as tf.compat.v1.Session(target) chooses its runtime.
//
//   auto session = NewSession("", config);          // in this process
//   TRIB_RETURN_IF_ERROR((*session)->Create(graph_def));
//   std::vector<Tensor> out;
//   TRIB_RETURN_IF_ERROR((*session)->Run({{"x", x}}, {"y"}, {}, &out));
//
// Targets:
//   ""  or "local"     the local session: this process's CPU devices
//                      (config.device_count {"CPU": N}), no network;
//   "grpc://host:port" a Tributary (or TensorFlow) master: the session's
//                      graph lives there and steps run on the cluster's
//                      workers (grpc_session.h: deadlines, errors). `config`
//                      goes to the master with CreateSession.
// Anything else is InvalidArgument.

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "common/runtime/session/session.h"
#include "tools/client/grpc_session.h"
#include "protos/config.pb.h"

namespace tributary {

// `credentials`: for grpc:// targets (TLS, token); ignored for local ones.
absl::StatusOr<std::unique_ptr<Session>> NewSession(
    const std::string& target,
    const tensorflow::ConfigProto& config = tensorflow::ConfigProto(),
    ClientCredentials credentials = ClientCredentials());

}  // namespace tributary

#endif  // TRIBUTARY_TOOLS_CLIENT_SESSION_H_
