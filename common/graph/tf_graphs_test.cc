// The graph module against real TensorFlow GraphDefs (tests/testdata/tf_graphs,
// see its README.md) and the real op definitions (//kernels/ops):
//  * every good graph imports, and Graph -> GraphDef -> Graph gives the same
//    nodes and edges, the exported GraphDef losing nothing of the original;
//  * pruning for the feeds/fetches/targets in the README keeps exactly what
//    those need;
//  * the err_* graphs fail with the right code.
//
// err_unknown_op.pbtxt: like TensorFlow's Session we reject the whole graph
// at import (NotFound naming the op and node), even though pruning for
// x_y_sum would drop the unknown node: import validates every node before
// any request is known, and a graph that cannot be fully validated is not
// one we want to half-accept.

#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "absl/strings/str_join.h"
#include "common/framework/tf_graphs_testutil.h"
#include "common/graph/algorithm.h"
#include "common/graph/graph.h"
#include "common/graph/graph_def_import.h"
#include "common/graph/tensor_id.h"
#include "common/op/node_def_util.h"
#include "common/op/op_registry.h"
#include "gmock/gmock.h"
#include "google/protobuf/util/message_differencer.h"
#include "gtest/gtest.h"
#include "protos/graph.pb.h"

namespace tributary {
namespace {

using google::protobuf::util::MessageDifferencer;
using ::testing::HasSubstr;
using ::testing::UnorderedElementsAreArray;

using test::LoadTfGraph;

const std::vector<std::string>& GoodGraphs() {
  static const auto* const kGraphs = new std::vector<std::string>{
      "add_int32_feeds.pbtxt",
      "const_tensor_content.pbtxt",
      "conv2d_bias_relu.pbtxt",
      "feed_control_dep.pbtxt",
      "half_plus_two_saved_model.pbtxt",
      "prune_unused_placeholder.pbtxt",
      "relu_identityn_multi_fetch.pbtxt",
      "tf1_while_counter.pbtxt",
      "tfadd_consts.pbtxt",
      "variablev2_assign_add_target.pbtxt",
      // Imports fine; only the fetch of input:1 is wrong.
      "err_invalid_output_index.pbtxt",
  };
  return *kGraphs;
}

absl::StatusOr<std::unique_ptr<Graph>> Import(const tensorflow::GraphDef& g) {
  return GraphFromGraphDef(g, OpRegistry::Global());
}

using EdgeTuple = std::tuple<std::string, int, std::string, int>;
std::set<EdgeTuple> AllEdges(const Graph& g) {
  std::set<EdgeTuple> out;
  for (const Edge* e : g.edges()) {
    out.emplace(e->src()->name(), e->src_output(), e->dst()->name(),
                e->dst_input());
  }
  return out;
}

// Checks that `exported` says everything `original` said: same nodes, ops,
// devices, data inputs (canonical spelling, same order), control inputs (as
// a set), attrs (exported may add op defaults, nothing else), debug info,
// versions and library.
void ExpectNothingLost(const tensorflow::GraphDef& original,
                       const tensorflow::GraphDef& exported) {
  EXPECT_TRUE(
      MessageDifferencer::Equals(original.versions(), exported.versions()));
  EXPECT_TRUE(
      MessageDifferencer::Equals(original.library(), exported.library()));
  ASSERT_EQ(original.node_size(), exported.node_size());
  std::map<std::string, const tensorflow::NodeDef*> by_name;
  for (const auto& n : exported.node()) by_name[n.name()] = &n;
  for (const tensorflow::NodeDef& o : original.node()) {
    SCOPED_TRACE(o.name());
    ASSERT_TRUE(by_name.count(o.name()));
    const tensorflow::NodeDef& e = *by_name[o.name()];
    EXPECT_EQ(o.op(), e.op());
    EXPECT_EQ(o.device(), e.device());
    EXPECT_TRUE(MessageDifferencer::Equals(o.experimental_debug_info(),
                                           e.experimental_debug_info()));
    std::vector<std::string> o_data, e_data;
    std::set<std::string> o_control, e_control;
    for (const auto& in : o.input()) {
      const TensorId id = ParseTensorName(in);
      if (id.IsControl()) {
        o_control.insert(id.ToString());
      } else {
        o_data.push_back(id.ToString());
      }
    }
    for (const auto& in : e.input()) {
      if (IsControlInputName(in)) {
        e_control.insert(in);
      } else {
        e_data.push_back(in);
      }
    }
    EXPECT_EQ(o_data, e_data);
    EXPECT_EQ(o_control, e_control);
    for (const auto& [name, value] : o.attr()) {
      auto it = e.attr().find(name);
      ASSERT_TRUE(it != e.attr().end()) << "attr " << name << " lost";
      EXPECT_TRUE(AreAttrValuesEqual(value, it->second)) << "attr " << name;
    }
    const tensorflow::OpDef* op_def = nullptr;
    ASSERT_TRUE(OpRegistry::Global()->LookUpOpDef(o.op(), &op_def).ok());
    for (const auto& [name, value] : e.attr()) {
      if (o.attr().count(name)) continue;
      bool is_default = false;
      for (const auto& attr : op_def->attr()) {
        if (attr.name() == name && attr.has_default_value()) {
          is_default = AreAttrValuesEqual(attr.default_value(), value);
        }
      }
      EXPECT_TRUE(is_default) << "attr " << name << " added but not a default";
    }
  }
}

TEST(TfGraphsTest, EveryGoodGraphImportsAndRoundTrips) {
  for (const std::string& name : GoodGraphs()) {
    SCOPED_TRACE(name);
    absl::StatusOr<tensorflow::GraphDef> gdef = LoadTfGraph(name);
    ASSERT_TRUE(gdef.ok()) << gdef.status();
    absl::StatusOr<std::unique_ptr<Graph>> g = Import(*gdef);
    ASSERT_TRUE(g.ok()) << g.status();
    EXPECT_EQ((*g)->num_op_nodes(), gdef->node_size());

    tensorflow::GraphDef exported;
    (*g)->ToGraphDef(&exported);
    ExpectNothingLost(*gdef, exported);

    absl::StatusOr<std::unique_ptr<Graph>> g2 = Import(exported);
    ASSERT_TRUE(g2.ok()) << g2.status();
    EXPECT_EQ((*g2)->num_nodes(), (*g)->num_nodes());
    EXPECT_EQ(AllEdges(**g2), AllEdges(**g));
    tensorflow::GraphDef exported2;
    (*g2)->ToGraphDef(&exported2);
    EXPECT_TRUE(MessageDifferencer::Equals(exported, exported2));
  }
}

struct PruneCase {
  std::string file;
  std::vector<std::string> feeds, fetches, targets;
  std::vector<std::string> kept;
};

TEST(TfGraphsTest, PruningKeepsWhatTheReadmeRequestsNeed) {
  const std::vector<PruneCase> cases = {
      {"tfadd_consts.pbtxt",
       {},
       {"x_y_sum"},
       {},
       {"x_const", "y_const", "x_y_sum"}},
      {"add_int32_feeds.pbtxt",
       {"input0", "input1"},
       {"Add"},
       {},
       {"input0", "input1", "Add"}},
      // unused_input (and the stray Const "Prune") are dropped.
      {"prune_unused_placeholder.pbtxt",
       {"input0", "input1"},
       {"Add"},
       {},
       {"input0", "input1", "Add"}},
      // The fed Placeholder stays: its control edges still order the others.
      {"feed_control_dep.pbtxt",
       {"input"},
       {"output_node"},
       {},
       {"input", "variable_node", "output_node"}},
      {"const_tensor_content.pbtxt", {}, {"x", "y", "z"}, {}, {"x", "y", "z"}},
      {"relu_identityn_multi_fetch.pbtxt",
       {"input"},
       {"out:1", "out"},
       {},
       {"input", "Relu", "out"}},
      {"conv2d_bias_relu.pbtxt",
       {"input"},
       {"output_0"},
       {},
       {"input", "conv_net_2d/conv_2d_0/w", "conv_net_2d/conv_2d_0/w/read",
        "conv_net_2d_1/conv_2d_0/convolution", "conv_net_2d/conv_2d_0/b",
        "conv_net_2d/conv_2d_0/b/read", "conv_net_2d_1/conv_2d_0/BiasAdd",
        "conv_net_2d_1/Relu", "output_0"}},
      {"variablev2_assign_add_target.pbtxt",
       {},
       {},
       {"Variable/Assign"},
       {"Variable", "Variable/initial_value", "Variable/Assign"}},
      {"variablev2_assign_add_target.pbtxt",
       {},
       {},
       {"AssignAdd"},
       {"Variable", "AssignAdd/value", "AssignAdd"}},
      {"variablev2_assign_add_target.pbtxt",
       {},
       {"Variable/read"},
       {},
       {"Variable", "Variable/read"}},
      {"tf1_while_counter.pbtxt",
       {},
       {"while/Exit"},
       {},
       {"Const", "while/Enter", "while/Merge", "while/Less/y", "while/Less",
        "while/LoopCond", "while/Switch", "while/Identity", "while/Add/y",
        "while/Add", "while/NextIteration", "while/Exit"}},
      {"half_plus_two_saved_model.pbtxt",
       {},
       {},
       {"init"},
       {"init", "a/Assign", "a", "a/initial_value", "b/Assign", "b",
        "b/initial_value", "c/Assign", "c", "c/initial_value"}},
      // x is fed, so the ParseExample that normally produces it is dropped.
      {"half_plus_two_saved_model.pbtxt",
       {"x"},
       {"y"},
       {},
       {"y", "Mul", "a/read", "a", "x", "b/read", "b"}},
  };
  for (const PruneCase& c : cases) {
    SCOPED_TRACE(c.file + " fetches " + absl::StrJoin(c.fetches, ",") +
                 " targets " + absl::StrJoin(c.targets, ","));
    absl::StatusOr<tensorflow::GraphDef> gdef = LoadTfGraph(c.file);
    ASSERT_TRUE(gdef.ok()) << gdef.status();
    absl::StatusOr<std::unique_ptr<Graph>> g = Import(*gdef);
    ASSERT_TRUE(g.ok()) << g.status();
    absl::Status s = PruneForTargets(g->get(), c.feeds, c.fetches, c.targets);
    ASSERT_TRUE(s.ok()) << s;
    std::vector<std::string> kept;
    for (Node* n : (*g)->op_nodes()) {
      kept.push_back(n->name());
      EXPECT_FALSE(n->in_edges().empty()) << n->name();
      EXPECT_FALSE(n->out_edges().empty()) << n->name();
    }
    EXPECT_THAT(kept, UnorderedElementsAreArray(c.kept));
  }
}

TEST(TfGraphsTest, InvalidOutputIndexFetchIsInvalidArgument) {
  absl::StatusOr<tensorflow::GraphDef> gdef =
      LoadTfGraph("err_invalid_output_index.pbtxt");
  ASSERT_TRUE(gdef.ok());
  absl::StatusOr<std::unique_ptr<Graph>> g = Import(*gdef);
  ASSERT_TRUE(g.ok()) << g.status();
  absl::Status s = PruneForTargets(g->get(), {}, {"input:1"}, {});
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("'input'"));
  EXPECT_THAT(s.message(), HasSubstr("output index 1"));
}

TEST(TfGraphsTest, MalformedTextIsInvalidArgument) {
  absl::StatusOr<tensorflow::GraphDef> gdef =
      LoadTfGraph("err_malformed_text.pbtxt");
  EXPECT_EQ(gdef.status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(TfGraphsTest, UnknownOpRejectsTheWholeGraph) {
  absl::StatusOr<tensorflow::GraphDef> gdef =
      LoadTfGraph("err_unknown_op.pbtxt");
  ASSERT_TRUE(gdef.ok()) << gdef.status();
  absl::StatusOr<std::unique_ptr<Graph>> g = Import(*gdef);
  EXPECT_EQ(g.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(g.status().message(),
              HasSubstr("Op type not registered 'SomeUnknownOp'"));
  EXPECT_THAT(g.status().message(), HasSubstr("'z'"));
}

}  // namespace
}  // namespace tributary
