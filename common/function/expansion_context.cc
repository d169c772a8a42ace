#include "common/function/expansion_context.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "common/framework/status.h"
#include "common/graph/tensor_id.h"

namespace tributary {

std::vector<std::string> DataInputs(const tensorflow::NodeDef& node) {
  std::vector<std::string> out;
  for (const std::string& in : node.input()) {
    if (!in.empty() && in[0] == '^') break;
    out.push_back(in);
  }
  return out;
}

std::vector<std::string> ControlInputNodes(const tensorflow::NodeDef& node) {
  std::vector<std::string> out;
  for (const std::string& in : node.input()) {
    if (!in.empty() && in[0] == '^') out.push_back(in.substr(1));
  }
  return out;
}

std::string ReadKey(absl::string_view tensor) {
  TensorId id = ParseTensorName(tensor);
  return absl::StrCat(id.node(), ":", id.index);
}

bool ExpansionContext::OutputRead(const tensorflow::NodeDef& node,
                                  int index) const {
  if (fetchable_) return true;
  auto it = reads_->find(absl::StrCat(node.name(), ":", index));
  return it != reads_->end() && it->second > 0;
}

std::string TensorName(const std::string& node, int index) {
  return index == 0 ? node : absl::StrCat(node, ":", index);
}

std::vector<std::string> AsControlInputs(const std::vector<std::string>& nodes) {
  std::vector<std::string> out;
  out.reserve(nodes.size());
  for (const std::string& n : nodes) out.push_back(absl::StrCat("^", n));
  return out;
}

void SetTypeAttr(tensorflow::NodeDef* node, const std::string& attr,
                 tensorflow::DataType type) {
  (*node->mutable_attr())[attr].set_type(type);
}

void SetTypeListAttr(tensorflow::NodeDef* node, const std::string& attr,
                     const DataTypeVector& types) {
  auto* list = (*node->mutable_attr())[attr].mutable_list();
  for (tensorflow::DataType t : types) list->add_type(t);
}

void ExpansionContext::AddReplacement(const tensorflow::NodeDef& caller,
                                      const std::vector<std::string>& outputs,
                                      const DataTypeVector& types,
                                      const std::vector<std::string>& controls) {
  std::vector<std::string> inputs = outputs;
  for (const std::string& c : AsControlInputs(controls)) inputs.push_back(c);
  if (outputs.empty()) {
    AddNode(caller.name(), "NoOp", caller.device(), inputs);
    return;
  }
  SetTypeListAttr(AddNode(caller.name(), "IdentityN", caller.device(), inputs),
                  "T", types);
}

tensorflow::NodeDef* ExpansionContext::AddNode(
    const std::string& name, const std::string& op, const std::string& device,
    const std::vector<std::string>& inputs) {
  tensorflow::NodeDef& node = out_->emplace_back();
  node.set_name(name);
  node.set_op(op);
  node.set_device(device);
  for (const std::string& in : inputs) node.add_input(in);
  (*op_of_)[name] = op;
  return &node;
}

absl::StatusOr<const tensorflow::FunctionDef*> ExpansionContext::Function(
    const tensorflow::NodeDef& caller,
    const tensorflow::NameAttrList& func) const {
  const tensorflow::FunctionDef* fdef = library_.Find(func.name());
  if (fdef == nullptr) {
    return errors::NotFound("Function '", func.name(), "' called by node '",
                            caller.name(), "' (", caller.op(),
                            ") is not in the graph's function library");
  }
  return fdef;
}

absl::Status ExpansionContext::SignatureTypes(
    const tensorflow::FunctionDef& fdef, const AttrValueMap& attrs,
    DataTypeVector* inputs, DataTypeVector* outputs) {
  tensorflow::NodeDef instance;
  instance.set_op(fdef.signature().name());
  *instance.mutable_attr() = attrs;
  return InOutTypesForNode(instance, fdef.signature(), inputs, outputs);
}

absl::Status ExpansionContext::CheckSignature(
    const tensorflow::NodeDef& caller, const tensorflow::FunctionDef& fdef,
    const AttrValueMap& attrs, const DataTypeVector& inputs,
    const DataTypeVector& outputs) const {
  DataTypeVector want_in, want_out;
  absl::Status s = SignatureTypes(fdef, attrs, &want_in, &want_out);
  if (s.ok() && want_in == inputs && want_out == outputs) {
    return absl::OkStatus();
  }
  return errors::InvalidArgument(
      "Node '", caller.name(), "' (", caller.op(), ") passes ",
      DataTypeVectorString(inputs), " and expects ",
      DataTypeVectorString(outputs), " from function '",
      fdef.signature().name(), "', which takes ",
      s.ok() ? DataTypeVectorString(want_in) : std::string(s.message()),
      s.ok() ? absl::StrCat(" and returns ", DataTypeVectorString(want_out))
             : "");
}

absl::StatusOr<InlinedBody> ExpansionContext::Inline(
    const tensorflow::FunctionDef& fdef, const CallSite& call) {
  TRIB_ASSIGN_OR_RETURN(InlinedBody body,
                        InlineFunctionBody(fdef, call, library_));
  for (const tensorflow::NodeDef& node : body.nodes) {
    if (op_of_->contains(node.name())) {
      return errors::InvalidArgument(
          "Inlining function '", fdef.signature().name(), "' at '",
          call.prefix, "' would add node '", node.name(),
          "', which the graph already has");
    }
  }
  for (tensorflow::NodeDef& node : body.nodes) {
    (*op_of_)[node.name()] = node.op();
    out_->push_back(std::move(node));
  }
  body.nodes.clear();
  return body;
}

std::vector<std::string> ExpansionContext::CallGates(
    const tensorflow::NodeDef& caller, tensorflow::DataType first_input_type) {
  std::vector<std::string> gates = ControlInputNodes(caller);
  if (!gates.empty()) return gates;
  std::vector<std::string> data = DataInputs(caller);
  if (data.empty()) return gates;
  const std::string producer(ParseTensorName(data[0]).node());
  auto it = op_of_->find(producer);
  const bool is_switch = it != op_of_->end() &&
                         (it->second == "Switch" || it->second == "RefSwitch" ||
                          it->second == "_SwitchN");
  if (!is_switch) return {producer};
  const std::string gate = absl::StrCat(caller.name(), "/input_gate");
  tensorflow::NodeDef* identity =
      AddNode(gate, "Identity", caller.device(), {data[0]});
  SetTypeAttr(identity, "T", first_input_type);
  return {gate};
}

}  // namespace tributary
