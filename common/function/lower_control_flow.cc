#include "common/function/lower_control_flow.h"

#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "common/framework/status.h"
#include "common/op/node_def_util.h"

namespace tributary {
namespace {

using tensorflow::DataType;
using tensorflow::NodeDef;

// The device of a lowering node carrying a value of type `type`: the
// construct's, except for a resource handle, whose plumbing is left to the
// placer so it colocates with the resource (a device of its own would
// contradict the resource's, e.g. a loop on a worker over a ps variable).
std::string PlumbingDevice(const NodeDef& node, DataType type) {
  return type == tensorflow::DT_RESOURCE ? std::string() : node.device();
}

// A Merge of one tensor per branch (dtype `type`).
std::string AddMerge(const std::string& name, const std::string& device,
                     const std::vector<std::string>& inputs, DataType type,
                     ExpansionContext* ctx) {
  NodeDef* merge = ctx->AddNode(name, "Merge", device, inputs);
  SetTypeAttr(merge, "T", type);
  (*merge->mutable_attr())["N"].set_i(static_cast<int64_t>(inputs.size()));
  return name;
}

// The branches of an If or a Case after the switches: branch b reads port b
// of every input switch and of the pivot.
struct BranchSite {
  std::vector<std::string> input_switches;  // one per input
  std::vector<std::string> pivots;          // one per branch
  // The switch on the predicate itself (live whatever branch runs).
  std::string selector_switch;
};

// Inlines branch b of `node` at port b of the switches, merges the outputs
// and names the result after the node.
absl::Status LowerBranches(
    const NodeDef& node,
    const std::vector<const tensorflow::NameAttrList*>& branches,
    const DataTypeVector& in_types, const DataTypeVector& out_types,
    const BranchSite& site, ExpansionContext* ctx) {
  std::vector<std::vector<std::string>> rets(out_types.size());
  std::vector<std::string> done;  // per branch: its side effects are over
  bool has_control_rets = false;
  std::vector<InlinedBody> bodies;
  for (size_t b = 0; b < branches.size(); ++b) {
    TRIB_ASSIGN_OR_RETURN(const tensorflow::FunctionDef* fdef,
                          ctx->Function(node, *branches[b]));
    TRIB_RETURN_IF_ERROR(ctx->CheckSignature(node, *fdef, branches[b]->attr(),
                                             in_types, out_types));
    CallSite call;
    call.prefix = absl::StrCat(node.name(), "/branch", b);
    for (const std::string& sw : site.input_switches) {
      call.args.push_back(TensorName(sw, static_cast<int>(b)));
    }
    call.gates = {site.pivots[b]};
    call.device = node.device();
    call.attrs = branches[b]->attr();
    TRIB_ASSIGN_OR_RETURN(InlinedBody body, ctx->Inline(*fdef, call));
    for (size_t k = 0; k < out_types.size(); ++k) {
      rets[k].push_back(body.rets[k]);
    }
    has_control_rets |= !body.control_rets.empty();
    bodies.push_back(std::move(body));
  }
  std::vector<std::string> outputs;
  for (size_t k = 0; k < out_types.size(); ++k) {
    outputs.push_back(AddMerge(absl::StrCat(node.name(), "/output", k),
                               PlumbingDevice(node, out_types[k]), rets[k],
                               out_types[k], ctx));
  }
  std::vector<std::string> controls;
  if (has_control_rets) {
    // One live token per step: the taken branch's pivot once its side
    // effects are over. A plain control edge from both branches would make
    // every consumer dead.
    for (size_t b = 0; b < branches.size(); ++b) {
      std::vector<std::string> inputs = {site.pivots[b]};
      for (const std::string& c : AsControlInputs(bodies[b].control_rets)) {
        inputs.push_back(c);
      }
      const std::string name = absl::StrCat(node.name(), "/branch", b, "_done");
      SetTypeAttr(ctx->AddNode(name, "Identity", node.device(), inputs), "T",
              tensorflow::DT_BOOL);
      done.push_back(name);
    }
    controls.push_back(AddMerge(absl::StrCat(node.name(), "/branch_executed"),
                                node.device(), done, tensorflow::DT_BOOL,
                                ctx));
  } else if (outputs.empty()) {
    // Still runs after its predicate, as the node did.
    controls.push_back(site.selector_switch);
  }
  ctx->AddReplacement(node, outputs, out_types, controls);
  return absl::OkStatus();
}

// One Identity per port of the switch on the selector: live exactly in the
// branch that port selects, the gate of that branch's body.
std::vector<std::string> AddPivots(const NodeDef& node,
                                   const std::string& selector_switch,
                                   int num_branches, DataType type,
                                   ExpansionContext* ctx) {
  std::vector<std::string> pivots;
  for (int b = 0; b < num_branches; ++b) {
    const std::string pivot = absl::StrCat(node.name(), "/pivot", b);
    SetTypeAttr(ctx->AddNode(pivot, "Identity", node.device(),
                             {TensorName(selector_switch, b)}),
                "T", type);
    pivots.push_back(pivot);
  }
  return pivots;
}

// Switches (or _SwitchNs over `index`) for every data input after the first.
std::vector<std::string> AddInputSwitches(const NodeDef& node,
                                          const std::string& op,
                                          const std::string& selector,
                                          const DataTypeVector& in_types,
                                          int num_branches,
                                          ExpansionContext* ctx) {
  std::vector<std::string> data = DataInputs(node);
  std::vector<std::string> switches;
  for (size_t i = 1; i < data.size(); ++i) {
    const std::string name = absl::StrCat(node.name(), "/input", i - 1);
    NodeDef* sw = ctx->AddNode(name, op, PlumbingDevice(node, in_types[i - 1]),
                               {data[i], selector});
    SetTypeAttr(sw, "T", in_types[i - 1]);
    if (op == "_SwitchN") (*sw->mutable_attr())["num_outs"].set_i(num_branches);
    switches.push_back(name);
  }
  return switches;
}

}  // namespace

absl::Status LowerIf(const NodeDef& node, ExpansionContext* ctx) {
  DataType cond_type;
  DataTypeVector in_types, out_types;
  TRIB_RETURN_IF_ERROR(GetNodeAttr(node, "Tcond", &cond_type));
  TRIB_RETURN_IF_ERROR(GetNodeAttr(node, "Tin", &in_types));
  TRIB_RETURN_IF_ERROR(GetNodeAttr(node, "Tout", &out_types));
  const std::vector<std::string> data = DataInputs(node);
  const std::string& device = node.device();

  std::string pred = data[0];
  bool lowered_by_tf = false;
  const tensorflow::AttrValue* lower = AttrSlice(node).Find(
      "_lower_using_switch_merge");
  if (lower != nullptr) lowered_by_tf = lower->b();
  if (cond_type != tensorflow::DT_BOOL || !lowered_by_tf) {
    pred = absl::StrCat(node.name(), "/pred");
    SetTypeAttr(ctx->AddNode(pred, "ToBool", device, {data[0]}), "T", cond_type);
  }
  // Switch(pred, pred): its ports are live exactly in the branch taken.
  const std::string switch_pred = absl::StrCat(node.name(), "/switch_pred");
  SetTypeAttr(ctx->AddNode(switch_pred, "Switch", device, {pred, pred}), "T",
          tensorflow::DT_BOOL);
  BranchSite site;
  // Branch 0 is else (the false port), branch 1 then.
  site.pivots = AddPivots(node, switch_pred, 2, tensorflow::DT_BOOL, ctx);
  site.input_switches =
      AddInputSwitches(node, "Switch", pred, in_types, 2, ctx);
  site.selector_switch = switch_pred;
  const auto& attrs = node.attr();
  std::vector<const tensorflow::NameAttrList*> branches = {
      &attrs.at("else_branch").func(), &attrs.at("then_branch").func()};
  return LowerBranches(node, branches, in_types, out_types, site, ctx);
}

absl::Status LowerCase(const NodeDef& node, ExpansionContext* ctx) {
  DataTypeVector in_types, out_types;
  TRIB_RETURN_IF_ERROR(GetNodeAttr(node, "Tin", &in_types));
  TRIB_RETURN_IF_ERROR(GetNodeAttr(node, "Tout", &out_types));
  const std::vector<std::string> data = DataInputs(node);
  const std::string& device = node.device();
  std::vector<const tensorflow::NameAttrList*> branches;
  for (const auto& f : node.attr().at("branches").list().func()) {
    branches.push_back(&f);
  }
  const int n = static_cast<int>(branches.size());
  const std::string index = data[0];
  const std::string switch_index = absl::StrCat(node.name(), "/switch_index");
  NodeDef* sw = ctx->AddNode(switch_index, "_SwitchN", device, {index, index});
  SetTypeAttr(sw, "T", tensorflow::DT_INT32);
  (*sw->mutable_attr())["num_outs"].set_i(n);
  BranchSite site;
  site.pivots = AddPivots(node, switch_index, n, tensorflow::DT_INT32, ctx);
  site.input_switches =
      AddInputSwitches(node, "_SwitchN", index, in_types, n, ctx);
  site.selector_switch = switch_index;
  return LowerBranches(node, branches, in_types, out_types, site, ctx);
}

namespace {

// The loop variables the body returns unchanged (its ret for output i is
// argument i, directly or through an Identity): TensorFlow 2 passes every
// captured tensor through the loop this way. They become loop-invariant
// Enters instead of a Merge/Switch/NextIteration per iteration.
std::vector<bool> LoopInvariants(const tensorflow::FunctionDef& body, int n) {
  std::vector<bool> invariant(n, false);
  const auto& sig = body.signature();
  if (sig.input_arg_size() != n || sig.output_arg_size() != n) return invariant;
  absl::flat_hash_map<std::string, const NodeDef*> nodes;
  for (const NodeDef& node : body.node_def()) nodes[node.name()] = &node;
  for (int i = 0; i < n; ++i) {
    const auto& in = sig.input_arg(i);
    if (!in.number_attr().empty() || !in.type_list_attr().empty()) continue;
    auto ret = body.ret().find(sig.output_arg(i).name());
    if (ret == body.ret().end()) continue;
    std::string value = ret->second;
    // "Identity:output:0" -> the Identity's data input.
    const size_t colon = value.find(':');
    if (colon != std::string::npos) {
      auto node = nodes.find(value.substr(0, colon));
      if (node == nodes.end() || node->second->op() != "Identity" ||
          value.substr(colon) != ":output:0" ||
          node->second->input_size() == 0) {
        continue;
      }
      value = node->second->input(0);
    }
    invariant[i] = value == in.name() || value == in.name() + ":0";
  }
  return invariant;
}

// The first component of a function-form reference: its node or argument.
absl::string_view RefSource(absl::string_view ref) {
  if (!ref.empty() && ref[0] == '^') ref.remove_prefix(1);
  return ref.substr(0, ref.find(':'));
}

// Loop variables nothing observes: the While's output is unread, the
// condition never reads the variable, and in the body it only feeds
// stateless nodes that lead to its own next value (TensorFlow 2's loop
// counter when no maximum_iterations is set). They are dropped from the loop.
std::vector<bool> DeadLoopVariables(const tensorflow::FunctionDef& cond,
                                    const tensorflow::FunctionDef& body, int n,
                                    const std::vector<bool>& invariant,
                                    const std::vector<bool>& output_read,
                                    const FunctionLibrary& library) {
  std::vector<bool> dead(n, false);
  const auto& sig = body.signature();
  if (sig.input_arg_size() != n || sig.output_arg_size() != n ||
      cond.signature().input_arg_size() != n) {
    return dead;
  }
  for (int i = 0; i < n; ++i) {
    if (invariant[i] || output_read[i]) continue;
    // The condition must not read it.
    const std::string& cond_arg = cond.signature().input_arg(i).name();
    bool read = false;
    for (const NodeDef& node : cond.node_def()) {
      for (const std::string& in : node.input()) {
        read = read || RefSource(in) == cond_arg;
      }
    }
    for (const auto& [key, ret] : cond.ret()) {
      read = read || RefSource(ret) == cond_arg;
    }
    if (read) continue;
    // What it flows into inside the body.
    absl::flat_hash_set<std::string> reached = {sig.input_arg(i).name()};
    for (bool grew = true; grew;) {
      grew = false;
      for (const NodeDef& node : body.node_def()) {
        if (reached.contains(node.name())) continue;
        for (const std::string& in : node.input()) {
          if (reached.contains(RefSource(in))) {
            reached.insert(node.name());
            grew = true;
            break;
          }
        }
      }
    }
    bool observed = false;
    for (const NodeDef& node : body.node_def()) {
      if (!reached.contains(node.name())) continue;
      const tensorflow::OpDef* op_def = nullptr;
      observed = observed || !library.LookUpOpDef(node.op(), &op_def).ok() ||
                 op_def->is_stateful();
    }
    for (int j = 0; j < n && !observed; ++j) {
      auto ret = body.ret().find(sig.output_arg(j).name());
      if (ret == body.ret().end()) {
        observed = true;
        break;
      }
      const bool from_it = reached.contains(std::string(RefSource(ret->second)));
      observed = j == i ? !from_it : from_it;
    }
    for (const auto& [key, node] : body.control_ret()) {
      observed = observed || reached.contains(node);
    }
    dead[i] = !observed;
  }
  return dead;
}

}  // namespace

absl::Status LowerWhile(const NodeDef& node, ExpansionContext* ctx) {
  DataTypeVector types;
  TRIB_RETURN_IF_ERROR(GetNodeAttr(node, "T", &types));
  int64_t parallel_iterations = 10;
  TRIB_RETURN_IF_ERROR(
      GetNodeAttr(node, "parallel_iterations", &parallel_iterations));
  if (types.empty()) {
    return errors::InvalidArgument("While node '", node.name(),
                                   "' has no loop variables");
  }
  const std::vector<std::string> data = DataInputs(node);
  const std::string& device = node.device();
  const std::string& name = node.name();
  const auto& cond_attr = node.attr().at("cond").func();
  const auto& body_attr = node.attr().at("body").func();
  TRIB_ASSIGN_OR_RETURN(const tensorflow::FunctionDef* cond_fn,
                        ctx->Function(node, cond_attr));
  TRIB_ASSIGN_OR_RETURN(const tensorflow::FunctionDef* body_fn,
                        ctx->Function(node, body_attr));
  TRIB_RETURN_IF_ERROR(
      ctx->CheckSignature(node, *body_fn, body_attr.attr(), types, types));
  DataTypeVector cond_in, cond_out;
  {
    TRIB_RETURN_IF_ERROR(ExpansionContext::SignatureTypes(
        *cond_fn, cond_attr.attr(), &cond_in, &cond_out));
    if (cond_out.size() != 1) {
      return errors::InvalidArgument(
          "While node '", name, "': condition function '", cond_attr.name(),
          "' returns ", cond_out.size(), " tensors instead of one");
    }
    TRIB_RETURN_IF_ERROR(ctx->CheckSignature(node, *cond_fn, cond_attr.attr(),
                                             types, cond_out));
  }

  const int n = static_cast<int>(types.size());
  std::vector<bool> invariant = LoopInvariants(*body_fn, n);
  std::vector<bool> output_read(n);
  for (int i = 0; i < n; ++i) output_read[i] = ctx->OutputRead(node, i);
  // Dead variables are handled as invariants: the loop reads them never,
  // and the body's nodes for them are dropped as unused.
  const std::vector<bool> dead = DeadLoopVariables(
      *cond_fn, *body_fn, n, invariant, output_read, ctx->library());
  for (int i = 0; i < n; ++i) {
    if (dead[i]) invariant[i] = true;
  }
  int first_variant = -1;
  for (int i = 0; i < n && first_variant < 0; ++i) {
    if (!invariant[i]) first_variant = i;
  }
  // A loop whose every variable is invariant runs zero times or forever;
  // it keeps the general form.
  if (first_variant < 0) {
    invariant.assign(n, false);
    first_variant = 0;
  }

  // Per variable: what the condition and the body read, what leaves.
  std::vector<std::string> cond_args(n), body_args(n), outputs(n);
  std::vector<std::string> switches(n);
  for (int i = 0; i < n; ++i) {
    const std::string var_device = PlumbingDevice(node, types[i]);
    const std::string enter = absl::StrCat(name, "/enter", i);
    NodeDef* e = ctx->AddNode(enter, "Enter", var_device, {data[i]});
    SetTypeAttr(e, "T", types[i]);
    (*e->mutable_attr())["frame_name"].set_s(name);
    (*e->mutable_attr())["is_constant"].set_b(invariant[i]);
    (*e->mutable_attr())["parallel_iterations"].set_i(parallel_iterations);
    if (invariant[i]) {
      cond_args[i] = body_args[i] = enter;
      outputs[i] = data[i];
      continue;
    }
    const std::string merge = absl::StrCat(name, "/merge", i);
    NodeDef* m = ctx->AddNode(
        merge, "Merge", var_device,
        {enter, absl::StrCat(name, "/next_iteration", i)});
    SetTypeAttr(m, "T", types[i]);
    (*m->mutable_attr())["N"].set_i(2);
    cond_args[i] = merge;
  }

  CallSite cond_call;
  cond_call.prefix = absl::StrCat(name, "/cond");
  cond_call.args = cond_args;
  cond_call.gates = {cond_args[first_variant]};
  cond_call.invariant_args = invariant;
  cond_call.device = device;
  cond_call.attrs = cond_attr.attr();
  TRIB_ASSIGN_OR_RETURN(InlinedBody cond, ctx->Inline(*cond_fn, cond_call));
  std::string pred = cond.rets[0];
  if (cond_out[0] != tensorflow::DT_BOOL || !cond.control_rets.empty()) {
    // TensorFlow's While accepts any predicate ToBool accepts; the
    // condition's side effects finish before the loop goes on.
    std::vector<std::string> inputs = {pred};
    for (const std::string& c : AsControlInputs(cond.control_rets)) {
      inputs.push_back(c);
    }
    pred = absl::StrCat(name, "/cond_bool");
    SetTypeAttr(ctx->AddNode(pred, "ToBool", device, inputs), "T",
                cond_out[0]);
  }
  const std::string loop_cond = absl::StrCat(name, "/loop_cond");
  ctx->AddNode(loop_cond, "LoopCond", device, {pred});

  for (int i = 0; i < n; ++i) {
    if (invariant[i]) continue;
    const std::string var_device = PlumbingDevice(node, types[i]);
    const std::string sw = absl::StrCat(name, "/switch", i);
    SetTypeAttr(
        ctx->AddNode(sw, "Switch", var_device, {cond_args[i], loop_cond}),
        "T", types[i]);
    outputs[i] = absl::StrCat(name, "/exit", i);
    SetTypeAttr(ctx->AddNode(outputs[i], "Exit", var_device, {sw}), "T",
                types[i]);
    body_args[i] = absl::StrCat(name, "/body_input", i);
    SetTypeAttr(ctx->AddNode(body_args[i], "Identity", var_device,
                             {TensorName(sw, 1)}),
                "T", types[i]);
  }

  CallSite body_call;
  body_call.prefix = absl::StrCat(name, "/body");
  body_call.args = body_args;
  body_call.gates = {body_args[first_variant]};
  body_call.invariant_args = invariant;
  body_call.unused_rets = invariant;
  body_call.device = device;
  body_call.attrs = body_attr.attr();
  TRIB_ASSIGN_OR_RETURN(InlinedBody body, ctx->Inline(*body_fn, body_call));
  for (int i = 0; i < n; ++i) {
    if (invariant[i]) continue;
    std::vector<std::string> inputs = {body.rets[i]};
    for (const std::string& c : AsControlInputs(body.control_rets)) {
      inputs.push_back(c);
    }
    SetTypeAttr(ctx->AddNode(absl::StrCat(name, "/next_iteration", i),
                             "NextIteration", PlumbingDevice(node, types[i]),
                             inputs),
                "T", types[i]);
  }
  ctx->AddReplacement(node, outputs, types, {});
  return absl::OkStatus();
}

}  // namespace tributary
