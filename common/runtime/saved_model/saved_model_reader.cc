#include "common/runtime/saved_model/saved_model_reader.h"

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/framework/status.h"
#include "google/protobuf/text_format.h"

namespace tributary {
namespace {

std::string JoinPath(const std::string& dir, const std::string& name) {
  return (std::filesystem::path(dir) / name).string();
}

bool IsRegularFile(const std::string& path) {
  std::error_code ec;
  return std::filesystem::is_regular_file(path, ec);
}

absl::StatusOr<std::string> ReadWholeFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return errors::NotFound("cannot open '", path, "'");
  std::stringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) return errors::DataLoss("reading '", path, "' failed");
  return buffer.str();
}

std::set<std::string> TagSet(const tensorflow::MetaGraphDef& meta_graph) {
  return {meta_graph.meta_info_def().tags().begin(),
          meta_graph.meta_info_def().tags().end()};
}

}  // namespace

bool MaybeSavedModelDirectory(const std::string& dir) {
  return IsRegularFile(JoinPath(dir, kSavedModelFilenamePb)) ||
         IsRegularFile(JoinPath(dir, kSavedModelFilenamePbTxt));
}

absl::StatusOr<tensorflow::SavedModel> ReadSavedModel(const std::string& dir) {
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) {
    return errors::NotFound("SavedModel directory '", dir,
                            "' does not exist or is not a directory");
  }
  tensorflow::SavedModel model;
  const std::string pb = JoinPath(dir, kSavedModelFilenamePb);
  if (IsRegularFile(pb)) {
    TRIB_ASSIGN_OR_RETURN(std::string data, ReadWholeFile(pb));
    if (!model.ParseFromString(data)) {
      return errors::DataLoss("'", pb, "' is not a SavedModel (binary proto)");
    }
    return model;
  }
  const std::string pbtxt = JoinPath(dir, kSavedModelFilenamePbTxt);
  if (IsRegularFile(pbtxt)) {
    TRIB_ASSIGN_OR_RETURN(std::string data, ReadWholeFile(pbtxt));
    if (!google::protobuf::TextFormat::ParseFromString(data, &model)) {
      return errors::DataLoss("'", pbtxt, "' is not a SavedModel (text proto)");
    }
    return model;
  }
  return errors::NotFound("SavedModel file does not exist at '", dir, "/{",
                          kSavedModelFilenamePbTxt, "|", kSavedModelFilenamePb,
                          "}'");
}

absl::StatusOr<const tensorflow::MetaGraphDef*> FindMetaGraphDef(
    const tensorflow::SavedModel& model, const std::vector<std::string>& tags,
    const std::string& dir) {
  const std::set<std::string> wanted(tags.begin(), tags.end());
  std::vector<std::string> available;
  for (const tensorflow::MetaGraphDef& meta_graph : model.meta_graphs()) {
    if (TagSet(meta_graph) == wanted) return &meta_graph;
    available.push_back(absl::StrCat("{", TagSetString(meta_graph), "}"));
  }
  return errors::NotFound(
      "SavedModel '", dir, "' has no meta graph with tags {",
      absl::StrJoin(wanted, ", "), "}; its tag sets: ",
      available.empty() ? "none" : absl::StrJoin(available, " "));
}

std::string TagSetString(const tensorflow::MetaGraphDef& meta_graph) {
  return absl::StrJoin(meta_graph.meta_info_def().tags(), ", ");
}

}  // namespace tributary
