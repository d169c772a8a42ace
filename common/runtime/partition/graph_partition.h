#ifndef TRIBUTARY_COMMON_RUNTIME_PARTITION_GRAPH_PARTITION_H_
#define TRIBUTARY_COMMON_RUNTIME_PARTITION_GRAPH_PARTITION_H_

// Splits a placed graph into one GraphDef per "location", cutting every edge
// whose ends lie in different locations into a _Send/_Recv pair, as
// TensorFlow's graph_partition.cc does. The same code serves both levels of
// the distributed split: the master splits by task
// ("/job:ps/replica:0/task:0"), each worker then splits its part by device.
// Only the location function differs (SplitByTask / SplitByDevice).
//
// For an edge src:k -> dst:i with loc(src) != loc(dst):
//   partition of src:  _Send(src:k)   [T, tensor_name, send_device,
//                       send_device_incarnation, recv_device,
//                       client_terminated=false, _src, _dst]
//   partition of dst:  _Recv          [tensor_type, same keys] -> dst:i
// send_device / recv_device are the assigned DEVICES of src and dst (never
// the locations), so a rendezvous key is the same whichever level cut the
// edge. The tensor_name and the incarnation come from callbacks: the local
// session, the master and tests each choose their own.
//
// A control edge src -> dst across locations becomes
//   partition of src:  Const "<src>/ctrl/..." (float [0], ^src) -> _Send
//   partition of dst:  _Recv -> Identity -> ^dst
// so dst still waits for src, and a dead src still makes dst dead.
//
// One _Send/_Recv pair serves every consumer of the same output in the same
// destination partition (except reference edges, which are never shared; the
// _Recv of a reference edge waits, by control edges, for the consumer's other
// inputs, so the variable is read as late as TensorFlow reads it).
//
// On devices other than CPU, a value that the producer's kernel keeps in (or
// the consumer's kernel wants in) host memory travels by _HostSend /
// _HostRecv, and a same-device edge between host and device memory also gets
// a pair, as in TensorFlow.
//
// TensorFlow 1 loops whose frame spans several locations get TensorFlow's
// control loops (Enter/Merge/Switch/NextIteration driven by the frame's
// LoopCond) in every partition that takes part, unless control_flow_added
// says the caller already did this (a worker re-splitting a partition the
// master made).

#include <cstdint>
#include <functional>
#include <map>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "common/graph/graph.h"
#include "common/kernel/device_type.h"
#include "common/kernel/memory_types.h"
#include "protos/graph.pb.h"

namespace tributary {

struct PartitionOptions {
  // The location (partition key) of a node. Required.
  using NodeToLocFn = std::function<std::string(const Node* node)>;
  NodeToLocFn node_to_loc;

  // A node name not used anywhere in the graph or in other partitions of the
  // same session/step graph, derived from `prefix` (TensorFlow:
  // "<prefix>/_<counter>"). Required; see MakeNodeNameGenerator.
  using NewNameFn = std::function<std::string(const std::string& prefix)>;
  NewNameFn new_name;

  // The incarnation of a device, by full name, for the
  // send_device_incarnation attr. Required. Returning kIllegalIncarnation
  // (0, "unknown device") fails the partition with InvalidArgument.
  static constexpr uint64_t kIllegalIncarnation = 0;
  using GetIncarnationFn = std::function<uint64_t(const std::string& name)>;
  GetIncarnationFn get_incarnation;

  // The tensor_name attr (the edge's part of the rendezvous key) of the pair
  // cutting `edge`. Empty: "edge_<edge id>_<src name>", TensorFlow's choice.
  // Must give distinct names to distinct cut edges of one step.
  using GetTensorNameAttrFn = std::function<std::string(const Edge* edge)>;
  GetTensorNameAttrFn get_tensor_name_attr;

  // Memory types of `node`'s inputs and outputs when it runs on a device of
  // type `device_type` (only asked for non-CPU devices; on a CPU everything
  // is host memory). Empty: the kernel registry's kernel for the node, if
  // any, through MemoryTypesForNode.
  using MemoryTypesFn = std::function<absl::Status(
      const Node& node, const DeviceType& device_type,
      MemoryTypeVector* input_types, MemoryTypeVector* output_types)>;
  MemoryTypesFn memory_types;

  // True when the graph already holds the control loops for frames that
  // span locations (see the file comment).
  bool control_flow_added = false;
};

// Splits `g` (every op node must have an assigned device) into
// `*partitions`, keyed by location. Each GraphDef lists its nodes with
// `device` set to the assigned device, inputs rewritten to the partition's
// own nodes, and the graph's versions and function library. Adding control
// loops may add nodes to `g`; nothing else changes it.
//
// InvalidArgument naming the node for an unassigned or malformed device, a
// node with a missing data input, or a device without incarnation;
// InvalidArgument for a cross-location loop without a LoopCond. On error
// `*partitions` is unspecified.
absl::Status Partition(const PartitionOptions& opts, Graph* g,
                       std::map<std::string, tensorflow::GraphDef>* partitions);

// Location = the node's assigned device (the worker's split, and the local
// session's).
PartitionOptions::NodeToLocFn SplitByDevice();
// Location = the task of the node's assigned device,
// "/job:ps/replica:0/task:0" (the master's split). A device name without a
// full task gives "" (which Partition reports as malformed).
PartitionOptions::NodeToLocFn SplitByTask();

// A thread-safe NewNameFn returning "<prefix><tag><n>" with n counting up
// from 0 per generator. Share one generator among everything that adds nodes
// to the graphs of one session, so no two partitions ever clash. A second
// split of a graph that an earlier split made must use another tag (as in
// TensorFlow: the master uses "/_", a worker "_G"), so the two generators
// cannot produce the same name.
PartitionOptions::NewNameFn MakeNodeNameGenerator(absl::string_view tag = "/_");

}  // namespace tributary

#endif  // TRIBUTARY_COMMON_RUNTIME_PARTITION_GRAPH_PARTITION_H_
