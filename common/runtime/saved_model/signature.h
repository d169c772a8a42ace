// A meta graph's SignatureDefs: finding one by key and turning named inputs
// into the feeds and fetches of one step, as a serving client does.
//
// A signature maps input and output keys ("inputs", "output_0") to
// TensorInfos: the graph tensor's name ("serving_default_inputs:0"), dtype
// and (partial) shape. Inputs are checked against them before anything runs:
// every key of the signature must be given exactly once and no other key,
// dtype must equal, the shape must be compatible (-1 dims and an unknown
// rank match anything). Errors are InvalidArgument naming the signature and
// key; an unknown signature is NotFound listing the keys there are.
#ifndef TRIBUTARY_COMMON_RUNTIME_SAVED_MODEL_SIGNATURE_H_
#define TRIBUTARY_COMMON_RUNTIME_SAVED_MODEL_SIGNATURE_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/framework/tensor.h"
#include "common/runtime/session/session.h"
#include "protos/meta_graph.pb.h"

namespace tributary {

absl::StatusOr<const tensorflow::SignatureDef*> FindSignature(
    const tensorflow::MetaGraphDef& meta_graph, const std::string& key);

// The signature's keys in sorted order (protobuf maps have none).
std::vector<std::string> SortedInputKeys(const tensorflow::SignatureDef& sig);
std::vector<std::string> SortedOutputKeys(const tensorflow::SignatureDef& sig);

// InvalidArgument (naming `signature_key` and `input_key`) when `value`'s
// dtype or shape does not fit `info`.
absl::Status CheckSignatureInput(const std::string& signature_key,
                                 const std::string& input_key,
                                 const tensorflow::TensorInfo& info,
                                 const Tensor& value);

struct SignatureStep {
  NamedTensorList feeds;                  // graph tensor name -> value
  std::vector<std::string> fetches;       // graph tensor names
  std::vector<std::string> output_keys;   // the signature's keys, same order
};

// The step that computes every output of the signature from `inputs`
// (signature input key -> value), each checked as above.
absl::StatusOr<SignatureStep> BuildSignatureStep(
    const std::string& signature_key, const tensorflow::SignatureDef& sig,
    const NamedTensorList& inputs);

}  // namespace tributary

#endif  // TRIBUTARY_COMMON_RUNTIME_SAVED_MODEL_SIGNATURE_H_
