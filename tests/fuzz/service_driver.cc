#include "tests/fuzz/service_driver.h"

#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "common/distributed/call_options.h"
#include "common/rpc/tensor_coding.h"
#include "tests/fuzz/fuzz_check.h"

namespace tributary {
namespace fuzz {
namespace {

constexpr size_t kHandleLength = 16;

// One call, as GrpcServer's would be, from a client on loopback.
class FuzzServerCall : public RpcServerCall {
 public:
  FuzzServerCall(const std::string& request, absl::Duration timeout) {
    grpc::Slice slice(request.data(), request.size());
    request_ = grpc::ByteBuffer(&slice, 1);
    caller_.address = "ipv4:127.0.0.1:40000";
    opts_.SetTimeout(timeout);
  }

  const RpcCaller& caller() const override { return caller_; }
  std::string peer() const override { return caller_.address; }
  const grpc::ByteBuffer& request() const override { return request_; }
  CallOptions* opts() override { return &opts_; }

  void Finish(const grpc::Status& status, grpc::ByteBuffer response) override {
    absl::MutexLock lock(&mu_);
    Check(!finished_, "a call was Finished twice");
    finished_ = true;
    result_.status = status;
    result_.response = std::move(response);
  }

  // Waits for Finish until `deadline`; false when it did not come.
  bool WaitFinished(absl::Time deadline) {
    absl::MutexLock lock(&mu_);
    return mu_.AwaitWithDeadline(absl::Condition(&finished_), deadline);
  }

  CallResult TakeResult() {
    absl::MutexLock lock(&mu_);
    return std::move(result_);
  }

 private:
  RpcCaller caller_;
  grpc::ByteBuffer request_;
  CallOptions opts_;
  absl::Mutex mu_;
  bool finished_ ABSL_GUARDED_BY(mu_) = false;
  CallResult result_ ABSL_GUARDED_BY(mu_);
};

}  // namespace

std::vector<FuzzCall> SplitCalls(const uint8_t* data, size_t size,
                                 int max_calls) {
  std::vector<FuzzCall> calls;
  size_t at = 0;
  while (at < size && static_cast<int>(calls.size()) < max_calls) {
    FuzzCall call;
    call.method = data[at++];
    size_t length = 0;
    if (at < size) length = data[at++];
    if (at < size) length |= size_t{data[at++]} << 8;
    length = std::min(length, size - at);
    call.request.assign(reinterpret_cast<const char*>(data) + at, length);
    at += length;
    calls.push_back(std::move(call));
  }
  return calls;
}

void AppendCall(int method, const google::protobuf::Message& request,
                std::string* input) {
  const std::string bytes = request.SerializeAsString();
  Check(bytes.size() < (1 << 16), "a seed request of 64 KiB or more");
  input->push_back(static_cast<char>(method));
  input->push_back(static_cast<char>(bytes.size() & 0xff));
  input->push_back(static_cast<char>(bytes.size() >> 8));
  input->append(bytes);
}

std::string Marker(absl::string_view kind, int index) {
  return absl::StrCat(kind, index % 10);
}

void ReplaceMarkers(absl::string_view marker_prefix,
                    const std::vector<std::string>& handles,
                    std::string* bytes) {
  if (handles.empty()) return;
  size_t at = 0;
  while ((at = bytes->find(marker_prefix.data(), at, marker_prefix.size())) !=
         std::string::npos) {
    const size_t digit_at = at + marker_prefix.size();
    if (digit_at >= bytes->size()) return;
    const unsigned char digit = (*bytes)[digit_at];
    const std::string& handle = handles[digit % handles.size()];
    if (handle.size() == kHandleLength) {
      bytes->replace(at, kHandleLength, handle);
    }
    at += kHandleLength;
  }
}

CallResult CallInProcess(const RpcService& service, const std::string& path,
                         const std::string& request, absl::Duration timeout) {
  const RpcHandler* handler = service.Find(path);
  if (handler == nullptr) {
    return CallResult{grpc::Status(grpc::StatusCode::UNIMPLEMENTED, path), {}};
  }
  auto call = std::make_unique<FuzzServerCall>(request, timeout);
  const absl::Time deadline = call->opts()->deadline();
  (*handler)(call.get());
  if (!call->WaitFinished(deadline)) {
    call->opts()->StartCancel();
    Check(call->WaitFinished(deadline + absl::Seconds(30)),
          absl::StrCat(path,
                       " did not finish 30 s after its deadline and "
                       "cancellation"));
  }
  return call->TakeResult();
}

bool ParseResponse(const CallResult& result,
                   google::protobuf::Message* message) {
  return result.status.ok() &&
         ParseFromByteBuffer(result.response, message).ok();
}

void CheckCallStatus(const std::string& path, const grpc::Status& status) {
  if (status.ok()) return;
  Check(!status.error_message().empty(),
        absl::StrCat(path, ": error code ", status.error_code(),
                     " without a message"));
  const grpc::StatusCode code = status.error_code();
  Check(code != grpc::StatusCode::UNKNOWN &&
            code != grpc::StatusCode::INTERNAL &&
            code != grpc::StatusCode::DATA_LOSS,
        absl::StrCat(path, ": code ", code, ": ", status.error_message()));
}

}  // namespace fuzz
}  // namespace tributary
