#include "common/runtime/graph_execution/graph_execution_state.h"

#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/framework/status.h"
#include "common/function/expand_functions.h"
#include "common/graph/graph_def_import.h"
#include "common/op/op_registry.h"
#include "common/runtime/placement/kernel_support.h"

namespace tributary {

std::string SignatureKey(const StepSignature& s) {
  return absl::StrCat(absl::StrJoin(s.feeds, ","), ";",
                      absl::StrJoin(s.fetches, ","), ";",
                      absl::StrJoin(s.targets, ","));
}

namespace {

bool IsStateful(const Node& n) { return n.IsOp() && n.op_def().is_stateful(); }

}  // namespace

GraphExecutionState::GraphExecutionState(
    const GraphExecutionStateOptions& options)
    : options_(options) {}

absl::StatusOr<std::unique_ptr<GraphExecutionState>>
GraphExecutionState::Create(tensorflow::GraphDef graph,
                            const GraphExecutionStateOptions& options) {
  if (options.devices == nullptr || options.devices->empty()) {
    return errors::InvalidArgument("A session needs at least one device");
  }
  std::unique_ptr<GraphExecutionState> state(new GraphExecutionState(options));
  state->original_graph_def_ = std::move(graph);
  TRIB_RETURN_IF_ERROR(state->InitBaseGraph());
  return state;
}

absl::Status GraphExecutionState::InitBaseGraph() {
  Graph g(OpRegistry::Global());
  if (HasFunctionCalls(original_graph_def_)) {
    // Function calls and functional control flow become plain nodes here,
    // once, so placement, pruning and partitioning see inside them.
    tensorflow::GraphDef expanded = original_graph_def_;
    TRIB_RETURN_IF_ERROR(
        ExpandFunctionCalls(*OpRegistry::Global(), &expanded));
    TRIB_RETURN_IF_ERROR(ConvertGraphDefToGraph(GraphConstructorOptions(),
                                                std::move(expanded), &g));
  } else {
    TRIB_RETURN_IF_ERROR(ConvertGraphDefToGraph(GraphConstructorOptions(),
                                                original_graph_def_, &g));
  }
  if (!options_.place_pruned_graph) {
    TRIB_RETURN_IF_ERROR(PlaceFullGraph(&g));
  }
  g.ToGraphDef(&base_graph_def_);
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<GraphExecutionState>>
GraphExecutionState::Extend(const tensorflow::GraphDef& extension) const {
  absl::flat_hash_set<std::string> existing;
  for (const tensorflow::NodeDef& n : original_graph_def_.node()) {
    existing.insert(n.name());
  }
  for (const tensorflow::NodeDef& n : extension.node()) {
    if (existing.contains(n.name())) {
      return errors::InvalidArgument(
          "GraphDef argument to Extend includes node '", n.name(),
          "', which was created by a previous call to Create or Extend in "
          "this session.");
    }
  }
  tensorflow::GraphDef combined = original_graph_def_;
  if (extension.has_versions()) {
    if (combined.has_versions() &&
        combined.versions().producer() != extension.versions().producer()) {
      return errors::InvalidArgument(
          "Can't extend GraphDef at version ", combined.versions().producer(),
          " with graph at version ", extension.versions().producer());
    }
    *combined.mutable_versions() = extension.versions();
  }
  for (const tensorflow::NodeDef& n : extension.node()) {
    *combined.add_node() = n;
  }
  // A function the session has already is sent again by clients that
  // re-send the whole library; it must be the same function (TensorFlow's
  // rule, checked when the combined graph's library is read), so the
  // extension's copy is appended and FunctionLibrary::Create compares them.
  absl::flat_hash_map<std::string, const tensorflow::FunctionDef*> functions;
  for (const auto& f : combined.library().function()) {
    functions.emplace(f.signature().name(), &f);
  }
  std::vector<const tensorflow::FunctionDef*> added;
  for (const auto& f : extension.library().function()) {
    auto it = functions.find(f.signature().name());
    if (it == functions.end() || it->second->SerializeAsString() !=
                                     f.SerializeAsString()) {
      added.push_back(&f);
    }
  }
  for (const tensorflow::FunctionDef* f : added) {
    *combined.mutable_library()->add_function() = *f;
  }

  std::unique_ptr<GraphExecutionState> state(new GraphExecutionState(options_));
  state->original_graph_def_ = std::move(combined);
  {
    absl::MutexLock l(&state->mu_);
    state->stateful_placements_ = StatefulPlacements();
  }
  TRIB_RETURN_IF_ERROR(state->InitBaseGraph());
  return state;
}

absl::StatusOr<ClientGraph> GraphExecutionState::BuildClientGraph(
    const StepSignature& signature, bool use_call_frame) const {
  ClientGraph out;
  out.graph = std::make_unique<Graph>(OpRegistry::Global());
  Graph* g = out.graph.get();
  TRIB_RETURN_IF_ERROR(
      ConvertGraphDefToGraph(GraphConstructorOptions(), base_graph_def_, g));
  if (!options_.place_pruned_graph) {
    // The base graph's device fields are the full placement.
    for (Node* n : g->op_nodes()) {
      n->set_assigned_device_name(n->requested_device());
    }
  }
  const PlacementDevice* client = options_.devices->client_device();
  TRIB_RETURN_IF_ERROR(RewriteGraphForExecution(
      g, signature.feeds, signature.fetches, signature.targets,
      client->attributes, use_call_frame, &out.metadata));
  if (options_.place_pruned_graph) {
    TRIB_RETURN_IF_ERROR(PlaceStep(g));
  } else {
    TRIB_RETURN_IF_ERROR(CheckKernels(*g));
  }
  if (options_.optimizer != nullptr) {
    TRIB_RETURN_IF_ERROR(options_.optimizer->Optimize(g, &out.optimization));
  }
  return out;
}

absl::Status GraphExecutionState::CheckKernels(const Graph& g) const {
  if (kernelless_nodes_.empty()) return absl::OkStatus();
  for (const Node* n : g.op_nodes()) {
    if (!kernelless_nodes_.contains(n->name())) continue;
    std::vector<std::string> types;
    for (const DeviceType& t : options_.devices->PrioritizedDeviceTypeList()) {
      types.push_back(t.type_string());
    }
    return errors::InvalidArgument(
        "No OpKernel was registered to support Op '", n->type_string(),
        "' used by node '", n->name(), "' with these attrs: [",
        n->attrs().SummarizeAttrs(), "]\nRegistered devices: [",
        absl::StrJoin(types, ", "), "]\nRegistered kernels:\n",
        RegisteredKernelsForOp(n->type_string()));
  }
  return absl::OkStatus();
}

absl::flat_hash_map<std::string, std::string>
GraphExecutionState::StatefulPlacements() const {
  absl::MutexLock l(&mu_);
  return stateful_placements_;
}

void GraphExecutionState::PinStatefulNodes(Graph* g) const {
  absl::MutexLock l(&mu_);
  for (Node* n : g->op_nodes()) {
    if (!IsStateful(*n) || n->has_assigned_device_name()) continue;
    auto it = stateful_placements_.find(n->name());
    if (it != stateful_placements_.end()) {
      n->set_assigned_device_name(it->second);
    }
  }
}

void GraphExecutionState::RecordStatefulNodes(const Graph& g) const {
  absl::MutexLock l(&mu_);
  for (const Node* n : g.op_nodes()) {
    if (IsStateful(*n)) {
      stateful_placements_.emplace(n->name(), n->assigned_device_name());
    }
  }
}

absl::Status GraphExecutionState::PlaceStep(Graph* g) const {
  PinStatefulNodes(g);
  TRIB_RETURN_IF_ERROR(
      PlaceGraph(g, *options_.devices, options_.placer_options));
  RecordStatefulNodes(*g);
  return absl::OkStatus();
}

absl::Status GraphExecutionState::PlaceFullGraph(Graph* g) {
  PlacerOptions placer_options = options_.placer_options;
  SupportedDeviceTypesFn strict = placer_options.supported_device_types
                                      ? placer_options.supported_device_types
                                      : KernelRegistrySupportedDeviceTypes();
  SupportedDeviceTypesFn everywhere = AllDeviceTypesSupported();
  absl::flat_hash_set<std::string>* kernelless = &kernelless_nodes_;
  // Called by PlaceGraph on this thread only.
  placer_options.supported_device_types =
      [strict, everywhere, kernelless](
          const std::vector<DeviceType>& types,
          const Node& node) -> absl::StatusOr<PrioritizedDeviceTypeVector> {
    absl::StatusOr<PrioritizedDeviceTypeVector> supported = strict(types, node);
    if (!supported.ok() || !supported->empty()) return supported;
    kernelless->insert(node.name());
    return everywhere(types, node);
  };
  PinStatefulNodes(g);
  TRIB_RETURN_IF_ERROR(PlaceGraph(g, *options_.devices, placer_options));
  RecordStatefulNodes(*g);
  return absl::OkStatus();
}

}  // namespace tributary
