#include "common/runtime/optimization/graph_rewrite_util.h"

#include "common/device/device_name_utils.h"
#include "common/framework/status.h"
#include "common/op/node_def_util.h"
#include "protos/tensor.pb.h"

namespace tributary {

absl::StatusOr<Tensor> ConstValue(const Node& n) {
  const tensorflow::AttrValue* value = n.attrs().Find("value");
  if (value == nullptr || !value->has_tensor()) {
    return errors::InvalidArgument("'", n.name(), "' has no value attr");
  }
  return Tensor::FromProto(value->tensor());
}

bool HasReaders(const Node& n) {
  for (const Edge* e : n.out_edges()) {
    if (!e->dst()->IsSink()) return true;
  }
  return false;
}

tensorflow::NodeDef ConstNodeDef(const std::string& name, DataType dtype,
                                 const std::string& device) {
  tensorflow::NodeDef def;
  def.set_name(name);
  def.set_op("Const");
  def.set_device(device);
  AddNodeAttr("dtype", dtype, &def);
  return def;
}

absl::StatusOr<Node*> AddConst(Graph* g, const std::string& name,
                               const Tensor& value, const std::string& device) {
  tensorflow::NodeDef def = ConstNodeDef(name, value.dtype(), device);
  // Written in place: a frozen model's weights are large, and every extra
  // copy stays in the (untrimmed) heap.
  value.AsProtoTensorContent((*def.mutable_attr())["value"].mutable_tensor());
  TRIB_ASSIGN_OR_RETURN(Node * n, g->AddNode(std::move(def)));
  n->set_assigned_device_name(device);
  return n;
}

std::vector<const Edge*> OutEdgesOf(const Node& n, int index) {
  std::vector<const Edge*> edges;
  for (const Edge* e : n.out_edges()) {
    if (!e->IsControlEdge() && e->src_output() == index) edges.push_back(e);
  }
  return edges;
}

absl::Status RedirectOutput(Graph* g, Node* from, int from_index, Node* to,
                            int to_index) {
  for (const Edge* e : OutEdgesOf(*from, from_index)) {
    Node* dst = e->dst();
    const int input = e->dst_input();
    g->RemoveEdge(e);
    TRIB_RETURN_IF_ERROR(g->AddEdge(to, to_index, dst, input).status());
  }
  return absl::OkStatus();
}

void RedirectControlOutputs(Graph* g, Node* from, Node* to) {
  std::vector<Node*> successors;
  for (const Edge* e : from->out_edges()) {
    if (e->IsControlEdge() && !e->dst()->IsSink()) {
      successors.push_back(e->dst());
    }
  }
  for (Node* s : successors) g->AddControlEdge(to, s);
}

std::vector<Node*> ControlInputs(const Node& n) {
  std::vector<Node*> sources;
  for (const Edge* e : n.in_edges()) {
    if (e->IsControlEdge() && !e->src()->IsSource()) {
      sources.push_back(e->src());
    }
  }
  return sources;
}

Node* SoleConsumer(const Node& n, bool other_outputs_may_be_read) {
  Node* consumer = nullptr;
  for (const Edge* e : n.out_edges()) {
    if (e->IsControlEdge()) {
      if (e->dst()->IsSink()) continue;
      return nullptr;
    }
    if (e->src_output() != 0) {
      if (other_outputs_may_be_read) continue;
      return nullptr;
    }
    if (consumer != nullptr) return nullptr;
    consumer = e->dst();
  }
  return consumer;
}

std::string DeviceTypeOf(const Node& n) {
  DeviceNameUtils::ParsedName parsed;
  if (!DeviceNameUtils::ParseFullName(n.assigned_device_name(), &parsed) ||
      !parsed.has_type) {
    return "";
  }
  return parsed.type;
}

}  // namespace tributary
