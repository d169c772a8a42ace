#include "tools/cli/inspect_command.h"

#include <algorithm>
#include <filesystem>
#include <iomanip>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/framework/status.h"
#include "common/graph/graph.h"
#include "common/graph/graph_def_import.h"
#include "common/graph/tensor_id.h"
#include "common/op/node_def_util.h"
#include "common/op/op_registry.h"
#include "common/runtime/optimization/graph_optimizer.h"
#include "nlohmann/json.hpp"
#include "tools/cli/graph_file.h"
#include "tools/cli/saved_model_inspect.h"

namespace tributary {
namespace {

struct EdgeRow {
  std::string src;  // "x:0", or "x" for a control edge
  std::string dst;  // "y:1", or "y" for a control edge
  bool control;
};

std::vector<EdgeRow> EdgesOf(const tensorflow::GraphDef& graph) {
  std::vector<EdgeRow> edges;
  for (const tensorflow::NodeDef& node : graph.node()) {
    int port = 0;
    for (const std::string& input : node.input()) {
      TensorId id = ParseTensorName(input);
      if (id.IsControl()) {
        edges.push_back({std::string(id.node()), node.name(), true});
      } else {
        edges.push_back({absl::StrCat(id.node(), ":", id.index),
                         absl::StrCat(node.name(), ":", port++), false});
      }
    }
  }
  return edges;
}

// Checks one node on its own; the number of outputs of every node that passed
// is recorded so inputs can be checked against it.
absl::Status ValidateNode(const tensorflow::NodeDef& node,
                          absl::flat_hash_map<std::string, int>* num_outputs) {
  const tensorflow::OpDef* op_def = nullptr;
  TRIB_RETURN_IF_ERROR(errors::PrependToMessage(
      OpRegistry::Global()->LookUpOpDef(node.op(), &op_def), "node '",
      node.name(), "': "));
  tensorflow::NodeDef with_defaults = node;
  AddDefaultsToNodeDef(*op_def, &with_defaults);
  TRIB_RETURN_IF_ERROR(ValidateNodeDef(with_defaults, *op_def));
  int outputs = 0;
  TRIB_RETURN_IF_ERROR(NumOutputsForNode(with_defaults, *op_def, &outputs));
  (*num_outputs)[node.name()] = outputs;
  return absl::OkStatus();
}

std::string CodeName(absl::StatusCode code) {
  std::string name = absl::StatusCodeToString(code);
  std::transform(name.begin(), name.end(), name.begin(), [](char c) {
    return c == ' ' ? '_' : static_cast<char>(std::toupper(c));
  });
  return name;
}

void PrintTable(const std::string& source, const tensorflow::GraphDef& graph,
                const std::vector<EdgeRow>& edges,
                const std::vector<absl::Status>& problems, std::ostream& out) {
  const int control = std::count_if(edges.begin(), edges.end(),
                                    [](const EdgeRow& e) { return e.control; });
  out << source << ": " << graph.node_size() << " nodes, "
      << edges.size() - control << " data edges, " << control
      << " control edges; producer " << graph.versions().producer() << "\n\n";

  size_t name_width = 4, op_width = 2, device_width = 6;
  for (const tensorflow::NodeDef& node : graph.node()) {
    name_width = std::max(name_width, node.name().size());
    op_width = std::max(op_width, node.op().size());
    device_width = std::max(device_width, node.device().size());
  }
  auto row = [&](const std::string& name, const std::string& op,
                 const std::string& device, const std::string& inputs) {
    out << std::left << std::setw(name_width + 2) << name << std::setw(op_width + 2)
        << op << std::setw(device_width + 2) << device << inputs << "\n";
  };
  row("NODE", "OP", "DEVICE", "INPUTS");
  for (const tensorflow::NodeDef& node : graph.node()) {
    row(node.name(), node.op(), node.device(), absl::StrJoin(node.input(), ", "));
  }
  out << "\nEDGES\n";
  for (const EdgeRow& e : edges) {
    out << "  " << (e.control ? "^" : "") << e.src << " -> " << e.dst << "\n";
  }
  out << "\nVALIDATION\n";
  if (problems.empty()) out << "  ok\n";
  for (const absl::Status& s : problems) {
    out << "  " << CodeName(s.code()) << ": " << s.message() << "\n";
  }
}

void PrintJson(const std::string& source, const tensorflow::GraphDef& graph,
               const std::vector<EdgeRow>& edges,
               const std::vector<absl::Status>& problems, std::ostream& out) {
  nlohmann::json doc;
  doc["graph"] = source;
  doc["producer"] = graph.versions().producer();
  doc["nodes"] = nlohmann::json::array();
  for (const tensorflow::NodeDef& node : graph.node()) {
    doc["nodes"].push_back({{"name", node.name()},
                            {"op", node.op()},
                            {"device", node.device()},
                            {"inputs", node.input()}});
  }
  doc["edges"] = nlohmann::json::array();
  for (const EdgeRow& e : edges) {
    doc["edges"].push_back({{"src", e.src}, {"dst", e.dst}, {"control", e.control}});
  }
  doc["errors"] = nlohmann::json::array();
  for (const absl::Status& s : problems) {
    doc["errors"].push_back({{"code", CodeName(s.code())},
                             {"message", std::string(s.message())}});
  }
  out << doc.dump(2) << "\n";
}

}  // namespace

std::vector<absl::Status> ValidateGraphDef(const tensorflow::GraphDef& graph) {
  std::vector<absl::Status> problems;
  absl::flat_hash_map<std::string, int> num_outputs;
  absl::flat_hash_map<std::string, int> seen;
  for (const tensorflow::NodeDef& node : graph.node()) {
    if (++seen[node.name()] == 2) {
      problems.push_back(errors::AlreadyExists("node '", node.name(),
                                               "' is defined more than once"));
    }
    absl::Status status = ValidateNode(node, &num_outputs);
    if (!status.ok()) problems.push_back(status);
  }
  for (const tensorflow::NodeDef& node : graph.node()) {
    for (const std::string& input : node.input()) {
      TensorId id = ParseTensorName(input);
      const std::string producer(id.node());
      if (!seen.contains(producer)) {
        problems.push_back(errors::InvalidArgument(
            "node '", node.name(), "': input '", input, "' names no node of the graph"));
        continue;
      }
      auto it = num_outputs.find(producer);
      if (!id.IsControl() && it != num_outputs.end() && id.index >= it->second) {
        problems.push_back(errors::InvalidArgument(
            "node '", node.name(), "': input '", input, "' asks for output ",
            id.index, " but '", producer, "' has ", it->second, " output",
            it->second == 1 ? "" : "s"));
      }
    }
  }
  if (problems.empty()) {
    // The nodes are sound one by one; the whole-graph rules remain.
    Graph g(OpRegistry::Global());
    absl::Status status = ConvertGraphDefToGraph(GraphConstructorOptions(), graph, &g);
    if (!status.ok()) problems.push_back(status);
  }
  return problems;
}

void PrintInspection(const std::string& source, const tensorflow::GraphDef& graph,
                     const std::vector<absl::Status>& problems, bool json,
                     std::ostream& out) {
  const std::vector<EdgeRow> edges = EdgesOf(graph);
  if (json) {
    PrintJson(source, graph, edges, problems, out);
  } else {
    PrintTable(source, graph, edges, problems, out);
  }
}

absl::StatusOr<tensorflow::GraphDef> OptimizeForInspection(
    const tensorflow::GraphDef& graph, std::string* summary) {
  Graph g(OpRegistry::Global());
  TRIB_RETURN_IF_ERROR(ConvertGraphDefToGraph(GraphConstructorOptions(), graph, &g));
  // Where the local session would put a graph without device requests.
  for (Node* n : g.op_nodes()) {
    n->set_assigned_device_name("/job:localhost/replica:0/task:0/device:CPU:0");
  }
  OptimizationReport report;
  TRIB_RETURN_IF_ERROR(
      GraphOptimizer(tensorflow::RewriterConfig()).Optimize(&g, &report));
  *summary = report.Summary();
  tensorflow::GraphDef optimized;
  g.ToGraphDef(&optimized);
  return optimized;
}

int RunInspect(const std::string& path, bool json, bool optimized, std::ostream& out,
               std::ostream& err) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    if (optimized) {
      err << "error: INVALID_ARGUMENT: --optimized takes a graph file, not a "
             "SavedModel directory\n";
      return 2;
    }
    return RunInspectSavedModel(path, json, out, err);
  }
  absl::StatusOr<tensorflow::GraphDef> graph = ReadGraphDefFile(path);
  if (!graph.ok()) {
    err << "error: " << CodeName(graph.status().code()) << ": "
        << graph.status().message() << "\n";
    return 2;
  }
  const std::vector<absl::Status> problems = ValidateGraphDef(*graph);
  if (optimized && problems.empty()) {
    std::string summary;
    absl::StatusOr<tensorflow::GraphDef> after = OptimizeForInspection(*graph, &summary);
    if (!after.ok()) {
      err << "error: " << CodeName(after.status().code()) << ": "
          << after.status().message() << "\n";
      return 1;
    }
    // On stderr, so --json output stays one JSON document.
    err << "optimized: " << summary << "\n";
    *graph = *std::move(after);
  }
  PrintInspection(path, *graph, problems, json, out);
  return problems.empty() ? 0 : 1;
}

}  // namespace tributary
