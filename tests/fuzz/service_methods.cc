#include "tests/fuzz/service_methods.h"

#include "absl/strings/str_cat.h"
#include "common/framework/logging.h"
#include "google/protobuf/text_format.h"

namespace tributary {
namespace fuzz {
namespace {

// a = 7, b = 4, c = Identity(a) after b, on `device` (empty: let the
// master place it). Only plumbing kernels: the service fuzzers link no math.
tensorflow::GraphDef AddGraph(const std::string& device) {
  std::string text;
  for (const auto& [name, value] : {std::pair<const char*, int>{"a", 7},
                                    std::pair<const char*, int>{"b", 4}}) {
    absl::StrAppend(
        &text, "node { name: '", name, "' op: 'Const' device: '", device,
        "' attr { key: 'dtype' value { type: DT_FLOAT } } attr { key: 'value' "
        "value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: ",
        value, " } } } }\n");
  }
  absl::StrAppend(&text,
                  "node { name: 'c' op: 'Identity' input: 'a' input: '^b' "
                  "device: '",
                  device,
                  "' attr { key: 'T' value { type: DT_FLOAT } } }\n"
                  "versions { producer: 1987 }\n");
  tensorflow::GraphDef graph;
  CHECK(google::protobuf::TextFormat::ParseFromString(text, &graph)) << text;
  return graph;
}

}  // namespace

tensorflow::CreateSessionRequest AddSessionRequest() {
  tensorflow::CreateSessionRequest request;
  *request.mutable_graph_def() = AddGraph("");
  return request;
}

tensorflow::RunStepRequest AddStepRequest(const std::string& handle) {
  tensorflow::RunStepRequest request;
  request.set_session_handle(handle);
  request.add_fetch("c:0");
  return request;
}

tensorflow::RegisterGraphRequest AddRegisterGraphRequest(
    const std::string& session) {
  tensorflow::RegisterGraphRequest request;
  request.set_session_handle(session);
  request.set_create_worker_session_called(true);
  *request.mutable_graph_def() = AddGraph(kTask0Cpu);
  return request;
}

tensorflow::RunGraphRequest AddRunGraphRequest(const std::string& session,
                                               const std::string& graph,
                                               int64_t step_id) {
  tensorflow::RunGraphRequest request;
  request.set_session_handle(session);
  request.set_create_worker_session_called(true);
  request.set_graph_handle(graph);
  request.set_step_id(step_id);
  return request;
}

}  // namespace fuzz
}  // namespace tributary
