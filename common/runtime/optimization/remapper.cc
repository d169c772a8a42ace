#include "common/runtime/optimization/remapper.h"

#include <cmath>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "common/framework/status.h"
#include "common/graph/algorithm.h"
#include "common/kernel/device_type.h"
#include "common/kernel/kernel_registry.h"
#include "common/op/node_def_util.h"
#include "common/op/op_registry.h"
#include "common/runtime/optimization/graph_rewrite_util.h"
#include "common/runtime/optimization/shape_analysis.h"
#include "protos/tensor.pb.h"

namespace tributary {
namespace {

bool IsFloat(const Node& n) {
  DataType t;
  return GetNodeAttr(n.attrs(), "T", &t).ok() && t == DT_FLOAT;
}

bool IsNhwc(const Node& n) {
  std::string format;
  return !GetNodeAttr(n.attrs(), "data_format", &format).ok() ||
         format == "NHWC";
}

bool IsActivation(const Node& n) {
  static const auto* kActivations = new absl::flat_hash_set<std::string>{
      "Relu", "Relu6", "Elu", "LeakyRelu", "Tanh", "Sigmoid"};
  return kActivations->contains(n.type_string());
}

// The producer of input `index` of `n`, or null.
Node* InputNode(const Node& n, int index, int* output = nullptr) {
  const Edge* e = nullptr;
  if (!n.input_edge(index, &e).ok()) return nullptr;
  if (output != nullptr) *output = e->src_output();
  return e->src();
}

// The Const behind input `index` of `n`, through Identity nodes; or null.
Node* ConstBehind(const Node& n, int index) {
  Node* src = InputNode(n, index);
  while (src != nullptr && src->type_string() == "Identity") {
    src = InputNode(*src, 0);
  }
  return src != nullptr && src->IsConstant() ? src : nullptr;
}

// The `channels` values of a per-channel float constant for an output of
// rank `rank` (C elements along the last dimension, or a scalar).
std::optional<std::vector<float>> PerChannel(const Node& c, int64_t channels,
                                             int rank) {
  absl::StatusOr<Tensor> t = ConstValue(c);
  if (!t.ok() || t->dtype() != DT_FLOAT || t->dims() > rank) return {};
  const auto v = t->flat<float>();
  if (t->NumElements() == 1) return std::vector<float>(channels, v(0));
  if (t->NumElements() != channels) return {};
  for (int d = 0; d + 1 < t->dims(); ++d) {
    if (t->dim_size(d) != 1) return {};
  }
  return std::vector<float>(v.data(), v.data() + channels);
}

// A convolution or product and what follows it (see remapper.h).
struct Chain {
  Node* head = nullptr;
  bool is_matmul = false;
  Node* filter = nullptr;  // Const filter, or null
  int64_t channels = -1;   // output channels when the filter is known
  Node* bias_add = nullptr;
  Node* bias_const = nullptr;  // BiasAdd's Const bias, or null
  Node* mul = nullptr;
  std::vector<float> scale;  // from `mul` or `batch_norm`
  Node* add = nullptr;
  std::vector<float> shift;  // from `add` or `batch_norm`
  // An inference FusedBatchNorm{,V2,V3} with constant parameters: the Mul(s)
  // and Add(a) steps in one node.
  Node* batch_norm = nullptr;
  Node* residual = nullptr;  // Add/AddV2 of a same-shape tensor
  int side_input = -1;       // which input of `residual` is that tensor
  Node* activation = nullptr;

  Node* last() const {
    if (activation != nullptr) return activation;
    if (residual != nullptr) return residual;
    if (add != nullptr) return add;
    if (mul != nullptr) return mul;
    if (batch_norm != nullptr) return batch_norm;
    if (bias_add != nullptr) return bias_add;
    return head;
  }
  std::vector<Node*> nodes() const {
    std::vector<Node*> all;
    for (Node* n : {head, bias_add, batch_norm, mul, add, residual, activation}) {
      if (n != nullptr) all.push_back(n);
    }
    return all;
  }
  // Whether the bias is known now (a Const, or none at all).
  bool constant_bias() const {
    return bias_add == nullptr || bias_const != nullptr;
  }
};

// The consumer of `n` that may join a chain, or null.
Node* NextInChain(const Node& n) {
  Node* next = SoleConsumer(n);
  if (next == nullptr ||
      next->assigned_device_name() != n.assigned_device_name() ||
      !IsFloat(*next)) {
    return nullptr;
  }
  return next;
}

// For a binary Mul/Add `op` with one input from `from`: the other input's
// per-channel constant values.
std::optional<std::vector<float>> OtherPerChannel(const Node& op,
                                                  const Node& from,
                                                  const Chain& chain) {
  if (op.num_inputs() != 2) return {};
  const Node* in0 = InputNode(op, 0);
  const Node* in1 = InputNode(op, 1);
  int other;
  if (in0 == &from && in1 != &from) {
    other = 1;
  } else if (in1 == &from && in0 != &from) {
    other = 0;
  } else {
    return {};
  }
  Node* c = ConstBehind(op, other);
  if (c == nullptr) return {};
  return PerChannel(*c, chain.channels, chain.is_matmul ? 2 : 4);
}

bool IsAdd(const Node& n) {
  return n.type_string() == "AddV2" || n.type_string() == "Add";
}

// For an Add/AddV2 `add` with one input from `from`: the index of the other
// input when it is a tensor of provably the same shape as `from`'s output
// (so the Add does not broadcast), produced on the same device; else -1.
// Whatever the analysis cannot prove stays unfused, e.g. a [C] variable
// bias added to a convolution: the fused kernel takes only a same-shape
// addend.
int ResidualSide(const Node& add, const Node& from,
                 const ShapeAnalysis& shapes) {
  if (add.num_inputs() != 2) return -1;
  int out0 = 0, out1 = 0;
  const Node* in0 = InputNode(add, 0, &out0);
  const Node* in1 = InputNode(add, 1, &out1);
  if (in0 == nullptr || in1 == nullptr) return -1;
  int side;
  if (in0 == &from && out0 == 0 && in1 != &from) {
    side = 1;
  } else if (in1 == &from && out1 == 0 && in0 != &from) {
    side = 0;
  } else {
    return -1;
  }
  const Node* other = side == 0 ? in0 : in1;
  if (other->assigned_device_name() != from.assigned_device_name() ||
      !shapes.ProvablySame(from.name(), 0, other->name(),
                           side == 0 ? out0 : out1)) {
    return -1;
  }
  return side;
}

bool IsFusedBatchNorm(const Node& n) {
  const std::string& op = n.type_string();
  return op == "FusedBatchNorm" || op == "FusedBatchNormV2" ||
         op == "FusedBatchNormV3";
}

// For a FusedBatchNorm{,V2,V3} `bn` reading `from`'s output: the per-channel
// (scale, shift) it applies, y = x * scale + shift, when it is an inference
// batch norm (float32, NHWC) with constant parameters of `channels`
// elements whose statistics outputs nothing reads; else nothing.
std::optional<std::pair<std::vector<float>, std::vector<float>>>
FoldableBatchNorm(const Node& bn, const Node& from, int64_t channels) {
  DataType u = DT_FLOAT;
  (void)GetNodeAttr(bn.attrs(), "U", &u);
  bool is_training = true;
  float epsilon = 0;
  if (!IsFusedBatchNorm(bn) || !IsFloat(bn) || u != DT_FLOAT ||
      !IsNhwc(bn) ||
      !GetNodeAttr(bn.attrs(), "is_training", &is_training).ok() ||
      is_training || !GetNodeAttr(bn.attrs(), "epsilon", &epsilon).ok()) {
    return {};
  }
  int x_output = 0;
  if (InputNode(bn, 0, &x_output) != &from || x_output != 0) return {};
  // batch_mean, batch_variance and the reserve spaces are not the fused
  // node's to give.
  for (const Edge* e : bn.out_edges()) {
    if (!e->IsControlEdge() && e->src_output() != 0) return {};
  }
  // scale, offset, mean, variance: exactly [C], as the kernel requires
  // (anything else fails there, and stays unfused to fail the same way).
  std::vector<float> params[4];
  for (int i = 0; i < 4; ++i) {
    Node* c = ConstBehind(bn, i + 1);
    if (c == nullptr) return {};
    absl::StatusOr<Tensor> t = ConstValue(*c);
    if (!t.ok() || t->dtype() != DT_FLOAT || t->dims() != 1 ||
        t->NumElements() != channels) {
      return {};
    }
    const auto v = t->flat<float>();
    params[i].assign(v.data(), v.data() + channels);
  }
  const auto& [gamma, beta, mean, variance] = params;
  // TensorFlow's CPU kernel computes (x - mean) * (rsqrt(variance +
  // epsilon) * gamma) + beta in float; the folded factors are taken in
  // double and rounded once, so they differ from it by float rounding only.
  std::vector<float> scale(channels), shift(channels);
  for (int64_t c = 0; c < channels; ++c) {
    const double s = static_cast<double>(gamma[c]) /
                     std::sqrt(static_cast<double>(variance[c]) + epsilon);
    scale[c] = static_cast<float>(s);
    shift[c] = static_cast<float>(beta[c] - mean[c] * s);
  }
  return std::make_pair(std::move(scale), std::move(shift));
}

std::optional<Chain> MatchChain(Node* head, const ShapeAnalysis& shapes) {
  Chain chain;
  chain.head = head;
  const std::string& op = head->type_string();
  chain.is_matmul = op == "MatMul";
  if (!IsFloat(*head) || !IsNhwc(*head)) return {};
  if (op == "DepthwiseConv2dNative") {
    std::string padding;
    if (!GetNodeAttr(head->attrs(), "padding", &padding).ok() ||
        padding == "EXPLICIT") {
      return {};
    }
  }
  chain.filter = ConstBehind(*head, 1);
  if (chain.filter != nullptr) {
    // The shape from the proto: parsing a frozen model's weights only to
    // read their shape would copy them all.
    const tensorflow::TensorProto& w = chain.filter->attrs().Find("value")->tensor();
    const auto& dims = w.tensor_shape().dim();
    if (w.dtype() != tensorflow::DT_FLOAT) {
      chain.filter = nullptr;
    } else if (chain.is_matmul) {
      bool transpose_b = false;
      (void)GetNodeAttr(head->attrs(), "transpose_b", &transpose_b);
      if (dims.size() == 2) chain.channels = dims[transpose_b ? 0 : 1].size();
    } else if (dims.size() == 4) {
      chain.channels = op == "Conv2D" ? dims[3].size() : dims[2].size() * dims[3].size();
    }
    if (chain.channels <= 0) chain.filter = nullptr;
  }

  Node* cur = head;
  Node* next = NextInChain(*cur);
  if (next != nullptr && next->type_string() == "BiasAdd" && IsNhwc(*next) &&
      InputNode(*next, 0) == cur && InputNode(*next, 1) != cur) {
    chain.bias_add = next;
    chain.bias_const = ConstBehind(*next, 1);
    cur = next;
    next = NextInChain(*cur);
  }
  const bool fold_constants = chain.channels > 0 && chain.constant_bias();
  if (fold_constants && !chain.is_matmul && next != nullptr &&
      IsFusedBatchNorm(*next)) {
    if (auto folded = FoldableBatchNorm(*next, *cur, chain.channels)) {
      chain.batch_norm = next;
      chain.scale = std::move(folded->first);
      chain.shift = std::move(folded->second);
      cur = next;
      next = NextInChain(*cur);
    }
  }
  if (fold_constants && !chain.is_matmul && chain.batch_norm == nullptr &&
      next != nullptr && next->type_string() == "Mul") {
    if (auto s = OtherPerChannel(*next, *cur, chain)) {
      chain.mul = next;
      chain.scale = std::move(*s);
      cur = next;
      next = NextInChain(*cur);
    }
  }
  if (fold_constants && chain.batch_norm == nullptr && next != nullptr &&
      (next->type_string() == "AddV2" || next->type_string() == "Add")) {
    if (auto a = OtherPerChannel(*next, *cur, chain)) {
      chain.add = next;
      chain.shift = std::move(*a);
      cur = next;
      next = NextInChain(*cur);
    }
  }
  if (next != nullptr && IsAdd(*next)) {
    const int side = ResidualSide(*next, *cur, shapes);
    if (side >= 0) {
      chain.residual = next;
      chain.side_input = side;
      cur = next;
      next = NextInChain(*cur);
    }
  }
  if (next != nullptr && IsActivation(*next)) {
    chain.activation = next;
  }
  if (chain.last() == head) return {};
  // A bias from elsewhere needs the channel count for a zero bias only
  // when there is none; an activation alone needs a zero bias.
  if (chain.bias_add == nullptr && chain.add == nullptr &&
      chain.channels < 0) {
    return {};
  }
  return chain;
}

// A Const NodeDef (named by the caller) holding `filter`'s value times `scale` along
// the last dimension. The filter's bytes are copied once, straight into the
// new node's proto, and scaled there: frozen weights are large, and every
// transient copy stays in the untrimmed heap (malloc_tuning).
absl::StatusOr<tensorflow::NodeDef> ScaledFilter(const Node& filter,
                                                 const std::vector<float>& scale,
                                                 const std::string& device) {
  tensorflow::NodeDef def = ConstNodeDef("", DT_FLOAT, device);
  tensorflow::TensorProto* value = (*def.mutable_attr())["value"].mutable_tensor();
  const tensorflow::TensorProto& source = filter.attrs().Find("value")->tensor();
  int64_t n = 1;
  for (const auto& d : source.tensor_shape().dim()) n *= d.size();
  if (source.tensor_content().size() == static_cast<size_t>(n) * sizeof(float)) {
    *value = source;
  } else {
    // Values in float_val (small or repeated-last-value constants).
    TRIB_ASSIGN_OR_RETURN(Tensor w, ConstValue(filter));
    w.AsProtoTensorContent(value);
  }
  std::string* bytes = value->mutable_tensor_content();
  float* w = reinterpret_cast<float*>(bytes->data());
  const int64_t c = static_cast<int64_t>(scale.size());
  for (int64_t i = 0; i < n; ++i) w[i] *= scale[i % c];
  return def;
}

// The fused op for the chain's head, or the head's own op when the chain
// is only a filter scaling.
std::string FusedOp(const Chain& chain) {
  if (chain.bias_add == nullptr && chain.add == nullptr &&
      chain.batch_norm == nullptr && chain.residual == nullptr &&
      chain.activation == nullptr) {
    return chain.head->type_string();
  }
  return "_Fused" + chain.head->type_string();
}

class Rewriter {
 public:
  explicit Rewriter(Graph* g) : g_(g) {}

  absl::StatusOr<bool> Rewrite(const Chain& chain) {
    Node* head = chain.head;
    const std::string device = head->assigned_device_name();
    const std::string op = FusedOp(chain);
    const bool fused = op != head->type_string();

    // The fused node's NodeDef (inputs are placeholders; edges come later).
    tensorflow::NodeDef def;
    def.set_name(chain.last()->name());
    def.set_op(op);
    def.set_device(device);
    const OpRegistrationData* op_data = nullptr;
    if (!OpRegistry::Global()->LookUp(op, &op_data).ok()) return false;
    for (const auto& [name, value] : head->def().attr()) {
      for (const auto& attr : op_data->op_def.attr()) {
        if (attr.name() == name) (*def.mutable_attr())[name] = value;
      }
    }
    def.add_input("x");
    def.add_input("filter");
    if (fused) {
      def.add_input("bias");
      std::vector<std::string> fused_ops = {"BiasAdd"};
      if (chain.residual != nullptr) {
        def.add_input("side_input");
        fused_ops.push_back("Add");
      }
      if (chain.activation != nullptr) {
        fused_ops.push_back(chain.activation->type_string());
        float alpha;
        if (GetNodeAttr(chain.activation->attrs(), "alpha", &alpha).ok()) {
          AddNodeAttr("leakyrelu_alpha", alpha, &def);
        }
      }
      AddNodeAttr("fused_ops", fused_ops, &def);
      const int num_args = chain.residual != nullptr ? 2 : 1;
      AddNodeAttr("num_args", int64_t{num_args}, &def);
      if (op == "_FusedConv2D") {
        AddNodeAttr("TArgs", DataTypeVector(num_args, DT_FLOAT), &def);
      }
    }
    const KernelDef* kernel_def = nullptr;
    if (!FindKernelDef(DeviceType(DeviceTypeOf(*head)), def, &kernel_def,
                       nullptr)
             .ok()) {
      return false;
    }

    int x_output = 0;
    Node* x = InputNode(*head, 0, &x_output);
    int filter_output = 0;
    Node* filter = InputNode(*head, 1, &filter_output);
    if (x == nullptr || filter == nullptr) return false;
    Node* side = nullptr;
    int side_output = 0;
    if (chain.residual != nullptr) {
      side = InputNode(*chain.residual, chain.side_input, &side_output);
      if (side == nullptr) return false;
    }

    // The new constants' values, computed before anything changes.
    std::optional<tensorflow::NodeDef> scaled_filter;
    if (!chain.scale.empty()) {
      TRIB_ASSIGN_OR_RETURN(scaled_filter,
                            ScaledFilter(*chain.filter, chain.scale, device));
    }
    const bool new_bias = chain.bias_add == nullptr || !chain.scale.empty() ||
                          !chain.shift.empty();
    std::optional<Tensor> folded_bias;
    if (fused && new_bias) {
      Tensor b(DT_FLOAT, TensorShape({chain.channels}));
      auto v = b.flat<float>();
      v.setZero();
      if (chain.bias_const != nullptr) {
        TRIB_ASSIGN_OR_RETURN(Tensor given, ConstValue(*chain.bias_const));
        if (given.dtype() != DT_FLOAT || given.dims() != 1 ||
            given.NumElements() != chain.channels) {
          return false;  // the BiasAdd fails when the step runs; keep it
        }
        v = given.flat<float>();
      }
      for (int64_t i = 0; i < chain.channels; ++i) {
        if (!chain.scale.empty()) v(i) *= chain.scale[i];
        if (!chain.shift.empty()) v(i) += chain.shift[i];
      }
      folded_bias = std::move(b);
    }

    if (scaled_filter) {
      scaled_filter->set_name(UniqueName(head->name() + "/scaled_filter"));
      TRIB_ASSIGN_OR_RETURN(filter, g_->AddNode(*std::move(scaled_filter)));
      filter->set_assigned_device_name(device);
      filter_output = 0;
    }
    Node* bias = nullptr;
    int bias_output = 0;
    if (folded_bias) {
      TRIB_ASSIGN_OR_RETURN(
          bias, AddConst(g_, UniqueName(chain.last()->name() + "/fused_bias"),
                         *folded_bias, device));
    } else if (fused) {
      bias = InputNode(*chain.bias_add, 1, &bias_output);
    }

    // What the replaced nodes were connected to.
    const std::vector<Node*> replaced = chain.nodes();
    absl::flat_hash_set<Node*> replaced_set(replaced.begin(), replaced.end());
    absl::flat_hash_set<Node*> controls;
    for (Node* n : replaced) {
      for (Node* c : ControlInputs(*n)) {
        if (!replaced_set.contains(c)) controls.insert(c);
      }
    }
    std::vector<std::pair<Node*, int>> consumers;
    for (const Edge* e : OutEdgesOf(*chain.last(), 0)) {
      consumers.emplace_back(e->dst(), e->dst_input());
    }
    std::vector<Node*> control_successors;
    for (const Edge* e : chain.last()->out_edges()) {
      if (e->IsControlEdge() && !e->dst()->IsSink()) {
        control_successors.push_back(e->dst());
      }
    }
    std::vector<std::string> maybe_orphans;
    for (Node* n : replaced) {
      for (const Edge* e : n->in_edges()) {
        if (!e->IsControlEdge() && !replaced_set.contains(e->src())) {
          maybe_orphans.push_back(e->src()->name());
        }
      }
    }

    for (Node* n : replaced) g_->RemoveNode(n);
    TRIB_ASSIGN_OR_RETURN(Node * node, g_->AddNode(std::move(def)));
    node->set_assigned_device_name(device);
    TRIB_RETURN_IF_ERROR(g_->AddEdge(x, x_output, node, 0).status());
    TRIB_RETURN_IF_ERROR(g_->AddEdge(filter, filter_output, node, 1).status());
    if (fused) {
      TRIB_RETURN_IF_ERROR(g_->AddEdge(bias, bias_output, node, 2).status());
    }
    if (side != nullptr) {
      TRIB_RETURN_IF_ERROR(g_->AddEdge(side, side_output, node, 3).status());
    }
    for (Node* c : controls) g_->AddControlEdge(c, node);
    for (const auto& [dst, input] : consumers) {
      TRIB_RETURN_IF_ERROR(g_->AddEdge(node, 0, dst, input).status());
    }
    for (Node* s : control_successors) g_->AddControlEdge(node, s);
    if (node->out_edges().empty()) g_->AddControlEdge(node, g_->sink_node());
    RemoveOrphans(maybe_orphans);
    return true;
  }

 private:
  std::string UniqueName(const std::string& base) {
    std::string name = base;
    for (int i = 1; g_->FindNodeByName(name) != nullptr; ++i) {
      name = absl::StrCat(base, "_", i);
    }
    return name;
  }

  // Consts (and Identity nodes over them) the rewrite left unread.
  void RemoveOrphans(std::vector<std::string> names) {
    while (!names.empty()) {
      Node* n = g_->FindNodeByName(names.back());
      names.pop_back();
      if (n == nullptr ||
          !(n->IsConstant() || n->type_string() == "Identity")) {
        continue;
      }
      if (HasReaders(*n)) continue;
      for (const Edge* e : n->in_edges()) {
        if (!e->IsControlEdge()) names.push_back(e->src()->name());
      }
      g_->RemoveNode(n);
    }
  }

  Graph* g_;
};

// FusedBatchNorm{,V2,V3} [+ Add/AddV2(side)] + Relu (see remapper.h).
struct BatchNormChain {
  Node* bn = nullptr;
  Node* add = nullptr;  // with `side_input`, or null
  int side_input = -1;
  Node* relu = nullptr;
};

std::optional<BatchNormChain> MatchBatchNorm(Node* bn,
                                             const ShapeAnalysis& shapes) {
  BatchNormChain chain;
  chain.bn = bn;
  DataType u = DT_FLOAT;
  (void)GetNodeAttr(bn->attrs(), "U", &u);
  bool is_training = true;
  if (!IsFloat(*bn) || u != DT_FLOAT || !IsNhwc(*bn) ||
      !GetNodeAttr(bn->attrs(), "is_training", &is_training).ok()) {
    return {};
  }
  if (is_training) {
    // Training statistics are the kernel's too, but a graph that reads them
    // (a gradient, a moving-average update) stays as it was written.
    for (const Edge* e : bn->out_edges()) {
      if (!e->IsControlEdge() && e->src_output() != 0) return {};
    }
  }
  Node* next = SoleConsumer(*bn, /*other_outputs_may_be_read=*/true);
  if (next == nullptr ||
      next->assigned_device_name() != bn->assigned_device_name() ||
      !IsFloat(*next)) {
    return {};
  }
  if (IsAdd(*next)) {
    const int side = ResidualSide(*next, *bn, shapes);
    if (side < 0) return {};
    chain.add = next;
    chain.side_input = side;
    next = NextInChain(*next);
  }
  if (next == nullptr || next->type_string() != "Relu") return {};
  chain.relu = next;
  return chain;
}

// Replaces the chain by one _FusedBatchNormEx named after the Relu; false
// (graph untouched) when the device has no kernel for it.
absl::StatusOr<bool> RewriteBatchNorm(Graph* g, const BatchNormChain& chain) {
  Node* bn = chain.bn;
  const std::string device = bn->assigned_device_name();
  tensorflow::NodeDef def;
  def.set_name(chain.relu->name());
  def.set_op("_FusedBatchNormEx");
  def.set_device(device);
  for (const char* attr : {"T", "epsilon", "exponential_avg_factor",
                           "data_format", "is_training"}) {
    const tensorflow::AttrValue* value = bn->attrs().Find(attr);
    if (value != nullptr) (*def.mutable_attr())[attr] = *value;
  }
  AddNodeAttr("U", DT_FLOAT, &def);
  const int sides = chain.add != nullptr ? 1 : 0;
  AddNodeAttr("num_side_inputs", int64_t{sides}, &def);
  AddNodeAttr("activation_mode", "Relu", &def);
  for (const char* in : {"x", "scale", "offset", "mean", "variance"}) {
    def.add_input(in);
  }
  if (sides == 1) def.add_input("side_input");
  const KernelDef* kernel_def = nullptr;
  if (!FindKernelDef(DeviceType(DeviceTypeOf(*bn)), def, &kernel_def, nullptr)
           .ok()) {
    return false;
  }

  std::vector<std::pair<Node*, int>> inputs;
  for (int i = 0; i < 5; ++i) {
    int output = 0;
    Node* src = InputNode(*bn, i, &output);
    if (src == nullptr) return false;
    inputs.emplace_back(src, output);
  }
  if (sides == 1) {
    int output = 0;
    Node* src = InputNode(*chain.add, chain.side_input, &output);
    if (src == nullptr) return false;
    inputs.emplace_back(src, output);
  }
  std::vector<Node*> replaced = {bn, chain.relu};
  if (chain.add != nullptr) replaced.push_back(chain.add);
  const absl::flat_hash_set<Node*> replaced_set(replaced.begin(),
                                                replaced.end());
  absl::flat_hash_set<Node*> controls;
  for (Node* n : replaced) {
    for (Node* c : ControlInputs(*n)) {
      if (!replaced_set.contains(c)) controls.insert(c);
    }
  }
  // (src output, consumer, its input): y from the Relu, statistics from the
  // batch norm.
  std::vector<std::tuple<int, Node*, int>> consumers;
  for (const Edge* e : OutEdgesOf(*chain.relu, 0)) {
    consumers.emplace_back(0, e->dst(), e->dst_input());
  }
  for (const Edge* e : bn->out_edges()) {
    if (!e->IsControlEdge() && e->src_output() != 0) {
      consumers.emplace_back(e->src_output(), e->dst(), e->dst_input());
    }
  }
  std::vector<Node*> control_successors;
  for (const Edge* e : chain.relu->out_edges()) {
    if (e->IsControlEdge() && !e->dst()->IsSink()) {
      control_successors.push_back(e->dst());
    }
  }

  for (Node* n : replaced) g->RemoveNode(n);
  TRIB_ASSIGN_OR_RETURN(Node * node, g->AddNode(std::move(def)));
  node->set_assigned_device_name(device);
  for (size_t i = 0; i < inputs.size(); ++i) {
    TRIB_RETURN_IF_ERROR(
        g->AddEdge(inputs[i].first, inputs[i].second, node, i).status());
  }
  for (Node* c : controls) g->AddControlEdge(c, node);
  for (const auto& [output, dst, input] : consumers) {
    TRIB_RETURN_IF_ERROR(g->AddEdge(node, output, dst, input).status());
  }
  for (Node* n : control_successors) g->AddControlEdge(node, n);
  if (node->out_edges().empty()) g->AddControlEdge(node, g->sink_node());
  return true;
}

}  // namespace

absl::StatusOr<int> Remapper::Run(Graph* g) const {
  std::vector<Node*> order;
  GetReversePostOrder(*g, &order);
  // (name, op): a fused node may take a later head's name (a batch norm
  // folded into the convolution before it), and is no head itself.
  std::vector<std::pair<std::string, std::string>> heads;
  for (Node* n : order) {
    const std::string& op = n->type_string();
    if (op == "Conv2D" || op == "DepthwiseConv2dNative" || op == "MatMul" ||
        IsFusedBatchNorm(*n)) {
      heads.emplace_back(n->name(), op);
    }
  }
  // Shapes of the graph as given: the rewrites keep every name they leave
  // meaning the same tensor (see shape_analysis.h).
  const ShapeAnalysis shapes(*g);
  int rewrites = 0;
  Rewriter rewriter(g);
  for (const auto& [name, op] : heads) {
    Node* head = g->FindNodeByName(name);
    if (head == nullptr || head->type_string() != op) continue;
    if (IsFusedBatchNorm(*head)) {
      std::optional<BatchNormChain> bn = MatchBatchNorm(head, shapes);
      if (!bn) continue;
      TRIB_ASSIGN_OR_RETURN(bool done, RewriteBatchNorm(g, *bn));
      if (done) ++rewrites;
      continue;
    }
    std::optional<Chain> chain = MatchChain(head, shapes);
    if (!chain) continue;
    TRIB_ASSIGN_OR_RETURN(bool done, rewriter.Rewrite(*chain));
    if (done) ++rewrites;
  }
  return rewrites;
}

}  // namespace tributary
