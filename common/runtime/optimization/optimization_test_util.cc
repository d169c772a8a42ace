#include "common/runtime/optimization/optimization_test_util.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "common/framework/logging.h"
#include "common/graph/graph_def_import.h"
#include "common/op/op_registry.h"
#include "common/runtime/optimization/graph_rewrite_util.h"
#include "google/protobuf/text_format.h"
#include "protos/graph.pb.h"

namespace tributary {
namespace optimization_test {

std::unique_ptr<Graph> PlacedGraph(const std::string& text,
                                   const std::string& device) {
  tensorflow::GraphDef gdef;
  CHECK(google::protobuf::TextFormat::ParseFromString(text, &gdef)) << text;
  auto g = std::make_unique<Graph>(OpRegistry::Global());
  absl::Status s = ConvertGraphDefToGraph(GraphConstructorOptions(), gdef,
                                          g.get());
  CHECK(s.ok()) << s;
  for (Node* n : g->op_nodes()) n->set_assigned_device_name(device);
  return g;
}

std::string ShapedPlaceholder(const std::string& name,
                              const std::vector<int>& shape) {
  std::string dims;
  for (int d : shape) absl::StrAppend(&dims, "dim { size: ", d, " } ");
  return absl::StrCat("node { name: '", name,
                      "' op: 'Placeholder' attr { key: 'dtype' value { type: "
                      "DT_FLOAT } } attr { key: 'shape' value { shape { ",
                      dims, "} } } }\n");
}

std::string OpOf(const Graph& g, const std::string& name) {
  Node* n = g.FindNodeByName(name);
  return n == nullptr ? "<missing>" : n->type_string();
}

std::vector<std::string> DataInputs(const Graph& g, const std::string& name) {
  std::vector<std::string> inputs;
  Node* n = g.FindNodeByName(name);
  if (n == nullptr) return inputs;
  inputs.resize(n->num_inputs());
  for (const Edge* e : n->in_edges()) {
    if (e->IsControlEdge()) continue;
    inputs[e->dst_input()] =
        e->src_output() == 0 ? e->src()->name()
                             : absl::StrCat(e->src()->name(), ":",
                                            e->src_output());
  }
  return inputs;
}

std::vector<std::string> ControlInputNames(const Graph& g,
                                           const std::string& name) {
  std::vector<std::string> names;
  Node* n = g.FindNodeByName(name);
  if (n == nullptr) return names;
  for (Node* c : ControlInputs(*n)) names.push_back(c->name());
  std::sort(names.begin(), names.end());
  return names;
}

Tensor ConstValueOf(const Graph& g, const std::string& name) {
  Node* n = g.FindNodeByName(name);
  if (n == nullptr || !n->IsConstant()) return Tensor(DT_FLOAT, TensorShape({0}));
  absl::StatusOr<Tensor> t = ConstValue(*n);
  return t.ok() ? *t : Tensor(DT_FLOAT, TensorShape({0}));
}

}  // namespace optimization_test
}  // namespace tributary
