// The pipeline's switches: RewriterConfig toggles, disable_meta_optimizer,
// min_graph_nodes, and the report.

#include "common/runtime/optimization/graph_optimizer.h"

#include <string>

#include "common/runtime/optimization/optimization_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tributary {
namespace {

using optimization_test::OpOf;
using optimization_test::PlacedGraph;
using ::testing::ElementsAre;
using ::testing::IsEmpty;

constexpr char kGraph[] = R"pb(
  node { name: "a" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
         attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 2 } } } }
  node { name: "b" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
         attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 3 } } } }
  node { name: "sum" op: "AddV2" input: "a" input: "b" attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
  node { name: "out" op: "Mul" input: "sum" input: "x" attr { key: "T" value { type: DT_FLOAT } } }
)pb";

TEST(GraphOptimizerTest, DefaultRunsEveryPassInOrder) {
  GraphOptimizer optimizer{tensorflow::RewriterConfig()};
  EXPECT_THAT(optimizer.EnabledPasses(),
              ElementsAre("common_subgraph_elimination", "constant_folding",
                          "loop_optimization", "arithmetic_optimization",
                          "dependency_optimization", "remapping"));
  auto g = PlacedGraph(kGraph);
  OptimizationReport report;
  ASSERT_TRUE(optimizer.Optimize(g.get(), &report).ok());
  EXPECT_EQ(OpOf(*g, "sum"), "Const");
  EXPECT_EQ(report.nodes_before, 5);
  ASSERT_EQ(report.passes.size(), 6u);
  EXPECT_EQ(report.passes[0].pass, "common_subgraph_elimination");
  EXPECT_EQ(report.passes[0].rewrites, 0);
  EXPECT_EQ(report.passes[1].pass, "constant_folding");
  EXPECT_EQ(report.passes[1].rewrites, 1);
  EXPECT_EQ(report.passes[1].nodes_after, 3);
  EXPECT_NE(report.Summary().find("constant_folding 1 rewrites"),
            std::string::npos)
      << report.Summary();
}

TEST(GraphOptimizerTest, OffSwitchesAPass) {
  tensorflow::RewriterConfig config;
  config.set_constant_folding(tensorflow::RewriterConfig::OFF);
  GraphOptimizer optimizer(config);
  EXPECT_THAT(optimizer.EnabledPasses(),
              ElementsAre("common_subgraph_elimination", "loop_optimization",
                          "arithmetic_optimization", "dependency_optimization",
                          "remapping"));
  auto g = PlacedGraph(kGraph);
  ASSERT_TRUE(optimizer.Optimize(g.get()).ok());
  EXPECT_EQ(OpOf(*g, "sum"), "AddV2");
}

TEST(GraphOptimizerTest, DisableMetaOptimizerSwitchesAllOff) {
  tensorflow::RewriterConfig config;
  config.set_disable_meta_optimizer(true);
  config.set_constant_folding(tensorflow::RewriterConfig::ON);
  GraphOptimizer optimizer(config);
  EXPECT_THAT(optimizer.EnabledPasses(), IsEmpty());
  auto g = PlacedGraph(kGraph);
  ASSERT_TRUE(optimizer.Optimize(g.get()).ok());
  EXPECT_EQ(OpOf(*g, "sum"), "AddV2");
}

TEST(GraphOptimizerTest, SmallGraphsAreLeftAloneBelowMinGraphNodes) {
  tensorflow::RewriterConfig config;
  config.set_min_graph_nodes(6);
  auto g = PlacedGraph(kGraph);
  OptimizationReport report;
  ASSERT_TRUE(GraphOptimizer(config).Optimize(g.get(), &report).ok());
  EXPECT_EQ(OpOf(*g, "sum"), "AddV2");
  EXPECT_THAT(report.passes, IsEmpty());
  config.set_min_graph_nodes(-1);  // never skip
  ASSERT_TRUE(GraphOptimizer(config).Optimize(g.get(), &report).ok());
  EXPECT_EQ(OpOf(*g, "sum"), "Const");
}

}  // namespace
}  // namespace tributary
