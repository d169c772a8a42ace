#include "tools/examples/logistic_regression_model.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <random>

#include "absl/strings/str_cat.h"
#include "common/framework/status.h"
#include "tools/client/graph_builder.h"

namespace tributary {
namespace examples {

namespace {

// What one shard contributes: its gradients and metrics.
struct ShardOutputs {
  Output grad_w;
  Output grad_b;
  Output loss;
  Output accuracy;
};

// Forward pass, hand-written gradients and metrics of one shard, in the
// builder's current name and device scope. `loss_name` / `accuracy_name`
// name the metric nodes.
ShardOutputs BuildShard(GraphBuilder& b, const ModelOptions& options,
                        const std::string& x_name, const std::string& y_name,
                        const Output& w, const Output& bias,
                        const std::string& loss_name,
                        const std::string& accuracy_name) {
  const int64_t d = options.num_features;
  Output x = b.Placeholder(tensorflow::DT_FLOAT, {-1, d}, x_name);
  Output y = b.Placeholder(tensorflow::DT_FLOAT, {-1, 1}, y_name);

  // Forward pass.
  Output z = b.BiasAdd(b.MatMul(x, w, false, false, "MatMul"), bias, "logits");
  Output p = b.Sigmoid(z, "probability");

  // Gradients by hand: d(mean BCE)/dz = (sigmoid(z) - y) / N.
  ShardOutputs out;
  Output n = b.Cast(b.AddSingleOutputNode("Size", {y}), tensorflow::DT_FLOAT,
                    "batch_size");
  Output dz = b.RealDiv(b.Sub(p, y, "gradients/error"), n, "gradients/dz");
  out.grad_w = b.MatMul(x, dz, /*transpose_a=*/true, false, "gradients/w");
  out.grad_b = b.Sum(dz, b.Const<int32_t>({0}, {1}, "gradients/b/axis"), false,
                     "gradients/b");

  // Metrics, optionally on a device of their own.
  std::unique_ptr<GraphBuilder::DeviceScope> metrics_device;
  if (!options.metrics_device.empty()) {
    metrics_device =
        std::make_unique<GraphBuilder::DeviceScope>(&b, options.metrics_device);
  }
  Output all_axes = b.Const<int32_t>({0, 1}, {2}, "metrics/all_axes");
  // Stable binary cross-entropy: max(z, 0) - z * y + log(1 + exp(-|z|)).
  Output per_sample = b.AddV2(
      b.Sub(b.Maximum(z, b.Scalar<float>(0.0f, "metrics/zero")), b.Mul(z, y)),
      b.Log(b.AddV2(b.Scalar<float>(1.0f, "metrics/one"),
                    b.Exp(b.Neg(b.Abs(z))))),
      "metrics/bce");
  out.loss = b.Mean(per_sample, all_axes, false, loss_name);
  Output predicted = b.Cast(b.Greater(p, b.Scalar<float>(0.5f, "metrics/half")),
                            tensorflow::DT_FLOAT, "metrics/predicted");
  Output correct =
      b.Cast(b.Equal(predicted, y), tensorflow::DT_FLOAT, "metrics/correct");
  out.accuracy = b.Mean(correct, all_axes, false, accuracy_name);
  return out;
}

// mean_i(values[i]) as AddN * (1/k), named `name`.
Output Average(GraphBuilder& b, const std::vector<Output>& values,
               const std::string& name) {
  Output scale = b.Scalar<float>(1.0f / static_cast<float>(values.size()),
                                 name + "/scale");
  return b.Mul(b.AddN(values, name + "/sum"), scale, name);
}

}  // namespace

int NumShards(const ModelOptions& options) {
  return std::max<int>(1, static_cast<int>(options.shard_devices.size()));
}

std::string ShardFeedName(const std::string& base, int shard, int num_shards) {
  if (num_shards <= 1) return base;
  return absl::StrCat("shard_", shard, "/", base);
}

namespace {

// The saver's nodes (on the current device scope): SaveV2 of b, global_step
// and w (sorted by name, as TensorFlow's Saver lists them) to the fed
// prefix, and RestoreV2 + Assign of each.
void AddSaver(GraphBuilder& b, const LogisticRegressionNames& names,
              const Output& w, const Output& bias, const Output& step) {
  GraphBuilder::NameScope scope(&b, "save");
  Output prefix = b.Placeholder(tensorflow::DT_STRING, TensorShape({}),
                                names.checkpoint_prefix.substr(5));
  const std::vector<std::string> keys = {names.b, names.global_step, names.w};
  Output tensor_names = b.Const<std::string>(
      std::vector<std::string>(keys.begin(), keys.end()), {3}, "tensor_names");
  Output slices = b.Const<std::string>(std::vector<std::string>(3, ""), {3},
                                       "shape_and_slices");
  b.AddNode("SaveV2",
            {prefix, tensor_names, slices,
             Input({b.Identity(bias, "read_b"), b.Identity(step, "read_step"),
                    b.Identity(w, "read_w")})},
            {}, names.save.substr(5));
  tensorflow::AttrValue dtypes;
  for (auto t :
       {tensorflow::DT_FLOAT, tensorflow::DT_INT64, tensorflow::DT_FLOAT}) {
    dtypes.mutable_list()->add_type(t);
  }
  std::vector<Output> restored =
      b.AddNode("RestoreV2", {prefix, tensor_names, slices},
                {{"dtypes", dtypes}}, "RestoreV2");
  if (restored.size() != 3) return;  // b.Build() reports the error
  b.Group({b.Assign(bias, restored[0], "Assign_b"),
           b.Assign(step, restored[1], "Assign_step"),
           b.Assign(w, restored[2], "Assign_w")},
          names.restore.substr(5));
}

}  // namespace

absl::StatusOr<tensorflow::GraphDef> BuildLogisticRegressionGraph(
    const ModelOptions& options) {
  const LogisticRegressionNames names;
  const int64_t d = options.num_features;
  const int k = NumShards(options);
  GraphBuilder b;

  Output w, bias, lr, step;
  {
    GraphBuilder::DeviceScope variables(&b, options.variable_device);
    w = b.Variable(TensorShape({d, 1}), tensorflow::DT_FLOAT, names.w);
    bias = b.Variable(TensorShape({1}), tensorflow::DT_FLOAT, names.b);
    step = b.Variable(TensorShape({}), tensorflow::DT_INT64, names.global_step);
    Output init_w = b.Assign(
        w, b.Const<float>(std::vector<float>(d, 0.0f), {d, 1}, "w/zeros"),
        "w/Assign");
    Output init_b =
        b.Assign(bias, b.Const<float>({0.0f}, {1}, "b/zeros"), "b/Assign");
    Output init_step = b.Assign(step, b.Scalar<int64_t>(0, "global_step/zero"),
                                "global_step/Assign");
    b.Group({init_w, init_b, init_step}, names.init);
    lr = b.Scalar<float>(options.learning_rate, "learning_rate");
    AddSaver(b, names, w, bias, step);
  }

  Output grad_w, grad_b;
  if (k == 1) {
    std::unique_ptr<GraphBuilder::DeviceScope> shard_device;
    if (!options.shard_devices.empty()) {
      shard_device = std::make_unique<GraphBuilder::DeviceScope>(
          &b, options.shard_devices[0]);
    }
    ShardOutputs shard = BuildShard(b, options, names.x, names.y, w, bias,
                                    names.loss, names.accuracy);
    grad_w = shard.grad_w;
    grad_b = shard.grad_b;
  } else {
    ModelOptions per_shard = options;
    per_shard.metrics_device.clear();  // Each shard's metrics stay with it.
    std::vector<ShardOutputs> shards;
    for (int i = 0; i < k; ++i) {
      GraphBuilder::DeviceScope device(&b, options.shard_devices[i]);
      GraphBuilder::NameScope scope(&b, absl::StrCat("shard_", i));
      shards.push_back(BuildShard(b, per_shard, names.x, names.y, w, bias,
                                  "loss", "accuracy"));
    }
    std::vector<Output> gw, gb, losses, accuracies;
    for (const ShardOutputs& s : shards) {
      gw.push_back(s.grad_w);
      gb.push_back(s.grad_b);
      losses.push_back(s.loss);
      accuracies.push_back(s.accuracy);
    }
    GraphBuilder::DeviceScope variables(&b, options.variable_device);
    grad_w = Average(b, gw, "gradients/w");
    grad_b = Average(b, gb, "gradients/b");
    Average(b, losses, names.loss);
    Average(b, accuracies, names.accuracy);
  }

  GraphBuilder::DeviceScope variables(&b, options.variable_device);
  Output update_w = b.ApplyGradientDescent(w, lr, grad_w, "train/update_w");
  Output update_b = b.ApplyGradientDescent(bias, lr, grad_b, "train/update_b");
  Output count =
      b.AssignAdd(step, b.Scalar<int64_t>(1, "train/one"), "train/count_step");
  b.Group({update_w, update_b, count}, names.train);
  return b.Build();
}

Dataset MakeDataset(int num_samples, int num_features, uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::uniform_real_distribution<float> uniform(0.0f, 1.0f);
  Dataset data;
  for (int j = 0; j < num_features; ++j) {
    // A spread of strong, weak, positive and negative weights.
    data.true_w.push_back((j % 2 == 0 ? 1.0f : -1.0f) * (0.5f + 1.5f * j));
  }
  data.true_b = -0.5f;
  data.x =
      Tensor(tensorflow::DT_FLOAT, TensorShape({num_samples, num_features}));
  data.y = Tensor(tensorflow::DT_FLOAT, TensorShape({num_samples, 1}));
  auto x = data.x.matrix<float>();
  auto y = data.y.matrix<float>();
  for (int i = 0; i < num_samples; ++i) {
    float z = data.true_b;
    for (int j = 0; j < num_features; ++j) {
      x(i, j) = normal(rng);
      z += x(i, j) * data.true_w[j];
    }
    y(i, 0) = uniform(rng) < 1.0f / (1.0f + std::exp(-z)) ? 1.0f : 0.0f;
  }
  return data;
}

absl::StatusOr<std::vector<std::pair<std::string, Tensor>>> ShardFeeds(
    const Dataset& data, int num_shards) {
  const int64_t rows = data.x.dim_size(0);
  const int64_t features = data.x.dim_size(1);
  if (num_shards < 1 || rows < num_shards) {
    return errors::InvalidArgument("Cannot split ", rows, " samples into ",
                                   num_shards, " shards");
  }
  std::vector<std::pair<std::string, Tensor>> feeds;
  if (num_shards == 1) {
    feeds.emplace_back(ShardFeedName("x", 0, 1), data.x);
    feeds.emplace_back(ShardFeedName("y", 0, 1), data.y);
    return feeds;
  }
  auto x = data.x.matrix<float>();
  auto y = data.y.matrix<float>();
  int64_t begin = 0;
  for (int i = 0; i < num_shards; ++i) {
    const int64_t n = rows / num_shards + (i < rows % num_shards ? 1 : 0);
    Tensor xs(tensorflow::DT_FLOAT, TensorShape({n, features}));
    Tensor ys(tensorflow::DT_FLOAT, TensorShape({n, 1}));
    auto xm = xs.matrix<float>();
    auto ym = ys.matrix<float>();
    for (int64_t r = 0; r < n; ++r) {
      for (int64_t j = 0; j < features; ++j) xm(r, j) = x(begin + r, j);
      ym(r, 0) = y(begin + r, 0);
    }
    begin += n;
    feeds.emplace_back(ShardFeedName("x", i, num_shards), std::move(xs));
    feeds.emplace_back(ShardFeedName("y", i, num_shards), std::move(ys));
  }
  return feeds;
}

}  // namespace examples
}  // namespace tributary
