// Logistic regression as a TensorFlow 1 training graph, written with
// GraphBuilder and with its gradients spelled out by hand (no autodiff):
//
//   logits = x @ w + b                         x: [N, D], w: [D, 1], b: [1]
//   loss   = mean(max(z, 0) - z * y + log(1 + exp(-|z|)))   (stable BCE)
//   dz     = (sigmoid(z) - y) / N
//   train  = { w -= lr * x^T @ dz,  b -= lr * sum(dz) }  (ApplyGradientDescent)
//
// plus an accuracy metric. Also the synthetic data it learns from.
//
// Data parallel (ModelOptions::shard_devices with two or more devices): the
// batch is fed in equal shards ("shard_0/x", "shard_0/y", ...; ShardFeeds),
// each shard's forward pass and gradients run on its own device (a worker
// task) reading the variables from variable_device (the ps task), and the
// shard gradients are averaged and applied there:
//
//   ps:        w, b;  w -= lr * mean_i(gw_i),  b -= lr * mean_i(gb_i)
//   worker i:  z_i = x_i @ w + b;  dz_i = (sigmoid(z_i) - y_i) / N_i;
//              gw_i = x_i^T @ dz_i;  gb_i = sum(dz_i);  loss_i, accuracy_i
//
// With equal shards that is exactly the full-batch gradient, so the loss
// curve matches the single-device graph's (up to float rounding); "loss"
// and "accuracy" are the means of the shards'.
//
// Checkpoints, as tf.compat.v1.train.Saver writes them (TensorFlow's V2
// format, on the variables' device): "global_step" (int64, +1 per train
// step) is saved with w and b by running "save/SaveV2" with the prefix fed
// to "save/Const", and restored by running "save/restore_all".
#ifndef TRIBUTARY_TOOLS_EXAMPLES_LOGISTIC_REGRESSION_MODEL_H_
#define TRIBUTARY_TOOLS_EXAMPLES_LOGISTIC_REGRESSION_MODEL_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "common/framework/tensor.h"
#include "protos/graph.pb.h"

namespace tributary {
namespace examples {

// Node and tensor names of the graph, for feeds, fetches and targets.
struct LogisticRegressionNames {
  std::string x = "x";
  std::string y = "y";
  std::string w = "w";
  std::string b = "b";
  std::string init = "init";
  std::string train = "train";
  std::string loss = "loss";
  std::string accuracy = "accuracy";
  std::string global_step = "global_step";
  // Feed the checkpoint prefix here (a string scalar), then run save or
  // restore as a target.
  std::string checkpoint_prefix = "save/Const";
  std::string save = "save/SaveV2";
  std::string restore = "save/restore_all";
};

struct ModelOptions {
  int num_features = 4;
  float learning_rate = 0.5f;
  // Single-shard graph only: where the loss/accuracy metrics run ("" =
  // wherever the placer puts them), e.g. "/device:CPU:1" to make the step
  // span two devices.
  std::string metrics_device;
  // Where the variables, their initialisers and updates (and, sharded, the
  // averaging of the gradients) live, e.g. "/job:ps/replica:0/task:0"; ""
  // = wherever the placer puts them.
  std::string variable_device;
  // Fewer than two: one shard, fed as "x"/"y", placed by the placer (or
  // on the one device given). Two or more: the data-parallel graph above,
  // shard i on shard_devices[i] (e.g. "/job:worker/replica:0/task:1").
  std::vector<std::string> shard_devices;
};

// Number of shards the graph for `options` is fed in (at least 1).
int NumShards(const ModelOptions& options);

// The feed name of placeholder `base` ("x" or "y") of shard `shard` out of
// `num_shards`: "x" for a single shard, "shard_1/x" otherwise.
std::string ShardFeedName(const std::string& base, int shard, int num_shards);

absl::StatusOr<tensorflow::GraphDef> BuildLogisticRegressionGraph(
    const ModelOptions& options);

// Labelled samples drawn from a known logistic model.
struct Dataset {
  Tensor x;  // float [N, D]
  Tensor y;  // float [N, 1], 0 or 1
  std::vector<float> true_w;
  float true_b = 0;
};

// x ~ N(0, 1); y ~ Bernoulli(sigmoid(x . true_w + true_b)); deterministic
// for a given seed.
Dataset MakeDataset(int num_samples, int num_features, uint32_t seed);

// The feeds of one step over all of `data`: x and y split by rows into
// `num_shards` contiguous shards as even as possible (the first
// num_samples % num_shards shards get one row more), named by
// ShardFeedName. InvalidArgument when there are fewer rows than shards.
absl::StatusOr<std::vector<std::pair<std::string, Tensor>>> ShardFeeds(
    const Dataset& data, int num_shards);

}  // namespace examples
}  // namespace tributary

#endif  // TRIBUTARY_TOOLS_EXAMPLES_LOGISTIC_REGRESSION_MODEL_H_
