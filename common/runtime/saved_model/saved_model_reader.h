// Reading a SavedModel directory without running anything: the SavedModel
// proto from DIR/saved_model.pb (binary) or DIR/saved_model.pbtxt (text),
// and the MetaGraphDef of a tag set, as TensorFlow's loader
// (tensorflow/cc/saved_model/loader.cc, reader.cc) finds them.
//
//   TRIB_ASSIGN_OR_RETURN(tensorflow::SavedModel model, ReadSavedModel(dir));
//   TRIB_ASSIGN_OR_RETURN(const tensorflow::MetaGraphDef* meta,
//                         FindMetaGraphDef(model, {"serve"}, dir));
//
// Errors name the directory: NotFound when neither file exists (or DIR is not
// a directory), DataLoss when the file does not parse, NotFound listing every
// tag set the model has when none equals the requested one (tag sets compare
// as sets: order and duplicates do not matter).
#ifndef TRIBUTARY_COMMON_RUNTIME_SAVED_MODEL_SAVED_MODEL_READER_H_
#define TRIBUTARY_COMMON_RUNTIME_SAVED_MODEL_SAVED_MODEL_READER_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "protos/meta_graph.pb.h"
#include "protos/saved_model.pb.h"

namespace tributary {

// TensorFlow's names (tensorflow/cc/saved_model/constants.h).
inline constexpr char kSavedModelFilenamePb[] = "saved_model.pb";
inline constexpr char kSavedModelFilenamePbTxt[] = "saved_model.pbtxt";
inline constexpr char kSavedModelVariablesDirectory[] = "variables";
inline constexpr char kSavedModelVariablesFilename[] = "variables";
inline constexpr char kSavedModelAssetsDirectory[] = "assets";
inline constexpr char kSavedModelAssetsKey[] = "saved_model_assets";
inline constexpr char kSavedModelMainOpKey[] = "saved_model_main_op";
inline constexpr char kSavedModelLegacyInitOpKey[] = "legacy_init_op";
inline constexpr char kSavedModelInitOpSignatureKey[] = "__saved_model_init_op";
inline constexpr char kSavedModelTagServe[] = "serve";
inline constexpr char kDefaultServingSignatureDefKey[] = "serving_default";

// Whether DIR holds saved_model.pb or saved_model.pbtxt.
bool MaybeSavedModelDirectory(const std::string& dir);

absl::StatusOr<tensorflow::SavedModel> ReadSavedModel(const std::string& dir);

// The meta graph whose tag set equals `tags`; `dir` only names the model in
// the error.
absl::StatusOr<const tensorflow::MetaGraphDef*> FindMetaGraphDef(
    const tensorflow::SavedModel& model, const std::vector<std::string>& tags,
    const std::string& dir);

// "serve" or "serve, gpu": a meta graph's tags as saved_model_cli prints them.
std::string TagSetString(const tensorflow::MetaGraphDef& meta_graph);

}  // namespace tributary

#endif  // TRIBUTARY_COMMON_RUNTIME_SAVED_MODEL_SAVED_MODEL_READER_H_
