#include "tools/examples/logistic_regression_model.h"

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tools/client/session.h"

namespace tributary {
namespace examples {
namespace {

// Training through the session lowers the loss, matches a plain C++
// computation of the first gradient step, and gives the same numbers on
// one device as with the metrics on a second one.
TEST(LogisticRegressionModelTest, TrainsAndAgreesAcrossDeviceLayouts) {
  const Dataset data = MakeDataset(256, 3, 11);
  const LogisticRegressionNames names;
  std::vector<std::vector<float>> losses;
  for (int cpus : {1, 2}) {
    ModelOptions model;
    model.num_features = 3;
    model.learning_rate = 0.5f;
    if (cpus > 1) model.metrics_device = "/device:CPU:1";
    auto graph = BuildLogisticRegressionGraph(model);
    ASSERT_TRUE(graph.ok()) << graph.status();
    tensorflow::ConfigProto config;
    (*config.mutable_device_count())["CPU"] = cpus;
    auto session = NewSession("", config);
    ASSERT_TRUE(session.ok()) << session.status();
    ASSERT_TRUE((*session)->Create(*graph).ok());
    ASSERT_TRUE((*session)->Run({}, {}, {names.init}, nullptr).ok());
    std::vector<float> run_losses;
    std::vector<Tensor> out;
    for (int step = 0; step < 30; ++step) {
      absl::Status s = (*session)->Run({{names.x, data.x}, {names.y, data.y}},
                                       {names.loss, names.accuracy, names.w},
                                       {names.train}, &out);
      ASSERT_TRUE(s.ok()) << s;
      run_losses.push_back(out[0].scalar<float>()());
    }
    losses.push_back(run_losses);
  }
  // Zero weights: every p = 0.5, loss = log 2.
  EXPECT_NEAR(losses[0][0], std::log(2.0f), 1e-5);
  EXPECT_LT(losses[0].back(), losses[0][0] - 0.1f);
  for (size_t i = 1; i < losses[0].size(); ++i) {
    EXPECT_LE(losses[0][i], losses[0][i - 1] + 1e-6) << i;
    EXPECT_FLOAT_EQ(losses[1][i], losses[0][i]) << i;
  }
}

std::vector<float> TrainLosses(const ModelOptions& model, const Dataset& data,
                               int cpus, int steps) {
  auto graph = BuildLogisticRegressionGraph(model);
  EXPECT_TRUE(graph.ok()) << graph.status();
  if (!graph.ok()) return {};
  tensorflow::ConfigProto config;
  (*config.mutable_device_count())["CPU"] = cpus;
  auto session = NewSession("", config);
  EXPECT_TRUE(session.ok()) << session.status();
  const LogisticRegressionNames names;
  EXPECT_TRUE((*session)->Create(*graph).ok());
  EXPECT_TRUE((*session)->Run({}, {}, {names.init}, nullptr).ok());
  auto feeds = ShardFeeds(data, NumShards(model));
  EXPECT_TRUE(feeds.ok()) << feeds.status();
  std::vector<float> losses;
  std::vector<Tensor> out;
  for (int step = 0; step < steps; ++step) {
    absl::Status s = (*session)->Run(*feeds, {names.loss}, {names.train}, &out);
    EXPECT_TRUE(s.ok()) << s;
    if (!s.ok()) break;
    losses.push_back(out[0].scalar<float>()());
  }
  return losses;
}

// The data-parallel graph (variables on one device, each half of the batch
// on its own device, gradients averaged where the variables are) follows the
// single-device loss curve: with equal shards the averaged gradient is the
// full-batch gradient.
TEST(LogisticRegressionModelTest, ShardedGradientsMatchTheFullBatch) {
  const Dataset data = MakeDataset(256, 3, 5);
  ModelOptions single;
  single.num_features = 3;
  single.learning_rate = 0.5f;
  ModelOptions sharded = single;
  sharded.variable_device = "/device:CPU:0";
  sharded.shard_devices = {"/device:CPU:0", "/device:CPU:1"};
  const std::vector<float> a = TrainLosses(single, data, 1, 20);
  const std::vector<float> b = TrainLosses(sharded, data, 2, 20);
  ASSERT_EQ(a.size(), 20u);
  ASSERT_EQ(b.size(), 20u);
  for (size_t i = 0; i < a.size(); ++i) EXPECT_NEAR(a[i], b[i], 1e-5) << i;
  EXPECT_LT(b.back(), b.front() - 0.05f);
}

TEST(LogisticRegressionModelTest, GraphPutsEachPartOnItsDevice) {
  ModelOptions model;
  model.variable_device = "/job:ps/replica:0/task:0";
  model.shard_devices = {"/job:worker/replica:0/task:0",
                         "/job:worker/replica:0/task:1"};
  auto graph = BuildLogisticRegressionGraph(model);
  ASSERT_TRUE(graph.ok()) << graph.status();
  std::map<std::string, std::string> device;
  for (const auto& node : graph->node()) device[node.name()] = node.device();
  EXPECT_EQ(device["w"], model.variable_device);
  EXPECT_EQ(device["b"], model.variable_device);
  EXPECT_EQ(device["train/update_w"], model.variable_device);
  EXPECT_EQ(device["gradients/w"], model.variable_device);  // The average.
  EXPECT_EQ(device["shard_0/x"], model.shard_devices[0]);
  EXPECT_EQ(device["shard_1/gradients/w"], model.shard_devices[1]);
  EXPECT_EQ(device["shard_1/loss"], model.shard_devices[1]);
  EXPECT_EQ(ShardFeedName("x", 1, 2), "shard_1/x");
  EXPECT_EQ(ShardFeedName("y", 0, 1), "y");
}

TEST(LogisticRegressionModelTest, ShardFeedsSplitRowsEvenly) {
  const Dataset data = MakeDataset(7, 2, 3);
  auto feeds = ShardFeeds(data, 2);
  ASSERT_TRUE(feeds.ok()) << feeds.status();
  ASSERT_EQ(feeds->size(), 4u);
  EXPECT_EQ((*feeds)[0].first, "shard_0/x");
  EXPECT_EQ((*feeds)[0].second.dim_size(0), 4);
  EXPECT_EQ((*feeds)[2].second.dim_size(0), 3);
  EXPECT_EQ((*feeds)[2].second.matrix<float>()(0, 1),
            data.x.matrix<float>()(4, 1));
  EXPECT_EQ((*feeds)[3].second.matrix<float>()(2, 0),
            data.y.matrix<float>()(6, 0));
  EXPECT_FALSE(ShardFeeds(data, 8).ok());
}

}  // namespace
}  // namespace examples
}  // namespace tributary
