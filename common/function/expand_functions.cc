#include "common/function/expand_functions.h"

#include <algorithm>
#include <deque>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/framework/status.h"
#include "common/function/expansion_context.h"
#include "common/function/function_library.h"
#include "common/function/lower_control_flow.h"
#include "common/op/node_def_util.h"

namespace tributary {
namespace {

using tensorflow::NodeDef;

// Nested calls deeper than this are taken for recursion.
constexpr int kMaxCallDepth = 64;

enum class CallKind { kNone, kPartitionedCall, kByName, kIf, kCase, kWhile };

CallKind KindOf(const NodeDef& node,
                const absl::flat_hash_set<std::string>& functions) {
  const std::string& op = node.op();
  if (op == "PartitionedCall" || op == "StatefulPartitionedCall") {
    return CallKind::kPartitionedCall;
  }
  if (op == "If" || op == "StatelessIf") return CallKind::kIf;
  if (op == "Case" || op == "StatelessCase") return CallKind::kCase;
  if (op == "While" || op == "StatelessWhile") return CallKind::kWhile;
  if (functions.contains(op)) return CallKind::kByName;
  return CallKind::kNone;
}

absl::flat_hash_set<std::string> FunctionNames(
    const tensorflow::GraphDef& graph) {
  absl::flat_hash_set<std::string> names;
  for (const auto& f : graph.library().function()) {
    names.insert(f.signature().name());
  }
  return names;
}

// Inlines a PartitionedCall, StatefulPartitionedCall or call by name.
absl::Status InlineCall(const NodeDef& node, CallKind kind,
                        const tensorflow::OpDef& op_def,
                        ExpansionContext* ctx) {
  tensorflow::NameAttrList func;
  DataTypeVector in_types, out_types;
  if (kind == CallKind::kPartitionedCall) {
    func = node.attr().at("f").func();
    TRIB_RETURN_IF_ERROR(GetNodeAttr(node, "Tin", &in_types));
    TRIB_RETURN_IF_ERROR(GetNodeAttr(node, "Tout", &out_types));
  } else {
    func.set_name(node.op());
    *func.mutable_attr() = node.attr();
    TRIB_RETURN_IF_ERROR(
        InOutTypesForNode(node, op_def, &in_types, &out_types));
  }
  TRIB_ASSIGN_OR_RETURN(const tensorflow::FunctionDef* fdef,
                        ctx->Function(node, func));
  TRIB_RETURN_IF_ERROR(
      ctx->CheckSignature(node, *fdef, func.attr(), in_types, out_types));
  CallSite call;
  call.prefix = node.name();
  call.args = DataInputs(node);
  call.gates = ctx->CallGates(
      node, in_types.empty() ? tensorflow::DT_INVALID : in_types[0]);
  call.device = node.device();
  call.attrs = func.attr();
  TRIB_ASSIGN_OR_RETURN(InlinedBody body, ctx->Inline(*fdef, call));
  std::vector<std::string> controls = body.control_rets;
  for (std::string& c : ControlInputNodes(node)) controls.push_back(c);
  ctx->AddReplacement(node, body.rets, out_types, controls);
  return absl::OkStatus();
}

// The function names `node` calls, for messages.
std::string Callees(const NodeDef& node) {
  std::vector<std::string> names;
  for (const auto& [attr, value] : node.attr()) {
    if (value.has_func()) names.push_back(value.func().name());
    for (const auto& f : value.list().func()) names.push_back(f.name());
  }
  if (names.empty()) names.push_back(node.op());
  std::sort(names.begin(), names.end());
  return absl::StrJoin(names, "', '");
}

absl::Status ExpandOne(const NodeDef& original, CallKind kind,
                       const FunctionLibrary& library,
                       ExpansionContext* ctx) {
  const tensorflow::OpDef* op_def = nullptr;
  TRIB_RETURN_IF_ERROR(library.LookUpOpDef(original.op(), &op_def));
  NodeDef node = original;
  AddDefaultsToNodeDef(*op_def, &node);
  TRIB_RETURN_IF_ERROR(ValidateNodeDef(node, *op_def));
  switch (kind) {
    case CallKind::kIf:
      return LowerIf(node, ctx);
    case CallKind::kCase:
      return LowerCase(node, ctx);
    case CallKind::kWhile:
      return LowerWhile(node, ctx);
    default:
      return InlineCall(node, kind, *op_def, ctx);
  }
}

bool AnyCall(const tensorflow::GraphDef& graph,
             const absl::flat_hash_set<std::string>& functions) {
  for (const NodeDef& node : graph.node()) {
    if (KindOf(node, functions) != CallKind::kNone) return true;
  }
  return false;
}

}  // namespace

bool HasFunctionCalls(const tensorflow::GraphDef& graph) {
  return AnyCall(graph, FunctionNames(graph));
}

absl::Status ExpandFunctionCalls(const OpRegistryInterface& ops,
                                 tensorflow::GraphDef* graph) {
  const absl::flat_hash_set<std::string> functions = FunctionNames(*graph);
  if (!AnyCall(*graph, functions)) return absl::OkStatus();
  TRIB_ASSIGN_OR_RETURN(FunctionLibrary library,
                        FunctionLibrary::Create(graph->library(), ops));

  absl::flat_hash_map<std::string, std::string> op_of;
  absl::flat_hash_map<std::string, int> reads;
  auto count_reads = [&reads](const NodeDef& node, int delta) {
    for (const std::string& in : node.input()) {
      if (in.empty() || in[0] == '^') break;
      reads[ReadKey(in)] += delta;
    }
  };
  for (const NodeDef& node : graph->node()) {
    op_of[node.name()] = node.op();
    count_reads(node, 1);
  }

  struct Pending {
    NodeDef node;
    int depth = 0;
  };
  std::deque<Pending> work;
  for (NodeDef& node : *graph->mutable_node()) {
    work.push_back({std::move(node), 0});
  }
  graph->clear_node();
  std::vector<NodeDef> expanded;
  int64_t total = static_cast<int64_t>(work.size());
  while (!work.empty()) {
    Pending item = std::move(work.front());
    work.pop_front();
    const CallKind kind = KindOf(item.node, functions);
    if (kind == CallKind::kNone) {
      *graph->add_node() = std::move(item.node);
      continue;
    }
    if (item.depth >= kMaxCallDepth) {
      return errors::InvalidArgument(
          "Node '", item.node.name(), "' calls '", Callees(item.node),
          "' at a nesting depth of ", item.depth,
          " function calls: a recursive function cannot be inlined, and "
          "Tributary runs functions by inlining them");
    }
    expanded.clear();
    // The client can name only the graph's own nodes in fetches.
    ExpansionContext ctx(library, &op_of, &reads, /*fetchable=*/item.depth == 0,
                         &expanded);
    count_reads(item.node, -1);
    absl::Status s = ExpandOne(item.node, kind, library, &ctx);
    if (!s.ok()) return s;
    for (const NodeDef& node : expanded) count_reads(node, 1);
    total += static_cast<int64_t>(expanded.size()) - 1;
    if (total > kMaxExpandedNodes) {
      return errors::ResourceExhausted(
          "Expanding the graph's function calls exceeds ", kMaxExpandedNodes,
          " nodes (at node '", item.node.name(), "' calling '",
          Callees(item.node), "')");
    }
    // Bodies may hold calls of their own: expand them next.
    for (auto it = expanded.rbegin(); it != expanded.rend(); ++it) {
      work.push_front({std::move(*it), item.depth + 1});
    }
  }
  return absl::OkStatus();
}

}  // namespace tributary
