#include "common/runtime/optimization/shape_analysis.h"

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "common/framework/tensor.h"
#include "common/graph/algorithm.h"
#include "common/op/node_def_util.h"
#include "common/runtime/optimization/graph_rewrite_util.h"
#include "protos/tensor_shape.pb.h"

namespace tributary {
namespace {

using Shape = std::optional<SymbolicShape>;

SymbolicDim Known(int64_t size) {
  SymbolicDim d;
  d.size = size;
  return d;
}

const SymbolicDim kUnknown{};

// ceil(d / stride).
SymbolicDim CeilDiv(const SymbolicDim& d, int64_t stride) {
  if (stride <= 0) return kUnknown;
  if (d.known()) return Known((d.size + stride - 1) / stride);
  if (d.unknown()) return kUnknown;
  SymbolicDim r = d;
  r.divisor *= stride;
  return r;
}

// A sliding window's output size: `window` is the dilated filter extent,
// `padding` the total explicit padding (VALID: 0). With a symbolic input,
// only windows that the padding makes size-preserving before the stride
// (window - 1 == padding) have a provable result.
SymbolicDim Window(const SymbolicDim& d, int64_t window, int64_t stride,
                   int64_t padding) {
  if (stride <= 0 || window <= 0) return kUnknown;
  if (d.known()) {
    const int64_t padded = d.size + padding;
    if (padded < window) return kUnknown;  // the kernel rejects it
    return Known((padded - window) / stride + 1);
  }
  if (window - 1 == padding) return CeilDiv(d, stride);
  return kUnknown;
}

// The broadcast of two dimensions (binary elementwise ops).
SymbolicDim Broadcast(const SymbolicDim& a, const SymbolicDim& b) {
  if (a.SameAs(b)) return a;
  if (a.known() && a.size == 1) return b;
  if (b.known() && b.size == 1) return a;
  return kUnknown;
}

bool IsShapePreserving(const std::string& op) {
  static const auto* kOps = new absl::flat_hash_set<std::string>{
      "Identity",  "Snapshot", "StopGradient", "PreventGradient",
      "CheckNumerics", "Relu", "Relu6",     "Elu",      "Selu",
      "LeakyRelu", "Tanh",     "Sigmoid",   "Softplus", "Softsign",
      "Neg",       "Abs",      "Square",    "Sqrt",     "Rsqrt",
      "Exp",       "Log",      "Reciprocal", "Softmax", "LogSoftmax",
      "Cast",      "BiasAdd",  "FusedBatchNorm", "FusedBatchNormV2",
      "FusedBatchNormV3", "_FusedBatchNormEx"};
  return kOps->contains(op);
}

bool IsBroadcastingBinary(const std::string& op) {
  static const auto* kOps = new absl::flat_hash_set<std::string>{
      "Add",     "AddV2",   "Sub",     "Mul",
      "RealDiv", "Div",     "Maximum", "Minimum",
      "SquaredDifference"};
  return kOps->contains(op);
}

class Analyzer {
 public:
  explicit Analyzer(absl::flat_hash_map<std::string, SymbolicShape>* shapes)
      : shapes_(shapes) {}

  void Visit(const Node& n) {
    if (!n.IsOp() || n.num_outputs() == 0) return;
    Shape s = Infer(n);
    if (s) (*shapes_)[absl::StrCat(n.name(), ":0")] = *std::move(s);
  }

 private:
  Shape Input(const Node& n, int i) const {
    const Edge* e = nullptr;
    if (!n.input_edge(i, &e).ok()) return {};
    auto it = shapes_->find(absl::StrCat(e->src()->name(), ":", e->src_output()));
    if (it == shapes_->end()) return {};
    return it->second;
  }

  // Output 0 of `n` (every op here has its interesting result there; the
  // batch norms' statistics are left unknown).
  Shape Infer(const Node& n) {
    const std::string& op = n.type_string();
    if (op == "Placeholder" || op == "PlaceholderV2" ||
        op == "PlaceholderWithDefault") {
      return FromShapeAttr(n);
    }
    if (op == "_Arg" || op == "_Recv") return FromFeed(n);
    if (n.IsConstant()) {
      const tensorflow::TensorProto* value = nullptr;
      if (!GetNodeAttr(n.attrs(), "value", &value).ok()) return {};
      SymbolicShape s;
      for (const auto& d : value->tensor_shape().dim()) s.push_back(Known(d.size()));
      return s;
    }
    if (IsShapePreserving(op)) return Input(n, 0);
    if (IsBroadcastingBinary(op) && n.num_inputs() == 2) {
      return BroadcastShapes(Input(n, 0), Input(n, 1));
    }
    if (op == "Conv2D" || op == "_FusedConv2D" ||
        op == "DepthwiseConv2dNative" || op == "_FusedDepthwiseConv2dNative" ||
        op == "MaxPool" || op == "AvgPool") {
      return Windowed(n);
    }
    if (op == "Pad" || op == "PadV2" || op == "MirrorPad") return Padded(n);
    if (op == "MatMul" || op == "_FusedMatMul") return Product(n);
    return {};
  }

  Shape FromShapeAttr(const Node& n) {
    tensorflow::TensorShapeProto proto;
    if (!GetNodeAttr(n.attrs(), "shape", &proto).ok()) return {};
    return FromShapeProto(proto);
  }

  Shape FromShapeProto(const tensorflow::TensorShapeProto& proto) {
    if (proto.unknown_rank()) return {};
    SymbolicShape s;  // each -1 a symbol of its own
    for (const auto& d : proto.dim()) {
      if (d.size() >= 0) {
        s.push_back(Known(d.size()));
      } else {
        SymbolicDim sym;
        sym.symbol = next_symbol_++;
        s.push_back(sym);
      }
    }
    return s;
  }

  // A feed node for a Placeholder carries its declared shape (subgraph.cc).
  Shape FromFeed(const Node& n) {
    const tensorflow::AttrValue* shapes = n.attrs().Find("_output_shapes");
    if (shapes == nullptr || shapes->list().shape_size() != 1) return {};
    return FromShapeProto(shapes->list().shape(0));
  }

  static Shape BroadcastShapes(const Shape& a, const Shape& b) {
    if (!a || !b) return {};
    const size_t rank = std::max(a->size(), b->size());
    SymbolicShape s(rank);
    for (size_t i = 0; i < rank; ++i) {
      // Right-aligned; a missing leading dimension acts as 1.
      const SymbolicDim da = i + a->size() >= rank ? (*a)[i + a->size() - rank] : Known(1);
      const SymbolicDim db = i + b->size() >= rank ? (*b)[i + b->size() - rank] : Known(1);
      s[i] = Broadcast(da, db);
    }
    return s;
  }

  // NHWC convolutions (filter from input 1, HWIO or depthwise HWCM) and
  // pools (ksize attr).
  Shape Windowed(const Node& n) {
    const std::string& op = n.type_string();
    std::string format = "NHWC";
    (void)GetNodeAttr(n.attrs(), "data_format", &format);
    if (format != "NHWC") return {};
    Shape in = Input(n, 0);
    if (!in || in->size() != 4) return {};
    std::vector<int64_t> strides, dilations = {1, 1, 1, 1}, explicit_paddings;
    std::string padding;
    if (!GetNodeAttr(n.attrs(), "strides", &strides).ok() ||
        strides.size() != 4 ||
        !GetNodeAttr(n.attrs(), "padding", &padding).ok()) {
      return {};
    }
    (void)GetNodeAttr(n.attrs(), "dilations", &dilations);
    (void)GetNodeAttr(n.attrs(), "explicit_paddings", &explicit_paddings);
    if (dilations.size() != 4) return {};
    const bool pool = op == "MaxPool" || op == "AvgPool";
    int64_t window[2];
    SymbolicDim channels;
    if (pool) {
      std::vector<int64_t> ksize;
      if (!GetNodeAttr(n.attrs(), "ksize", &ksize).ok() || ksize.size() != 4 ||
          ksize[0] != 1 || ksize[3] != 1 || strides[0] != 1 || strides[3] != 1) {
        return {};
      }
      window[0] = ksize[1];
      window[1] = ksize[2];
      channels = (*in)[3];
    } else {
      Shape filter = Input(n, 1);
      if (!filter || filter->size() != 4 || !(*filter)[0].known() ||
          !(*filter)[1].known()) {
        return {};
      }
      window[0] = ((*filter)[0].size - 1) * dilations[1] + 1;
      window[1] = ((*filter)[1].size - 1) * dilations[2] + 1;
      const bool depthwise = op == "DepthwiseConv2dNative" ||
                             op == "_FusedDepthwiseConv2dNative";
      if (!depthwise) {
        channels = (*filter)[3];
      } else if ((*filter)[2].known() && (*filter)[3].known()) {
        channels = Known((*filter)[2].size * (*filter)[3].size);
      }
    }
    SymbolicShape out = {(*in)[0], kUnknown, kUnknown, channels};
    for (int i = 0; i < 2; ++i) {
      const SymbolicDim& d = (*in)[i + 1];
      const int64_t stride = strides[i + 1];
      if (padding == "SAME") {
        out[i + 1] = CeilDiv(d, stride);
      } else if (padding == "VALID") {
        out[i + 1] = Window(d, window[i], stride, 0);
      } else if (padding == "EXPLICIT" && explicit_paddings.size() == 8) {
        out[i + 1] = Window(d, window[i], stride,
                            explicit_paddings[2 * (i + 1)] +
                                explicit_paddings[2 * (i + 1) + 1]);
      }
    }
    return out;
  }

  // Pad's paddings must be a Const [rank, 2] of int32/int64.
  Shape Padded(const Node& n) {
    Shape in = Input(n, 0);
    const Node* paddings = nullptr;
    if (!in || !n.input_node(1, &paddings).ok() || !paddings->IsConstant()) {
      return {};
    }
    absl::StatusOr<Tensor> p = ConstValue(*paddings);
    if (!p.ok() || p->dims() != 2 || p->dim_size(1) != 2 ||
        p->dim_size(0) != static_cast<int64_t>(in->size())) {
      return {};
    }
    SymbolicShape out = *in;
    for (size_t i = 0; i < in->size(); ++i) {
      int64_t before, after;
      if (p->dtype() == DT_INT32) {
        before = p->matrix<int32_t>()(i, 0);
        after = p->matrix<int32_t>()(i, 1);
      } else if (p->dtype() == DT_INT64) {
        before = p->matrix<int64_t>()(i, 0);
        after = p->matrix<int64_t>()(i, 1);
      } else {
        return {};
      }
      const SymbolicDim& d = (*in)[i];
      if (before == 0 && after == 0) continue;
      out[i] = d.known() ? Known(d.size + before + after) : kUnknown;
    }
    return out;
  }

  Shape Product(const Node& n) {
    Shape a = Input(n, 0), b = Input(n, 1);
    if (!a || !b || a->size() != 2 || b->size() != 2) return {};
    bool ta = false, tb = false;
    (void)GetNodeAttr(n.attrs(), "transpose_a", &ta);
    (void)GetNodeAttr(n.attrs(), "transpose_b", &tb);
    return SymbolicShape{(*a)[ta ? 1 : 0], (*b)[tb ? 0 : 1]};
  }

  absl::flat_hash_map<std::string, SymbolicShape>* shapes_;
  int64_t next_symbol_ = 1;
};

}  // namespace

ShapeAnalysis::ShapeAnalysis(const Graph& g) {
  std::vector<Node*> order;
  GetReversePostOrder(g, &order);
  Analyzer analyzer(&shapes_);
  for (const Node* n : order) analyzer.Visit(*n);
}

const SymbolicShape* ShapeAnalysis::Shape(const std::string& node,
                                          int index) const {
  auto it = shapes_.find(absl::StrCat(node, ":", index));
  return it == shapes_.end() ? nullptr : &it->second;
}

bool ShapeAnalysis::ProvablySame(const std::string& a, int a_index,
                                 const std::string& b, int b_index) const {
  const SymbolicShape* sa = Shape(a, a_index);
  const SymbolicShape* sb = Shape(b, b_index);
  if (sa == nullptr || sb == nullptr || sa->size() != sb->size()) return false;
  for (size_t i = 0; i < sa->size(); ++i) {
    if (!(*sa)[i].SameAs((*sb)[i])) return false;
  }
  return true;
}

}  // namespace tributary
