// Fuzz target: every tensorflow.MasterService method, driven in process with
// fuzzed request bytes (service_driver.h) on a master over two workers
// (fuzz_cluster.h). An input is a sequence of up to 8 calls; a request may
// name a session an earlier call of the input created (kSessionMarker).
// Each call must Finish within its deadline plus the cancellation grace,
// with a status a bad request may get (CheckCallStatus); afterwards a Reset
// closes whatever the input left open, and the master must still serve: a
// fixed session runs and answers 7 every 256 inputs.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "common/framework/tensor.h"
#include "protos/master.pb.h"
#include "tests/fuzz/fuzz_check.h"
#include "tests/fuzz/fuzz_cluster.h"
#include "tests/fuzz/service_driver.h"
#include "tests/fuzz/service_methods.h"

namespace tributary {
namespace fuzz {
namespace {

constexpr absl::Duration kCallTimeout = absl::Milliseconds(500);

std::string PathOf(int method) {
  return absl::StrCat("/tensorflow.MasterService/",
                      kMasterMethods[method % kNumMasterMethods]);
}

// Closes every session (and, on the workers, every container).
void ResetMaster(FuzzCluster& cluster) {
  tensorflow::ResetRequest request;
  const CallResult result =
      CallInProcess(cluster.master_service(), PathOf(kResetMethod),
                    request.SerializeAsString(), absl::Seconds(10));
  Check(result.status.ok(),
        "Reset after an input failed: " + result.status.error_message());
}

// The master still creates sessions and runs steps.
void CheckStillServes(FuzzCluster& cluster) {
  std::vector<std::string> sessions;
  const CallResult created =
      CallInProcess(cluster.master_service(), PathOf(kCreateSessionMethod),
                    AddSessionRequest().SerializeAsString(), absl::Seconds(10));
  tensorflow::CreateSessionResponse session;
  Check(ParseResponse(created, &session),
        "CreateSession of a good graph failed after fuzzing: " +
            created.status.error_message());
  const CallResult ran = CallInProcess(
      cluster.master_service(), PathOf(kRunStepMethod),
      AddStepRequest(session.session_handle()).SerializeAsString(),
      absl::Seconds(10));
  tensorflow::RunStepResponse step;
  Check(ParseResponse(ran, &step),
        "RunStep of a good graph failed after "
        "fuzzing: " +
            ran.status.error_message());
  absl::StatusOr<Tensor> seven =
      step.tensor_size() == 1 ? Tensor::FromProto(step.tensor(0).tensor())
                              : absl::InvalidArgumentError("no tensor");
  Check(seven.ok() && seven->dtype() == DT_FLOAT && seven->NumElements() == 1 &&
            seven->flat<float>()(0) == 7.0f,
        "the known-good step does not answer 7 after fuzzing: " +
            step.DebugString());
  ResetMaster(cluster);
}

}  // namespace
}  // namespace fuzz
}  // namespace tributary

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  namespace fuzz = tributary::fuzz;
  fuzz::FuzzCluster& cluster = fuzz::FuzzCluster::Get();
  std::vector<std::string> sessions;
  for (fuzz::FuzzCall& call :
       fuzz::SplitCalls(data, size, fuzz::kMaxCallsPerInput)) {
    const std::string path = fuzz::PathOf(call.method);
    fuzz::ReplaceMarkers(fuzz::kSessionMarker, sessions, &call.request);
    const fuzz::CallResult result = fuzz::CallInProcess(
        cluster.master_service(), path, call.request, fuzz::kCallTimeout);
    fuzz::CheckCallStatus(path, result.status);
    tensorflow::CreateSessionResponse created;
    if (call.method % fuzz::kNumMasterMethods == fuzz::kCreateSessionMethod &&
        fuzz::ParseResponse(result, &created)) {
      sessions.push_back(created.session_handle());
    }
  }
  fuzz::ResetMaster(cluster);
  static int inputs = 0;
  if (++inputs % 256 == 1) fuzz::CheckStillServes(cluster);
  return 0;
}
