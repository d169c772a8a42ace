#include "common/function/inline_function.h"

#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "common/device/device_name_utils.h"
#include "common/framework/status.h"
#include "common/graph/tensor_id.h"

namespace tributary {
namespace {

using tensorflow::AttrValue;
using tensorflow::FunctionDef;
using tensorflow::NodeDef;
using tensorflow::OpDef;

// Replaces every placeholder ("$T") in `value` by the call's attr.
absl::Status BindPlaceholders(const AttrValueMap& bound, AttrValue* value) {
  if (value->value_case() == AttrValue::kPlaceholder) {
    auto it = bound.find(value->placeholder());
    if (it == bound.end()) {
      return errors::InvalidArgument("the call binds no attr '",
                                     value->placeholder(), "'");
    }
    *value = it->second;
    return absl::OkStatus();
  }
  if (value->value_case() == AttrValue::kFunc) {
    for (auto& [name, v] : *value->mutable_func()->mutable_attr()) {
      TRIB_RETURN_IF_ERROR(BindPlaceholders(bound, &v));
    }
  }
  return absl::OkStatus();
}

std::string BodyDevice(const std::string& node_device,
                       const std::string& caller_device) {
  if (node_device.empty()) return caller_device;
  if (caller_device.empty()) return node_device;
  DeviceNameUtils::ParsedName node, caller;
  if (!DeviceNameUtils::ParseFullOrLocalName(node_device, &node) ||
      !DeviceNameUtils::ParseFullOrLocalName(caller_device, &caller)) {
    return node_device;  // the placer reports a malformed name
  }
  DeviceNameUtils::MergeUnsetDevNames(&node, caller);
  return DeviceNameUtils::ParsedNameToString(node);
}

// Resolves the function-form references of one body.
class BodyNames {
 public:
  BodyNames(const FunctionDef& fdef, const CallSite& call)
      : fdef_(fdef), call_(call) {}

  absl::Status AddArgs() {
    NameRangeMap ranges;
    absl::Status s = NameRangesForNode(AttrSlice(&call_.attrs),
                                       fdef_.signature(), &ranges, nullptr);
    if (!s.ok()) return Error("", std::string(s.message()));
    int total = 0;
    for (const auto& [name, range] : ranges) {
      total = std::max(total, range.second);
      args_[name] = range;
    }
    if (total != static_cast<int>(call_.args.size())) {
      return Error("", absl::StrCat("takes ", total, " inputs but the call "
                                    "passes ",
                                    call_.args.size()));
    }
    return absl::OkStatus();
  }

  void AddNode(const std::string& name, NameRangeMap outputs) {
    nodes_[name] = std::move(outputs);
  }
  bool HasNode(const std::string& name) const { return nodes_.contains(name); }

  // Appends the graph tensors `ref` stands for to `out`.
  absl::Status Resolve(const std::string& ref,
                       std::vector<std::string>* out) const {
    std::vector<std::string> parts = absl::StrSplit(ref, ':');
    if (parts.size() <= 2) {
      auto arg = args_.find(parts[0]);
      if (arg != args_.end()) {
        auto [start, limit] = arg->second;
        if (parts.size() == 1) {
          for (int i = start; i < limit; ++i) out->push_back(call_.args[i]);
          return absl::OkStatus();
        }
        int k = 0;
        if (absl::SimpleAtoi(parts[1], &k) && k >= 0 && start + k < limit) {
          out->push_back(call_.args[start + k]);
          return absl::OkStatus();
        }
      }
    }
    if (parts.size() == 2 || parts.size() == 3) {
      auto node = nodes_.find(parts[0]);
      if (node != nodes_.end()) {
        auto range = node->second.find(parts[1]);
        if (range != node->second.end()) {
          auto [start, limit] = range->second;
          const std::string name = absl::StrCat(call_.prefix, "/", parts[0]);
          if (parts.size() == 2) {
            for (int i = start; i < limit; ++i) out->push_back(Tensor(name, i));
            return absl::OkStatus();
          }
          int k = 0;
          if (absl::SimpleAtoi(parts[2], &k) && k >= 0 && start + k < limit) {
            out->push_back(Tensor(name, start + k));
            return absl::OkStatus();
          }
        }
      }
    }
    return Error("", absl::StrCat("refers to '", ref,
                                  "', which is neither an argument nor a "
                                  "node output of the function"));
  }

  absl::Status Error(const std::string& node, const std::string& what) const {
    return errors::InvalidArgument(
        "Function '", fdef_.signature().name(), "'",
        node.empty() ? "" : absl::StrCat(" node '", node, "'"), " ", what);
  }

 private:
  static std::string Tensor(const std::string& node, int index) {
    return index == 0 ? node : absl::StrCat(node, ":", index);
  }

  const FunctionDef& fdef_;
  const CallSite& call_;
  absl::flat_hash_map<std::string, std::pair<int, int>> args_;
  absl::flat_hash_map<std::string, NameRangeMap> nodes_;
};

// TensorFlow 2 returns every result through an Identity. A ret that is an
// Identity nobody else reads, without control inputs, on the device of the
// body node it forwards, returns that node's tensor instead: one node less
// per call, and per iteration in a loop body.
void BypassReturnedIdentities(InlinedBody* body) {
  absl::flat_hash_map<absl::string_view, int> index;
  absl::flat_hash_map<std::string, int> readers;
  for (size_t i = 0; i < body->nodes.size(); ++i) {
    index[body->nodes[i].name()] = static_cast<int>(i);
    for (const std::string& in : body->nodes[i].input()) {
      absl::string_view name = in;
      if (!name.empty() && name[0] == '^') name.remove_prefix(1);
      ++readers[std::string(ParseTensorName(name).node())];
    }
  }
  for (const std::string& c : body->control_rets) ++readers[c];
  for (std::string& ret : body->rets) {
    TensorId id = ParseTensorName(ret);
    auto it = index.find(id.node());
    if (it == index.end() || id.index != 0) continue;
    const NodeDef& identity = body->nodes[it->second];
    if (identity.op() != "Identity" || identity.input_size() != 1 ||
        readers[identity.name()] > 0) {
      continue;
    }
    auto producer = index.find(ParseTensorName(identity.input(0)).node());
    if (producer == index.end() ||
        body->nodes[producer->second].device() != identity.device()) {
      continue;
    }
    ret = identity.input(0);
  }
}

// Drops the body nodes no ret, control ret or stateful node needs.
void PruneUnneeded(const std::vector<bool>& stateful, InlinedBody* body) {
  absl::flat_hash_map<absl::string_view, int> index;
  for (size_t i = 0; i < body->nodes.size(); ++i) {
    index[body->nodes[i].name()] = static_cast<int>(i);
  }
  std::vector<bool> keep(body->nodes.size(), false);
  std::vector<int> stack;
  auto need = [&](absl::string_view tensor) {
    if (!tensor.empty() && tensor[0] == '^') tensor.remove_prefix(1);
    auto it = index.find(ParseTensorName(tensor).node());
    if (it != index.end() && !keep[it->second]) {
      keep[it->second] = true;
      stack.push_back(it->second);
    }
  };
  for (const std::string& r : body->rets) need(r);
  for (const std::string& r : body->control_rets) need(r);
  for (size_t i = 0; i < stateful.size(); ++i) {
    if (stateful[i]) need(body->nodes[i].name());
  }
  while (!stack.empty()) {
    const int i = stack.back();
    stack.pop_back();
    for (const std::string& in : body->nodes[i].input()) need(in);
  }
  std::vector<NodeDef> kept;
  kept.reserve(body->nodes.size());
  for (size_t i = 0; i < body->nodes.size(); ++i) {
    if (keep[i]) kept.push_back(std::move(body->nodes[i]));
  }
  body->nodes = std::move(kept);
}

}  // namespace

absl::StatusOr<InlinedBody> InlineFunctionBody(const FunctionDef& fdef,
                                               const CallSite& call,
                                               const FunctionLibrary& library) {
  BodyNames names(fdef, call);
  TRIB_RETURN_IF_ERROR(names.AddArgs());

  // Pass 1: bind attrs and learn every node's output arguments.
  std::vector<NodeDef> body(fdef.node_def().begin(), fdef.node_def().end());
  std::vector<bool> stateful;
  stateful.reserve(body.size());
  for (NodeDef& node : body) {
    for (auto& [attr, value] : *node.mutable_attr()) {
      absl::Status s = BindPlaceholders(call.attrs, &value);
      if (!s.ok()) return names.Error(node.name(), std::string(s.message()));
    }
    const OpDef* op_def = nullptr;
    absl::Status s = library.LookUpOpDef(node.op(), &op_def);
    if (!s.ok()) {
      return errors::NotFound("Function '", fdef.signature().name(),
                              "' node '", node.name(), "': ", s.message());
    }
    AddDefaultsToNodeDef(*op_def, &node);
    stateful.push_back(op_def->is_stateful());
    NameRangeMap outputs;
    s = NameRangesForNode(AttrSlice(node), *op_def, nullptr, &outputs);
    if (!s.ok()) return names.Error(node.name(), std::string(s.message()));
    if (names.HasNode(node.name())) {
      return names.Error(node.name(), "is defined twice");
    }
    names.AddNode(node.name(), std::move(outputs));
  }

  absl::flat_hash_set<std::string> invariant;
  for (size_t i = 0; i < call.invariant_args.size() && i < call.args.size();
       ++i) {
    if (call.invariant_args[i]) invariant.insert(call.args[i]);
  }

  // Pass 2: rename, rewire, place.
  InlinedBody out;
  out.nodes.reserve(body.size());
  for (NodeDef& node : body) {
    NodeDef inlined;
    inlined.set_name(absl::StrCat(call.prefix, "/", node.name()));
    inlined.set_op(node.op());
    inlined.set_device(BodyDevice(node.device(), call.device));
    *inlined.mutable_attr() = std::move(*node.mutable_attr());
    std::vector<std::string> data, control;
    for (const std::string& input : node.input()) {
      if (!input.empty() && input[0] == '^') {
        const std::string dep = input.substr(1);
        if (!names.HasNode(dep)) {
          return names.Error(node.name(), absl::StrCat("has a control input "
                                                       "from '",
                                                       dep,
                                                       "', which is not a "
                                                       "node of the function"));
        }
        control.push_back(absl::StrCat("^", call.prefix, "/", dep));
        continue;
      }
      absl::Status s = names.Resolve(input, &data);
      if (!s.ok()) return names.Error(node.name(), std::string(s.message()));
    }
    bool only_invariants = control.empty();
    for (const std::string& in : data) {
      only_invariants = only_invariants && invariant.contains(in);
    }
    if (only_invariants) {
      for (const std::string& gate : call.gates) {
        control.push_back(absl::StrCat("^", gate));
      }
    }
    for (std::string& in : data) inlined.add_input(std::move(in));
    for (std::string& in : control) inlined.add_input(std::move(in));
    out.nodes.push_back(std::move(inlined));
  }

  NameRangeMap output_ranges;
  absl::Status ranges = NameRangesForNode(
      AttrSlice(&call.attrs), fdef.signature(), nullptr, &output_ranges);
  if (!ranges.ok()) return names.Error("", std::string(ranges.message()));
  for (const tensorflow::OpDef::ArgDef& arg : fdef.signature().output_arg()) {
    auto ret = fdef.ret().find(arg.name());
    if (ret == fdef.ret().end()) {
      return names.Error("", absl::StrCat("has no ret for output '",
                                          arg.name(), "'"));
    }
    const size_t before = out.rets.size();
    TRIB_RETURN_IF_ERROR(names.Resolve(ret->second, &out.rets));
    const auto [start, limit] = output_ranges[arg.name()];
    if (out.rets.size() - before != static_cast<size_t>(limit - start)) {
      return names.Error("", absl::StrCat("returns ", out.rets.size() - before,
                                          " tensors for output '", arg.name(),
                                          "', which has ", limit - start));
    }
  }
  for (const std::string& name : fdef.signature().control_output()) {
    auto ret = fdef.control_ret().find(name);
    if (ret == fdef.control_ret().end() || !names.HasNode(ret->second)) {
      return names.Error("", absl::StrCat("has no node for control output '",
                                          name, "'"));
    }
    out.control_rets.push_back(absl::StrCat(call.prefix, "/", ret->second));
  }
  for (size_t k = 0; k < out.rets.size() && k < call.unused_rets.size(); ++k) {
    if (call.unused_rets[k]) out.rets[k].clear();
  }
  BypassReturnedIdentities(&out);
  PruneUnneeded(stateful, &out);
  return out;
}

}  // namespace tributary
