// Time the graph optimizer takes per step signature, printed as a table: one
// row per graph, a column per pass, the pipeline's total (best of --rounds).
//
//   bazel run -c opt //common/runtime/optimization:graph_optimizer_benchmark \
//       -- [--nodes 10000] [--rounds 5] [GRAPH.pb ...]
//
// The synthetic graph (--nodes, default 10k) repeats a block that gives every
// pass work: a convolution with bias and Relu (remapper), a constant
// subexpression (folding), x*1 and an Identity chain (arithmetic), the same
// Exp twice (common subexpressions), a cond on a constant (dead branches).
// Each block reads the one before, so the graph is one deep chain. Graph files
// (binary or text GraphDefs, e.g. the frozen models model_benchmark.py writes
// with --graphs-dir) are optimized whole, every node on one CPU, as
// `tributary inspect --optimized` does. Issue 16's target: a 10k-node graph
// in under 100 ms.

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "common/graph/graph.h"
#include "common/graph/graph_def_import.h"
#include "common/op/node_def_util.h"
#include "common/op/op_registry.h"
#include "common/runtime/optimization/graph_optimizer.h"
#include "google/protobuf/text_format.h"
#include "protos/graph.pb.h"
#include "protos/tensor.pb.h"

namespace tributary {
namespace {

constexpr char kCpu[] = "/job:localhost/replica:0/task:0/device:CPU:0";

class GraphBuilder {
 public:
  explicit GraphBuilder(tensorflow::GraphDef* g) : g_(g) {}

  std::string Op(const std::string& name, const std::string& op,
                 const std::vector<std::string>& inputs,
                 DataType t = DT_FLOAT) {
    tensorflow::NodeDef* n = g_->add_node();
    n->set_name(name);
    n->set_op(op);
    for (const std::string& in : inputs) n->add_input(in);
    AddNodeAttr("T", t, n);
    return name;
  }

  // A float Const of `shape` filled with small deterministic values.
  std::string Const(const std::string& name, const std::vector<int64_t>& shape,
                    float base) {
    tensorflow::NodeDef* n = g_->add_node();
    n->set_name(name);
    n->set_op("Const");
    AddNodeAttr("dtype", DT_FLOAT, n);
    tensorflow::TensorProto* t = (*n->mutable_attr())["value"].mutable_tensor();
    t->set_dtype(DT_FLOAT);
    int64_t count = 1;
    for (int64_t d : shape) {
      t->mutable_tensor_shape()->add_dim()->set_size(d);
      count *= d;
    }
    for (int64_t i = 0; i < count; ++i) t->add_float_val(base + 0.01f * (i % 7));
    return name;
  }

  std::string Bool(const std::string& name, bool value) {
    tensorflow::NodeDef* n = g_->add_node();
    n->set_name(name);
    n->set_op("Const");
    AddNodeAttr("dtype", DT_BOOL, n);
    tensorflow::TensorProto* t = (*n->mutable_attr())["value"].mutable_tensor();
    t->set_dtype(DT_BOOL);
    t->add_bool_val(value);
    return name;
  }

  tensorflow::NodeDef* last() { return g_->mutable_node(g_->node_size() - 1); }

 private:
  tensorflow::GraphDef* g_;
};

// One block of the synthetic graph, reading `x` ([1, 8, 8, 4]); returns its
// output's name.
std::string AddBlock(GraphBuilder& b, int i, const std::string& x) {
  const std::string p = absl::StrCat("block", i, "/");
  const std::string filter = b.Const(p + "filter", {3, 3, 4, 4}, 0.1f);
  b.Op(p + "conv", "Conv2D", {x, filter});
  AddNodeAttr("strides", std::vector<int64_t>{1, 1, 1, 1}, b.last());
  AddNodeAttr("padding", "SAME", b.last());
  b.Op(p + "bias_add", "BiasAdd", {p + "conv", b.Const(p + "bias", {4}, 0.0f)});
  b.Op(p + "relu", "Relu", {p + "bias_add"});
  b.Op(p + "scale", "Mul", {b.Const(p + "a", {}, 1.0f), b.Const(p + "b", {}, 0.5f)});
  b.Op(p + "scaled", "Mul", {p + "relu", p + "scale"});
  b.Op(p + "times_one", "Mul", {p + "scaled", b.Const(p + "one", {}, 1.0f)});
  b.Op(p + "exp1", "Exp", {p + "times_one"});
  b.Op(p + "exp2", "Exp", {p + "times_one"});
  b.Op(p + "sum", "AddV2", {p + "exp1", p + "exp2"});
  b.Op(p + "id1", "Identity", {p + "sum"});
  b.Op(p + "id2", "Identity", {p + "id1"});
  b.Op(p + "switch", "Switch", {p + "id2", b.Bool(p + "pred", true)});
  b.Op(p + "taken", "Neg", {p + "switch:1"});
  b.Op(p + "untaken", "Abs", {p + "switch"});
  b.Op(p + "merge", "Merge", {p + "untaken", p + "taken"});
  AddNodeAttr("N", 2, b.last());
  return b.Op(p + "out", "Tanh", {p + "merge"});
}

tensorflow::GraphDef SyntheticGraph(int target_nodes) {
  tensorflow::GraphDef g;
  GraphBuilder b(&g);
  tensorflow::NodeDef* x = g.add_node();
  x->set_name("x");
  x->set_op("Placeholder");
  AddNodeAttr("dtype", DT_FLOAT, x);
  std::string last = "x";
  for (int i = 0; g.node_size() < target_nodes; ++i) last = AddBlock(b, i, last);
  return g;
}

bool ReadGraph(const std::string& path, tensorflow::GraphDef* g) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream bytes;
  bytes << in.rdbuf();
  return g->ParseFromString(bytes.str()) ||
         google::protobuf::TextFormat::ParseFromString(bytes.str(), g);
}

struct Row {
  std::string graph;
  int nodes = 0;
  int nodes_after = 0;
  std::map<std::string, double> pass_ms;  // best round's
  double total_ms = 0;
};

// The best of `rounds` optimizations of `gdef` (a fresh Graph each round).
bool Measure(const std::string& name, const tensorflow::GraphDef& gdef,
             int rounds, Row* row) {
  GraphOptimizer optimizer{tensorflow::RewriterConfig()};
  row->graph = name;
  row->total_ms = 1e300;
  for (int r = 0; r < rounds; ++r) {
    Graph g(OpRegistry::Global());
    absl::Status s = ConvertGraphDefToGraph(GraphConstructorOptions(), gdef, &g);
    if (!s.ok()) {
      std::fprintf(stderr, "%s: %s\n", name.c_str(), s.ToString().c_str());
      return false;
    }
    for (Node* n : g.op_nodes()) n->set_assigned_device_name(kCpu);
    OptimizationReport report;
    s = optimizer.Optimize(&g, &report);
    if (!s.ok()) {
      std::fprintf(stderr, "%s: %s\n", name.c_str(), s.ToString().c_str());
      return false;
    }
    const double total = absl::ToDoubleMilliseconds(report.total);
    if (total < row->total_ms) {
      row->total_ms = total;
      row->nodes = report.nodes_before;
      row->nodes_after = g.num_op_nodes();
      row->pass_ms.clear();
      for (const auto& p : report.passes) {
        row->pass_ms[p.pass] = absl::ToDoubleMilliseconds(p.time);
      }
    }
  }
  return true;
}

int Main(int argc, char** argv) {
  int nodes = 10000;
  int rounds = 5;
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if ((arg == "--nodes" || arg == "--rounds") && i + 1 < argc) {
      int value = 0;
      if (!absl::SimpleAtoi(argv[++i], &value) || value <= 0) {
        std::fprintf(stderr, "%s takes a positive number\n", arg.c_str());
        return 2;
      }
      (arg == "--nodes" ? nodes : rounds) = value;
    } else {
      files.push_back(arg);
    }
  }
  std::vector<Row> rows;
  Row row;
  if (!Measure(absl::StrCat("synthetic ", nodes, " nodes"),
               SyntheticGraph(nodes), rounds, &row)) {
    return 1;
  }
  rows.push_back(row);
  for (const std::string& path : files) {
    tensorflow::GraphDef g;
    if (!ReadGraph(path, &g)) {
      std::fprintf(stderr, "%s: not a GraphDef\n", path.c_str());
      return 1;
    }
    // "resnet50_b1/graph.pb": model_benchmark.py names the folder.
    const size_t slash = path.find_last_of('/');
    const size_t start =
        slash == std::string::npos || slash == 0
            ? 0
            : path.find_last_of('/', slash - 1) + 1;  // npos + 1 == 0
    if (!Measure(path.substr(start), g, rounds, &row)) {
      return 1;
    }
    rows.push_back(row);
  }
  const std::vector<std::string> passes =
      GraphOptimizer(tensorflow::RewriterConfig()).EnabledPasses();
  std::printf("| graph | nodes before / after |");
  for (const std::string& p : passes) std::printf(" %s ms |", p.c_str());
  std::printf(" total ms (best of %d) |\n|---|---|", rounds);
  for (size_t i = 0; i < passes.size(); ++i) std::printf("---|");
  std::printf("---|\n");
  for (const Row& r : rows) {
    std::printf("| %s | %d / %d |", r.graph.c_str(), r.nodes, r.nodes_after);
    for (const std::string& p : passes) {
      auto it = r.pass_ms.find(p);
      std::printf(" %.2f |", it == r.pass_ms.end() ? 0.0 : it->second);
    }
    std::printf(" %.2f |\n", r.total_ms);
  }
  return 0;
}

}  // namespace
}  // namespace tributary

int main(int argc, char** argv) { return tributary::Main(argc, argv); }
