#ifndef TRIBUTARY_COMMON_RUNTIME_GRAPH_EXECUTION_GRAPH_EXECUTION_STATE_H_
#define TRIBUTARY_COMMON_RUNTIME_GRAPH_EXECUTION_GRAPH_EXECUTION_STATE_H_

// The session's graph between Create/Extend calls, and how a step
// signature's graph is cut out of it (TensorFlow's GraphExecutionState).
//
// Placement happens on the FULL graph, once per Create/Extend, as in
// TensorFlow: a node lands on the same device whatever step it takes part
// in, so a variable initialised by one Run is the variable read by the
// next, even when a consumer that only some steps run pulls it onto another
// device through colocation. The price, also TensorFlow's, is that a node no
// step needs must still be placeable (a device it asks for must exist).
// One deliberate difference: an op this runtime has no kernel for at all
// (ParseExample, ... in many real TensorFlow 1 graphs) does not
// reject the whole graph; it is placed as if any device could run it, and
// a step that actually needs it fails with the placer's InvalidArgument ("No
// OpKernel was registered to support Op ..."). TensorFlow has every kernel,
// so it never meets this case; rejecting graphs for parts no step runs would
// only make real graphs unusable here.
// ConfigProto.graph_options.place_pruned_graph switches to placing each
// step's pruned graph instead (TensorFlow's option for graphs with
// unplaceable parts).
//
// Stateful nodes (variables, ...) keep the device they were first given
// across Extend, and under place_pruned_graph across steps, so the state
// they hold in a device's resource manager stays reachable.
//
// Immutable once built except for the stateful-placement record, which has
// its own lock: BuildClientGraph may be called concurrently.

#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "common/graph/graph.h"
#include "common/runtime/optimization/graph_optimizer.h"
#include "common/runtime/partition/subgraph.h"
#include "common/runtime/placement/device_set.h"
#include "common/runtime/placement/placer.h"
#include "protos/graph.pb.h"

namespace tributary {

// A step's feeds (tensor names), fetches (tensor names) and targets (node
// names), in the order the client gave them.
struct StepSignature {
  std::vector<std::string> feeds;
  std::vector<std::string> fetches;
  std::vector<std::string> targets;
};

// The key a session caches a signature's graph under: equal exactly when the
// three lists are (names cannot contain ',', ';' or '|').
std::string SignatureKey(const StepSignature& signature);

// The graph of one step: pruned, feeds and fetches rewritten to
// _Arg/_Retval (or client-terminated _Recv/_Send) on the client device,
// every node placed.
struct ClientGraph {
  std::unique_ptr<Graph> graph;
  RewriteGraphMetadata metadata;
  // What the optimizer did (empty when it is off).
  OptimizationReport optimization;
};

struct GraphExecutionStateOptions {
  // Not owned; must outlive the state. Its client device receives the
  // _Arg/_Retval nodes.
  const DeviceSet* devices = nullptr;
  PlacerOptions placer_options;
  // ConfigProto.graph_options.place_pruned_graph.
  bool place_pruned_graph = false;
  // Run on each client graph after pruning and placement; null: graphs run
  // as given. Built from ConfigProto.graph_options.rewrite_options.
  std::shared_ptr<const GraphOptimizer> optimizer;
};

class GraphExecutionState {
 public:
  // Expands its function calls and functional control flow
  // (common/function/expand_functions.h: their errors), imports `graph`
  // (TensorFlow's rules: NotFound for an unregistered op, InvalidArgument for
  // a malformed node, a bad cycle, ...) and, unless place_pruned_graph,
  // places it. original_graph_def() stays the graph as given.
  static absl::StatusOr<std::unique_ptr<GraphExecutionState>> Create(
      tensorflow::GraphDef graph, const GraphExecutionStateOptions& options);

  // A new state for this graph plus `extension`. InvalidArgument when the
  // extension redefines a node or its producer version differs. This state
  // is unchanged either way (cached steps keep using it).
  absl::StatusOr<std::unique_ptr<GraphExecutionState>> Extend(
      const tensorflow::GraphDef& extension) const;

  // The graph one step runs (see ClientGraph); feeds and fetches become
  // _Arg/_Retval (use_call_frame) or client-terminated _Recv/_Send; then
  // the optimizer's passes run over it. Errors
  // from the rewrite (NotFound for an unknown feed/fetch/target,
  // InvalidArgument for a bad index, ...) and, with place_pruned_graph,
  // from placement.
  absl::StatusOr<ClientGraph> BuildClientGraph(
      const StepSignature& signature, bool use_call_frame = true) const;

  // The graph as the client gave it (Create plus every Extend).
  const tensorflow::GraphDef& original_graph_def() const {
    return original_graph_def_;
  }

  // Full device name of every placed stateful node.
  absl::flat_hash_map<std::string, std::string> StatefulPlacements() const;

 private:
  explicit GraphExecutionState(const GraphExecutionStateOptions& options);

  // Gives stateful nodes of `g` the devices recorded for them.
  void PinStatefulNodes(Graph* g) const;
  // Records the devices of stateful nodes of `g` not yet recorded.
  void RecordStatefulNodes(const Graph& g) const;
  // Placement of the whole graph: nodes without any kernel are tolerated
  // (placed as if any device had one) and listed in kernelless_nodes_.
  absl::Status PlaceFullGraph(Graph* g);
  // Placement of one step's pruned graph (place_pruned_graph), strict.
  absl::Status PlaceStep(Graph* g) const;
  // Imports original_graph_def_ into base_graph_def_ (placing it unless
  // place_pruned_graph).
  absl::Status InitBaseGraph();
  // InvalidArgument (the placer's message) when `g` holds a node that has
  // no kernel.
  absl::Status CheckKernels(const Graph& g) const;

  const GraphExecutionStateOptions options_;
  tensorflow::GraphDef original_graph_def_;
  // Every node with its assigned device (full placement), or the original
  // graph with default attrs (place_pruned_graph).
  tensorflow::GraphDef base_graph_def_;
  // Nodes of the full graph no device has a kernel for (full placement).
  absl::flat_hash_set<std::string> kernelless_nodes_;

  mutable absl::Mutex mu_;
  mutable absl::flat_hash_map<std::string, std::string> stateful_placements_
      ABSL_GUARDED_BY(mu_);
};

}  // namespace tributary

#endif  // TRIBUTARY_COMMON_RUNTIME_GRAPH_EXECUTION_GRAPH_EXECUTION_STATE_H_
