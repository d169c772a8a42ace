// What a step's stats say about each node's outputs: the TensorDescription
// (dtype, shape, allocation_description.requested_bytes) that clients read to
// see how many bytes a node produced, e.g. a _Recv that took a tensor from
// another task (tests/interop/ps_embedding_test.py counts bytes per step this
// way), and how records of several devices end up in the StepStats.
#include "common/runtime/executor/step_stats_collector.h"

#include <string>

#include "common/framework/tensor.h"
#include "gtest/gtest.h"
#include "protos/step_stats.pb.h"

namespace tributary {
namespace {

constexpr char kWorker[] = "/job:worker/replica:0/task:0/device:CPU:0";
constexpr char kPs[] = "/job:ps/replica:0/task:0/device:CPU:0";

tensorflow::NodeDef Node(const std::string& name, const std::string& op) {
  tensorflow::NodeDef def;
  def.set_name(name);
  def.set_op(op);
  return def;
}

TEST(StepStatsCollectorTest, OutputDescriptionHasShapeDtypeAndBytes) {
  tensorflow::StepStats step_stats;
  StepStatsCollector collector(&step_stats);
  const tensorflow::NodeDef recv = Node("edge_7_rows", "_Recv");
  NodeExecStatsInterface* stats = collector.CreateNodeExecStats(&recv);
  stats->RecordExecutorStarted();
  Tensor rows(DT_FLOAT, TensorShape({64, 16}));
  stats->SetOutput(0, &rows);
  stats->RecordExecutorEnded();
  stats->Done(kWorker);
  collector.Finalize();

  ASSERT_EQ(step_stats.dev_stats_size(), 1);
  const tensorflow::DeviceStepStats& dev = step_stats.dev_stats(0);
  EXPECT_EQ(dev.device(), kWorker);
  ASSERT_EQ(dev.node_stats_size(), 1);
  const tensorflow::NodeExecStats& ns = dev.node_stats(0);
  EXPECT_EQ(ns.node_name(), "edge_7_rows");
  EXPECT_EQ(ns.timeline_label(), "edge_7_rows = _Recv()");
  ASSERT_EQ(ns.output_size(), 1);
  const tensorflow::TensorDescription& desc = ns.output(0).tensor_description();
  EXPECT_EQ(ns.output(0).slot(), 0);
  EXPECT_EQ(desc.dtype(), tensorflow::DT_FLOAT);
  ASSERT_EQ(desc.shape().dim_size(), 2);
  EXPECT_EQ(desc.shape().dim(0).size(), 64);
  EXPECT_EQ(desc.shape().dim(1).size(), 16);
  EXPECT_EQ(desc.allocation_description().requested_bytes(), 64 * 16 * 4);
  EXPECT_EQ(desc.allocation_description().allocated_bytes(), 64 * 16 * 4);
  EXPECT_NE(desc.allocation_description().ptr(), 0u);
}

TEST(StepStatsCollectorTest, EmptyAndMissingOutputs) {
  tensorflow::StepStats step_stats;
  StepStatsCollector collector(&step_stats);
  const tensorflow::NodeDef node = Node("split", "DynamicPartition");
  NodeExecStatsInterface* stats = collector.CreateNodeExecStats(&node);
  Tensor empty(DT_INT64, TensorShape({0}));
  stats->SetOutput(0, &empty);
  stats->SetOutput(1, nullptr);  // a dead output: the slot, no description
  stats->Done(kPs);
  collector.Finalize();

  const tensorflow::NodeExecStats& ns = step_stats.dev_stats(0).node_stats(0);
  ASSERT_EQ(ns.output_size(), 2);
  EXPECT_EQ(ns.output(0).tensor_description().dtype(), tensorflow::DT_INT64);
  EXPECT_EQ(ns.output(0).tensor_description().shape().dim(0).size(), 0);
  EXPECT_EQ(ns.output(0)
                .tensor_description()
                .allocation_description()
                .requested_bytes(),
            0);
  EXPECT_EQ(ns.output(1).slot(), 1);
  EXPECT_FALSE(ns.output(1).has_tensor_description());
}

TEST(StepStatsCollectorTest, OneEntryPerDeviceMergedIntoExistingStats) {
  tensorflow::StepStats step_stats;
  // Already there (e.g. the RecvTensor transfers of the same step).
  step_stats.add_dev_stats()->set_device(kPs);
  StepStatsCollector collector(&step_stats);
  const tensorflow::NodeDef a = Node("a", "_Recv");
  const tensorflow::NodeDef b = Node("b", "ResourceGather");
  const tensorflow::NodeDef c = Node("c", "_Recv");
  collector.CreateNodeExecStats(&a)->Done(kWorker);
  collector.CreateNodeExecStats(&b)->Done(kPs);
  collector.CreateNodeExecStats(&c)->Done(kWorker);
  collector.Finalize();
  // Records after Finalize are dropped.
  collector.CreateNodeExecStats(&a)->Done(kWorker);

  ASSERT_EQ(step_stats.dev_stats_size(), 2);
  EXPECT_EQ(step_stats.dev_stats(0).device(), kPs);
  ASSERT_EQ(step_stats.dev_stats(0).node_stats_size(), 1);
  EXPECT_EQ(step_stats.dev_stats(0).node_stats(0).node_name(), "b");
  EXPECT_EQ(step_stats.dev_stats(1).device(), kWorker);
  ASSERT_EQ(step_stats.dev_stats(1).node_stats_size(), 2);
  EXPECT_EQ(step_stats.dev_stats(1).node_stats(0).node_name(), "a");
  EXPECT_EQ(step_stats.dev_stats(1).node_stats(1).node_name(), "c");
}

}  // namespace
}  // namespace tributary
