#include "tools/cli/saved_model_inspect.h"

#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/framework/status.h"
#include "common/runtime/saved_model/saved_model_reader.h"
#include "common/runtime/saved_model/signature.h"

namespace tributary {
namespace {

using json = nlohmann::json;

std::string ShapeText(const tensorflow::TensorShapeProto& shape) {
  if (shape.unknown_rank()) return "unknown_rank";
  std::vector<std::string> dims;
  for (const auto& dim : shape.dim()) dims.push_back(absl::StrCat(dim.size()));
  return absl::StrCat("(", absl::StrJoin(dims, ", "), ")");
}

json ShapeJson(const tensorflow::TensorShapeProto& shape) {
  if (shape.unknown_rank()) return nullptr;
  json dims = json::array();
  for (const auto& dim : shape.dim()) dims.push_back(dim.size());
  return dims;
}

void PrintTensorInfos(const char* kind,
                      const google::protobuf::Map<std::string, tensorflow::TensorInfo>& infos,
                      const std::vector<std::string>& keys, std::ostream& out) {
  for (const std::string& key : keys) {
    const tensorflow::TensorInfo& info = infos.at(key);
    out << "    " << kind << "['" << key << "'] tensor_info:\n"
        << "        dtype: " << tensorflow::DataType_Name(info.dtype()) << "\n"
        << "        shape: " << ShapeText(info.tensor_shape()) << "\n"
        << "        name: " << info.name() << "\n";
  }
}

void PrintText(const tensorflow::SavedModel& model, std::ostream& out) {
  for (const tensorflow::MetaGraphDef& meta : model.meta_graphs()) {
    out << "\nMetaGraphDef with tag-set: '" << TagSetString(meta)
        << "' contains the following SignatureDefs:\n";
    std::vector<std::string> keys;
    for (const auto& [key, unused] : meta.signature_def()) keys.push_back(key);
    std::sort(keys.begin(), keys.end());
    for (const std::string& key : keys) {
      const tensorflow::SignatureDef& sig = meta.signature_def().at(key);
      out << "\nsignature_def['" << key << "']:\n"
          << "  The given SavedModel SignatureDef contains the following input(s):\n";
      PrintTensorInfos("inputs", sig.inputs(), SortedInputKeys(sig), out);
      out << "  The given SavedModel SignatureDef contains the following output(s):\n";
      PrintTensorInfos("outputs", sig.outputs(), SortedOutputKeys(sig), out);
      out << "  Method name is: " << sig.method_name() << "\n";
    }
  }
}

json TensorInfosJson(
    const google::protobuf::Map<std::string, tensorflow::TensorInfo>& infos) {
  json result = json::object();
  for (const auto& [key, info] : infos) {
    result[key] = {{"name", info.name()},
                   {"dtype", tensorflow::DataType_Name(info.dtype())},
                   {"shape", ShapeJson(info.tensor_shape())}};
  }
  return result;
}

void PrintJson(const tensorflow::SavedModel& model, const std::string& dir,
               std::ostream& out) {
  json doc;
  doc["saved_model"] = dir;
  doc["meta_graphs"] = json::array();
  for (const tensorflow::MetaGraphDef& meta : model.meta_graphs()) {
    json signatures = json::object();
    for (const auto& [key, sig] : meta.signature_def()) {
      signatures[key] = {{"method_name", sig.method_name()},
                         {"inputs", TensorInfosJson(sig.inputs())},
                         {"outputs", TensorInfosJson(sig.outputs())}};
    }
    doc["meta_graphs"].push_back(
        {{"tags", json(std::vector<std::string>(meta.meta_info_def().tags().begin(),
                                                meta.meta_info_def().tags().end()))},
         {"signatures", signatures}});
  }
  out << doc.dump(2) << "\n";
}

}  // namespace

void PrintSavedModel(const tensorflow::SavedModel& model, const std::string& dir,
                     bool json, std::ostream& out) {
  if (json) {
    PrintJson(model, dir, out);
  } else {
    PrintText(model, out);
  }
}

int RunInspectSavedModel(const std::string& dir, bool json, std::ostream& out,
                         std::ostream& err) {
  absl::StatusOr<tensorflow::SavedModel> model = ReadSavedModel(dir);
  if (!model.ok()) {
    err << "error: " << tensorflow::error::Code_Name(ToErrorCode(model.status().code()))
        << ": " << model.status().message() << "\n";
    return 2;
  }
  PrintSavedModel(*model, dir, json, out);
  return 0;
}

}  // namespace tributary
