// `tributary inspect DIR` for a SavedModel directory: every meta graph's tag
// set and its SignatureDefs with their inputs' and outputs' keys, tensor
// names, dtypes and shapes. The text form is the one of TensorFlow's
// `saved_model_cli show --dir DIR --all` (less its op list and its
// "Concrete Functions" part, which need Python's object graph):
//
//   MetaGraphDef with tag-set: 'serve' contains the following SignatureDefs:
//
//   signature_def['serving_default']:
//     The given SavedModel SignatureDef contains the following input(s):
//       inputs['x'] tensor_info:
//           dtype: DT_FLOAT
//           shape: (-1, 4)
//           name: serving_default_x:0
//     ...
//     Method name is: tensorflow/serving/predict
//
// --json prints {"saved_model": DIR, "meta_graphs": [{"tags": [...],
// "signatures": {KEY: {"method_name": ..., "inputs": {KEY: {"name", "dtype",
// "shape"}}, "outputs": {...}}}}]} with shape a list of dims (-1 unknown) or
// null for an unknown rank. Signatures and keys are sorted.
#ifndef TRIBUTARY_TOOLS_CLI_SAVED_MODEL_INSPECT_H_
#define TRIBUTARY_TOOLS_CLI_SAVED_MODEL_INSPECT_H_

#include <ostream>
#include <string>

#include "protos/saved_model.pb.h"

namespace tributary {

void PrintSavedModel(const tensorflow::SavedModel& model, const std::string& dir,
                     bool json, std::ostream& out);

// The command: 0, or 2 (message on `err`) when DIR holds no readable
// SavedModel.
int RunInspectSavedModel(const std::string& dir, bool json, std::ostream& out,
                         std::ostream& err);

}  // namespace tributary

#endif  // TRIBUTARY_TOOLS_CLI_SAVED_MODEL_INSPECT_H_
