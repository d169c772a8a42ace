#include "tools/cli/saved_model_run.h"

#include <memory>
#include <utility>

#include "absl/strings/str_split.h"
#include "common/framework/status.h"
#include "common/runtime/saved_model/saved_model_loader.h"
#include "common/runtime/saved_model/saved_model_reader.h"
#include "common/runtime/saved_model/signature.h"
#include "tools/cli/feed_file.h"
#include "tools/cli/output_file.h"
#include "tools/cli/run_output.h"
#include "tools/cli/session_config.h"
#include "tools/cli/value_parsing.h"
#include "tools/client/session.h"

namespace tributary {
namespace {

std::vector<std::string> Tags(const RunCommandOptions& options) {
  std::vector<std::string> tags;
  for (const std::string& flag : options.tags) {
    for (absl::string_view tag : absl::StrSplit(flag, ',', absl::SkipEmpty())) {
      tags.emplace_back(tag);
    }
  }
  if (tags.empty()) tags.push_back(kSavedModelTagServe);
  return tags;
}

// The tensors of the --input flags, each parsed with the dtype its
// TensorInfo declares and checked against it.
absl::StatusOr<NamedTensorList> ParseInputs(const std::string& signature_key,
                                            const tensorflow::SignatureDef& sig,
                                            const std::vector<std::string>& flags) {
  NamedTensorList inputs;
  for (const std::string& flag : flags) {
    TRIB_ASSIGN_OR_RETURN(FeedFlag input, ParseFeedFlag(flag));
    auto info = sig.inputs().find(input.name);
    std::optional<DataType> dtype = input.dtype;
    if (!dtype.has_value() && info != sig.inputs().end() &&
        info->second.dtype() != tensorflow::DT_INVALID) {
      dtype = info->second.dtype();
    }
    absl::StatusOr<Tensor> value = input.file.empty()
                                       ? JsonToTensor(input.value, dtype)
                                       : ReadFeedFile(input.file, dtype);
    if (!value.ok()) {
      return errors::InvalidArgument("--input ", input.name, ": ",
                                     value.status().message());
    }
    inputs.emplace_back(input.name, *std::move(value));
  }
  // Keys, dtypes and shapes: checked here so the error is an input error.
  TRIB_RETURN_IF_ERROR(BuildSignatureStep(signature_key, sig, inputs).status());
  return inputs;
}

}  // namespace

int RunSavedModelCommand(const RunCommandOptions& options, std::ostream& out) {
  if (!options.feeds.empty() || !options.fetches.empty() ||
      !options.run_targets.empty() || !options.inits.empty() ||
      !options.trace_path.empty()) {
    return PrintRunError(
        errors::InvalidArgument("--saved-model runs a signature: use --input "
                                "and --signature, not --feed, --fetch, "
                                "--run-target, --init or --trace"),
        kRunInputError, out);
  }
  if (options.steps < 1) {
    return PrintRunError(errors::InvalidArgument(
                             "--steps must be at least 1, got ", options.steps),
                         kRunInputError, out);
  }
  const std::string signature_key = options.signature.empty()
                                        ? std::string(kDefaultServingSignatureDefKey)
                                        : options.signature;
  const std::vector<std::string> tags = Tags(options);

  // Everything the command line decides is checked before a session exists.
  absl::StatusOr<tensorflow::SavedModel> model =
      ReadSavedModel(options.saved_model_dir);
  if (!model.ok()) return PrintRunError(model.status(), kRunInputError, out);
  absl::StatusOr<const tensorflow::MetaGraphDef*> meta_graph =
      FindMetaGraphDef(*model, tags, options.saved_model_dir);
  if (!meta_graph.ok()) {
    return PrintRunError(meta_graph.status(), kRunInputError, out);
  }
  absl::StatusOr<const tensorflow::SignatureDef*> sig =
      FindSignature(**meta_graph, signature_key);
  if (!sig.ok()) return PrintRunError(sig.status(), kRunInputError, out);
  absl::StatusOr<NamedTensorList> inputs =
      ParseInputs(signature_key, **sig, options.inputs);
  if (!inputs.ok()) return PrintRunError(inputs.status(), kRunInputError, out);
  std::vector<std::string> output_keys = SortedOutputKeys(**sig);
  if (!options.output_path.empty()) {
    absl::Status checked = CheckOutputPath(options.output_path, output_keys);
    if (!checked.ok()) return PrintRunError(checked, kRunInputError, out);
  }
  absl::StatusOr<tensorflow::ConfigProto> config =
      BuildSessionConfig(options.config_file, options.config_text);
  if (!config.ok()) return PrintRunError(config.status(), kRunInputError, out);

  absl::StatusOr<ClientCredentials> credentials =
      ResolveClientCredentials(options.credentials, options.target);
  if (!credentials.ok()) {
    return PrintRunError(credentials.status(), kRunInputError, out);
  }
  absl::StatusOr<std::unique_ptr<Session>> session =
      NewSession(options.target, *config, *std::move(credentials));
  if (!session.ok()) return PrintRunError(session.status(), kRunStepError, out);
  absl::StatusOr<SavedModelBundle> bundle =
      LoadSavedModel(session->get(), options.saved_model_dir, tags);
  if (!bundle.ok()) return PrintRunError(bundle.status(), kRunStepError, out);

  absl::StatusOr<NamedTensorList> outputs;
  for (int step = 0; step < options.steps; ++step) {
    outputs = RunSignature(session->get(), *bundle, signature_key, *inputs);
    if (!outputs.ok()) return PrintRunError(outputs.status(), kRunStepError, out);
  }
  absl::Status closed = (*session)->Close();
  if (!closed.ok()) return PrintRunError(closed, kRunStepError, out);

  std::vector<std::string> names;
  std::vector<Tensor> values;
  for (auto& [key, value] : *outputs) {
    names.push_back(key);
    values.push_back(std::move(value));
  }
  return PrintRunFetches(names, values, options.output_path, out);
}

}  // namespace tributary
