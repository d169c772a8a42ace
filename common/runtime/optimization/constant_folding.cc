#include "common/runtime/optimization/constant_folding.h"

#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "common/framework/status.h"
#include "common/framework/types.h"
#include "common/graph/algorithm.h"
#include "common/runtime/optimization/graph_rewrite_util.h"
#include "common/runtime/optimization/host_kernel_evaluator.h"

namespace tributary {
namespace {

bool PlainValueType(DataType t) {
  return !IsRefType(t) && t != DT_RESOURCE && t != DT_VARIANT;
}

// Whether `n` may be replaced by its value, inputs aside.
bool FoldableOp(const Node& n) {
  if (!n.IsOp() || n.IsConstant() || n.IsControlFlow() || n.IsArg() ||
      n.IsRetval() || n.IsSend() || n.IsRecv() || n.IsPlaceholder()) {
    return false;
  }
  if (n.op_def().is_stateful() || n.num_outputs() == 0 || n.num_inputs() == 0) {
    return false;
  }
  for (DataType t : n.input_types()) {
    if (!PlainValueType(t)) return false;
  }
  for (DataType t : n.output_types()) {
    if (!PlainValueType(t)) return false;
  }
  // Constants are evaluated on the host: only nodes that would run on a CPU
  // (their result is then exactly what the step would have computed).
  return DeviceTypeOf(n) == "CPU";
}

// The Const producers of `n`'s data inputs, in input order; empty when any
// data input is not a Const.
std::vector<Node*> ConstInputs(const Node& n) {
  std::vector<Node*> inputs(n.num_inputs(), nullptr);
  for (const Edge* e : n.in_edges()) {
    if (e->IsControlEdge()) continue;
    if (!e->src()->IsConstant()) return {};
    inputs[e->dst_input()] = e->src();
  }
  for (Node* in : inputs) {
    if (in == nullptr) return {};
  }
  return inputs;
}

class Folder {
 public:
  explicit Folder(Graph* g) : g_(g) {}

  absl::StatusOr<int> Run() {
    std::vector<Node*> order;
    GetReversePostOrder(*g_, &order);
    int folded = 0;
    for (Node* n : order) {
      if (!FoldableOp(*n)) continue;
      std::vector<Node*> inputs = ConstInputs(*n);
      if (inputs.empty()) continue;
      if (BypassIdentity(n, inputs[0])) {
        ++folded;
        continue;
      }
      TRIB_ASSIGN_OR_RETURN(bool did, Fold(n, inputs));
      if (did) ++folded;
    }
    RemoveOrphans();
    return folded;
  }

 private:
  // The value of Const `n`, parsed once.
  absl::StatusOr<const Tensor*> Value(Node* n) {
    auto it = values_.find(n);
    if (it == values_.end()) {
      TRIB_ASSIGN_OR_RETURN(Tensor t, ConstValue(*n));
      it = values_.emplace(n, std::move(t)).first;
    }
    return &it->second;
  }

  // Identity(Const) on the Const's device with no control inputs: its
  // readers read the Const itself. No value is copied, which matters for
  // frozen models, where every weight is read through an Identity.
  bool BypassIdentity(Node* n, Node* constant) {
    if (n->type_string() != "Identity" || !ControlInputs(*n).empty() ||
        n->assigned_device_name() != constant->assigned_device_name()) {
      return false;
    }
    if (!RedirectOutput(g_, n, 0, constant, 0).ok()) return false;
    RedirectControlOutputs(g_, n, constant);
    g_->RemoveNode(n);
    maybe_orphans_.insert(constant->name());
    return true;
  }

  absl::StatusOr<bool> Fold(Node* n, const std::vector<Node*>& inputs) {
    std::vector<Tensor> args;
    args.reserve(inputs.size());
    for (Node* in : inputs) {
      absl::StatusOr<const Tensor*> v = Value(in);
      if (!v.ok()) return false;  // a malformed Const: leave it to the step
      args.push_back(**v);
    }
    // A Node's NodeDef no longer lists its inputs (edges hold them); the
    // kernel's signature check wants them back.
    tensorflow::NodeDef def = n->def();
    def.clear_input();
    for (Node* in : inputs) def.add_input(in->name());
    absl::StatusOr<std::vector<Tensor>> outputs =
        EvaluateOnHost(def, g_->versions().producer(), args);
    // The kernel's error (or no CPU kernel): the step will report it.
    if (!outputs.ok()) return false;
    for (const Tensor& t : *outputs) {
      if (t.TotalBytes() > ConstantFolding::kMaxFoldedBytes) return false;
    }

    // Everything the replacement must wait for.
    absl::flat_hash_set<Node*> anchors;
    for (Node* c : ControlInputs(*n)) anchors.insert(c);
    for (Node* in : inputs) {
      for (Node* c : ControlInputs(*in)) anchors.insert(c);
    }
    const std::string device = n->assigned_device_name();
    const std::string name = n->name();
    std::vector<Node*> replacements(n->num_outputs(), nullptr);
    std::vector<int> used;
    for (int i = 0; i < n->num_outputs(); ++i) {
      if (!OutEdgesOf(*n, i).empty()) used.push_back(i);
    }
    // A node nobody reads (a target): keep its name with its first output.
    if (used.empty()) used.push_back(0);
    const bool keep_name = n->num_outputs() == 1;
    const std::string prefix = keep_name ? "" : name;
    if (keep_name) {
      // Free the name first; the node's edges are rebuilt below.
      std::vector<std::pair<Node*, int>> consumers;
      for (const Edge* e : OutEdgesOf(*n, 0)) {
        consumers.emplace_back(e->dst(), e->dst_input());
      }
      std::vector<Node*> control_successors;
      for (const Edge* e : n->out_edges()) {
        if (e->IsControlEdge()) control_successors.push_back(e->dst());
      }
      g_->RemoveNode(n);
      TRIB_ASSIGN_OR_RETURN(Node * c, AddConst(g_, name, (*outputs)[0], device));
      for (const auto& [dst, input] : consumers) {
        TRIB_RETURN_IF_ERROR(g_->AddEdge(c, 0, dst, input).status());
      }
      for (Node* s : control_successors) g_->AddControlEdge(c, s);
      Anchor(c, anchors);
      values_.insert_or_assign(c, (*outputs)[0]);
    } else {
      for (int i : used) {
        TRIB_ASSIGN_OR_RETURN(
            replacements[i],
            AddConst(g_, absl::StrCat(prefix, "/folded_", i), (*outputs)[i],
                     device));
        TRIB_RETURN_IF_ERROR(RedirectOutput(g_, n, i, replacements[i], 0));
        Anchor(replacements[i], anchors);
        values_.insert_or_assign(replacements[i], (*outputs)[i]);
      }
      RedirectControlOutputs(g_, n, replacements[used.front()]);
      g_->RemoveNode(n);
    }
    for (Node* in : inputs) maybe_orphans_.insert(in->name());
    return true;
  }

  // Control inputs for a new Const, and the SOURCE/SINK edges every node
  // without inputs/outputs has.
  void Anchor(Node* c, const absl::flat_hash_set<Node*>& anchors) {
    for (Node* a : anchors) g_->AddControlEdge(a, c);
    if (anchors.empty()) g_->AddControlEdge(g_->source_node(), c);
    if (c->out_edges().empty()) g_->AddControlEdge(c, g_->sink_node());
  }

  // Const inputs of folded nodes that nothing reads any more.
  void RemoveOrphans() {
    for (const std::string& name : maybe_orphans_) {
      Node* n = g_->FindNodeByName(name);
      if (n == nullptr || !n->IsConstant()) continue;
      if (!HasReaders(*n)) {
        values_.erase(n);
        g_->RemoveNode(n);
      }
    }
  }

  Graph* g_;
  absl::flat_hash_map<Node*, Tensor> values_;
  absl::flat_hash_set<std::string> maybe_orphans_;
};

}  // namespace

absl::StatusOr<int> ConstantFolding::Run(Graph* g) const {
  return Folder(g).Run();
}

}  // namespace tributary
