#include "tools/cli/run_command.h"

#include <fstream>
#include <memory>
#include <optional>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/framework/status.h"
#include "tools/cli/chrome_trace.h"
#include "tools/cli/feed_file.h"
#include "tools/cli/feed_signature.h"
#include "tools/cli/graph_file.h"
#include "tools/cli/output_file.h"
#include "tools/cli/run_output.h"
#include "tools/cli/saved_model_run.h"
#include "tools/cli/session_config.h"
#include "tools/cli/value_parsing.h"
#include "tools/client/session.h"

namespace tributary {
namespace {


// The tensor one --feed flag denotes, checked against what the graph
// declares for it.
absl::StatusOr<Tensor> FeedValue(const tensorflow::GraphDef& graph,
                                 const FeedFlag& feed) {
  const FeedSignature signature = DeclaredFeedSignature(graph, feed.name);
  const std::optional<DataType> dtype =
      feed.dtype.has_value() ? feed.dtype : signature.dtype;
  TRIB_ASSIGN_OR_RETURN(Tensor value, feed.file.empty()
                                          ? JsonToTensor(feed.value, dtype)
                                          : ReadFeedFile(feed.file, dtype));
  if (feed.dtype.has_value() && value.dtype() != *feed.dtype) {
    // Only a .npy file brings its own dtype.
    return errors::InvalidArgument(
        "the file holds ", DataTypeString(value.dtype()),
        " but the prefix says ", DataTypeString(*feed.dtype));
  }
  TRIB_RETURN_IF_ERROR(CheckFeedSignature(value, signature));
  return value;
}

absl::StatusOr<NamedTensorList> ParseFeeds(
    const tensorflow::GraphDef& graph, const std::vector<std::string>& flags) {
  NamedTensorList feeds;
  for (const std::string& flag : flags) {
    TRIB_ASSIGN_OR_RETURN(FeedFlag feed, ParseFeedFlag(flag));
    absl::StatusOr<Tensor> value = FeedValue(graph, feed);
    if (!value.ok()) {
      return errors::InvalidArgument("--feed ", feed.name, ": ",
                                     value.status().message());
    }
    feeds.emplace_back(feed.name, *std::move(value));
  }
  return feeds;
}

absl::Status WriteTrace(const std::string& path,
                        const tensorflow::StepStats& stats,
                        const tensorflow::GraphDef& graph) {
  absl::flat_hash_map<std::string, std::string> ops;
  for (const auto& node : graph.node()) ops[node.name()] = node.op();
  std::ofstream file(path);
  if (!file) return errors::NotFound("cannot write trace file '", path, "'");
  file << StepStatsToChromeTrace(stats, ops).dump() << "\n";
  if (!file) return errors::Internal("writing trace file '", path, "' failed");
  return absl::OkStatus();
}

}  // namespace

int RunRunCommand(const RunCommandOptions& options, std::ostream& out) {
  if (options.graph_path.empty() == options.saved_model_dir.empty()) {
    return PrintRunError(
        errors::InvalidArgument("give exactly one of --graph and --saved-model"),
        kRunInputError, out);
  }
  if (!options.saved_model_dir.empty()) return RunSavedModelCommand(options, out);
  if (!options.inputs.empty() || !options.signature.empty() ||
      !options.tags.empty()) {
    return PrintRunError(
        errors::InvalidArgument(
            "--input, --signature and --tag need --saved-model"),
        kRunInputError, out);
  }
  absl::StatusOr<tensorflow::GraphDef> graph =
      ReadGraphDefFile(options.graph_path);
  if (!graph.ok()) return PrintRunError(graph.status(), kRunInputError, out);
  if (options.steps < 1) {
    return PrintRunError(errors::InvalidArgument(
                          "--steps must be at least 1, got ", options.steps),
                      kRunInputError, out);
  }
  const bool main_step =
      !options.fetches.empty() || !options.run_targets.empty();
  if (!main_step && options.inits.empty()) {
    return PrintRunError(
        errors::InvalidArgument(
            "Nothing to run: give --fetch, --run-target or --init"),
        kRunInputError, out);
  }
  if (!options.output_path.empty()) {
    absl::Status checked =
        CheckOutputPath(options.output_path, options.fetches);
    if (!checked.ok()) return PrintRunError(checked, kRunInputError, out);
  }
  absl::StatusOr<tensorflow::ConfigProto> config =
      BuildSessionConfig(options.config_file, options.config_text);
  if (!config.ok()) return PrintRunError(config.status(), kRunInputError, out);
  absl::StatusOr<NamedTensorList> feeds = ParseFeeds(*graph, options.feeds);
  if (!feeds.ok()) return PrintRunError(feeds.status(), kRunInputError, out);

  absl::StatusOr<ClientCredentials> credentials =
      ResolveClientCredentials(options.credentials, options.target);
  if (!credentials.ok()) {
    return PrintRunError(credentials.status(), kRunInputError, out);
  }
  absl::StatusOr<std::unique_ptr<Session>> session =
      NewSession(options.target, *config, *std::move(credentials));
  if (!session.ok()) return PrintRunError(session.status(), kRunStepError, out);
  Session& s = **session;
  absl::Status status = s.Create(*graph);
  if (!status.ok()) return PrintRunError(status, kRunStepError, out);

  for (const std::string& init : options.inits) {
    status = s.Run({}, {}, {init}, nullptr);
    if (!status.ok()) {
      return PrintRunError(errors::PrependToMessage(status, "--init ", init, ": "),
                        kRunStepError, out);
    }
  }

  std::vector<Tensor> outputs;
  tensorflow::RunMetadata metadata;
  if (main_step) {
    for (int step = 0; step < options.steps; ++step) {
      tensorflow::RunOptions run_options;
      const bool last = step + 1 == options.steps;
      if (last && !options.trace_path.empty()) {
        run_options.set_trace_level(tensorflow::RunOptions::FULL_TRACE);
      }
      status = s.Run(run_options, *feeds, options.fetches, options.run_targets,
                     &outputs, last ? &metadata : nullptr);
      if (!status.ok()) return PrintRunError(status, kRunStepError, out);
    }
  }
  if (!options.trace_path.empty()) {
    status = WriteTrace(options.trace_path, metadata.step_stats(), *graph);
    if (!status.ok()) return PrintRunError(status, kRunStepError, out);
  }
  status = s.Close();
  if (!status.ok()) return PrintRunError(status, kRunStepError, out);

  return PrintRunFetches(options.fetches, outputs, options.output_path, out);
}

}  // namespace tributary
