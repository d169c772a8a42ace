#include "common/runtime/optimization/common_subgraph_elimination.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/inlined_vector.h"
#include "absl/hash/hash.h"
#include "common/framework/status.h"
#include "common/framework/types.h"
#include "common/graph/algorithm.h"
#include "common/op/node_def_util.h"
#include "common/runtime/optimization/graph_rewrite_util.h"
#include "protos/attr_value.pb.h"
#include "protos/tensor.pb.h"

namespace tributary {
namespace {

using Input = std::pair<const Node*, int>;  // producer, output
// Most nodes have a few inputs and no control input: no allocation.
using Inputs = absl::InlinedVector<Input, 4>;
using ControlIds = absl::InlinedVector<int, 2>;

bool PlainValueType(DataType t) {
  return !IsRefType(t) && t != DT_RESOURCE && t != DT_VARIANT;
}

// Whether `n` may be merged with an equivalent node (see the header).
bool Mergeable(const Node& n) {
  if (!n.IsOp() || n.IsControlFlow() || n.IsLoopCond() ||
      n.IsControlTrigger() || n.IsArg() || n.IsRetval() || n.IsSend() ||
      n.IsRecv() || n.IsPlaceholder() ||
      n.type_string() == "PlaceholderWithDefault") {
    return false;
  }
  if (n.op_def().is_stateful() || n.num_outputs() == 0) return false;
  for (DataType t : n.input_types()) {
    if (!PlainValueType(t)) return false;
  }
  for (DataType t : n.output_types()) {
    if (!PlainValueType(t)) return false;
  }
  if (n.IsConstant()) {
    const tensorflow::AttrValue* value = n.attrs().Find("value");
    if (value == nullptr || !value->has_tensor() ||
        value->tensor().ByteSizeLong() >
            static_cast<size_t>(CommonSubgraphElimination::kMaxConstBytes)) {
      return false;
    }
  }
  return true;
}

// Ops whose two inputs may be swapped without changing a bit of the result:
// integer addition and multiplication wrap the same either way. (Not
// floating point, see the header; Add on strings concatenates.)
bool Commutative(const Node& n) {
  const std::string& op = n.type_string();
  if (n.num_inputs() != 2 || (op != "Add" && op != "AddV2" && op != "Mul")) {
    return false;
  }
  return DataTypeIsInteger(n.input_type(0));
}

// `n`'s data inputs in canonical order; empty when one is missing (a
// malformed graph the step will report).
Inputs CanonicalInputs(const Node& n) {
  Inputs inputs(n.num_inputs(), Input{nullptr, 0});
  for (const Edge* e : n.in_edges()) {
    if (!e->IsControlEdge()) inputs[e->dst_input()] = {e->src(), e->src_output()};
  }
  for (const Input& in : inputs) {
    if (in.first == nullptr) return {};
  }
  if (Commutative(n)) {
    std::sort(inputs.begin(), inputs.end(), [](const Input& a, const Input& b) {
      return std::make_pair(a.first->id(), a.second) <
             std::make_pair(b.first->id(), b.second);
    });
  }
  return inputs;
}

// `n`'s control inputs by id (SOURCE left out), sorted.
ControlIds ControlInputIds(const Node& n) {
  ControlIds ids;
  for (const Edge* e : n.in_edges()) {
    if (e->IsControlEdge() && !e->src()->IsSource()) ids.push_back(e->src()->id());
  }
  std::sort(ids.begin(), ids.end());
  return ids;
}

// A hash of one attr value, cheap for what ops carry (scalars, small
// lists, shapes); equal values hash equally. Collisions are resolved by
// AreAttrValuesEqual, so it may ignore detail.
size_t AttrValueHash(const tensorflow::AttrValue& v) {
  using tensorflow::AttrValue;
  switch (v.value_case()) {
    case AttrValue::kS:
      return absl::HashOf(v.s());
    case AttrValue::kI:
      return absl::HashOf(v.i());
    case AttrValue::kF: {
      uint32_t bits;
      const float f = v.f();
      std::memcpy(&bits, &f, sizeof(bits));
      return absl::HashOf(bits);
    }
    case AttrValue::kB:
      return absl::HashOf(v.b());
    case AttrValue::kType:
      return absl::HashOf(static_cast<int>(v.type()));
    case AttrValue::kShape: {
      size_t h = absl::HashOf(v.shape().unknown_rank());
      for (const auto& d : v.shape().dim()) h = absl::HashOf(h, d.size());
      return h;
    }
    case AttrValue::kTensor:
      // Only Consts of at most kMaxConstBytes get here in practice.
      if (v.tensor().ByteSizeLong() <=
          static_cast<size_t>(CommonSubgraphElimination::kMaxConstBytes)) {
        return absl::HashOf(v.tensor().SerializeAsString());
      }
      return absl::HashOf(v.tensor().ByteSizeLong());
    case AttrValue::kList: {
      const auto& l = v.list();
      size_t h = absl::HashOf(l.s_size(), l.i_size(), l.f_size(), l.b_size(),
                              l.type_size(), l.shape_size());
      for (int64_t i : l.i()) h = absl::HashOf(h, i);
      for (int t : l.type()) h = absl::HashOf(h, t);
      for (const std::string& s : l.s()) h = absl::HashOf(h, s);
      return h;
    }
    case AttrValue::kFunc:
      return absl::HashOf(v.func().name());
    case AttrValue::kPlaceholder:
      return absl::HashOf(v.placeholder());
    default:
      return 0;
  }
}

// What makes two nodes equivalent, attrs aside.
struct Signature {
  Inputs inputs;
  ControlIds controls;
  size_t hash = 0;
};

Signature SignatureOf(const Node& n) {
  Signature s;
  s.inputs = CanonicalInputs(n);
  s.controls = ControlInputIds(n);
  // Attr order in the NodeDef's map is arbitrary: combine per-attr hashes
  // with a commutative sum.
  size_t attrs = 0;
  for (const auto& [name, value] : n.def().attr()) {
    attrs += absl::HashOf(name, AttrValueHash(value));
  }
  size_t h = absl::HashOf(n.type_string(), n.assigned_device_name(), attrs);
  for (int c : s.controls) h = absl::HashOf(h, c);
  for (const Input& in : s.inputs) h = absl::HashOf(h, in.first->id(), in.second);
  s.hash = h;
  return s;
}

bool Equivalent(const Node& a, const Signature& sa, const Node& b,
                const Signature& sb) {
  return a.type_string() == b.type_string() &&
         a.assigned_device_name() == b.assigned_device_name() &&
         sa.inputs == sb.inputs && sa.controls == sb.controls &&
         a.attrs().EqualAttrs(b.attrs());
}

// Moves every reader of `dup` to `keep` (output i to output i) and removes
// `dup`.
absl::Status Merge(Graph* g, Node* dup, Node* keep) {
  for (int i = 0; i < dup->num_outputs(); ++i) {
    TRIB_RETURN_IF_ERROR(RedirectOutput(g, dup, i, keep, i));
  }
  RedirectControlOutputs(g, dup, keep);
  g->RemoveNode(dup);
  // Every node must reach SINK (a dup nobody read left `keep` as it was).
  if (keep->out_edges().empty()) g->AddControlEdge(keep, g->sink_node());
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<int> CommonSubgraphElimination::Run(Graph* g) const {
  // Among nodes no edge orders, those added first come first, so the
  // survivor is the node the GraphDef lists first.
  std::vector<Node*> order;
  GetReversePostOrder(*g, &order, [](const Node* a, const Node* b) {
    return a->id() > b->id();
  });
  // Survivors by signature hash; a bucket rarely holds more than one, and
  // a survivor's signature is recomputed on a hit rather than stored (its
  // inputs are survivors too, so it has not changed).
  absl::flat_hash_map<size_t, absl::InlinedVector<Node*, 1>> seen;
  seen.reserve(order.size());
  int merged = 0;
  for (Node* n : order) {
    if (!Mergeable(*n)) continue;
    const Signature sig = SignatureOf(*n);
    if (n->num_inputs() > 0 && sig.inputs.empty()) continue;
    absl::InlinedVector<Node*, 1>& bucket = seen[sig.hash];
    Node* keep = nullptr;
    for (Node* candidate : bucket) {
      if (Equivalent(*candidate, SignatureOf(*candidate), *n, sig)) {
        keep = candidate;
        break;
      }
    }
    if (keep == nullptr) {
      bucket.push_back(n);
      continue;
    }
    // Readers of `n` come after it in `order`, so they are signed with
    // `keep` as their input: chains collapse in this one pass.
    TRIB_RETURN_IF_ERROR(Merge(g, n, keep));
    ++merged;
  }
  return merged;
}

}  // namespace tributary
