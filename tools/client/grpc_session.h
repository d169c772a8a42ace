#ifndef TRIBUTARY_TOOLS_CLIENT_GRPC_SESSION_H_
#define TRIBUTARY_TOOLS_CLIENT_GRPC_SESSION_H_

// A Session whose runtime is a master reached over gRPC ("grpc://host:port"),
// Tributary's or TensorFlow's: TensorFlow's GrpcSession, our own code.
//
//   Create / Extend -> CreateSession / ExtendSession (the graph travels
//                      whole on Create; Extend sends only the new nodes with
//                      the graph version the master last returned);
//   Run             -> RunStep, written and read through the generic gRPC
//                      API with tensor coding (common/rpc/tensor_coding.h):
//                      feeds are serialised straight from the tensors'
//                      buffers and fetches decoded straight into tensors,
//                      never through TensorProto;
//   ListDevices     -> ListDevices (every device of the cluster; works before
//                      Create, with no session);
//   Close           -> CloseSession, then cancels RunSteps still in flight.
//
// Errors: the master's own status (gRPC status, or the RunStep response body:
// every RunStep asks for store_errors_in_response_body, as TensorFlow's
// client does, so the code and message survive proxies that rewrite
// statuses). A master that cannot be reached gives Unavailable naming its
// address.
//
// Deadlines (every RPC has one):
//   RunStep:    RunOptions.timeout_in_ms, else ConfigProto.
//               operation_timeout_in_ms, plus kDeadlineMargin (the master
//               enforces the bound itself and should be the one to report
//               it, with the node that was running); with neither,
//               kDefaultRunStepTimeout.
//   the others: operation_timeout_in_ms plus kDeadlineMargin, else
//               kDefaultControlTimeout.
// A master that died mid-call is noticed sooner than that by the channel's
// keepalive (common/rpc/grpc_channel.h).
//
// Thread-safety: as Session's. Run may be called concurrently with itself
// and with ListDevices; Create/Extend serialise on the graph version.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "common/rpc/grpc_channel.h"
#include "common/rpc/transport_security.h"
#include "common/runtime/session/session.h"
#include "grpcpp/channel.h"
#include "grpcpp/client_context.h"
#include "grpcpp/generic/generic_stub.h"
#include "protos/config.pb.h"
#include "protos/master_service.grpc.pb.h"

namespace tributary {

// RunStep with no timeout of its own. Long, because a training step may
// legitimately take long; a master that died is caught by keepalive first.
inline constexpr absl::Duration kDefaultRunStepTimeout = absl::Hours(24);
// CreateSession, ExtendSession, ListDevices, CloseSession with no
// operation_timeout_in_ms. Longer than the master's default worker-discovery
// bound (30 s, tributary-master --discovery-timeout) so that the master's
// Unavailable naming the task that did not answer arrives before our own
// deadline does.
inline constexpr absl::Duration kDefaultControlTimeout = absl::Seconds(60);
// Added to a timeout the master enforces, so its DeadlineExceeded (naming
// what was running) reaches us rather than a bare client-side expiry.
inline constexpr absl::Duration kDeadlineMargin = absl::Seconds(5);

// A client's credentials for a master: TLS (the CA the master's certificate
// chains to, optionally a client certificate; null: plaintext) and a bearer
// token for a master started with --auth-tokens (empty: none), sent as
// "authorization: Bearer TOKEN" with every call.
struct ClientCredentials {
  std::shared_ptr<TransportSecurity> transport;
  std::string token;
};

struct GrpcSessionOptions {
  // "grpc://host:port" (the scheme is required).
  std::string target;
  // Largest gRPC message sent or received, in bytes (feeds and fetches of
  // one step travel in one message); -1: unlimited (gRPC's own cap is
  // 2 GiB). Match the master's --max-message-size.
  int64_t max_message_size = kDefaultMaxMessageBytes;
  // Sent to the master with CreateSession; operation_timeout_in_ms also sets
  // our deadlines (see above).
  tensorflow::ConfigProto config;
  // Overridable for tests; production code keeps the defaults above.
  absl::Duration default_run_step_timeout = kDefaultRunStepTimeout;
  absl::Duration default_control_timeout = kDefaultControlTimeout;
  absl::Duration deadline_margin = kDeadlineMargin;
  // How to reach the master and who we are to it.
  ClientCredentials credentials;
};

// "grpc://host:port" -> "host:port". InvalidArgument for another scheme or
// an empty address.
absl::StatusOr<std::string> GrpcTargetAddress(const std::string& target);

class GrpcSession : public Session {
 public:
  // Checks the target and opens a channel (lazily connected: an unreachable
  // master shows at the first call).
  static absl::StatusOr<std::unique_ptr<GrpcSession>> New(
      GrpcSessionOptions options);
  // Close()s the master session if it is still open.
  ~GrpcSession() override;

  absl::Status Create(const tensorflow::GraphDef& graph) override;
  absl::Status Extend(const tensorflow::GraphDef& graph) override;
  using Session::Run;
  absl::Status Run(const tensorflow::RunOptions& run_options,
                   const NamedTensorList& inputs,
                   const std::vector<std::string>& output_tensor_names,
                   const std::vector<std::string>& target_node_names,
                   std::vector<Tensor>* outputs,
                   tensorflow::RunMetadata* run_metadata) override;
  absl::StatusOr<std::vector<tensorflow::DeviceAttributes>> ListDevices()
      override;
  absl::Status Close() override;

  // The master's handle for this session; empty before the first non-empty
  // Create/Extend and after Close.
  std::string handle() const;

 private:
  GrpcSession(GrpcSessionOptions options, std::string address,
              std::shared_ptr<grpc::Channel> channel);

  // CreateSession (no session yet) or ExtendSession. Holds graph_mu_.
  absl::Status CreateOrExtend(const tensorflow::GraphDef& graph);

  // Deadline for a call bounded by `timeout_ms` (RunOptions) when positive,
  // else by config.operation_timeout_in_ms, else `fallback`.
  absl::Duration CallTimeout(int64_t timeout_ms, absl::Duration fallback) const;
  // Sets `context`'s deadline to now + `timeout` and adds the token.
  void PrepareContext(grpc::ClientContext* context,
                      absl::Duration timeout) const;
  // A context with that deadline, registered so Close can cancel it.
  std::unique_ptr<grpc::ClientContext> NewContext(absl::Duration timeout);
  void ForgetContext(grpc::ClientContext* context);

  // A failed call's status: the master's, or Unavailable naming the address
  // when the master could not be reached at all.
  absl::Status CallError(const grpc::Status& status, absl::string_view method,
                         absl::Duration timeout) const;

  // Fails with Cancelled after Close, InvalidArgument before a graph.
  absl::StatusOr<std::string> HandleForRun() const;

  const GrpcSessionOptions options_;
  const std::string address_;
  const std::shared_ptr<grpc::Channel> channel_;
  const std::unique_ptr<tensorflow::MasterService::Stub> stub_;
  // RunStep goes through the generic API so its tensors bypass protobuf.
  const std::unique_ptr<grpc::GenericStub> generic_stub_;

  // Serialises Create/Extend: the graph version must advance in order.
  absl::Mutex graph_mu_ ABSL_ACQUIRED_BEFORE(mu_);
  mutable absl::Mutex mu_;
  std::string handle_ ABSL_GUARDED_BY(mu_);
  int64_t graph_version_ ABSL_GUARDED_BY(mu_) = 0;
  bool closed_ ABSL_GUARDED_BY(mu_) = false;
  // Calls in flight, cancelled by Close.
  absl::flat_hash_set<grpc::ClientContext*> in_flight_ ABSL_GUARDED_BY(mu_);
};

}  // namespace tributary

#endif  // TRIBUTARY_TOOLS_CLIENT_GRPC_SESSION_H_
