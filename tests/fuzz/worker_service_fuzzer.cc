// Fuzz target: every tensorflow.WorkerService method and Tributary's
// HoldWorkerSession, driven in process with fuzzed request bytes
// (service_driver.h) on task 0 of a two-task cluster (fuzz_cluster.h):
// CreateWorkerSession, RegisterGraph with fuzzed partitions, RunGraph with
// fuzzed sends, RecvTensor with fuzzed rendezvous keys, CleanupGraph, ...
// An input is a sequence of up to 8 calls; a request may name a graph an
// earlier call of the input registered (kGraphMarker). Each call must Finish
// within its deadline plus the cancellation grace, with a status a bad
// request may get (CheckCallStatus). Afterwards the input's graphs are
// deregistered and its worker sessions deleted, and every 256 inputs a fixed
// session must still register and run a graph.

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "protos/worker.pb.h"
#include "tests/fuzz/fuzz_check.h"
#include "tests/fuzz/fuzz_cluster.h"
#include "tests/fuzz/service_driver.h"
#include "tests/fuzz/service_methods.h"

namespace tributary {
namespace fuzz {
namespace {

constexpr absl::Duration kCallTimeout = absl::Milliseconds(300);

std::string PathOf(int method) {
  return kWorkerMethods[method % kNumWorkerMethods];
}

// What an input made on the worker, to undo after it.
struct Made {
  std::vector<std::string> sessions;
  // (session, create_worker_session_called, graph handle)
  struct Graph {
    std::string session;
    bool worker_session = false;
    std::string handle;
  };
  std::vector<Graph> graphs;
  std::vector<std::string> graph_handles;
};

void Record(int method, const std::string& request, const CallResult& result,
            Made* made) {
  if (!result.status.ok()) return;
  switch (method % kNumWorkerMethods) {
    case kCreateWorkerSessionMethod: {
      tensorflow::CreateWorkerSessionRequest created;
      if (created.ParseFromString(request)) {
        made->sessions.push_back(created.session_handle());
      }
      break;
    }
    case kRegisterGraphMethod: {
      tensorflow::RegisterGraphRequest registered;
      tensorflow::RegisterGraphResponse response;
      if (registered.ParseFromString(request) &&
          ParseResponse(result, &response)) {
        made->graphs.push_back({registered.session_handle(),
                                registered.create_worker_session_called(),
                                response.graph_handle()});
        made->graph_handles.push_back(response.graph_handle());
      }
      break;
    }
    default:
      break;
  }
}

CallResult Call(int method, const google::protobuf::Message& request) {
  return CallInProcess(FuzzCluster::Get().worker_service(), PathOf(method),
                       request.SerializeAsString(), absl::Seconds(10));
}

void Undo(const Made& made) {
  for (const Made::Graph& graph : made.graphs) {
    tensorflow::DeregisterGraphRequest request;
    request.set_session_handle(graph.session);
    request.set_create_worker_session_called(graph.worker_session);
    request.set_graph_handle(graph.handle);
    // The input may have deregistered it, or deleted its session.
    CheckCallStatus("DeregisterGraph",
                    Call(kDeregisterGraphMethod, request).status);
  }
  for (const std::string& session : made.sessions) {
    tensorflow::DeleteWorkerSessionRequest request;
    request.set_session_handle(session);
    CheckCallStatus("DeleteWorkerSession",
                    Call(kDeleteWorkerSessionMethod, request).status);
  }
}

void CheckOk(const CallResult& result, const std::string& what) {
  Check(result.status.ok(), absl::StrCat(what, " failed after fuzzing: ",
                                         result.status.error_message()));
}

// The worker still makes sessions, registers and runs graphs.
void CheckStillServes() {
  static int64_t step_id = int64_t{1} << 40;
  const std::string session = "fuzz-check-session";
  tensorflow::CreateWorkerSessionRequest create;
  create.set_session_handle(session);
  create.set_isolate_session_state(true);
  CheckOk(Call(kCreateWorkerSessionMethod, create), "CreateWorkerSession");
  const CallResult registered =
      Call(kRegisterGraphMethod, AddRegisterGraphRequest(session));
  tensorflow::RegisterGraphResponse graph;
  Check(ParseResponse(registered, &graph),
        "RegisterGraph failed after fuzzing: " +
            registered.status.error_message());
  CheckOk(Call(kRunGraphMethod,
               AddRunGraphRequest(session, graph.graph_handle(), ++step_id)),
          "RunGraph");
  tensorflow::DeleteWorkerSessionRequest remove;
  remove.set_session_handle(session);
  CheckOk(Call(kDeleteWorkerSessionMethod, remove), "DeleteWorkerSession");
}

}  // namespace
}  // namespace fuzz
}  // namespace tributary

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  namespace fuzz = tributary::fuzz;
  fuzz::FuzzCluster& cluster = fuzz::FuzzCluster::Get();
  fuzz::Made made;
  for (fuzz::FuzzCall& call :
       fuzz::SplitCalls(data, size, fuzz::kMaxCallsPerInput)) {
    const std::string path = fuzz::PathOf(call.method);
    fuzz::ReplaceMarkers(fuzz::kGraphMarker, made.graph_handles, &call.request);
    const tributary::RpcService& service =
        call.method % fuzz::kNumWorkerMethods == fuzz::kHoldWorkerSessionMethod
            ? cluster.holds_service()
            : cluster.worker_service();
    const fuzz::CallResult result =
        fuzz::CallInProcess(service, path, call.request, fuzz::kCallTimeout);
    fuzz::CheckCallStatus(path, result.status);
    fuzz::Record(call.method, call.request, result, &made);
  }
  fuzz::Undo(made);
  static int inputs = 0;
  if (++inputs % 256 == 1) fuzz::CheckStillServes();
  return 0;
}
