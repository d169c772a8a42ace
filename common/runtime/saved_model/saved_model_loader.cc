#include "common/runtime/saved_model/saved_model_loader.h"

#include <filesystem>

#include "absl/strings/str_cat.h"
#include "common/framework/status.h"
#include "common/runtime/saved_model/exporter_devices.h"
#include "common/runtime/saved_model/object_graph_restore.h"
#include "common/runtime/saved_model/saved_model_reader.h"
#include "common/runtime/saved_model/signature.h"

namespace tributary {
namespace {

std::string JoinPath(const std::string& a, const std::string& b) {
  return (std::filesystem::path(a) / b).string();
}

absl::StatusOr<std::string> AbsolutePath(const std::string& path) {
  std::error_code ec;
  std::filesystem::path absolute = std::filesystem::absolute(path, ec);
  if (ec) {
    return errors::InvalidArgument("cannot make '", path, "' absolute: ",
                                   ec.message());
  }
  return absolute.lexically_normal().string();
}

std::string VariablesPrefix(const std::string& export_dir) {
  return JoinPath(JoinPath(export_dir, kSavedModelVariablesDirectory),
                  kSavedModelVariablesFilename);
}

bool HasVariables(const std::string& export_dir) {
  std::error_code ec;
  return std::filesystem::exists(VariablesPrefix(export_dir) + ".index", ec);
}

// The object-graph restore of a TF2 SavedModel (object_graph_restore.h);
// nothing for a TF1 one (no object graph, or a checkpoint without one).
absl::StatusOr<ObjectGraphRestore> PlanObjectGraphRestore(
    const tensorflow::MetaGraphDef& meta_graph, const std::string& export_dir) {
  if (!HasVariables(export_dir)) return ObjectGraphRestore();
  TRIB_ASSIGN_OR_RETURN(std::optional<tensorflow::SavedObjectGraph> objects,
                        ObjectGraphOf(meta_graph));
  if (!objects.has_value() || objects->nodes_size() == 0) return ObjectGraphRestore();
  absl::StatusOr<tensorflow::TrackableObjectGraph> checkpoint_objects =
      ReadCheckpointObjectGraph(VariablesPrefix(export_dir));
  if (absl::IsNotFound(checkpoint_objects.status())) return ObjectGraphRestore();
  TRIB_RETURN_IF_ERROR(checkpoint_objects.status());
  return BuildObjectGraphRestore(meta_graph.graph_def(), *objects,
                                 *checkpoint_objects);
}

absl::Status RunRestore(Session* session,
                        const tensorflow::MetaGraphDef& meta_graph,
                        const std::string& export_dir,
                        const NamedTensorList& asset_feeds) {
  const std::string variables_prefix = VariablesPrefix(export_dir);
  if (!HasVariables(export_dir)) {
    return absl::OkStatus();  // No variables were saved (TensorFlow logs it).
  }
  const tensorflow::SaverDef& saver = meta_graph.saver_def();
  if (saver.restore_op_name().empty() || saver.filename_tensor_name().empty()) {
    return errors::FailedPrecondition(
        "SavedModel '", export_dir,
        "' has variables but its meta graph has no saver_def to restore them");
  }
  NamedTensorList feeds = asset_feeds;
  feeds.emplace_back(saver.filename_tensor_name(), Tensor(variables_prefix));
  return errors::PrependToMessage(
      session->Run(feeds, {}, {saver.restore_op_name()}, nullptr),
      "restoring variables from ", variables_prefix, " (", saver.restore_op_name(),
      "): ");
}

}  // namespace

absl::StatusOr<NamedTensorList> AssetFeeds(
    const tensorflow::MetaGraphDef& meta_graph, const std::string& export_dir) {
  std::vector<tensorflow::AssetFileDef> assets(meta_graph.asset_file_def().begin(),
                                               meta_graph.asset_file_def().end());
  if (assets.empty()) {
    auto it = meta_graph.collection_def().find(kSavedModelAssetsKey);
    if (it != meta_graph.collection_def().end()) {
      for (const google::protobuf::Any& any : it->second.any_list().value()) {
        tensorflow::AssetFileDef asset;
        if (!any.UnpackTo(&asset)) {
          return errors::FailedPrecondition(
              "SavedModel '", export_dir, "': an entry of collection '",
              kSavedModelAssetsKey, "' is not an AssetFileDef (", any.type_url(), ")");
        }
        assets.push_back(asset);
      }
    }
  }
  NamedTensorList feeds;
  const std::string assets_dir = JoinPath(export_dir, kSavedModelAssetsDirectory);
  for (const tensorflow::AssetFileDef& asset : assets) {
    feeds.emplace_back(asset.tensor_info().name(),
                       Tensor(JoinPath(assets_dir, asset.filename())));
  }
  return feeds;
}

absl::StatusOr<std::string> InitOpName(const tensorflow::MetaGraphDef& meta_graph,
                                       const std::string& export_dir) {
  auto sig = meta_graph.signature_def().find(kSavedModelInitOpSignatureKey);
  if (sig != meta_graph.signature_def().end()) {
    auto out = sig->second.outputs().find(kSavedModelInitOpSignatureKey);
    if (out == sig->second.outputs().end()) {
      return errors::FailedPrecondition(
          "SavedModel '", export_dir, "': signature '", kSavedModelInitOpSignatureKey,
          "' has no output '", kSavedModelInitOpSignatureKey, "'");
    }
    return out->second.name();
  }
  for (const char* key : {kSavedModelMainOpKey, kSavedModelLegacyInitOpKey}) {
    auto it = meta_graph.collection_def().find(key);
    if (it == meta_graph.collection_def().end()) continue;
    if (it->second.node_list().value_size() != 1) {
      return errors::FailedPrecondition("SavedModel '", export_dir,
                                        "': expected exactly one op in collection '",
                                        key, "', found ",
                                        it->second.node_list().value_size());
    }
    return it->second.node_list().value(0);
  }
  return std::string();
}

absl::StatusOr<SavedModelBundle> LoadSavedModel(
    Session* session, const std::string& export_dir,
    const std::vector<std::string>& tags) {
  SavedModelBundle bundle;
  TRIB_ASSIGN_OR_RETURN(bundle.export_dir, AbsolutePath(export_dir));
  TRIB_ASSIGN_OR_RETURN(tensorflow::SavedModel model, ReadSavedModel(export_dir));
  TRIB_ASSIGN_OR_RETURN(const tensorflow::MetaGraphDef* meta_graph,
                        FindMetaGraphDef(model, tags, export_dir));
  bundle.meta_graph_def = *meta_graph;
  const tensorflow::MetaGraphDef& meta = bundle.meta_graph_def;
  TRIB_ASSIGN_OR_RETURN(NamedTensorList asset_feeds,
                        AssetFeeds(meta, bundle.export_dir));
  TRIB_ASSIGN_OR_RETURN(std::string init_op, InitOpName(meta, bundle.export_dir));

  absl::StatusOr<ObjectGraphRestore> object_restore =
      PlanObjectGraphRestore(meta, bundle.export_dir);
  TRIB_RETURN_IF_ERROR(errors::PrependToMessage(
      object_restore.status(), "restoring variables of SavedModel '", export_dir,
      "' through its object graph: "));

  tensorflow::GraphDef graph = meta.graph_def();
  for (const tensorflow::NodeDef& node : object_restore->nodes) *graph.add_node() = node;
  DropExportingProcessFromDevices(&graph);
  TRIB_RETURN_IF_ERROR(errors::PrependToMessage(
      session->Create(graph), "SavedModel '", export_dir, "': "));
  TRIB_RETURN_IF_ERROR(RunRestore(session, meta, bundle.export_dir, asset_feeds));
  if (!object_restore->nodes.empty()) {
    const std::string prefix = VariablesPrefix(bundle.export_dir);
    TRIB_RETURN_IF_ERROR(errors::PrependToMessage(
        session->Run({{object_restore->filename_tensor, Tensor(prefix)}}, {},
                     {object_restore->restore_op}, nullptr),
        "restoring variables from ", prefix, " through the object graph: "));
  }
  if (!init_op.empty()) {
    TRIB_RETURN_IF_ERROR(errors::PrependToMessage(
        session->Run(asset_feeds, {}, {init_op}, nullptr), "running init op '",
        init_op, "' of SavedModel '", export_dir, "': "));
  }
  return bundle;
}

absl::StatusOr<NamedTensorList> RunSignature(
    Session* session, const SavedModelBundle& bundle,
    const std::string& signature_key, const NamedTensorList& inputs,
    const tensorflow::RunOptions& run_options) {
  TRIB_ASSIGN_OR_RETURN(const tensorflow::SignatureDef* sig,
                        FindSignature(bundle.meta_graph_def, signature_key));
  TRIB_ASSIGN_OR_RETURN(SignatureStep step,
                        BuildSignatureStep(signature_key, *sig, inputs));
  std::vector<Tensor> outputs;
  TRIB_RETURN_IF_ERROR(errors::PrependToMessage(
      session->Run(run_options, step.feeds, step.fetches, {}, &outputs, nullptr),
      "signature '", signature_key, "': "));
  NamedTensorList named;
  for (size_t i = 0; i < step.output_keys.size() && i < outputs.size(); ++i) {
    named.emplace_back(step.output_keys[i], std::move(outputs[i]));
  }
  return named;
}

}  // namespace tributary
