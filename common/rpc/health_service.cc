#include "common/rpc/health_service.h"

#include "absl/strings/str_cat.h"
#include "common/rpc/tensor_coding.h"
#include "grpc/health/v1/health.pb.h"

namespace tributary {
namespace {

using ::grpc::health::v1::HealthCheckRequest;
using ::grpc::health::v1::HealthCheckResponse;

HealthCheckResponse::ServingStatus ToProto(HealthStatus::Answer answer) {
  switch (answer) {
    case HealthStatus::Answer::kServing:
      return HealthCheckResponse::SERVING;
    case HealthStatus::Answer::kNotServing:
      return HealthCheckResponse::NOT_SERVING;
    case HealthStatus::Answer::kUnknown:
      break;
  }
  return HealthCheckResponse::SERVICE_UNKNOWN;
}

grpc::Status ParseRequest(const grpc::ByteBuffer& bytes,
                          HealthCheckRequest* request) {
  if (!ParseFromByteBuffer(bytes, request).ok()) {
    return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                        "Not a HealthCheckRequest");
  }
  return grpc::Status::OK;
}

void Respond(HealthCheckResponse::ServingStatus status, grpc::ByteBuffer* out) {
  HealthCheckResponse response;
  response.set_status(status);
  SerializeToByteBuffer(response, out);
}

}  // namespace

HealthStatus::HealthStatus(const std::vector<std::string>& names) {
  serving_[""] = false;
  for (const std::string& name : names) serving_[name] = false;
}

void HealthStatus::SetServing(bool serving) {
  absl::MutexLock l(&mu_);
  if (shut_down_) return;
  for (auto& [name, value] : serving_) value = serving;
}

void HealthStatus::Shutdown() {
  absl::MutexLock l(&mu_);
  shut_down_ = true;
  for (auto& [name, value] : serving_) value = false;
}

HealthStatus::Answer HealthStatus::Get(const std::string& name) const {
  absl::MutexLock l(&mu_);
  auto it = serving_.find(name);
  if (it == serving_.end()) return Answer::kUnknown;
  return it->second ? Answer::kServing : Answer::kNotServing;
}

bool HealthStatus::shut_down() const {
  absl::MutexLock l(&mu_);
  return shut_down_;
}

RpcService NewHealthService(const HealthStatus* status) {
  RpcService service(kHealthServiceName);
  service.Add("Check", [status](RpcServerCall* call) {
    HealthCheckRequest request;
    grpc::Status parsed = ParseRequest(call->request(), &request);
    if (!parsed.ok()) {
      call->Finish(parsed, grpc::ByteBuffer());
      return;
    }
    const HealthStatus::Answer answer = status->Get(request.service());
    if (answer == HealthStatus::Answer::kUnknown) {
      call->Finish(grpc::Status(grpc::StatusCode::NOT_FOUND,
                                absl::StrCat("No service '", request.service(),
                                             "' on this server")),
                   grpc::ByteBuffer());
      return;
    }
    grpc::ByteBuffer out;
    Respond(ToProto(answer), &out);
    call->Finish(grpc::Status::OK, std::move(out));
  });
  RpcPollingStream watch;
  watch.poll = [status](const grpc::ByteBuffer& in, grpc::ByteBuffer* out,
                        bool* last) {
    HealthCheckRequest request;
    grpc::Status parsed = ParseRequest(in, &request);
    if (!parsed.ok()) return parsed;
    // Read shut_down first: a shutdown between the two reads still ends
    // with NOT_SERVING written.
    *last = status->shut_down();
    Respond(ToProto(status->Get(request.service())), out);
    return grpc::Status::OK;
  };
  service.AddPollingStream("Watch", std::move(watch));
  return service;
}

}  // namespace tributary
