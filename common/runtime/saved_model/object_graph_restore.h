// Restoring a TF2 SavedModel's variables through its object graph, as
// tf.saved_model.load does, for graphs whose saver_def does not reach the
// variables the serving functions read.
//
// Why: a model saved by tf.saved_model.save carries two sets of variable
// handles in its GraphDef. The saver_def's restore function assigns one set;
// the signatures' function calls capture handles that, for Keras 3 models,
// are another set (TensorFlow's own TF1 loader then fails with "Could not
// find variable sequential/dense/kernel"). TF2's loader instead binds each
// concrete function's captures (SavedConcreteFunction.bound_inputs: object
// graph node ids, the trailing inputs of a call) to the object graph's
// variables and restores those from the checkpoint by node id (the
// checkpoint's TrackableObjectGraph, stored under
// "_CHECKPOINTABLE_OBJECT_GRAPH", has the same node ids and names each
// variable's checkpoint key).
//
// BuildObjectGraphRestore does that in graph form: for every
// (Stateful)PartitionedCall of the GraphDef whose function is a concrete
// function of the object graph, each captured input that is a variable
// node gets an AssignVariableOp from one RestoreV2 of all such keys, under
// one NoOp. The nodes are added to the session's graph; running the NoOp with
// the filename fed restores them wherever the handles live (on a cluster,
// on the handles' tasks).
#ifndef TRIBUTARY_COMMON_RUNTIME_SAVED_MODEL_OBJECT_GRAPH_RESTORE_H_
#define TRIBUTARY_COMMON_RUNTIME_SAVED_MODEL_OBJECT_GRAPH_RESTORE_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "protos/meta_graph.pb.h"
#include "protos/node_def.pb.h"
#include "protos/saved_object_graph.pb.h"
#include "protos/trackable_object_graph.pb.h"

namespace tributary {

inline constexpr char kObjectGraphKey[] = "_CHECKPOINTABLE_OBJECT_GRAPH";

// MetaGraphDef field 7 (object_graph_def), which protos/meta_graph.proto
// keeps as an unknown field; nullopt when absent. DataLoss if it does not
// parse.
absl::StatusOr<std::optional<tensorflow::SavedObjectGraph>> ObjectGraphOf(
    const tensorflow::MetaGraphDef& meta_graph);

// The checkpoint's object graph (local file read); NotFound naming the
// checkpoint when it has none (a TF1 checkpoint).
absl::StatusOr<tensorflow::TrackableObjectGraph> ReadCheckpointObjectGraph(
    const std::string& variables_prefix);

struct ObjectGraphRestore {
  std::vector<tensorflow::NodeDef> nodes;  // to add to the graph
  std::string filename_tensor;             // feed the checkpoint prefix here
  std::string restore_op;                  // then run this
  std::vector<std::string> restored;       // "handle <- checkpoint key", for messages
};

// Empty `nodes` when no call captures a variable. FailedPrecondition naming
// the function and node id when a captured variable has no checkpoint value.
absl::StatusOr<ObjectGraphRestore> BuildObjectGraphRestore(
    const tensorflow::GraphDef& graph, const tensorflow::SavedObjectGraph& objects,
    const tensorflow::TrackableObjectGraph& checkpoint_objects);

}  // namespace tributary

#endif  // TRIBUTARY_COMMON_RUNTIME_SAVED_MODEL_OBJECT_GRAPH_RESTORE_H_
