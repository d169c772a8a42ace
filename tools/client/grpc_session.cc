#include "tools/client/grpc_session.h"

#include <limits>
#include <random>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "common/framework/allocator.h"
#include "common/framework/status.h"
#include "common/rpc/grpc_channel.h"
#include "common/rpc/grpc_status.h"
#include "common/rpc/tensor_coding.h"
#include "common/rpc/unary_call.h"
#include "grpcpp/generic/generic_stub.h"
#include "grpcpp/support/byte_buffer.h"
#include "protos/master.pb.h"

namespace tributary {
namespace {

constexpr char kScheme[] = "grpc://";
constexpr char kRunStepMethod[] = "/tensorflow.MasterService/RunStep";
// How long Close waits for cancelled calls to return. They return promptly
// once cancelled; this only bounds a gRPC that would not.
constexpr absl::Duration kCloseDrainTimeout = absl::Seconds(30);

// A random positive id per RunStep, as TensorFlow's client sends, so a
// master can recognise a retried request.
int64_t NewRequestId() {
  thread_local std::mt19937_64 gen{std::random_device{}()};
  return std::uniform_int_distribution<int64_t>(
      1, std::numeric_limits<int64_t>::max())(gen);
}

std::string Milliseconds(absl::Duration d) {
  return absl::StrCat(absl::ToInt64Milliseconds(d), " ms");
}

}  // namespace

absl::StatusOr<std::string> GrpcTargetAddress(const std::string& target) {
  if (!absl::StartsWith(target, kScheme)) {
    return errors::InvalidArgument("Session target '", target,
                                   "' is not of the form grpc://host:port");
  }
  std::string address = target.substr(sizeof(kScheme) - 1);
  // TensorFlow's targets may end in '/'; the address does not.
  while (!address.empty() && address.back() == '/') address.pop_back();
  if (address.empty()) {
    return errors::InvalidArgument("Session target '", target,
                                   "' names no host:port");
  }
  return address;
}

absl::StatusOr<std::unique_ptr<GrpcSession>> GrpcSession::New(
    GrpcSessionOptions options) {
  TRIB_ASSIGN_OR_RETURN(std::string address, GrpcTargetAddress(options.target));
  std::shared_ptr<grpc::Channel> channel =
      NewGrpcChannel(address, options.max_message_size,
                     options.credentials.transport != nullptr
                         ? options.credentials.transport->ChannelCredentials()
                         : nullptr);
  return std::unique_ptr<GrpcSession>(new GrpcSession(
      std::move(options), std::move(address), std::move(channel)));
}

GrpcSession::GrpcSession(GrpcSessionOptions options, std::string address,
                         std::shared_ptr<grpc::Channel> channel)
    : options_(std::move(options)),
      address_(std::move(address)),
      channel_(std::move(channel)),
      stub_(tensorflow::MasterService::NewStub(channel_)),
      generic_stub_(std::make_unique<grpc::GenericStub>(channel_)) {}

GrpcSession::~GrpcSession() { Close().IgnoreError(); }

std::string GrpcSession::handle() const {
  absl::MutexLock l(&mu_);
  return handle_;
}

absl::Duration GrpcSession::CallTimeout(int64_t timeout_ms,
                                        absl::Duration fallback) const {
  if (timeout_ms > 0) {
    return absl::Milliseconds(timeout_ms) + options_.deadline_margin;
  }
  if (options_.config.operation_timeout_in_ms() > 0) {
    return absl::Milliseconds(options_.config.operation_timeout_in_ms()) +
           options_.deadline_margin;
  }
  return fallback;
}

void GrpcSession::PrepareContext(grpc::ClientContext* context,
                                 absl::Duration timeout) const {
  context->set_deadline(absl::ToChronoTime(absl::Now() + timeout));
  if (!options_.credentials.token.empty()) {
    context->AddMetadata("authorization",
                         "Bearer " + options_.credentials.token);
  }
}

std::unique_ptr<grpc::ClientContext> GrpcSession::NewContext(
    absl::Duration timeout) {
  auto context = std::make_unique<grpc::ClientContext>();
  PrepareContext(context.get(), timeout);
  absl::MutexLock l(&mu_);
  in_flight_.insert(context.get());
  return context;
}

void GrpcSession::ForgetContext(grpc::ClientContext* context) {
  absl::MutexLock l(&mu_);
  in_flight_.erase(context);
}

absl::Status GrpcSession::CallError(const grpc::Status& status,
                                    absl::string_view method,
                                    absl::Duration timeout) const {
  const grpc::StatusCode code = status.error_code();
  if (code == grpc::StatusCode::UNAVAILABLE ||
      code == grpc::StatusCode::DEADLINE_EXCEEDED) {
    // The master's own Unavailable (a worker it cannot reach) and
    // DeadlineExceeded (a step over its bound) come over a working
    // connection; with none, the master itself is the problem.
    if (channel_->GetState(/*try_to_connect=*/false) != GRPC_CHANNEL_READY) {
      return errors::Unavailable("Cannot reach the master at ", address_, " (",
                                 method, "): ", status.error_message());
    }
    if (code == grpc::StatusCode::DEADLINE_EXCEEDED &&
        status.error_message() == "Deadline Exceeded") {
      // gRPC's own expiry: the master never answered.
      return errors::DeadlineExceeded(method, " to the master at ", address_,
                                      " did not complete within ",
                                      Milliseconds(timeout));
    }
  }
  if (code == grpc::StatusCode::CANCELLED) {
    absl::MutexLock l(&mu_);
    if (closed_) return errors::Cancelled("Session has been closed.");
  }
  return FromGrpcStatus(status);
}

absl::StatusOr<std::string> GrpcSession::HandleForRun() const {
  absl::MutexLock l(&mu_);
  if (closed_) return errors::Cancelled("Session has been closed.");
  if (handle_.empty()) {
    return errors::InvalidArgument(
        "Session was not created with a graph before Run()!");
  }
  return handle_;
}

absl::Status GrpcSession::Create(const tensorflow::GraphDef& graph) {
  absl::MutexLock gl(&graph_mu_);
  {
    absl::MutexLock l(&mu_);
    if (closed_) return errors::Cancelled("Session has been closed.");
    if (!handle_.empty()) {
      return errors::AlreadyExists(
          "A Graph has already been created for this session.");
    }
  }
  // As the local session: an empty graph leaves the session without one
  // (and without a master session until there is a graph to send).
  if (graph.node_size() == 0) return absl::OkStatus();
  return CreateOrExtend(graph);
}

absl::Status GrpcSession::Extend(const tensorflow::GraphDef& graph) {
  absl::MutexLock gl(&graph_mu_);
  {
    absl::MutexLock l(&mu_);
    if (closed_) return errors::Cancelled("Session has been closed.");
  }
  if (graph.node_size() == 0) return absl::OkStatus();
  return CreateOrExtend(graph);
}

absl::Status GrpcSession::CreateOrExtend(const tensorflow::GraphDef& graph) {
  std::string handle;
  int64_t version;
  {
    absl::MutexLock l(&mu_);
    handle = handle_;
    version = graph_version_;
  }
  const absl::Duration timeout =
      CallTimeout(0, options_.default_control_timeout);

  if (handle.empty()) {
    tensorflow::CreateSessionRequest request;
    *request.mutable_graph_def() = graph;
    *request.mutable_config() = options_.config;
    request.set_target(options_.target);
    tensorflow::CreateSessionResponse response;
    std::unique_ptr<grpc::ClientContext> context = NewContext(timeout);
    const grpc::Status status =
        stub_->CreateSession(context.get(), request, &response);
    ForgetContext(context.get());
    if (!status.ok()) return CallError(status, "CreateSession", timeout);
    if (response.session_handle().empty()) {
      return errors::Internal("The master at ", address_,
                              " returned an empty session handle");
    }
    bool closed_meanwhile;
    {
      absl::MutexLock l(&mu_);
      closed_meanwhile = closed_;
      if (!closed_) {
        handle_ = response.session_handle();
        graph_version_ = response.graph_version();
      }
    }
    if (closed_meanwhile) {
      // Close ran while CreateSession was in flight: release the session it
      // made rather than leave it to the master's idle collection.
      tensorflow::CloseSessionRequest close;
      close.set_session_handle(response.session_handle());
      tensorflow::CloseSessionResponse ignored;
      grpc::ClientContext close_context;
      PrepareContext(&close_context, timeout);
      stub_->CloseSession(&close_context, close, &ignored);
      return errors::Cancelled("Session has been closed.");
    }
    return absl::OkStatus();
  }

  tensorflow::ExtendSessionRequest request;
  request.set_session_handle(handle);
  *request.mutable_graph_def() = graph;
  request.set_current_graph_version(version);
  tensorflow::ExtendSessionResponse response;
  std::unique_ptr<grpc::ClientContext> context = NewContext(timeout);
  const grpc::Status status =
      stub_->ExtendSession(context.get(), request, &response);
  ForgetContext(context.get());
  if (!status.ok()) return CallError(status, "ExtendSession", timeout);
  absl::MutexLock l(&mu_);
  graph_version_ = response.new_graph_version();
  return absl::OkStatus();
}

absl::Status GrpcSession::Run(
    const tensorflow::RunOptions& run_options, const NamedTensorList& inputs,
    const std::vector<std::string>& output_tensor_names,
    const std::vector<std::string>& target_node_names,
    std::vector<Tensor>* outputs, tensorflow::RunMetadata* run_metadata) {
  TRIB_ASSIGN_OR_RETURN(std::string handle, HandleForRun());
  if (outputs == nullptr && !output_tensor_names.empty()) {
    return errors::InvalidArgument("Run: fetches given but no outputs vector");
  }

  // Each distinct fetch once; duplicates are filled in from the first.
  tensorflow::RunStepRequest request;
  request.set_session_handle(handle);
  absl::flat_hash_map<std::string, int> fetch_index;
  for (int i = 0; i < static_cast<int>(output_tensor_names.size()); ++i) {
    if (fetch_index.emplace(output_tensor_names[i], i).second) {
      request.add_fetch(output_tensor_names[i]);
    }
  }
  for (const std::string& target : target_node_names) {
    request.add_target(target);
  }
  *request.mutable_options() = run_options;
  request.set_store_errors_in_response_body(true);
  request.set_request_id(NewRequestId());

  grpc::ByteBuffer request_buffer;
  EncodeWithNamedTensors(request, kRunStepRequestFeedField, inputs,
                         &request_buffer);

  const absl::Duration timeout = CallTimeout(run_options.timeout_in_ms(),
                                             options_.default_run_step_timeout);
  std::unique_ptr<grpc::ClientContext> context = NewContext(timeout);
  grpc::ByteBuffer response_buffer;
  // Completes by the context's deadline at the latest.
  const grpc::Status call_status =
      UnaryCallOnThisThread(generic_stub_.get(), context.get(), kRunStepMethod,
                            request_buffer, &response_buffer);
  ForgetContext(context.get());
  if (!call_status.ok()) return CallError(call_status, "RunStep", timeout);

  tensorflow::RunStepResponse response;
  NamedTensors fetched;
  TRIB_RETURN_IF_ERROR(errors::PrependToMessage(
      DecodeWithNamedTensors(response_buffer, kRunStepResponseTensorField,
                             cpu_allocator(), &response, &fetched),
      "Malformed RunStepResponse from the master at ", address_, ": "));
  // The master's error, kept in the body when gRPC's status says OK.
  if (response.status_code() != tensorflow::error::OK) {
    return absl::Status(FromErrorCode(response.status_code()),
                        response.status_error_message());
  }

  if (outputs != nullptr) {
    outputs->clear();
    outputs->resize(output_tensor_names.size());
    std::vector<bool> filled(output_tensor_names.size(), false);
    for (auto& [name, tensor] : fetched) {
      auto it = fetch_index.find(name);
      if (it == fetch_index.end()) {
        return errors::Internal("The master at ", address_,
                                " returned unrequested fetch '", name, "'");
      }
      (*outputs)[it->second] = std::move(tensor);
      filled[it->second] = true;
    }
    for (int i = 0; i < static_cast<int>(output_tensor_names.size()); ++i) {
      const int first = fetch_index[output_tensor_names[i]];
      if (!filled[first]) {
        return errors::Internal("The master at ", address_,
                                " returned no value for fetch '",
                                output_tensor_names[i], "'");
      }
      if (first != i) (*outputs)[i] = (*outputs)[first];
    }
  }
  if (run_metadata != nullptr) run_metadata->Swap(response.mutable_metadata());
  return absl::OkStatus();
}

absl::StatusOr<std::vector<tensorflow::DeviceAttributes>>
GrpcSession::ListDevices() {
  tensorflow::ListDevicesRequest request;
  {
    absl::MutexLock l(&mu_);
    if (closed_) return errors::Cancelled("Session has been closed.");
    // Empty before Create: the master then lists the whole cluster.
    request.set_session_handle(handle_);
  }
  const absl::Duration timeout =
      CallTimeout(0, options_.default_control_timeout);
  tensorflow::ListDevicesResponse response;
  std::unique_ptr<grpc::ClientContext> context = NewContext(timeout);
  const grpc::Status status =
      stub_->ListDevices(context.get(), request, &response);
  ForgetContext(context.get());
  if (!status.ok()) return CallError(status, "ListDevices", timeout);
  std::vector<tensorflow::DeviceAttributes> devices;
  devices.reserve(response.local_device_size() + response.remote_device_size());
  for (const auto& d : response.local_device()) devices.push_back(d);
  for (const auto& d : response.remote_device()) devices.push_back(d);
  return devices;
}

absl::Status GrpcSession::Close() {
  std::string handle;
  {
    absl::MutexLock l(&mu_);
    if (closed_) return absl::OkStatus();
    closed_ = true;
    handle = handle_;
    // Steps still running end now; the master also aborts them when the
    // session closes, and cancelling here keeps Close from waiting on them.
    for (grpc::ClientContext* context : in_flight_) context->TryCancel();
  }
  absl::Status result = absl::OkStatus();
  if (!handle.empty()) {
    const absl::Duration timeout =
        CallTimeout(0, options_.default_control_timeout);
    tensorflow::CloseSessionRequest request;
    request.set_session_handle(handle);
    tensorflow::CloseSessionResponse response;
    grpc::ClientContext context;  // Not in in_flight_: nothing cancels it.
    PrepareContext(&context, timeout);
    const grpc::Status status =
        stub_->CloseSession(&context, request, &response);
    if (!status.ok()) result = CallError(status, "CloseSession", timeout);
  }
  absl::MutexLock l(&mu_);
  handle_.clear();
  // Run/ListDevices calls still returning after their cancellation.
  const absl::Condition drained(
      +[](absl::flat_hash_set<grpc::ClientContext*>* calls) {
        return calls->empty();
      },
      &in_flight_);
  if (!mu_.AwaitWithTimeout(drained, kCloseDrainTimeout) && result.ok()) {
    result = errors::DeadlineExceeded(
        "Close: calls to the master at ", address_, " did not return within ",
        Milliseconds(kCloseDrainTimeout), " of being cancelled");
  }
  return result;
}

}  // namespace tributary
