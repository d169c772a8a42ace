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
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "common/checkpoint/file_io.h"
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
  // Checkpoints: a directory the variables' task writes to (shared with
  // this process), and how often; 0: never. With a directory, training
  // resumes from its latest checkpoint and recovers from a lost task.
  std::string checkpoint_dir;
  int checkpoint_every = 0;
  int recovery_timeout_s = 120;
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

// The "checkpoint" file TensorFlow's Saver keeps beside its checkpoints:
// which one is the latest (text format of CheckpointState).
constexpr char kCheckpointStateFile[] = "checkpoint";

// The latest checkpoint's prefix in `dir`, "" when there is none.
std::string LatestCheckpoint(const std::string& dir) {
  absl::StatusOr<std::string> state =
      ReadFileToString(dir + "/" + kCheckpointStateFile);
  if (!state.ok()) return "";
  for (absl::string_view line : absl::StrSplit(*state, '\n')) {
    constexpr absl::string_view kKey = "model_checkpoint_path: \"";
    if (absl::ConsumePrefix(&line, kKey) && absl::ConsumeSuffix(&line, "\"")) {
      return absl::StartsWith(line, "/") ? std::string(line)
                                         : absl::StrCat(dir, "/", line);
    }
  }
  return "";
}

// Records `prefix` as the latest checkpoint (written aside, then renamed,
// so a crash leaves the previous state whole).
absl::Status WriteCheckpointState(const std::string& dir,
                                  const std::string& basename) {
  const std::string path = dir + "/" + kCheckpointStateFile;
  TRIB_RETURN_IF_ERROR(WriteStringToFile(
      path + ".tmp",
      absl::StrCat("model_checkpoint_path: \"", basename, "\"\n",
                   "all_model_checkpoint_paths: \"", basename, "\"\n")));
  return RenameFile(path + ".tmp", path);
}

// Deletes the files of every checkpoint in `dir` but the `keep` latest
// (tf.compat.v1.train.Saver's max_to_keep, 5 by default there too).
void DeleteOldCheckpoints(const std::string& dir, size_t keep) {
  namespace fs = std::filesystem;
  std::map<int64_t, std::vector<fs::path>> by_step;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end;
       it.increment(ec)) {
    const std::string name = it->path().filename().string();
    int64_t step = 0;
    const std::string prefix = "model.ckpt-";
    if (!absl::StartsWith(name, prefix)) continue;
    const size_t dot = name.find('.', prefix.size());
    if (dot == std::string::npos ||
        !absl::SimpleAtoi(name.substr(prefix.size(), dot - prefix.size()),
                          &step)) {
      continue;
    }
    by_step[step].push_back(it->path());
  }
  while (by_step.size() > keep) {
    for (const fs::path& path : by_step.begin()->second) {
      fs::remove(path, ec);
    }
    by_step.erase(by_step.begin());
  }
}

// What a step lost to a task failure looks like: the task died, restarted
// or is unreachable. Anything else is the program's or the model's fault.
bool IsTaskFailure(const absl::Status& s) {
  return absl::IsUnavailable(s) || absl::IsAborted(s);
}

// A training session: the graph created, the variables initialised, and
// restored from the latest checkpoint of `flags.checkpoint_dir` if any.
struct TrainingSession {
  std::unique_ptr<Session> session;
  ModelOptions model;
  tensorflow::GraphDef graph;
  std::vector<tensorflow::DeviceAttributes> devices;
  int64_t step = 0;  // global_step after initialising / restoring
  std::string restored_from;
};

absl::StatusOr<TrainingSession> OpenTrainingSession(
    const TrainingFlags& flags) {
  TrainingSession t;
  t.model.num_features = flags.features;
  t.model.learning_rate = flags.learning_rate;
  t.model.variable_device = flags.variables_on;
  t.model.shard_devices = flags.shards_on;

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
      t.session, NewSession(flags.target, config, std::move(credentials)));
  // Before Create: on a cluster this lists every device of every task.
  TRIB_ASSIGN_OR_RETURN(t.devices, t.session->ListDevices());
  if (IsLocal(flags.target)) {
    if (flags.cpus > 1 && t.model.shard_devices.size() < 2) {
      t.model.metrics_device = "/device:CPU:1";
    }
  } else {
    ChooseClusterLayout(t.devices, &t.model);
  }
  TRIB_ASSIGN_OR_RETURN(t.graph, BuildLogisticRegressionGraph(t.model));
  TRIB_RETURN_IF_ERROR(t.session->Create(t.graph));
  const LogisticRegressionNames names;
  TRIB_RETURN_IF_ERROR(t.session->Run({}, {}, {names.init}, nullptr));
  if (!flags.checkpoint_dir.empty()) {
    t.restored_from = LatestCheckpoint(flags.checkpoint_dir);
    if (!t.restored_from.empty()) {
      TRIB_RETURN_IF_ERROR(
          t.session->Run({{names.checkpoint_prefix, Tensor(t.restored_from)}},
                         {}, {names.restore}, nullptr));
      std::vector<Tensor> out;
      TRIB_RETURN_IF_ERROR(t.session->Run({}, {names.global_step}, {}, &out));
      t.step = out[0].scalar<int64_t>()();
    }
  }
  return t;
}

// After a task failure: new sessions until one opens (the task is back) or
// `flags.recovery_timeout_s` passes.
absl::StatusOr<TrainingSession> Recover(const TrainingFlags& flags,
                                        const absl::Status& failure) {
  const absl::Time give_up =
      absl::Now() + absl::Seconds(flags.recovery_timeout_s);
  absl::Status last = failure;
  int attempts = 0;
  while (absl::Now() < give_up) {
    ++attempts;
    absl::StatusOr<TrainingSession> t = OpenTrainingSession(flags);
    if (t.ok()) {
      std::cout << "\nRecovered after " << attempts << " attempt(s)"
                << (t->restored_from.empty()
                        ? std::string(", starting over")
                        : absl::StrCat(", from ", t->restored_from, " (step ",
                                       t->step, ")"))
                << "\n";
      return t;
    }
    last = t.status();
    if (!IsTaskFailure(last)) return last;
    absl::SleepFor(absl::Seconds(1));
  }
  return errors::Create(last.code(), "No session within ",
                        flags.recovery_timeout_s, " s after ",
                        failure.message(), "; last: ", last.message());
}

absl::Status Train(const TrainingFlags& flags) {
  TRIB_ASSIGN_OR_RETURN(TrainingSession t, OpenTrainingSession(flags));
  const Dataset data = MakeDataset(flags.samples, flags.features, flags.seed);
  const int shards = NumShards(t.model);
  TRIB_ASSIGN_OR_RETURN(NamedTensorList feeds, ShardFeeds(data, shards));

  std::cout << "Logistic regression on " << flags.samples
            << " generated samples (" << flags.features << " features), "
            << t.graph.node_size() << "-node graph, " << t.devices.size()
            << " device" << (t.devices.size() == 1 ? "" : "s");
  if (IsLocal(flags.target)) {
    std::cout << " in this process";
  } else {
    std::cout << " on the cluster at " << flags.target;
  }
  std::cout << ", learning rate " << flags.learning_rate << "\n";
  if (!t.model.variable_device.empty() || shards > 1) {
    std::cout << "  variables and updates on "
              << (t.model.variable_device.empty() ? "(placer's choice)"
                                                  : t.model.variable_device)
              << "\n";
    if (shards > 1) {
      std::cout << "  gradients of " << shards << " shards of "
                << flags.samples / shards << " samples on "
                << absl::StrJoin(t.model.shard_devices, ", ")
                << ", averaged on the variables' device\n";
    }
  }
  if (!t.restored_from.empty()) {
    std::cout << "  resumed from " << t.restored_from << " (step " << t.step
              << ")\n";
  }

  const LogisticRegressionNames names;
  ProgressBar bar(flags.steps, std::max(1, flags.steps / 10),
                  isatty(STDOUT_FILENO) != 0, std::cout);
  std::vector<Tensor> out;
  float first_loss = 0, loss = 0, accuracy = 0;
  bool have_first = false;
  const auto start = std::chrono::steady_clock::now();
  const int64_t first_step = t.step + 1;
  for (int64_t step = t.step + 1; step <= flags.steps; ++step) {
    absl::Status s = t.session->Run(feeds, {names.loss, names.accuracy},
                                    {names.train}, &out);
    if (s.ok() && flags.checkpoint_every > 0 &&
        step % flags.checkpoint_every == 0) {
      const std::string basename = absl::StrCat("model.ckpt-", step);
      s = t.session->Run({{names.checkpoint_prefix,
                           Tensor(flags.checkpoint_dir + "/" + basename)}},
                         {}, {names.save}, nullptr);
      if (s.ok()) s = WriteCheckpointState(flags.checkpoint_dir, basename);
      if (s.ok()) DeleteOldCheckpoints(flags.checkpoint_dir, 5);
    }
    if (!s.ok()) {
      if (flags.checkpoint_dir.empty() || !IsTaskFailure(s)) return s;
      std::cout << "\nStep " << step << " failed: " << s
                << "\nRecovering from the latest checkpoint\n";
      t.session->Close().IgnoreError();
      TRIB_ASSIGN_OR_RETURN(t, Recover(flags, s));
      step = t.step;  // the loop's ++ makes it the next step to run
      continue;
    }
    // Loss and accuracy of the weights this step started from.
    loss = out[0].scalar<float>()();
    accuracy = out[1].scalar<float>()();
    if (!have_first) {
      first_loss = loss;
      have_first = true;
    }
    bar.Update(static_cast<int>(step),
               absl::StrFormat("loss %.4f  accuracy %.3f", loss, accuracy));
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  const int64_t ran = std::max<int64_t>(1, flags.steps - first_step + 1);

  TRIB_RETURN_IF_ERROR(
      t.session->Run(feeds, {names.loss, names.w, names.b}, {}, &out));
  std::cout << absl::StrFormat(
      "Loss %.4f -> %.4f after %d steps (%.0f us per step)\n", first_loss,
      out[0].scalar<float>()(), flags.steps, seconds * 1e6 / ran);
  // Every digit, for comparing runs (a resumed run against an uninterrupted
  // one).
  std::cout << absl::StrFormat("Final loss %.9g\n", out[0].scalar<float>()());
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
  return t.session->Close();
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
  app.add_option("--checkpoint-dir", flags.checkpoint_dir,
                 "Directory for checkpoints in TensorFlow's format, written by "
                 "the variables' task (on a cluster it must be the same "
                 "directory there and here). Training resumes from its latest "
                 "checkpoint, and after a lost task (a step failing "
                 "UNAVAILABLE or ABORTED) opens a new session and goes on "
                 "from the latest checkpoint");
  app.add_option("--checkpoint-every", flags.checkpoint_every,
                 "Save a checkpoint every N steps (needs --checkpoint-dir); 0: "
                 "never")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  app.add_option("--recovery-timeout-s", flags.recovery_timeout_s,
                 "After a lost task, how long to keep trying to open a new "
                 "session before giving up")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  tributary::AddClientCredentialFlags(&app, &flags.credentials);
  CLI11_PARSE(app, argc, argv);
  if (flags.checkpoint_every > 0 && flags.checkpoint_dir.empty()) {
    std::cerr << "--checkpoint-every needs --checkpoint-dir" << std::endl;
    return 2;
  }

  const absl::Status status = tributary::examples::Train(flags);
  if (!status.ok()) {
    std::cerr << "Training failed: " << status << "\n";
    return 1;
  }
  return 0;
}
