// Control edges from constants, and the constants they kept alive.

#include "common/runtime/optimization/dependency_optimizer.h"

#include <string>

#include "common/runtime/optimization/optimization_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tributary {
namespace {

using optimization_test::ControlInputNames;
using optimization_test::OpOf;
using optimization_test::PlacedGraph;
using ::testing::ElementsAre;
using ::testing::IsEmpty;

constexpr char kConst[] =
    "op: 'Const' attr { key: 'dtype' value { type: DT_FLOAT } } attr { key: 'value' "
    "value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 1 } } } }\n";

TEST(DependencyOptimizerTest, FrozenFunctionOutputsStopWaitingOnWeights) {
  // A frozen TF2 function: out = Identity(y, ^NoOp), NoOp waits on weights.
  auto g = PlacedGraph(std::string("node { name: 'w1' ") + kConst + "node { name: 'w2' " +
                       kConst + "node { name: 'y' " + kConst +
                       R"pb(
    node { name: 'deps' op: 'NoOp' input: '^w1' input: '^w2' }
    node { name: 'out' op: 'Identity' input: 'y' input: '^deps'
           attr { key: 'T' value { type: DT_FLOAT } } }
  )pb");
  absl::StatusOr<int> n = DependencyOptimizer().Run(g.get());
  ASSERT_TRUE(n.ok()) << n.status();
  EXPECT_EQ(*n, 4);  // two edges, two constants
  EXPECT_EQ(OpOf(*g, "w1"), "<missing>");
  EXPECT_EQ(OpOf(*g, "w2"), "<missing>");
  EXPECT_THAT(ControlInputNames(*g, "deps"), IsEmpty());
  EXPECT_EQ(OpOf(*g, "y"), "Const");  // read by out
}

TEST(DependencyOptimizerTest, KeepsWhatTheConstantWaitedFor) {
  auto g = PlacedGraph(std::string(R"pb(
    node { name: 'init' op: 'NoOp' }
    node { name: 'c' input: '^init' )pb") + kConst + R"pb(
    node { name: 'after' op: 'NoOp' input: '^c' }
  )pb");
  ASSERT_TRUE(DependencyOptimizer().Run(g.get()).ok());
  EXPECT_EQ(OpOf(*g, "c"), "<missing>");
  EXPECT_THAT(ControlInputNames(*g, "after"), ElementsAre("init"));
}

}  // namespace
}  // namespace tributary
