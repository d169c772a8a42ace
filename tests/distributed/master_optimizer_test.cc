// The graph optimizer on the master's path, through real daemons: a constant
// expression spread over three tasks folds into one constant before the
// master partitions (one partition instead of three, nothing crosses a
// task), with the same value as with the optimizer off; a dense layer
// reaches its worker as one _FusedMatMul.

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/distributed/cluster_fixture.h"
#include "tests/distributed/distributed_test_util.h"
#include "tests/distributed/shared_cluster_test.h"
#include "tools/client/graph_builder.h"
#include "tools/client/tensor_helpers.h"

namespace tributary {
namespace test {
namespace {

class MasterOptimizerTest : public SharedClusterTest {};

tensorflow::ConfigProto Config(bool optimize) {
  tensorflow::ConfigProto config = DefaultConfig();
  config.mutable_graph_options()->mutable_rewrite_options()->set_disable_meta_optimizer(
      !optimize);
  return config;
}

struct StepResult {
  std::vector<Tensor> outputs;
  tensorflow::RunMetadata metadata;
};

StepResult RunOnce(const std::string& target, const tensorflow::GraphDef& graph,
                   bool optimize, const NamedTensorList& feeds,
                   const std::vector<std::string>& fetches) {
  StepResult result;
  auto session = OpenSession(target, graph, Config(optimize));
  EXPECT_TRUE(session.ok()) << session.status();
  if (!session.ok()) return result;
  tensorflow::RunOptions options = DefaultRunOptions();
  options.set_output_partition_graphs(true);
  absl::Status s = (*session)->Run(options, feeds, fetches, {}, &result.outputs,
                                   &result.metadata);
  EXPECT_TRUE(s.ok()) << s;
  EXPECT_TRUE((*session)->Close().ok());
  return result;
}

std::vector<std::string> Ops(const tensorflow::RunMetadata& metadata) {
  std::vector<std::string> ops;
  for (const auto& partition : metadata.partition_graphs()) {
    for (const auto& node : partition.node()) ops.push_back(node.op());
  }
  return ops;
}

TEST_F(MasterOptimizerTest, AConstantExpressionOverThreeTasksFoldsBeforePartitioning) {
  GraphBuilder b;
  std::vector<Output> terms;
  int i = 0;
  for (const char* task : {kPs, kWorker0, kWorker1}) {
    const std::string n = std::to_string(i++);
    Output c = b.Const<float>({1.0f + i, 2.0f * i}, {2},
                              NodeOptions("c" + n).WithDevice(Cpu(task)));
    terms.push_back(b.Exp(c, NodeOptions("e" + n).WithDevice(Cpu(task))));
  }
  b.AddN(terms, NodeOptions("sum").WithDevice(Cpu(kWorker0)));
  auto graph = b.Build();
  ASSERT_TRUE(graph.ok()) << graph.status();

  StepResult on = RunOnce(target(), *graph, true, {}, {"sum"});
  StepResult off = RunOnce(target(), *graph, false, {}, {"sum"});
  ASSERT_EQ(on.outputs.size(), 1u);
  ASSERT_EQ(off.outputs.size(), 1u);
  ExpectSameTensor(on.outputs[0], off.outputs[0], "sum", 0, 0);
  EXPECT_EQ(off.metadata.partition_graphs_size(), 3);
  EXPECT_EQ(on.metadata.partition_graphs_size(), 1);
  for (const std::string& op : Ops(on.metadata)) {
    EXPECT_NE(op, "_Recv") << "a folded step still moves a tensor between tasks";
    EXPECT_NE(op, "Exp");
  }
}

TEST_F(MasterOptimizerTest, ADenseLayerReachesItsWorkerFused) {
  GraphBuilder b;
  Output x = b.Placeholder(tensorflow::DT_FLOAT, {-1, 3},
                           NodeOptions("x").WithDevice(Cpu(kWorker1)));
  Output w = b.Const<float>({0.5f, -1, 2, 0.25f, 1, -0.5f}, {3, 2},
                            NodeOptions("w").WithDevice(Cpu(kWorker1)));
  Output bias = b.Const<float>({0.1f, -0.2f}, {2},
                               NodeOptions("b").WithDevice(Cpu(kWorker1)));
  Output product =
      b.MatMul(x, w, false, false, NodeOptions("mm").WithDevice(Cpu(kWorker1)));
  b.Relu(b.BiasAdd(product, bias, NodeOptions("z").WithDevice(Cpu(kWorker1))),
         NodeOptions("h").WithDevice(Cpu(kWorker1)));
  auto graph = b.Build();
  ASSERT_TRUE(graph.ok()) << graph.status();
  const NamedTensorList feeds = {
      {"x", MakeTensor<float>({1, 2, 3, -1, -2, -3}, {2, 3}).value()}};
  StepResult on = RunOnce(target(), *graph, true, feeds, {"h"});
  StepResult off = RunOnce(target(), *graph, false, feeds, {"h"});
  ASSERT_EQ(on.outputs.size(), 1u);
  ASSERT_EQ(off.outputs.size(), 1u);
  ExpectSameTensor(on.outputs[0], off.outputs[0], "h", 1e-6, 1e-6);
  const std::vector<std::string> ops = Ops(on.metadata);
  EXPECT_NE(std::find(ops.begin(), ops.end(), "_FusedMatMul"), ops.end())
      << on.metadata.DebugString();
  EXPECT_EQ(std::find(ops.begin(), ops.end(), "BiasAdd"), ops.end());
}

}  // namespace
}  // namespace test
}  // namespace tributary
