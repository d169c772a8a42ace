// Loading a SavedModel into a session, as TensorFlow's LoadSavedModel
// (tensorflow/cc/saved_model/loader.cc) does, for any Session: the local one
// or a cluster's master through grpc:// (tools/client/session.h), so the
// same code serves `tributary run --saved-model` in both places.
//
//   TRIB_ASSIGN_OR_RETURN(SavedModelBundle bundle,
//                         LoadSavedModel(session.get(), dir, {"serve"}));
//   TRIB_ASSIGN_OR_RETURN(auto outputs,
//       RunSignature(session.get(), bundle, "serving_default", inputs));
//
// The steps, in TensorFlow's order:
// 1. read DIR/saved_model.pb|.pbtxt and pick the meta graph of `tags`;
// 2. Create the session with its GraphDef (the function library travels
//    with it: the runtime inlines StatefulPartitionedCall/While/If), plus
//    the object-graph restore's nodes ("tributary_object_graph_restore/..."),
//    devices naming the exporting process ("/job:localhost/...") reduced to
//    their device part (exporter_devices.h);
// 3. restore the variables through the meta graph's saver_def: feed
//    filename_tensor_name with DIR/variables/variables and run
//    restore_op_name. TF1 saves name a `save/restore_all` NoOp; TF2 saves a
//    StatefulPartitionedCall over a restore function, the same mechanism.
//    Skipped, as in TensorFlow, when DIR/variables/variables.index does not
//    exist (a model without variables). A TF2 SavedModel's variables are
//    then also restored through its object graph, as tf.saved_model.load
//    does (object_graph_restore.h): for Keras 3 models the saver_def reaches
//    other handles than those the signatures read;
// 4. run the init op: the `__saved_model_init_op` signature's output, else
//    the `saved_model_main_op` collection, else `legacy_init_op`.
// Steps 3 and 4 also feed every asset tensor (the meta graph's
// asset_file_def, or the TF1 `saved_model_assets` collection) with the path
// of DIR/assets/FILENAME. All paths handed to the graph are absolute, since
// through the master the ops that read them run in the workers' processes.
//
// Errors keep their code and name the step ("restoring variables from
// DIR/variables/variables: ..."): NotFound for a missing directory, file,
// tag set or signature; DataLoss for an unparseable saved_model.pb or a
// corrupt checkpoint (from RestoreV2); FailedPrecondition for a malformed
// init op declaration.
#ifndef TRIBUTARY_COMMON_RUNTIME_SAVED_MODEL_SAVED_MODEL_LOADER_H_
#define TRIBUTARY_COMMON_RUNTIME_SAVED_MODEL_SAVED_MODEL_LOADER_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/runtime/session/session.h"
#include "protos/meta_graph.pb.h"

namespace tributary {

struct SavedModelBundle {
  std::string export_dir;                // absolute
  tensorflow::MetaGraphDef meta_graph_def;
};

absl::StatusOr<SavedModelBundle> LoadSavedModel(
    Session* session, const std::string& export_dir,
    const std::vector<std::string>& tags);

// What LoadSavedModel feeds and runs, for callers that drive the steps
// themselves: the asset tensors' feeds, and the init op's name ("" if none).
absl::StatusOr<NamedTensorList> AssetFeeds(
    const tensorflow::MetaGraphDef& meta_graph, const std::string& export_dir);
absl::StatusOr<std::string> InitOpName(const tensorflow::MetaGraphDef& meta_graph,
                                       const std::string& export_dir);

// Runs signature `signature_key` of a loaded bundle on `inputs` (input key
// -> value; signature.h checks them) and returns (output key, value) pairs
// in the order of the sorted output keys.
absl::StatusOr<NamedTensorList> RunSignature(
    Session* session, const SavedModelBundle& bundle,
    const std::string& signature_key, const NamedTensorList& inputs,
    const tensorflow::RunOptions& run_options = tensorflow::RunOptions());

}  // namespace tributary

#endif  // TRIBUTARY_COMMON_RUNTIME_SAVED_MODEL_SAVED_MODEL_LOADER_H_
