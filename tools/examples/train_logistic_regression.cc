// Trains logistic regression on generated data: the README's main job. The
// model (logistic_regression_model.h) is a TensorFlow 1 graph built with
// GraphBuilder, with variables, hand-written gradients and
// ApplyGradientDescent; every step feeds the data, runs the update and
// fetches the loss and accuracy, which are printed as they improve under a
// progress bar.
//
// Local (--target local, the default): a session in this process; with
// --cpus 2 (the default) the metrics run on a second CPU device, so each
// step crosses devices through _Send/_Recv.
//
// On a cluster (--target grpc://host:port, e.g. what `tributary cluster up`
// prints): data parallel over the cluster's tasks. The variables live on
// /job:ps/replica:0/task:0 (the first task when there is no ps job), every
// /job:worker task computes the gradient of its share of the batch, and the
// gradients are averaged and applied on the ps task. --variables-on and
// --shards-on override that layout (they also work locally with
// /device:CPU:N names).
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "common/framework/status.h"
#include "tools/cli/client_credentials.h"
#include "tools/client/session.h"
#include "tools/examples/logistic_regression_model.h"
#include "tools/examples/progress_bar.h"

namespace tributary {
namespace examples {
namespace {

struct TrainingFlags {
  std::string target = "local";
  int steps = 300;
  float learning_rate = 2.0f;
  int samples = 4096;
  int features = 4;
  int cpus = 2;
  uint32_t seed = 7;
  std::string variables_on;
  std::vector<std::string> shards_on;
  int64_t step_timeout_ms = 0;
  // TLS files and token for a secured cluster (grpc:// targets).
  ClientCredentialFlags credentials;
};

bool IsLocal(const std::string& target) {
  return target.empty() || target == "local";
}

// "/job:ps/replica:0/task:0/device:CPU:0" -> "/job:ps/replica:0/task:0".
std::string TaskOf(const std::string& device) {
  const size_t at = device.find("/device:");
  return at == std::string::npos ? device : device.substr(0, at);
}

// The layout on a cluster: variables on the ps task (or the first task),
// one shard per worker task (or per task when there is no worker job).
void ChooseClusterLayout(
    const std::vector<tensorflow::DeviceAttributes>& devices,
    ModelOptions* model) {
  std::set<std::string> tasks;
  for (const auto& d : devices) tasks.insert(TaskOf(d.name()));
  std::vector<std::string> ps, workers;
  for (const std::string& t : tasks) {
    if (absl::StartsWith(t, "/job:ps/")) ps.push_back(t);
    if (absl::StartsWith(t, "/job:worker/")) workers.push_back(t);
  }
  if (model->variable_device.empty() && !tasks.empty()) {
    model->variable_device = ps.empty() ? *tasks.begin() : ps.front();
  }
  if (model->shard_devices.empty()) {
    model->shard_devices =
        workers.empty() ? std::vector<std::string>(tasks.begin(), tasks.end())
                        : workers;
  }
}

absl::Status Train(const TrainingFlags& flags) {
  ModelOptions model;
  model.num_features = flags.features;
  model.learning_rate = flags.learning_rate;
  model.variable_device = flags.variables_on;
  model.shard_devices = flags.shards_on;

  tensorflow::ConfigProto config;
  if (IsLocal(flags.target)) {
    (*config.mutable_device_count())["CPU"] = flags.cpus;
  }
  if (flags.step_timeout_ms > 0) {
    config.set_operation_timeout_in_ms(flags.step_timeout_ms);
  }
  TRIB_ASSIGN_OR_RETURN(
      ClientCredentials credentials,
      ResolveClientCredentials(flags.credentials, flags.target));
  TRIB_ASSIGN_OR_RETURN(
      std::unique_ptr<Session> session,
      NewSession(flags.target, config, std::move(credentials)));
  // Before Create: on a cluster this lists every device of every task.
  TRIB_ASSIGN_OR_RETURN(auto devices, session->ListDevices());
  if (IsLocal(flags.target)) {
    if (flags.cpus > 1 && model.shard_devices.size() < 2) {
      model.metrics_device = "/device:CPU:1";
    }
  } else {
    ChooseClusterLayout(devices, &model);
  }
  TRIB_ASSIGN_OR_RETURN(tensorflow::GraphDef graph,
                        BuildLogisticRegressionGraph(model));
  const Dataset data = MakeDataset(flags.samples, flags.features, flags.seed);
  const int shards = NumShards(model);
  TRIB_ASSIGN_OR_RETURN(NamedTensorList feeds, ShardFeeds(data, shards));
  TRIB_RETURN_IF_ERROR(session->Create(graph));

  std::cout << "Logistic regression on " << flags.samples
            << " generated samples (" << flags.features << " features), "
            << graph.node_size() << "-node graph, " << devices.size()
            << " device" << (devices.size() == 1 ? "" : "s");
  if (IsLocal(flags.target)) {
    std::cout << " in this process";
  } else {
    std::cout << " on the cluster at " << flags.target;
  }
  std::cout << ", learning rate " << flags.learning_rate << "\n";
  if (!model.variable_device.empty() || shards > 1) {
    std::cout << "  variables and updates on "
              << (model.variable_device.empty() ? "(placer's choice)"
                                                : model.variable_device)
              << "\n";
    if (shards > 1) {
      std::cout << "  gradients of " << shards << " shards of "
                << flags.samples / shards << " samples on "
                << absl::StrJoin(model.shard_devices, ", ")
                << ", averaged on the variables' device\n";
    }
  }

  const LogisticRegressionNames names;
  TRIB_RETURN_IF_ERROR(session->Run({}, {}, {names.init}, nullptr));

  ProgressBar bar(flags.steps, std::max(1, flags.steps / 10),
                  isatty(STDOUT_FILENO) != 0, std::cout);
  std::vector<Tensor> out;
  float first_loss = 0, loss = 0, accuracy = 0;
  const auto start = std::chrono::steady_clock::now();
  for (int step = 1; step <= flags.steps; ++step) {
    TRIB_RETURN_IF_ERROR(
        session->Run(feeds, {names.loss, names.accuracy}, {names.train}, &out));
    // Loss and accuracy of the weights this step started from.
    loss = out[0].scalar<float>()();
    accuracy = out[1].scalar<float>()();
    if (step == 1) first_loss = loss;
    bar.Update(step,
               absl::StrFormat("loss %.4f  accuracy %.3f", loss, accuracy));
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();

  TRIB_RETURN_IF_ERROR(
      session->Run(feeds, {names.loss, names.w, names.b}, {}, &out));
  std::cout << absl::StrFormat(
      "Loss %.4f -> %.4f after %d steps (%.0f us per step)\n", first_loss,
      out[0].scalar<float>()(), flags.steps, seconds * 1e6 / flags.steps);
  auto w = out[1].flat<float>();
  std::string learned, truth;
  for (int j = 0; j < flags.features; ++j) {
    absl::StrAppend(&learned, j ? ", " : "", absl::StrFormat("%+.2f", w(j)));
    absl::StrAppend(&truth, j ? ", " : "",
                    absl::StrFormat("%+.2f", data.true_w[j]));
  }
  std::cout << "Learned w = [" << learned
            << "], b = " << absl::StrFormat("%+.2f", out[2].flat<float>()(0))
            << "\n"
            << "True    w = [" << truth
            << "], b = " << absl::StrFormat("%+.2f", data.true_b) << "\n";
  return session->Close();
}

}  // namespace
}  // namespace examples
}  // namespace tributary

int main(int argc, char** argv) {
  tributary::examples::TrainingFlags flags;
  CLI::App app{
      "Train logistic regression on generated data with Tributary: in this "
      "process, or data parallel on a cluster (variables on the ps task, "
      "gradients on the worker tasks)"};
  app.add_option("--target", flags.target,
                 "Session target: local (in process), or grpc://host:port (a "
                 "master, e.g. the line `tributary cluster up` prints)")
      ->capture_default_str();
  app.add_option("--steps", flags.steps, "Training steps")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_option("--learning-rate", flags.learning_rate,
                 "Gradient descent step size")
      ->capture_default_str();
  app.add_option("--samples", flags.samples, "Generated samples")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_option("--features", flags.features, "Features per sample")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_option("--cpus", flags.cpus,
                 "Local target: CPU devices in the session; with 2 or more the "
                 "metrics run on CPU:1")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_option("--seed", flags.seed, "Seed of the generated data")
      ->capture_default_str();
  app.add_option("--variables-on", flags.variables_on,
                 "Device of the variables and updates (default on a cluster: "
                 "/job:ps/replica:0/task:0, or the first task)");
  app.add_option(
         "--shards-on", flags.shards_on,
         "Devices that each compute the gradient of a share of the batch "
         "(repeat or comma-separate; default on a cluster: every "
         "/job:worker task)")
      ->delimiter(',');
  app.add_option(
      "--step-timeout-ms", flags.step_timeout_ms,
      "Bound on every step (ConfigProto.operation_timeout_in_ms); 0: "
      "none");
  tributary::AddClientCredentialFlags(&app, &flags.credentials);
  CLI11_PARSE(app, argc, argv);

  const absl::Status status = tributary::examples::Train(flags);
  if (!status.ok()) {
    std::cerr << "Training failed: " << status << "\n";
    return 1;
  }
  return 0;
}
