// Rewrite, placement and partitioning of the real TensorFlow GraphDefs in
// tests/testdata/tf_graphs, with every node forced round-robin onto 2 or 4
// CPUs so that nearly every edge is cut (the TF1 while loop included).

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/framework/tf_graphs_testutil.h"
#include "common/graph/graph.h"
#include "common/graph/graph_def_import.h"
#include "common/op/op_registry.h"
#include "common/runtime/partition/graph_partition.h"
#include "common/runtime/partition/partition_test_util.h"
#include "common/runtime/partition/subgraph.h"
#include "common/runtime/placement/placer.h"
#include "common/runtime/placement/test_graph.h"
#include "gtest/gtest.h"
#include "protos/graph.pb.h"

namespace tributary {
namespace {

using partition_test::CheckPartitions;
using partition_test::DeviceOptions;
using partition_test::Partitions;
using placement_test::CpuName;
using placement_test::MakeDeviceSet;

struct Case {
  const char* file;
  std::vector<std::string> feeds;
  std::vector<std::string> fetches;
  std::vector<std::string> targets;
};

const std::vector<Case>& Cases() {
  static const auto* cases = new std::vector<Case>{
      {"tfadd_consts.pbtxt", {}, {"x_y_sum"}, {}},
      {"add_int32_feeds.pbtxt", {"input0", "input1"}, {"Add"}, {}},
      {"prune_unused_placeholder.pbtxt", {"input0", "input1"}, {"Add"}, {}},
      {"feed_control_dep.pbtxt", {"input"}, {"output_node"}, {}},
      {"const_tensor_content.pbtxt", {}, {"x", "y", "z"}, {}},
      {"relu_identityn_multi_fetch.pbtxt", {"input"}, {"out:1", "out"}, {}},
      {"conv2d_bias_relu.pbtxt", {"input"}, {"output_0"}, {}},
      {"variablev2_assign_add_target.pbtxt",
       {},
       {"Variable/read"},
       {"Variable/Assign", "AssignAdd"}},
      {"tf1_while_counter.pbtxt", {}, {"while/Exit"}, {}},
  };
  return *cases;
}

class TfGraphsPartitionTest
    : public ::testing::TestWithParam<std::tuple<int, bool>> {};

TEST_P(TfGraphsPartitionTest, RoundRobinPlacementPartitionsConsistently) {
  const int num_devices = std::get<0>(GetParam());
  const bool call_frame = std::get<1>(GetParam());
  auto devices = MakeDeviceSet(num_devices);
  tensorflow::DeviceAttributes client = devices->client_device()->attributes;

  for (const Case& c : Cases()) {
    SCOPED_TRACE(c.file);
    absl::StatusOr<tensorflow::GraphDef> loaded = test::LoadTfGraph(c.file);
    ASSERT_TRUE(loaded.ok()) << loaded.status();
    tensorflow::GraphDef gdef = *std::move(loaded);
    for (int i = 0; i < gdef.node_size(); ++i) {
      gdef.mutable_node(i)->set_device(absl::StrCat("/cpu:", i % num_devices));
    }
    absl::StatusOr<std::unique_ptr<Graph>> g = GraphFromGraphDef(gdef);
    ASSERT_TRUE(g.ok()) << g.status();

    RewriteGraphMetadata md;
    absl::Status s = RewriteGraphForExecution(
        g->get(), c.feeds, c.fetches, c.targets, client, call_frame, &md);
    ASSERT_TRUE(s.ok()) << s;
    EXPECT_EQ(md.fetch_types.size(), c.fetches.size());

    // Kernels are not what is tested here; variables drag their Assigns
    // along and soft placement forgives _class conflicts with the forced
    // devices.
    PlacerOptions popts;
    popts.allow_soft_placement = true;
    popts.supported_device_types = AllDeviceTypesSupported();
    s = PlaceGraph(g->get(), *devices, popts);
    ASSERT_TRUE(s.ok()) << s;

    Partitions parts;
    s = Partition(DeviceOptions(devices.get()), g->get(), &parts);
    ASSERT_TRUE(s.ok()) << s;
    CheckPartitions(parts);
    for (const auto& [loc, part] : parts) {
      for (const tensorflow::NodeDef& n : part.node()) {
        EXPECT_EQ(n.device(), loc) << n.name();
      }
    }
    if (std::string(c.file) == "tf1_while_counter.pbtxt") {
      int control_loop_nodes = 0;
      for (const auto& [loc, part] : parts) {
        for (const tensorflow::NodeDef& n : part.node()) {
          if (n.name().rfind("_cloop", 0) == 0) ++control_loop_nodes;
        }
      }
      EXPECT_GT(control_loop_nodes, 0);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Devices, TfGraphsPartitionTest,
                         ::testing::Combine(::testing::Values(2, 4),
                                            ::testing::Bool()));

}  // namespace
}  // namespace tributary
