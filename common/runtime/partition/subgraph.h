#ifndef TRIBUTARY_COMMON_RUNTIME_PARTITION_SUBGRAPH_H_
#define TRIBUTARY_COMMON_RUNTIME_PARTITION_SUBGRAPH_H_

// Rewrites a graph for one step signature (feeds, fetches, targets), as
// TensorFlow's subgraph.cc does: fed tensors and fetched tensors get nodes
// through which values enter and leave the step, and everything the fetches
// and targets do not need is pruned.
//
// Two conventions, as in TensorFlow:
//  * call frame (use_function_convention = true), TensorFlow's
//    FunctionCallFrame: feed i becomes
//      _Arg "_arg_<node>_<output>_<i>"        [T, index = i]
//    and fetch j becomes
//      _Retval "_retval_<node>_<output>_<j>"  [T, index = j]
//    The local session fills the frame's args with the feeds in order and
//    reads the retvals in order.
//  * rendezvous (false), for a worker's RunGraph: feed "x:0" becomes
//      _Recv "_recv_x_0"  [tensor_type, tensor_name = "x:0",
//                          client_terminated = true]
//    and fetch "y:0" becomes
//      _Send "_send_y_0"  [T, tensor_name = "y:0", client_terminated = true]
//    with send_device = recv_device = device_info.name() and
//    send_device_incarnation = device_info.incarnation(), so the caller
//    addresses the value under the rendezvous key
//      <device>;<incarnation hex>;<device>;<endpoint as given>;0:0
// All new nodes are assigned to device_info.name() (the client device).
//
// Feeding cuts the graph: every consumer of the fed output reads the new
// node instead (a fed Placeholder's control edges move too), so whatever
// only fed it is pruned. A fetch of a fed tensor is answered by the feed
// (the value the client supplied), which is what TensorFlow's clients
// return; TensorFlow's C++ rewrite would reject it. Another output of a fed
// node can still be fetched, and then the node runs.
//
// Errors, naming the endpoint or node:
//  * no fetch and no target: InvalidArgument;
//  * a feed, fetch or target naming no node: NotFound;
//  * an output index out of range, a fetch of a node without outputs, a
//    control name ("^x") as feed or fetch: InvalidArgument;
//  * the same tensor fed twice ("x" and "x:0" are the same tensor):
//    InvalidArgument; fetched twice in the rendezvous convention:
//    InvalidArgument (two sends under one key); in the call-frame convention
//    a repeated fetch simply gets two retvals.
// On error the graph may be partly rewritten; callers rewrite a copy.

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "common/framework/types.h"
#include "common/graph/graph.h"
#include "protos/device_attributes.pb.h"

namespace tributary {

struct RewriteGraphMetadata {
  // Base dtype of each feed / fetch, in the order given.
  DataTypeVector feed_types;
  DataTypeVector fetch_types;
  // Name of the node added for each feed / fetch, in the order given.
  std::vector<std::string> feed_node_names;
  std::vector<std::string> fetch_node_names;
};

absl::Status RewriteGraphForExecution(
    Graph* g, absl::Span<const std::string> fed_outputs,
    absl::Span<const std::string> fetch_outputs,
    absl::Span<const std::string> target_node_names,
    const tensorflow::DeviceAttributes& device_info,
    bool use_function_convention, RewriteGraphMetadata* out_metadata);

}  // namespace tributary

#endif  // TRIBUTARY_COMMON_RUNTIME_PARTITION_SUBGRAPH_H_
