#include "common/distributed/worker_interface.h"

#include "common/distributed/wait_for_callback.h"

namespace tributary {
namespace {

// Starts `call` with a deadline of now + timeout and waits for it. The
// call's own deadline bounds the wait, so no second timer is needed.
template <typename Call>
absl::Status CallAndWait(absl::Duration timeout, Call call) {
  CallOptions opts;
  if (timeout > absl::ZeroDuration()) opts.SetTimeout(timeout);
  return WaitForCallback(
      [&](StatusCallback done) { call(&opts, std::move(done)); });
}

}  // namespace

WorkerInterface::~WorkerInterface() = default;

void WorkerInterface::HoldWorkerSessionAsync(
    CallOptions*, const tensorflow::DeleteWorkerSessionRequest*,
    tensorflow::DeleteWorkerSessionResponse*, StatusCallback done) {
  done(absl::UnimplementedError("This worker does not hold sessions"));
}

#define TRIB_SYNC_WRAPPER(Method, Request, Response)                        \
  absl::Status WorkerInterface::Method(                                     \
      const Request& request, Response* response, absl::Duration timeout) { \
    return CallAndWait(timeout, [&](CallOptions* opts, StatusCallback cb) { \
      Method##Async(opts, &request, response, std::move(cb));               \
    });                                                                     \
  }

TRIB_SYNC_WRAPPER(GetStatus, tensorflow::GetStatusRequest,
                  tensorflow::GetStatusResponse)
TRIB_SYNC_WRAPPER(CreateWorkerSession, tensorflow::CreateWorkerSessionRequest,
                  tensorflow::CreateWorkerSessionResponse)
TRIB_SYNC_WRAPPER(DeleteWorkerSession, tensorflow::DeleteWorkerSessionRequest,
                  tensorflow::DeleteWorkerSessionResponse)
TRIB_SYNC_WRAPPER(RegisterGraph, tensorflow::RegisterGraphRequest,
                  tensorflow::RegisterGraphResponse)
TRIB_SYNC_WRAPPER(DeregisterGraph, tensorflow::DeregisterGraphRequest,
                  tensorflow::DeregisterGraphResponse)
TRIB_SYNC_WRAPPER(RunGraph, RunGraphRequestMsg, RunGraphResponseMsg)
TRIB_SYNC_WRAPPER(CleanupGraph, tensorflow::CleanupGraphRequest,
                  tensorflow::CleanupGraphResponse)
TRIB_SYNC_WRAPPER(CleanupAll, tensorflow::CleanupAllRequest,
                  tensorflow::CleanupAllResponse)
TRIB_SYNC_WRAPPER(RecvTensor, tensorflow::RecvTensorRequest, TensorResponse)
TRIB_SYNC_WRAPPER(Logging, tensorflow::LoggingRequest,
                  tensorflow::LoggingResponse)
TRIB_SYNC_WRAPPER(Tracing, tensorflow::TracingRequest,
                  tensorflow::TracingResponse)

#undef TRIB_SYNC_WRAPPER

}  // namespace tributary
