#include "common/runtime/partition/subgraph.h"

#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/framework/status.h"
#include "common/graph/algorithm.h"
#include "common/graph/tensor_id.h"
#include "common/op/node_def_util.h"

namespace tributary {

namespace {

struct Endpoint {
  const std::string* name;  // as the caller wrote it
  Node* node;
  int index;
};

using NodeOutput = std::pair<const Node*, int>;

// Resolves a feed or fetch. `what` is "feed" or "fetch", for messages.
absl::Status ResolveEndpoint(const Graph& g, const std::string& name,
                             const char* what, Endpoint* out) {
  const TensorId id = ParseTensorName(name);
  if (id.IsControl()) {
    return errors::InvalidArgument("Cannot ", what, " '", name,
                                   "': it names a control dependency, not a "
                                   "tensor (use \"n\" or \"n:1\")");
  }
  Node* n = g.FindNodeByName(id.node());
  if (n == nullptr || !n->IsOp()) {
    return errors::NotFound("Cannot ", what, " '", name, "': node '", id.node(),
                            "' not found in the graph");
  }
  if (n->num_outputs() == 0 && std::string(what) == "fetch") {
    return errors::InvalidArgument(
        "Tried to fetch data for '", name,
        "', which produces no output. To run to a node but not fetch any "
        "data, pass '",
        name, "' as a target node instead.");
  }
  if (id.index >= n->num_outputs()) {
    return errors::InvalidArgument(
        "Cannot ", what, " '", name, "': node '", n->name(), "' (op ",
        n->type_string(), ") has ", n->num_outputs(), " outputs, so output ",
        id.index, " does not exist");
  }
  *out = Endpoint{&name, n, id.index};
  return absl::OkStatus();
}

// Adds `def` (inputs listed as the op's signature requires) and assigns it
// to the client device.
absl::StatusOr<Node*> AddAssignedNode(Graph* g, tensorflow::NodeDef def,
                                      const std::string& device) {
  TRIB_ASSIGN_OR_RETURN(Node * n, g->AddNode(std::move(def)));
  n->set_assigned_device_name(device);
  return n;
}

void SetClientTerminatedAttrs(const std::string& tensor_name,
                              const tensorflow::DeviceAttributes& device_info,
                              tensorflow::NodeDef* def) {
  AddNodeAttr("tensor_name", tensor_name, def);
  AddNodeAttr("send_device", device_info.name(), def);
  AddNodeAttr("recv_device", device_info.name(), def);
  AddNodeAttr("send_device_incarnation",
              static_cast<int64_t>(device_info.incarnation()), def);
  AddNodeAttr("client_terminated", true, def);
}

absl::StatusOr<Node*> AddFeedNode(Graph* g, const Endpoint& feed, int index,
                                  const tensorflow::DeviceAttributes& device,
                                  bool use_function_convention) {
  const DataType dtype = BaseType(feed.node->output_type(feed.index));
  tensorflow::NodeDef def;
  if (use_function_convention) {
    // The arg index is part of the name: _Arg is stateful, so its name must
    // identify one kernel instance across all graphs of a session.
    def.set_name(
        absl::StrCat("_arg_", feed.node->name(), "_", feed.index, "_", index));
    def.set_op("_Arg");
    AddNodeAttr("T", dtype, &def);
    AddNodeAttr("index", int64_t{index}, &def);
  } else {
    def.set_name(absl::StrCat("_recv_", feed.node->name(), "_", feed.index));
    def.set_op("_Recv");
    AddNodeAttr("tensor_type", dtype, &def);
    SetClientTerminatedAttrs(*feed.name, device, &def);
  }
  // A fed Placeholder's declared shape stays visible to the graph passes
  // (ShapeAnalysis), which, like TensorFlow's remapper, assume a feed has
  // the shape its Placeholder declares.
  const tensorflow::AttrValue* shape = feed.node->attrs().Find("shape");
  if (feed.node->IsPlaceholder() && feed.index == 0 && shape != nullptr &&
      shape->has_shape()) {
    *(*def.mutable_attr())["_output_shapes"].mutable_list()->add_shape() =
        shape->shape();
  }
  return AddAssignedNode(g, std::move(def), device.name());
}

absl::StatusOr<Node*> AddFetchNode(Graph* g, const Endpoint& fetch, Node* src,
                                   int src_index, int index,
                                   const tensorflow::DeviceAttributes& device,
                                   bool use_function_convention) {
  const DataType dtype = BaseType(fetch.node->output_type(fetch.index));
  tensorflow::NodeDef def;
  // The input string only has to satisfy the signature check; the edge
  // below is what connects the node.
  def.add_input(src->name());
  if (use_function_convention) {
    def.set_name(absl::StrCat("_retval_", fetch.node->name(), "_", fetch.index,
                              "_", index));
    def.set_op("_Retval");
    AddNodeAttr("T", dtype, &def);
    AddNodeAttr("index", int64_t{index}, &def);
  } else {
    def.set_name(absl::StrCat("_send_", fetch.node->name(), "_", fetch.index));
    def.set_op("_Send");
    AddNodeAttr("T", dtype, &def);
    SetClientTerminatedAttrs(*fetch.name, device, &def);
  }
  TRIB_ASSIGN_OR_RETURN(Node * n,
                        AddAssignedNode(g, std::move(def), device.name()));
  TRIB_RETURN_IF_ERROR(g->AddEdge(src, src_index, n, 0).status());
  return n;
}

// Moves every consumer of feed's output onto `feed_node` (and, for a
// Placeholder, its control dependents too: a fed placeholder must not run).
absl::Status RerouteConsumers(Graph* g, const Endpoint& feed, Node* feed_node) {
  const bool is_placeholder = feed.node->IsPlaceholder();
  std::vector<const Edge*> to_move;
  for (const Edge* e : feed.node->out_edges()) {
    if (e->src_output() == feed.index ||
        (e->IsControlEdge() && is_placeholder)) {
      to_move.push_back(e);
    }
  }
  for (const Edge* e : to_move) {
    Node* dst = e->dst();
    const int dst_input = e->dst_input();
    const bool control = e->IsControlEdge();
    // Remove first: an input slot holds one edge.
    g->RemoveEdge(e);
    if (control) {
      g->AddControlEdge(feed_node, dst);
    } else {
      TRIB_RETURN_IF_ERROR(g->AddEdge(feed_node, 0, dst, dst_input).status());
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status RewriteGraphForExecution(
    Graph* g, absl::Span<const std::string> fed_outputs,
    absl::Span<const std::string> fetch_outputs,
    absl::Span<const std::string> target_node_names,
    const tensorflow::DeviceAttributes& device_info,
    bool use_function_convention, RewriteGraphMetadata* out_metadata) {
  if (fetch_outputs.empty() && target_node_names.empty()) {
    return errors::InvalidArgument(
        "Must specify at least one target to fetch or execute.");
  }

  // Resolve everything first, so bad requests leave the graph untouched.
  std::vector<Endpoint> feeds(fed_outputs.size());
  absl::flat_hash_map<NodeOutput, int> feed_index;
  for (size_t i = 0; i < fed_outputs.size(); ++i) {
    TRIB_RETURN_IF_ERROR(
        ResolveEndpoint(*g, fed_outputs[i], "feed", &feeds[i]));
    if (!feed_index.emplace(NodeOutput(feeds[i].node, feeds[i].index), i)
             .second) {
      return errors::InvalidArgument("Endpoint \"", fed_outputs[i],
                                     "\" fed more than once.");
    }
  }
  std::vector<Endpoint> fetches(fetch_outputs.size());
  absl::flat_hash_map<NodeOutput, int> fetch_index;
  for (size_t i = 0; i < fetch_outputs.size(); ++i) {
    TRIB_RETURN_IF_ERROR(
        ResolveEndpoint(*g, fetch_outputs[i], "fetch", &fetches[i]));
    if (!fetch_index.emplace(NodeOutput(fetches[i].node, fetches[i].index), i)
             .second &&
        !use_function_convention) {
      return errors::InvalidArgument(
          "Endpoint \"", fetch_outputs[i],
          "\" fetched more than once; with client-terminated sends each "
          "fetch needs its own rendezvous key");
    }
  }
  std::vector<Node*> targets;
  std::vector<std::string> not_found;
  for (const std::string& t : target_node_names) {
    Node* n = g->FindNodeByName(ParseTensorName(t).node());
    if (n == nullptr || !n->IsOp()) {
      not_found.push_back(t);
    } else {
      targets.push_back(n);
    }
  }
  if (!not_found.empty()) {
    return errors::NotFound("Target nodes not found in the graph: ",
                            absl::StrJoin(not_found, ", "));
  }

  RewriteGraphMetadata metadata;
  std::vector<Node*> feed_nodes(feeds.size());
  for (size_t i = 0; i < feeds.size(); ++i) {
    TRIB_ASSIGN_OR_RETURN(feed_nodes[i],
                          AddFeedNode(g, feeds[i], static_cast<int>(i),
                                      device_info, use_function_convention));
    g->AddControlEdge(g->source_node(), feed_nodes[i]);
    TRIB_RETURN_IF_ERROR(RerouteConsumers(g, feeds[i], feed_nodes[i]));
    metadata.feed_types.push_back(
        BaseType(feeds[i].node->output_type(feeds[i].index)));
    metadata.feed_node_names.push_back(feed_nodes[i]->name());
  }

  std::unordered_set<const Node*> keep(targets.begin(), targets.end());
  for (size_t i = 0; i < fetches.size(); ++i) {
    // A fetch of a fed tensor reads the feed node: the client gets back
    // what it supplied, and the producer need not run.
    Node* src = fetches[i].node;
    int src_index = fetches[i].index;
    auto fed = feed_index.find(NodeOutput(src, src_index));
    if (fed != feed_index.end()) {
      src = feed_nodes[fed->second];
      src_index = 0;
    }
    TRIB_ASSIGN_OR_RETURN(
        Node * fetch_node,
        AddFetchNode(g, fetches[i], src, src_index, static_cast<int>(i),
                     device_info, use_function_convention));
    g->AddControlEdge(fetch_node, g->sink_node());
    keep.insert(fetch_node);
    metadata.fetch_types.push_back(
        BaseType(fetches[i].node->output_type(fetches[i].index)));
    metadata.fetch_node_names.push_back(fetch_node->name());
  }

  PruneForReverseReachability(g, std::move(keep));
  FixupSourceAndSinkEdges(g);
  if (out_metadata != nullptr) *out_metadata = std::move(metadata);
  return absl::OkStatus();
}

}  // namespace tributary
