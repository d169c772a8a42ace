// fuzz_seeds: writes the seed corpus of every fuzz target (or of one) under
// OUT/<target>/, one file per seed, from TensorFlow's test graphs and the
// requests a client, a master and a peer send:
//
//   fuzz_seeds --graphs tests/testdata/tf_graphs --out DIR [--target NAME]
//
// tools/fuzz.sh starts libFuzzer from these; each target's regression test
// (fuzz_target.bzl) replays them. Exits 2 on bad arguments or an unreadable
// graph folder.

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "google/protobuf/io/tokenizer.h"
#include "google/protobuf/text_format.h"
#include "protos/graph.pb.h"
#include "protos/master.pb.h"
#include "protos/tensor.pb.h"
#include "protos/worker.pb.h"
#include "tests/fuzz/service_driver.h"
#include "tests/fuzz/service_methods.h"

namespace tributary {
namespace fuzz {
namespace {

using Seeds = std::vector<std::string>;

// Some test graphs are not GraphDefs (a SavedModel); protobuf would log why.
class IgnoreErrors : public google::protobuf::io::ErrorCollector {
 public:
  void AddError(int, google::protobuf::io::ColumnNumber,
                const std::string&) override {}
};

struct TestGraph {
  std::string text;
  bool parsed = false;
  tensorflow::GraphDef graph;
};

std::vector<TestGraph> ReadGraphs(const std::string& folder) {
  std::vector<std::string> paths;
  for (const auto& entry : std::filesystem::directory_iterator(folder)) {
    if (entry.path().extension() == ".pbtxt") paths.push_back(entry.path());
  }
  std::sort(paths.begin(), paths.end());
  std::vector<TestGraph> graphs;
  for (const std::string& path : paths) {
    std::ifstream file(path);
    TestGraph g;
    g.text.assign(std::istreambuf_iterator<char>(file),
                  std::istreambuf_iterator<char>());
    IgnoreErrors errors;
    google::protobuf::TextFormat::Parser parser;
    parser.RecordErrorsTo(&errors);
    g.parsed = parser.ParseFromString(g.text, &g.graph);
    graphs.push_back(std::move(g));
  }
  return graphs;
}

// The tensors of the graphs' Const nodes, and one per common dtype.
std::vector<tensorflow::TensorProto> Tensors(
    const std::vector<TestGraph>& graphs) {
  std::vector<tensorflow::TensorProto> tensors;
  for (const TestGraph& g : graphs) {
    for (const tensorflow::NodeDef& node : g.graph.node()) {
      for (const auto& [name, attr] : node.attr()) {
        if (attr.has_tensor()) tensors.push_back(attr.tensor());
      }
    }
  }
  const char* kMade[] = {
      "dtype: DT_FLOAT tensor_shape { dim { size: 2 } } float_val: 1.5 "
      "float_val: -2",
      "dtype: DT_INT64 tensor_shape { dim { size: 3 } } int64_val: 7",
      "dtype: DT_STRING tensor_shape { dim { size: 2 } } string_val: 'ab' "
      "string_val: ''",
      "dtype: DT_BOOL tensor_shape { } bool_val: true",
      "dtype: DT_HALF tensor_shape { dim { size: 1 } } half_val: 15360",
      "dtype: DT_INT32 tensor_shape { dim { size: 2 } dim { size: 1 } } "
      "tensor_content: '\\001\\000\\000\\000\\002\\000\\000\\000'",
      "dtype: DT_COMPLEX64 tensor_shape { } scomplex_val: 1 scomplex_val: 2",
      "dtype: DT_DOUBLE tensor_shape { dim { size: 4 } }"};
  for (const char* text : kMade) {
    tensorflow::TensorProto t;
    google::protobuf::TextFormat::ParseFromString(text, &t);
    tensors.push_back(t);
  }
  return tensors;
}

// Feeds for a graph's Placeholders: zeros of their dtype (and shape when it
// is fully known and small).
void AddFeeds(
    const tensorflow::GraphDef& graph,
    google::protobuf::RepeatedPtrField<tensorflow::NamedTensorProto>* feeds) {
  for (const tensorflow::NodeDef& node : graph.node()) {
    if (node.op() != "Placeholder" || !node.attr().count("dtype")) continue;
    tensorflow::NamedTensorProto* feed = feeds->Add();
    feed->set_name(node.name() + ":0");
    feed->mutable_tensor()->set_dtype(node.attr().at("dtype").type());
    auto shape = node.attr().find("shape");
    if (shape == node.attr().end()) continue;
    int64_t elements = 1;
    for (const auto& dim : shape->second.shape().dim()) elements *= dim.size();
    if (elements >= 0 && elements <= 64 &&
        !shape->second.shape().unknown_rank()) {
      *feed->mutable_tensor()->mutable_tensor_shape() = shape->second.shape();
    }
  }
}

std::string LastOutput(const tensorflow::GraphDef& graph) {
  return graph.node_size() == 0
             ? "x:0"
             : graph.node(graph.node_size() - 1).name() + ":0";
}

Seeds MasterSeeds(const std::vector<TestGraph>& graphs) {
  Seeds seeds;
  const std::string session = Marker(kSessionMarker, 0);
  for (const TestGraph& g : graphs) {
    if (!g.parsed || g.graph.ByteSizeLong() > 16000) continue;
    std::string input;
    tensorflow::CreateSessionRequest create;
    *create.mutable_graph_def() = g.graph;
    create.mutable_config()->set_operation_timeout_in_ms(2000);
    AppendCall(kCreateSessionMethod, create, &input);
    tensorflow::RunStepRequest run;
    run.set_session_handle(session);
    AddFeeds(g.graph, run.mutable_feed());
    run.add_fetch(LastOutput(g.graph));
    AppendCall(kRunStepMethod, run, &input);
    tensorflow::CloseSessionRequest close;
    close.set_session_handle(session);
    AppendCall(kCloseSessionMethod, close, &input);
    seeds.push_back(input);
  }
  {  // Sessions and callables of the known-good graph.
    std::string input;
    AppendCall(kCreateSessionMethod, AddSessionRequest(), &input);
    AppendCall(kListDevicesMethod, tensorflow::ListDevicesRequest(), &input);
    tensorflow::MakeCallableRequest make;
    make.set_session_handle(session);
    make.mutable_options()->add_fetch("c:0");
    AppendCall(kMakeCallableMethod, make, &input);
    tensorflow::RunCallableRequest call;
    call.set_session_handle(session);
    call.set_handle(0);
    AppendCall(kRunCallableMethod, call, &input);
    tensorflow::ReleaseCallableRequest release;
    release.set_session_handle(session);
    release.set_handle(0);
    AppendCall(kReleaseCallableMethod, release, &input);
    tensorflow::ExtendSessionRequest extend;
    extend.set_session_handle(session);
    extend.set_current_graph_version(0);
    tensorflow::NodeDef* d = extend.mutable_graph_def()->add_node();
    d->set_name("d");
    d->set_op("Identity");
    d->add_input("c");
    (*d->mutable_attr())["T"].set_type(tensorflow::DT_FLOAT);
    AppendCall(kExtendSessionMethod, extend, &input);
    tensorflow::PartialRunSetupRequest partial;
    partial.set_session_handle(session);
    partial.add_fetch("d:0");
    AppendCall(kPartialRunSetupMethod, partial, &input);
    AppendCall(kRunStepMethod, AddStepRequest(session), &input);
    seeds.push_back(input);
  }
  {
    std::string input;
    AppendCall(kResetMethod, tensorflow::ResetRequest(), &input);
    seeds.push_back(input);
  }
  return seeds;
}

Seeds WorkerSeeds(const std::vector<TestGraph>& graphs) {
  Seeds seeds;
  const std::string graph_handle = Marker(kGraphMarker, 0);
  auto session_seed = [&](const tensorflow::GraphDef& graph, bool with_feeds) {
    std::string input;
    tensorflow::CreateWorkerSessionRequest create;
    create.set_session_handle("fuzz-session");
    create.set_isolate_session_state(true);
    AppendCall(kCreateWorkerSessionMethod, create, &input);
    tensorflow::RegisterGraphRequest reg =
        AddRegisterGraphRequest("fuzz-session");
    *reg.mutable_graph_def() = graph;
    for (tensorflow::NodeDef& node : *reg.mutable_graph_def()->mutable_node()) {
      node.set_device(kTask0Cpu);
    }
    AppendCall(kRegisterGraphMethod, reg, &input);
    tensorflow::RunGraphRequest run =
        AddRunGraphRequest("fuzz-session", graph_handle, 17);
    if (with_feeds) AddFeeds(graph, run.mutable_send());
    AppendCall(kRunGraphMethod, run, &input);
    tensorflow::CleanupGraphRequest cleanup;
    cleanup.set_step_id(17);
    AppendCall(kCleanupGraphMethod, cleanup, &input);
    tensorflow::DeregisterGraphRequest dereg;
    dereg.set_session_handle("fuzz-session");
    dereg.set_create_worker_session_called(true);
    dereg.set_graph_handle(graph_handle);
    AppendCall(kDeregisterGraphMethod, dereg, &input);
    tensorflow::DeleteWorkerSessionRequest remove;
    remove.set_session_handle("fuzz-session");
    AppendCall(kDeleteWorkerSessionMethod, remove, &input);
    return input;
  };
  seeds.push_back(session_seed(AddRegisterGraphRequest("").graph_def(), false));
  for (const TestGraph& g : graphs) {
    if (g.parsed && g.graph.ByteSizeLong() <= 16000) {
      seeds.push_back(session_seed(g.graph, true));
    }
  }
  {
    std::string input;
    AppendCall(kGetStatusMethod, tensorflow::GetStatusRequest(), &input);
    tensorflow::RecvTensorRequest recv;
    recv.set_step_id(17);
    recv.set_rendezvous_key(
        absl::StrCat(kTask0Cpu, ";0000000000000001;", kTask0Cpu, ";c:0;0:0"));
    AppendCall(kRecvTensorMethod, recv, &input);
    tensorflow::CleanupAllRequest all;
    all.add_container("local");
    AppendCall(kCleanupAllMethod, all, &input);
    seeds.push_back(input);
  }
  {
    std::string input;
    tensorflow::DeleteWorkerSessionRequest hold;
    hold.set_session_handle("fuzz-session");
    AppendCall(kHoldWorkerSessionMethod, hold, &input);
    seeds.push_back(input);
  }
  return seeds;
}

Seeds TensorCodingSeeds(const std::vector<TestGraph>& graphs) {
  Seeds seeds;
  const std::vector<tensorflow::TensorProto> tensors = Tensors(graphs);
  tensorflow::RunStepRequest step;
  step.set_session_handle("0123456789abcdef");
  step.add_fetch("c:0");
  tensorflow::RunGraphRequest graph;
  graph.set_graph_handle("0000000000000001");
  graph.set_step_id(5);
  graph.add_recv_key("k");
  for (size_t i = 0; i < tensors.size() && i < 8; ++i) {
    tensorflow::NamedTensorProto* feed = step.add_feed();
    feed->set_name(absl::StrCat("x", i, ":0"));
    *feed->mutable_tensor() = tensors[i];
    *graph.add_send() = *feed;
    tensorflow::RecvTensorResponse response;
    *response.mutable_tensor() = tensors[i];
    response.set_send_start_micros(12345);
    seeds.push_back(std::string(1, static_cast<char>(2 + 4 * (i % 4))) +
                    response.SerializeAsString());
  }
  seeds.push_back(std::string(1, 0) + step.SerializeAsString());
  seeds.push_back(std::string(1, 4 * 3) + step.SerializeAsString());
  seeds.push_back(std::string(1, 1) + graph.SerializeAsString());
  seeds.push_back(std::string(1, 1 + 4 * 7) + graph.SerializeAsString());
  return seeds;
}

std::map<std::string, std::function<Seeds(const std::vector<TestGraph>&)>>
Targets() {
  return {
      {"graph_def_fuzzer",
       [](const std::vector<TestGraph>& graphs) {
         Seeds seeds;
         for (const TestGraph& g : graphs) {
           if (g.parsed) seeds.push_back(g.graph.SerializeAsString());
         }
         return seeds;
       }},
      {"graph_def_text_fuzzer",
       [](const std::vector<TestGraph>& graphs) {
         Seeds seeds;
         for (const TestGraph& g : graphs) seeds.push_back(g.text);
         return seeds;
       }},
      {"tensor_proto_fuzzer",
       [](const std::vector<TestGraph>& graphs) {
         Seeds seeds;
         for (const auto& t : Tensors(graphs))
           seeds.push_back(t.SerializeAsString());
         return seeds;
       }},
      {"node_def_fuzzer",
       [](const std::vector<TestGraph>& graphs) {
         Seeds seeds;
         std::map<std::string, bool> ops;
         for (const TestGraph& g : graphs) {
           for (const auto& node : g.graph.node()) {
             if (!ops[node.op()]) seeds.push_back(node.SerializeAsString());
             ops[node.op()] = true;
           }
         }
         return seeds;
       }},
      {"cluster_spec_fuzzer",
       [](const std::vector<TestGraph>&) {
         return Seeds{
             R"({"ps": ["ps0:2222"], "worker": ["w0:2222", "w1:2222"]})",
             R"({"worker": {"0": "w0:2222", "3": "10.0.0.3:2222"}})",
             R"({"chief": ["[::1]:2222"], "evaluator": ["e:1"]})"};
       }},
      {"tf_config_fuzzer",
       [](const std::vector<TestGraph>&) {
         return Seeds{
             R"({"cluster": {"worker": ["w0:2222", "w1:2222"], "ps": ["p:1"]},
                 "task": {"type": "worker", "index": 1}, "rpc_layer": "grpc"})",
             R"({"cluster": {"chief": ["c:1"]}, "task": {"type": "evaluator",
                 "index": 0}, "environment": "cloud"})"};
       }},
      {"feed_value_fuzzer",
       [](const std::vector<TestGraph>&) {
         return Seeds{"\x10x=3",
                      "\x01x=[[1,2],[3,4]]",
                      "\x02y=float32:[1.5, NaN, -Infinity]",
                      "\x0dname=\"hello\"",
                      "\x08y=int64:[1,2,3]",
                      "\x10z=bool:[true,false]",
                      "\x10w=@batch.npy",
                      "\x05v=uint8:[[255],[0]]"};
       }},
      {"tensor_coding_fuzzer", TensorCodingSeeds},
      {"master_service_fuzzer", MasterSeeds},
      {"worker_service_fuzzer", WorkerSeeds},
  };
}

bool WriteSeeds(const std::string& folder, const Seeds& seeds) {
  std::error_code error;
  std::filesystem::create_directories(folder, error);
  if (error) return false;
  for (size_t i = 0; i < seeds.size(); ++i) {
    std::ofstream file(absl::StrCat(folder, "/seed_", i), std::ios::binary);
    file << seeds[i];
    if (!file.good()) return false;
  }
  return true;
}

}  // namespace
}  // namespace fuzz
}  // namespace tributary

int main(int argc, char** argv) {
  std::string graphs_dir, out, only;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--graphs")
      graphs_dir = argv[i + 1];
    else if (flag == "--out")
      out = argv[i + 1];
    else if (flag == "--target")
      only = argv[i + 1];
  }
  if (graphs_dir.empty() || out.empty() ||
      !std::filesystem::is_directory(graphs_dir)) {
    std::fprintf(stderr,
                 "usage: fuzz_seeds --graphs DIR --out DIR [--target NAME]\n");
    return 2;
  }
  const auto graphs = tributary::fuzz::ReadGraphs(graphs_dir);
  bool found = false;
  for (const auto& [name, make] : tributary::fuzz::Targets()) {
    if (!only.empty() && name != only) continue;
    found = true;
    if (!tributary::fuzz::WriteSeeds(out + "/" + name, make(graphs))) {
      std::fprintf(stderr, "cannot write seeds under %s\n", out.c_str());
      return 2;
    }
  }
  if (!found) {
    std::fprintf(stderr, "no fuzz target named %s\n", only.c_str());
    return 2;
  }
  return 0;
}
