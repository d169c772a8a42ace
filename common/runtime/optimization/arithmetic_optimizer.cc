#include "common/runtime/optimization/arithmetic_optimizer.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "common/framework/status.h"
#include "common/framework/tensor.h"
#include "common/framework/tensor_shape.h"
#include "common/framework/types.h"
#include "common/graph/algorithm.h"
#include "common/op/node_def_util.h"
#include "common/runtime/optimization/graph_rewrite_util.h"
#include "protos/attr_value.pb.h"
#include "protos/tensor.pb.h"

namespace tributary {
namespace {

// Constants parsed to test their values; a bigger one (a weight) is not
// an identity element worth the parse.
constexpr int64_t kMaxConstElements = 4096;

// What a constant must hold, element by element, to be an identity.
enum class Element { kOne, kZero, kNegativeZero, kPositiveZero };

template <typename T>
double AsDouble(T v) {
  return static_cast<double>(v);
}
template <>
double AsDouble(half v) {
  return static_cast<float>(v);
}
template <>
double AsDouble(bfloat16 v) {
  return static_cast<float>(v);
}

template <typename T>
bool AllAre(const Tensor& t, Element want) {
  const auto v = t.flat<T>();
  for (int64_t i = 0; i < v.size(); ++i) {
    const double d = AsDouble(v(i));
    bool ok = false;
    switch (want) {
      case Element::kOne: ok = d == 1.0; break;
      case Element::kZero: ok = d == 0.0; break;
      case Element::kNegativeZero: ok = d == 0.0 && std::signbit(d); break;
      case Element::kPositiveZero: ok = d == 0.0 && !std::signbit(d); break;
    }
    if (!ok) return false;
  }
  return true;
}

// Whether every element of `t` is `want`; false for dtypes the rules skip
// (complex, strings, bool, quantized).
bool AllAre(const Tensor& t, Element want) {
  switch (t.dtype()) {
    case DT_FLOAT: return AllAre<float>(t, want);
    case DT_DOUBLE: return AllAre<double>(t, want);
    case DT_HALF: return AllAre<half>(t, want);
    case DT_BFLOAT16: return AllAre<bfloat16>(t, want);
    case DT_INT8: return AllAre<int8_t>(t, want);
    case DT_INT16: return AllAre<int16_t>(t, want);
    case DT_INT32: return AllAre<int32_t>(t, want);
    case DT_INT64: return AllAre<int64_t>(t, want);
    case DT_UINT8: return AllAre<uint8_t>(t, want);
    case DT_UINT16: return AllAre<uint16_t>(t, want);
    case DT_UINT32: return AllAre<uint32_t>(t, want);
    case DT_UINT64: return AllAre<uint64_t>(t, want);
    default: return false;
  }
}

// The integer values of a 1-D (or scalar) int32/int64 tensor.
std::optional<std::vector<int64_t>> IntValues(const Tensor& t) {
  if (t.dims() > 1) return {};
  std::vector<int64_t> out;
  if (t.dtype() == DT_INT32) {
    for (int64_t i = 0; i < t.NumElements(); ++i) out.push_back(t.flat<int32_t>()(i));
  } else if (t.dtype() == DT_INT64) {
    for (int64_t i = 0; i < t.NumElements(); ++i) out.push_back(t.flat<int64_t>()(i));
  } else {
    return {};
  }
  return out;
}

// Whether broadcasting x (shape `x`) against a constant of shape `c` gives
// x's own shape.
bool KeepsShape(const PartialTensorShape& x, const PartialTensorShape& c) {
  if (c.dims() == 0) return true;
  if (x.unknown_rank() || c.unknown_rank() || c.dims() > x.dims()) return false;
  const int offset = x.dims() - c.dims();
  for (int d = 0; d < c.dims(); ++d) {
    const int64_t cd = c.dim_size(d);
    if (cd != 1 && cd != x.dim_size(offset + d)) return false;
  }
  return true;
}

// A node that `n` is rewritten to forward (see the header).
struct Forward {
  Node* src = nullptr;
  int output = 0;
  std::vector<Node*> controls;   // waited on besides n's own control inputs
  std::vector<Node*> removable;  // non-Const nodes that go if left unread
};

class Optimizer {
 public:
  explicit Optimizer(Graph* g) : g_(g) {}

  absl::StatusOr<int> Run() {
    MarkFed();
    std::vector<Node*> order;
    GetReversePostOrder(*g_, &order);
    // By id: a rewrite removes nodes and the objects are reused.
    std::vector<int> ids;
    for (Node* n : order) {
      if (n->IsOp()) ids.push_back(n->id());
    }
    int rewrites = 0;
    for (int id : ids) {
      Node* n = g_->FindNodeId(id);
      if (n == nullptr) continue;
      TRIB_ASSIGN_OR_RETURN(bool did, Visit(n));
      if (did) ++rewrites;
    }
    return rewrites;
  }

 private:
  absl::StatusOr<bool> Visit(Node* n) {
    const std::string& op = n->type_string();
    if (op == "Identity") return BypassIdentity(n);
    if (op == "IdentityN") return BypassIdentityN(n);
    if (op == "Reshape") {
      TRIB_ASSIGN_OR_RETURN(bool collapsed, CollapseReshapes(n));
      std::optional<Forward> f = MatchReshape(n);
      if (!f) return collapsed;
      TRIB_RETURN_IF_ERROR(Replace(n, *f));
      return true;
    }
    std::optional<Forward> f;
    if (op == "Mul" || op == "Add" || op == "AddV2" || op == "Sub") {
      f = MatchIdentityElement(n);
    } else if (op == "Neg") {
      f = MatchNegNeg(n);
    } else if (op == "AddN") {
      if (n->num_inputs() == 1) f = ForwardInput(n, 0);
    } else if (op == "Transpose") {
      f = MatchTranspose(n);
    }
    if (!f) return false;
    TRIB_RETURN_IF_ERROR(Replace(n, *f));
    return true;
  }

  // Nodes a feed reaches (through data or control edges): their
  // `_output_shapes` describe a value the client may send differently.
  void MarkFed() {
    fed_.assign(g_->num_node_ids(), false);
    std::deque<Node*> queue;
    for (Node* n : g_->op_nodes()) {
      if (n->IsArg() || n->IsRecv()) {
        fed_[n->id()] = true;
        queue.push_back(n);
      }
    }
    while (!queue.empty()) {
      Node* n = queue.front();
      queue.pop_front();
      for (const Edge* e : n->out_edges()) {
        Node* dst = e->dst();
        if (!dst->IsOp() || fed_[dst->id()]) continue;
        fed_[dst->id()] = true;
        queue.push_back(dst);
      }
    }
  }

  static Node* Input(const Node& n, int index, int* output = nullptr) {
    const Edge* e = nullptr;
    if (!n.input_edge(index, &e).ok()) return nullptr;
    if (output != nullptr) *output = e->src_output();
    return e->src();
  }

  static bool SameDevice(const Node& a, const Node& b) {
    return a.assigned_device_name() == b.assigned_device_name();
  }

  // Forwarding input `index` of `n`, its producer on n's device.
  static std::optional<Forward> ForwardInput(Node* n, int index) {
    Forward f;
    f.src = Input(*n, index, &f.output);
    if (f.src == nullptr || !SameDevice(*n, *f.src)) return {};
    return f;
  }

  // The value of Const input `index` of `n` (on n's device, small).
  static std::optional<Tensor> SmallConst(const Node& n, int index,
                                          Node** constant = nullptr) {
    Node* c = Input(n, index);
    if (c == nullptr || !c->IsConstant() || !SameDevice(n, *c)) return {};
    const tensorflow::AttrValue* value = c->attrs().Find("value");
    if (value == nullptr || !value->has_tensor()) return {};
    int64_t elements = 1;
    for (const auto& d : value->tensor().tensor_shape().dim()) elements *= d.size();
    if (elements > kMaxConstElements) return {};
    absl::StatusOr<Tensor> t = ConstValue(*c);
    if (!t.ok()) return {};
    if (constant != nullptr) *constant = c;
    return *std::move(t);
  }

  // What is known of the shape of `src`:`output`.
  PartialTensorShape ShapeOf(const Node& src, int output) const {
    if (src.IsConstant()) {
      const tensorflow::AttrValue* value = src.attrs().Find("value");
      if (value != nullptr && value->has_tensor()) {
        auto s = PartialTensorShape::FromProto(value->tensor().tensor_shape());
        if (s.ok()) return *s;
      }
      return {};
    }
    if (src.id() >= static_cast<int>(fed_.size()) || fed_[src.id()]) return {};
    const tensorflow::AttrValue* shapes = src.attrs().Find("_output_shapes");
    if (shapes == nullptr || output >= shapes->list().shape_size()) return {};
    auto s = PartialTensorShape::FromProto(shapes->list().shape(output));
    return s.ok() ? *s : PartialTensorShape();
  }

  // Mul by ones, Add/AddV2 of zeros, Sub of zeros (see the header).
  std::optional<Forward> MatchIdentityElement(Node* n) {
    const DataType t = n->output_type(0);
    if (!DataTypeIsInteger(t) && !DataTypeIsFloating(t)) return {};
    const std::string& op = n->type_string();
    const bool floating = DataTypeIsFloating(t);
    Element want = Element::kOne;
    if (op == "Sub") {
      want = floating ? Element::kPositiveZero : Element::kZero;
    } else if (op != "Mul") {
      want = floating ? Element::kNegativeZero : Element::kZero;
    }
    // Sub is x - c only; the others either way round.
    for (int c_index : op == "Sub" ? std::vector<int>{1} : std::vector<int>{1, 0}) {
      Node* c = nullptr;
      std::optional<Tensor> value = SmallConst(*n, c_index, &c);
      if (!value || !AllAre(*value, want)) continue;
      std::optional<Forward> f = ForwardInput(n, 1 - c_index);
      if (!f || !KeepsShape(ShapeOf(*f->src, f->output), value->shape())) {
        continue;
      }
      f->controls = ControlInputs(*c);
      return f;
    }
    return {};
  }

  std::optional<Forward> MatchNegNeg(Node* n) {
    Node* inner = Input(*n, 0);
    if (inner == nullptr || inner->type_string() != "Neg" ||
        !SameDevice(*n, *inner)) {
      return {};
    }
    std::optional<Forward> f = ForwardInput(inner, 0);
    if (!f) return {};
    f->controls = ControlInputs(*inner);
    f->removable.push_back(inner);
    return f;
  }

  std::optional<Forward> MatchTranspose(Node* n) {
    Node* c = nullptr;
    std::optional<Tensor> perm_value = SmallConst(*n, 1, &c);
    if (!perm_value) return {};
    std::optional<std::vector<int64_t>> perm = IntValues(*perm_value);
    if (!perm) return {};
    for (size_t i = 0; i < perm->size(); ++i) {
      if ((*perm)[i] != static_cast<int64_t>(i)) return {};
    }
    std::optional<Forward> f = ForwardInput(n, 0);
    // A perm of another length than x's rank is an error the step reports.
    if (!f || ShapeOf(*f->src, f->output).dims() != static_cast<int>(perm->size())) {
      return {};
    }
    f->controls = ControlInputs(*c);
    return f;
  }

  // Reshape(x, s) where x is known to have shape s already.
  std::optional<Forward> MatchReshape(Node* n) {
    Node* c = nullptr;
    std::optional<Tensor> shape_value = SmallConst(*n, 1, &c);
    if (!shape_value || shape_value->dims() != 1) return {};
    std::optional<std::vector<int64_t>> target = IntValues(*shape_value);
    std::optional<Forward> f = ForwardInput(n, 0);
    if (!target || !f) return {};
    const PartialTensorShape x = ShapeOf(*f->src, f->output);
    if (!x.IsFullyDefined() || x.dims() != static_cast<int>(target->size())) {
      return {};
    }
    int inferred = 0;
    for (int d = 0; d < x.dims(); ++d) {
      const int64_t want = (*target)[d];
      if (want == -1) {
        // Inferred from the others; TensorFlow refuses to infer from zeros.
        if (++inferred > 1 || x.num_elements() == 0) return {};
      } else if (want != x.dim_size(d)) {
        return {};
      }
    }
    f->controls = ControlInputs(*c);
    return f;
  }

  // Reshape(Reshape(x, s1), s2) -> Reshape(x, s2), when the inner Reshape
  // has no other reader and fails exactly when the rewritten one does:
  // s2 has no -1 and product P, s1 has product P or, with one -1, a product
  // of its other dims dividing P. (Then the step reports the error on the
  // outer node rather than the inner one, with the same code.)
  absl::StatusOr<bool> CollapseReshapes(Node* n) {
    int inner_output = 0;
    Node* inner = Input(*n, 0, &inner_output);
    if (inner == nullptr || inner->type_string() != "Reshape" ||
        inner_output != 0 || !SameDevice(*n, *inner) ||
        SoleConsumer(*inner) != n) {
      return false;
    }
    std::optional<Tensor> s1_value = SmallConst(*inner, 1);
    std::optional<Tensor> s2_value = SmallConst(*n, 1);
    if (!s1_value || !s2_value) return false;
    std::optional<std::vector<int64_t>> s1 = IntValues(*s1_value);
    std::optional<std::vector<int64_t>> s2 = IntValues(*s2_value);
    if (!s1 || !s2) return false;
    int64_t p2 = 1;
    for (int64_t d : *s2) {
      if (d < 1) return false;
      p2 *= d;
    }
    int64_t p1 = 1;
    bool inferred = false;
    for (int64_t d : *s1) {
      if (d == -1 && !inferred) {
        inferred = true;
      } else if (d < 1) {
        return false;
      } else {
        p1 *= d;
      }
    }
    if (inferred ? p2 % p1 != 0 : p1 != p2) return false;
    int x_output = 0;
    Node* x = Input(*inner, 0, &x_output);
    if (x == nullptr) return false;
    const Edge* e = nullptr;
    TRIB_RETURN_IF_ERROR(n->input_edge(0, &e));
    g_->RemoveEdge(e);
    TRIB_RETURN_IF_ERROR(g_->AddEdge(x, x_output, n, 0).status());
    for (Node* c : ControlInputs(*inner)) g_->AddControlEdge(c, n);
    RemoveUnread({inner->name()}, {inner->name()}, x);
    return true;
  }

  // Whether readers of `n` may read `src`:`output` directly.
  static bool CanBypass(const Node& n, const Node& src, int output) {
    const DataType t = src.output_type(output);
    return SameDevice(n, src) && !IsRefType(t) && t != DT_RESOURCE &&
           !src.IsControlFlow() && !src.IsLoopCond();
  }

  absl::StatusOr<bool> BypassIdentity(Node* n) {
    int output = 0;
    Node* src = Input(*n, 0, &output);
    if (src == nullptr || !ControlInputs(*n).empty() ||
        !CanBypass(*n, *src, output)) {
      return false;
    }
    TRIB_RETURN_IF_ERROR(Replace(n, Forward{src, output, {}, {}}));
    return true;
  }

  absl::StatusOr<bool> BypassIdentityN(Node* n) {
    if (!ControlInputs(*n).empty()) return false;
    std::vector<std::pair<Node*, int>> inputs;
    for (int i = 0; i < n->num_inputs(); ++i) {
      int output = 0;
      Node* src = Input(*n, i, &output);
      if (src == nullptr || !CanBypass(*n, *src, output)) return false;
      inputs.emplace_back(src, output);
    }
    std::vector<Node*> successors;
    for (const Edge* e : n->out_edges()) {
      if (e->IsControlEdge() && !e->dst()->IsSink()) successors.push_back(e->dst());
    }
    for (int i = 0; i < n->num_inputs(); ++i) {
      TRIB_RETURN_IF_ERROR(
          RedirectOutput(g_, n, i, inputs[i].first, inputs[i].second));
    }
    // A control successor waited for every input.
    for (const auto& [src, output] : inputs) {
      for (Node* s : successors) g_->AddControlEdge(src, s);
    }
    g_->RemoveNode(n);
    for (const auto& [src, output] : inputs) ConnectToSink(src);
    return true;
  }

  // Makes `n`'s readers read f.src (bypass), or turns `n` into
  // Identity(f.src) when ordering or the device requires (see the header).
  absl::Status Replace(Node* n, const Forward& f) {
    std::vector<Node*> controls = ControlInputs(*n);
    for (Node* c : f.controls) {
      if (std::find(controls.begin(), controls.end(), c) == controls.end()) {
        controls.push_back(c);
      }
    }
    std::vector<std::string> maybe_unread;
    for (const Edge* e : n->in_edges()) {
      if (e->src()->IsOp() && e->src() != f.src) maybe_unread.push_back(e->src()->name());
    }
    absl::flat_hash_set<std::string> removable;
    for (Node* r : f.removable) {
      removable.insert(r->name());
      maybe_unread.push_back(r->name());
    }
    if (controls.empty() && CanBypass(*n, *f.src, f.output)) {
      TRIB_RETURN_IF_ERROR(RedirectOutput(g_, n, 0, f.src, f.output));
      RedirectControlOutputs(g_, n, f.src);
      g_->RemoveNode(n);
    } else {
      TRIB_RETURN_IF_ERROR(ReplaceWithIdentity(n, f.src, f.output, controls));
    }
    RemoveUnread(std::move(maybe_unread), removable, f.src);
    ConnectToSink(f.src);
    return absl::OkStatus();
  }

  absl::Status ReplaceWithIdentity(Node* n, Node* src, int output,
                                   const std::vector<Node*>& controls) {
    std::vector<std::pair<Node*, int>> consumers;
    for (const Edge* e : OutEdgesOf(*n, 0)) consumers.emplace_back(e->dst(), e->dst_input());
    std::vector<Node*> successors;
    for (const Edge* e : n->out_edges()) {
      if (e->IsControlEdge() && !e->dst()->IsSink()) successors.push_back(e->dst());
    }
    tensorflow::NodeDef def;
    def.set_name(n->name());
    def.set_op("Identity");
    def.set_device(n->assigned_device_name());
    def.add_input("x");  // checked against the signature, then dropped
    AddNodeAttr("T", n->output_type(0), &def);
    const std::string device = n->assigned_device_name();
    g_->RemoveNode(n);
    TRIB_ASSIGN_OR_RETURN(Node * id, g_->AddNode(std::move(def)));
    id->set_assigned_device_name(device);
    TRIB_RETURN_IF_ERROR(g_->AddEdge(src, output, id, 0).status());
    for (Node* c : controls) g_->AddControlEdge(c, id);
    for (const auto& [dst, input] : consumers) {
      TRIB_RETURN_IF_ERROR(g_->AddEdge(id, 0, dst, input).status());
    }
    for (Node* s : successors) g_->AddControlEdge(id, s);
    ConnectToSink(id);
    return absl::OkStatus();
  }

  // Removes the Consts among `names`, and the nodes in `removable`, that
  // nothing reads any more, then what they alone read; whatever stays
  // (`keep`, the forwarded node, always does) still reaches SINK.
  void RemoveUnread(std::vector<std::string> names,
                    const absl::flat_hash_set<std::string>& removable,
                    const Node* keep) {
    while (!names.empty()) {
      Node* n = g_->FindNodeByName(names.back());
      names.pop_back();
      if (n == nullptr) continue;
      if (n == keep || (!n->IsConstant() && !removable.contains(n->name())) ||
          HasReaders(*n)) {
        ConnectToSink(n);
        continue;
      }
      for (const Edge* e : n->in_edges()) {
        if (e->src()->IsOp()) names.push_back(e->src()->name());
      }
      g_->RemoveNode(n);
    }
  }

  // Every node must reach SINK.
  void ConnectToSink(Node* n) {
    if (n->out_edges().empty()) g_->AddControlEdge(n, g_->sink_node());
  }

  Graph* g_;
  std::vector<bool> fed_;
};

}  // namespace

absl::StatusOr<int> ArithmeticOptimizer::Run(Graph* g) const {
  return Optimizer(g).Run();
}

}  // namespace tributary
