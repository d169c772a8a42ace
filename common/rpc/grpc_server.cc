#include "common/rpc/grpc_server.h"

#include <netdb.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <optional>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "common/framework/status.h"
#include "common/metrics/metrics.h"
#include "common/rpc/grpc_channel.h"
#include "grpc/grpc_security_constants.h"
#include "grpcpp/alarm.h"
#include "grpcpp/security/auth_context.h"
#include "grpcpp/security/server_credentials.h"
#include "grpcpp/server_builder.h"
#include "grpcpp/server_context.h"

namespace tributary {
namespace {

// Splits "host:port" / "[v6]:port"; false when there is no port.
bool SplitHostPort(const std::string& address, std::string* host,
                   std::string* port) {
  const size_t colon = address.rfind(':');
  if (colon == std::string::npos || colon + 1 == address.size()) return false;
  *host = address.substr(0, colon);
  *port = address.substr(colon + 1);
  if (host->size() >= 2 && host->front() == '[' && host->back() == ']') {
    *host = host->substr(1, host->size() - 2);
  }
  return true;
}

// gRPC only logs why a bind failed; try it ourselves to say why in the
// error ("Address already in use", "Cannot assign requested address").
std::string WhyBindFails(const std::string& address) {
  std::string host, port;
  int port_number;
  if (!SplitHostPort(address, &host, &port) ||
      !absl::SimpleAtoi(port, &port_number) || port_number < 0 ||
      port_number > 65535) {
    return "not a host:port address";
  }
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE;
  addrinfo* result = nullptr;
  const int rc = getaddrinfo(host.empty() ? nullptr : host.c_str(),
                             port.c_str(), &hints, &result);
  if (rc != 0)
    return absl::StrCat("cannot resolve '", host, "': ", gai_strerror(rc));
  std::string why = "unknown reason (see the gRPC log)";
  for (addrinfo* ai = result; ai != nullptr; ai = ai->ai_next) {
    const int fd = socket(ai->ai_family, ai->ai_socktype, ai->ai_protocol);
    if (fd < 0) continue;
    const int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    const bool failed = bind(fd, ai->ai_addr, ai->ai_addrlen) != 0;
    const int err = errno;
    close(fd);
    if (failed) {
      why = std::strerror(err);
      break;
    }
  }
  freeaddrinfo(result);
  return why;
}

// Who the call is from: transport security from the auth context, the
// bearer token from the metadata.
RpcCaller CallerOf(const grpc::GenericServerContext& context) {
  RpcCaller caller;
  caller.address = context.peer();
  const std::shared_ptr<const grpc::AuthContext> auth = context.auth_context();
  if (auth != nullptr) {
    for (const grpc::string_ref& type :
         auth->FindPropertyValues(GRPC_TRANSPORT_SECURITY_TYPE_PROPERTY_NAME)) {
      // "ssl" from SslServerCredentials, "tls" from TlsServerCredentials.
      if (type == GRPC_SSL_TRANSPORT_SECURITY_TYPE ||
          type == GRPC_TLS_TRANSPORT_SECURITY_TYPE) {
        caller.tls = true;
      }
    }
    for (const grpc::string_ref& subject :
         auth->FindPropertyValues(GRPC_X509_SUBJECT_PROPERTY_NAME)) {
      caller.certificate_subject.assign(subject.data(), subject.size());
    }
  }
  const auto& metadata = context.client_metadata();
  auto it = metadata.find("authorization");
  if (it != metadata.end()) {
    constexpr absl::string_view kBearer = "Bearer ";
    absl::string_view value(it->second.data(), it->second.size());
    if (absl::StartsWith(value, kBearer)) {
      caller.bearer_token = std::string(value.substr(kBearer.size()));
    }
  }
  return caller;
}

std::string ByteBufferToString(const grpc::ByteBuffer& buffer) {
  std::vector<grpc::Slice> slices;
  (void)buffer.Dump(&slices);
  std::string out;
  for (const grpc::Slice& slice : slices) {
    out.append(reinterpret_cast<const char*>(slice.begin()), slice.size());
  }
  return out;
}

// Every call served, when it ends (the daemons' /metrics). Each method's
// cells are looked up once and kept, so recording a call allocates nothing.
class ServerRpcMetrics {
 public:
  static ServerRpcMetrics& Get() {
    static ServerRpcMetrics* metrics = new ServerRpcMetrics;
    return *metrics;
  }

  void Record(const std::string& method, grpc::StatusCode code,
              absl::Time started) {
    if (!metrics::RecordingEnabled()) return;
    MethodCells* cells = CellsOf(method);
    const int index = std::clamp(static_cast<int>(code), 0, kCodes - 1);
    metrics::CounterCell* handled = cells->handled[index].load();
    if (handled == nullptr) {
      handled = handled_->With(
          {method,
           absl::StatusCodeToString(static_cast<absl::StatusCode>(code))});
      cells->handled[index].store(handled);
    }
    handled->Increment();
    cells->seconds->Observe(absl::ToDoubleSeconds(absl::Now() - started));
  }

 private:
  static constexpr int kCodes = 17;  // OK .. UNAUTHENTICATED
  struct MethodCells {
    metrics::HistogramCell* seconds = nullptr;
    std::atomic<metrics::CounterCell*> handled[kCodes] = {};
  };

  ServerRpcMetrics()
      : handled_(metrics::Default().Counter(
            "tributary_rpc_server_handled_total",
            "RPCs the server completed, by method and status code.",
            {"method", "code"})),
        seconds_(metrics::Default().Histogram(
            "tributary_rpc_server_handling_seconds",
            "Seconds from a call's arrival to its end, by method.", {"method"},
            metrics::LatencyBuckets())) {}

  MethodCells* CellsOf(const std::string& method) {
    {
      absl::ReaderMutexLock l(&mu_);
      auto it = by_method_.find(method);
      if (it != by_method_.end()) return it->second.get();
    }
    absl::MutexLock l(&mu_);
    std::unique_ptr<MethodCells>& cells = by_method_[method];
    if (cells == nullptr) {
      cells = std::make_unique<MethodCells>();
      cells->seconds = seconds_->With({method});
    }
    return cells.get();
  }

  metrics::CounterFamily* const handled_;
  metrics::HistogramFamily* const seconds_;
  absl::Mutex mu_;
  absl::flat_hash_map<std::string, std::unique_ptr<MethodCells>> by_method_
      ABSL_GUARDED_BY(mu_);
};

bool IsLoopbackHost(const std::string& host) {
  return host == "localhost" || host == "::1" || absl::StartsWith(host, "127.");
}

}  // namespace

// One served call: request -> read -> handler -> Finish -> done. gRPC hands
// its events to the loop as the call's Step tags. The call is freed when
// both its finish and gRPC's "done" notification have arrived (either may
// come first: a cancelled call is done before the handler finishes it).
class GrpcServer::Call final : public RpcServerCall {
 public:
  explicit Call(GrpcServer* server) : server_(server) {}
  ~Call() override {
    if (given_service_) server_->CallToGivenServiceEnded();
  }

  // Asks gRPC for the next incoming call.
  void Request() {
    const bool started = server_->loop_->StartOp([this] {
      context_.AsyncNotifyWhenDone(&done_);
      server_->generic_.RequestCall(&context_, &stream_,
                                    server_->loop_->server_cq(),
                                    server_->loop_->server_cq(), &requested_);
    });
    if (!started) delete this;
  }

  const grpc::ByteBuffer& request() const override { return request_; }
  // Read off the context on first use: only authentication asks, so the
  // RecvTensor and RunGraph path never pays for it.
  const RpcCaller& caller() const override {
    if (!caller_.has_value()) caller_ = CallerOf(context_);
    return *caller_;
  }
  std::string peer() const override {
    return caller_.has_value() ? caller_->address : context_.peer();
  }
  CallOptions* opts() override { return &opts_; }

  void Finish(const grpc::Status& status, grpc::ByteBuffer response) override {
    RecordMetrics(status);
    response_ = std::move(response);
    const bool started = server_->loop_->StartOp([&] {
      if (status.ok()) {
        stream_.WriteAndFinish(response_, grpc::WriteOptions(), status,
                               &finished_);
      } else {
        stream_.Finish(status, &finished_);
      }
    });
    // The queue is shut down only after the server, whose shutdown waits for
    // every call to finish; so this cannot fail for a started call.
    if (!started) finished_.OnEvent(false);
  }

 private:
  // Routes one gRPC event to a member function.
  struct Step : RpcLoop::Tag {
    Step(Call* call, void (Call::*on)(bool)) : call(call), on(on) {}
    void OnEvent(bool ok) override { (call->*on)(ok); }
    Call* call;
    void (Call::*on)(bool);
  };

  void OnRequested(bool ok) {
    if (!ok) {  // Server shutting down: no call, and no "done" will come.
      delete this;
      return;
    }
    server_->RequestNextCall();
    if (metrics::RecordingEnabled()) started_ = absl::Now();
    const auto deadline = context_.deadline();
    if (deadline != std::chrono::system_clock::time_point::max()) {
      opts_.SetDeadline(absl::FromChrono(deadline));
    }
    server_->loop_->StartOp([this] { stream_.Read(&request_, &read_); });
  }

  void OnRead(bool ok) {
    if (stream_handler_ != nullptr) {
      OnStreamRead(ok);
      return;
    }
    bool given = false;
    const RpcHandler* handler = server_->FindHandler(context_.method(), &given);
    known_method_ = handler != nullptr;
    if (handler == nullptr) {
      stream_handler_ = server_->FindStreamHandler(context_.method());
      known_method_ = stream_handler_ != nullptr;
      if (stream_handler_ != nullptr) {
        OnStreamRead(ok);
        return;
      }
      polling_ = server_->FindPollingStream(context_.method());
      known_method_ = polling_ != nullptr;
      if (polling_ != nullptr) {
        if (ok) {
          Poll();
        } else {
          FinishStream(grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                                    "The call ended before its request"));
        }
        return;
      }
    }
    if (!ok) {
      Finish(grpc::Status(grpc::StatusCode::INTERNAL,
                          "The call ended before its request message arrived"),
             grpc::ByteBuffer());
      return;
    }
    if (handler == nullptr) {
      Finish(grpc::Status(grpc::StatusCode::UNIMPLEMENTED,
                          absl::StrCat("Tributary does not implement ",
                                       context_.method())),
             grpc::ByteBuffer());
      return;
    }
    if (given) {
      given_service_ = true;
      server_->given_calls_in_flight_.fetch_add(1, std::memory_order_relaxed);
    }
    (*handler)(this);
  }

  // A stream (RpcStreamHandler): each message read is answered, then the
  // next is read, until the client's half-close (a failed read) ends it.
  void OnStreamRead(bool ok) {
    if (!ok) {
      FinishStream(grpc::Status::OK);
      return;
    }
    const grpc::Status answered = (*stream_handler_)(request_, &response_);
    if (!answered.ok()) {
      FinishStream(answered);
      return;
    }
    if (!server_->loop_->StartOp([this] {
          stream_.Write(response_, grpc::WriteOptions(), &written_);
        })) {
      finished_.OnEvent(false);
    }
  }

  void OnStreamWritten(bool ok) {
    if (!ok) {  // The call broke (cancelled, connection gone).
      FinishStream(grpc::Status(grpc::StatusCode::CANCELLED,
                                "The stream's response could not be sent"));
      return;
    }
    if (polling_ != nullptr) {
      if (last_) {
        FinishStream(grpc::Status::OK);
      } else {
        WaitToPoll();
      }
      return;
    }
    if (!server_->loop_->StartOp([this] { stream_.Read(&request_, &read_); })) {
      finished_.OnEvent(false);
    }
  }

  // A polling stream (RpcPollingStream): poll, write what changed, wait a
  // period, poll again.
  void Poll() {
    if (context_.IsCancelled()) {
      FinishStream(grpc::Status(grpc::StatusCode::CANCELLED, "Cancelled"));
      return;
    }
    grpc::ByteBuffer response;
    const grpc::Status polled = polling_->poll(request_, &response, &last_);
    if (!polled.ok()) {
      FinishStream(polled);
      return;
    }
    std::string bytes = ByteBufferToString(response);
    if (bytes == last_written_ && !last_) {
      WaitToPoll();
      return;
    }
    if (bytes == last_written_) {  // Ending, nothing new to say.
      FinishStream(grpc::Status::OK);
      return;
    }
    last_written_ = std::move(bytes);
    response_ = std::move(response);
    if (!server_->loop_->StartOp([this] {
          stream_.Write(response_, grpc::WriteOptions(), &written_);
        })) {
      finished_.OnEvent(false);
    }
  }

  void WaitToPoll() {
    const auto when = absl::ToChronoTime(absl::Now() + polling_->period);
    if (alarm_ == nullptr) alarm_ = std::make_unique<grpc::Alarm>();
    if (!server_->loop_->StartOp([&] {
          alarm_->Set(server_->loop_->server_cq(), when, &polled_);
        })) {
      finished_.OnEvent(false);
    }
  }

  void OnPollDue(bool) { Poll(); }

  void FinishStream(const grpc::Status& status) {
    RecordMetrics(status);
    if (!server_->loop_->StartOp([&] { stream_.Finish(status, &finished_); })) {
      finished_.OnEvent(false);
    }
  }

  // Calls to methods this server does not have are counted as one method,
  // "unknown": a client must not grow the metrics with names of its own.
  void RecordMetrics(const grpc::Status& status) {
    static const std::string* const kUnknown = new std::string("unknown");
    ServerRpcMetrics::Get().Record(
        known_method_ ? context_.method() : *kUnknown, status.error_code(),
        started_);
  }

  void OnFinished(bool) { Release(); }

  void OnDone(bool) {
    // Cancellation hooks never block (they cancel calls, abort rendezvous).
    if (context_.IsCancelled()) opts_.StartCancel();
    Release();
  }

  void Release() {
    if (--pending_ == 0) delete this;
  }

  GrpcServer* const server_;
  grpc::GenericServerContext context_;
  grpc::GenericServerAsyncReaderWriter stream_{&context_};
  grpc::ByteBuffer request_;
  grpc::ByteBuffer response_;
  mutable std::optional<RpcCaller> caller_;
  CallOptions opts_;
  absl::Time started_;          // when gRPC handed the call over
  bool known_method_ = false;   // a handler of this server serves it
  bool given_service_ = false;  // counted in given_calls_in_flight_
  const RpcStreamHandler* stream_handler_ = nullptr;  // null: a unary call
  const RpcPollingStream* polling_ = nullptr;
  bool last_ = false;         // the poll said the stream ends
  std::string last_written_;  // what the polling stream last wrote
  // Made for polling streams only: an Alarm allocates, and unary calls
  // (RunGraph, RecvTensor) should not pay for it.
  std::unique_ptr<grpc::Alarm> alarm_;
  int pending_ = 2;  // Finished + done; only touched on the loop thread.
  Step requested_{this, &Call::OnRequested};
  Step read_{this, &Call::OnRead};
  Step written_{this, &Call::OnStreamWritten};
  Step polled_{this, &Call::OnPollDue};
  Step finished_{this, &Call::OnFinished};
  Step done_{this, &Call::OnDone};
};

GrpcServer::GrpcServer(int64_t max_message_bytes,
                       std::shared_ptr<grpc::ServerCredentials> credentials)
    : credentials_(credentials != nullptr ? std::move(credentials)
                                          : grpc::InsecureServerCredentials()) {
  ServerRpcMetrics::Get();  // listed from the start
  ConfigureServerBuilder(&builder_, max_message_bytes);
  builder_.RegisterAsyncGenericService(&generic_);
  loop_ = std::make_shared<RpcLoop>(builder_.AddCompletionQueue());
}

GrpcServer::~GrpcServer() {
  if (server_ != nullptr && !shut_down_) Shutdown();
  loop_->Shutdown(absl::Now() + absl::Seconds(5));
  server_.reset();
}

absl::Status GrpcServer::Start(const std::string& listen_address,
                               const std::vector<const RpcService*>& services) {
  std::string host, port_text;
  if (!SplitHostPort(listen_address, &host, &port_text)) {
    return errors::InvalidArgument("Cannot listen on '", listen_address,
                                   "': want host:port");
  }
  if (services.empty()) {
    return errors::InvalidArgument("A gRPC server on ", listen_address,
                                   " needs at least one service");
  }
  if (server_ != nullptr) {
    return errors::FailedPrecondition("The server on ", address_,
                                      " is already started");
  }
  services_ = services;
  num_given_services_ = services.size();
  std::vector<std::string> names;
  for (const RpcService* service : services) names.push_back(service->name());
  health_ = std::make_unique<HealthStatus>(names);
  names.push_back(kHealthServiceName);
  reflection_ = std::make_unique<ServerReflection>(std::move(names));
  own_services_ = ServerReflection::Services(reflection_.get());
  own_services_.push_back(NewHealthService(health_.get()));
  for (const RpcService& service : own_services_) services_.push_back(&service);
  builder_.AddListeningPort(listen_address, credentials_, &port_);
  if (!plaintext_request_.empty()) {
    builder_.AddListeningPort(plaintext_request_,
                              grpc::InsecureServerCredentials(),
                              &plaintext_port_);
  }
  server_ = builder_.BuildAndStart();
  if (server_ == nullptr || port_ == 0 ||
      (!plaintext_request_.empty() && plaintext_port_ == 0)) {
    if (server_ != nullptr) {
      server_->Shutdown();
      shut_down_ = true;
    }
    const std::string failed = port_ == 0 ? listen_address : plaintext_request_;
    return errors::Unavailable("Cannot listen on ", failed, ": ",
                               WhyBindFails(failed));
  }
  if (!plaintext_request_.empty()) {
    plaintext_address_ =
        plaintext_request_.substr(0, plaintext_request_.rfind(':') + 1) +
        std::to_string(plaintext_port_);
  }
  address_ = listen_address.substr(0, listen_address.rfind(':') + 1) +
             std::to_string(port_);
  loop_->Start();
  SetServing(true);
  // A few requests outstanding, so a burst of calls does not wait for the
  // loop to ask for each one.
  for (int i = 0; i < 4; ++i) RequestNextCall();
  return absl::OkStatus();
}

absl::Status GrpcServer::AddPlaintextLoopbackPort(
    const std::string& loopback_address) {
  std::string host, port;
  if (!SplitHostPort(loopback_address, &host, &port)) {
    return errors::InvalidArgument("Cannot listen on '", loopback_address,
                                   "': want host:port");
  }
  if (!IsLoopbackHost(host)) {
    return errors::InvalidArgument(
        "A plaintext port serves this host only: '", loopback_address,
        "' is not a loopback address (127.0.0.1, ::1 or localhost)");
  }
  if (server_ != nullptr) {
    return errors::FailedPrecondition("The server on ", address_,
                                      " is already started");
  }
  plaintext_request_ = loopback_address;
  return absl::OkStatus();
}

void GrpcServer::SetServing(bool serving) {
  if (health_ != nullptr) health_->SetServing(serving);
}

void GrpcServer::RequestNextCall() { (new Call(this))->Request(); }

const RpcHandler* GrpcServer::FindHandler(absl::string_view path,
                                          bool* given) const {
  for (size_t i = 0; i < services_.size(); ++i) {
    if (const RpcHandler* handler = services_[i]->Find(path)) {
      *given = i < num_given_services_;
      return handler;
    }
  }
  return nullptr;
}

void GrpcServer::CallToGivenServiceEnded() {
  if (given_calls_in_flight_.fetch_sub(1, std::memory_order_acq_rel) == 1 &&
      draining_.load(std::memory_order_acquire)) {
    absl::MutexLock lock(&drain_mu_);
    drained_.SignalAll();
  }
}

const RpcStreamHandler* GrpcServer::FindStreamHandler(
    absl::string_view path) const {
  for (const RpcService* service : services_) {
    if (const RpcStreamHandler* handler = service->FindStream(path)) {
      return handler;
    }
  }
  return nullptr;
}

const RpcPollingStream* GrpcServer::FindPollingStream(
    absl::string_view path) const {
  for (const RpcService* service : services_) {
    if (const RpcPollingStream* stream = service->FindPollingStream(path)) {
      return stream;
    }
  }
  return nullptr;
}

void GrpcServer::Shutdown(absl::Time deadline) {
  if (server_ == nullptr || shut_down_) return;
  shut_down_ = true;
  // NOT_SERVING for good: watchers are told and their calls end (within a
  // poll period) instead of holding the shutdown up until `deadline`.
  if (health_ != nullptr) health_->Shutdown();
  // Drain while still accepting calls, so Check answers NOT_SERVING (after
  // gRPC's shutdown a probe would only be refused) and the steps running
  // here can still be served what they need. The count is re-read under the
  // mutex the last call's end signals under, so no wake-up is lost.
  draining_.store(true, std::memory_order_release);
  {
    absl::MutexLock lock(&drain_mu_);
    while (given_calls_in_flight_.load(std::memory_order_acquire) > 0 &&
           !drained_.WaitWithDeadline(&drain_mu_, deadline)) {
    }
  }
  server_->Shutdown(absl::ToChronoTime(deadline));
}

absl::StatusOr<GrpcServerHandle> StartGrpcServer(
    const std::string& listen_address,
    const std::vector<const RpcService*>& services, int64_t max_message_bytes) {
  auto server = std::make_unique<GrpcServer>(max_message_bytes);
  TRIB_RETURN_IF_ERROR(server->Start(listen_address, services));
  GrpcServerHandle handle;
  handle.port = server->port();
  handle.address = server->address();
  handle.server = std::move(server);
  return handle;
}

}  // namespace tributary
