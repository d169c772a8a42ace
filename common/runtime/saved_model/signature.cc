#include "common/runtime/saved_model/signature.h"

#include <algorithm>
#include <set>

#include "absl/strings/str_join.h"
#include "common/framework/status.h"
#include "common/framework/tensor_shape.h"
#include "common/framework/types.h"

namespace tributary {
namespace {

template <typename Map>
std::vector<std::string> SortedKeys(const Map& map) {
  std::vector<std::string> keys;
  for (const auto& [key, unused] : map) keys.push_back(key);
  std::sort(keys.begin(), keys.end());
  return keys;
}

}  // namespace

std::vector<std::string> SortedInputKeys(const tensorflow::SignatureDef& sig) {
  return SortedKeys(sig.inputs());
}

std::vector<std::string> SortedOutputKeys(const tensorflow::SignatureDef& sig) {
  return SortedKeys(sig.outputs());
}

absl::StatusOr<const tensorflow::SignatureDef*> FindSignature(
    const tensorflow::MetaGraphDef& meta_graph, const std::string& key) {
  auto it = meta_graph.signature_def().find(key);
  if (it != meta_graph.signature_def().end()) return &it->second;
  return errors::NotFound("the meta graph has no signature '", key,
                          "'; its signatures: ",
                          absl::StrJoin(SortedKeys(meta_graph.signature_def()),
                                        ", "));
}

absl::Status CheckSignatureInput(const std::string& signature_key,
                                 const std::string& input_key,
                                 const tensorflow::TensorInfo& info,
                                 const Tensor& value) {
  if (info.dtype() != tensorflow::DT_INVALID && value.dtype() != info.dtype()) {
    return errors::InvalidArgument(
        "signature '", signature_key, "' input '", input_key, "' expects ",
        tensorflow::DataType_Name(info.dtype()), ", got ", tensorflow::DataType_Name(value.dtype()));
  }
  if (info.has_tensor_shape()) {
    TRIB_ASSIGN_OR_RETURN(PartialTensorShape declared,
                          PartialTensorShape::FromProto(info.tensor_shape()));
    if (!declared.IsCompatibleWith(value.shape())) {
      return errors::InvalidArgument(
          "signature '", signature_key, "' input '", input_key,
          "' expects shape ", declared.DebugString(), ", got ",
          value.shape().DebugString());
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<SignatureStep> BuildSignatureStep(
    const std::string& signature_key, const tensorflow::SignatureDef& sig,
    const NamedTensorList& inputs) {
  SignatureStep step;
  std::set<std::string> given;
  for (const auto& [key, value] : inputs) {
    auto it = sig.inputs().find(key);
    if (it == sig.inputs().end()) {
      return errors::InvalidArgument(
          "signature '", signature_key, "' has no input '", key,
          "'; its inputs: ", absl::StrJoin(SortedInputKeys(sig), ", "));
    }
    if (!given.insert(key).second) {
      return errors::InvalidArgument("signature '", signature_key,
                                     "' input '", key, "' is given twice");
    }
    TRIB_RETURN_IF_ERROR(CheckSignatureInput(signature_key, key, it->second, value));
    step.feeds.emplace_back(it->second.name(), value);
  }
  std::vector<std::string> missing;
  for (const std::string& key : SortedInputKeys(sig)) {
    if (!given.count(key)) missing.push_back(key);
  }
  if (!missing.empty()) {
    return errors::InvalidArgument("signature '", signature_key,
                                   "' needs input ",
                                   absl::StrJoin(missing, ", "),
                                   ", which was not given");
  }
  for (const std::string& key : SortedOutputKeys(sig)) {
    const tensorflow::TensorInfo& info = sig.outputs().at(key);
    if (info.name().empty()) {
      return errors::Unimplemented(
          "signature '", signature_key, "' output '", key,
          "' is not a plain tensor (composite or COO TensorInfo)");
    }
    step.fetches.push_back(info.name());
    step.output_keys.push_back(key);
  }
  return step;
}

}  // namespace tributary
