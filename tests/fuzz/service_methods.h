#ifndef TRIBUTARY_TESTS_FUZZ_SERVICE_METHODS_H_
#define TRIBUTARY_TESTS_FUZZ_SERVICE_METHODS_H_

// The methods the service fuzzers call, by the index a fuzz input's method
// byte picks (modulo the count), and the known-good requests the fuzzers use
// to check a service still works and the seed corpora start from.

#include <cstdint>
#include <string>

#include "protos/master.pb.h"
#include "protos/worker.pb.h"

namespace tributary {
namespace fuzz {

// tensorflow.MasterService, every method.
inline constexpr const char* kMasterMethods[] = {
    "CreateSession", "ExtendSession",  "PartialRunSetup", "RunStep",
    "CloseSession",  "ListDevices",    "Reset",           "MakeCallable",
    "RunCallable",   "ReleaseCallable"};
inline constexpr int kNumMasterMethods =
    sizeof(kMasterMethods) / sizeof(kMasterMethods[0]);
inline constexpr int kCreateSessionMethod = 0;
inline constexpr int kExtendSessionMethod = 1;
inline constexpr int kPartialRunSetupMethod = 2;
inline constexpr int kRunStepMethod = 3;
inline constexpr int kCloseSessionMethod = 4;
inline constexpr int kListDevicesMethod = 5;
inline constexpr int kResetMethod = 6;
inline constexpr int kMakeCallableMethod = 7;
inline constexpr int kRunCallableMethod = 8;
inline constexpr int kReleaseCallableMethod = 9;

// tensorflow.WorkerService, every method, then Tributary's own
// tributary.WorkerSessionHolds/HoldWorkerSession (full paths).
inline constexpr const char* kWorkerMethods[] = {
    "/tensorflow.WorkerService/GetStatus",
    "/tensorflow.WorkerService/CreateWorkerSession",
    "/tensorflow.WorkerService/DeleteWorkerSession",
    "/tensorflow.WorkerService/RegisterGraph",
    "/tensorflow.WorkerService/DeregisterGraph",
    "/tensorflow.WorkerService/RunGraph",
    "/tensorflow.WorkerService/CleanupGraph",
    "/tensorflow.WorkerService/CleanupAll",
    "/tensorflow.WorkerService/RecvTensor",
    "/tensorflow.WorkerService/Logging",
    "/tensorflow.WorkerService/Tracing",
    "/tensorflow.WorkerService/RecvBuf",
    "/tensorflow.WorkerService/MarkRecvFinished",
    "/tensorflow.WorkerService/GetStepSequence",
    "/tensorflow.WorkerService/CompleteGroup",
    "/tensorflow.WorkerService/CompleteInstance",
    "/tributary.WorkerSessionHolds/HoldWorkerSession"};
inline constexpr int kNumWorkerMethods =
    sizeof(kWorkerMethods) / sizeof(kWorkerMethods[0]);
inline constexpr int kGetStatusMethod = 0;
inline constexpr int kCreateWorkerSessionMethod = 1;
inline constexpr int kDeleteWorkerSessionMethod = 2;
inline constexpr int kRegisterGraphMethod = 3;
inline constexpr int kDeregisterGraphMethod = 4;
inline constexpr int kRunGraphMethod = 5;
inline constexpr int kCleanupGraphMethod = 6;
inline constexpr int kCleanupAllMethod = 7;
inline constexpr int kRecvTensorMethod = 8;
inline constexpr int kHoldWorkerSessionMethod = 16;

// A session whose graph is a = 7, b = 4, c = Identity(a) after b (floats,
// no device set): fetching c:0 gives 7.
tensorflow::CreateSessionRequest AddSessionRequest();
// Fetches "c:0" of that graph in session `handle`.
tensorflow::RunStepRequest AddStepRequest(const std::string& handle);

// The same graph as a worker partition on task 0's CPU:0, registered in
// worker session `session` (create_worker_session_called).
tensorflow::RegisterGraphRequest AddRegisterGraphRequest(
    const std::string& session);
// Runs graph `graph` of worker session `session` as step `step_id`.
tensorflow::RunGraphRequest AddRunGraphRequest(const std::string& session,
                                               const std::string& graph,
                                               int64_t step_id);

// Task 0's name and its CPU's.
inline constexpr char kTask0[] = "/job:worker/replica:0/task:0";
inline constexpr char kTask0Cpu[] = "/job:worker/replica:0/task:0/device:CPU:0";

}  // namespace fuzz
}  // namespace tributary

#endif  // TRIBUTARY_TESTS_FUZZ_SERVICE_METHODS_H_
