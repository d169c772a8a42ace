#ifndef TRIBUTARY_COMMON_FUNCTION_EXPAND_FUNCTIONS_H_
#define TRIBUTARY_COMMON_FUNCTION_EXPAND_FUNCTIONS_H_

// Expands every function call and functional control-flow node of a GraphDef
// into plain nodes the executor runs, before the graph is imported and
// placed (the runtime's FunctionLibraryRuntime: TensorFlow inlines these
// calls and lowers If/While/Case the same way when they carry
// _lower_using_switch_merge, which is every one TensorFlow 2 writes).
//
//  * PartitionedCall / StatefulPartitionedCall (attr `f`) and nodes whose op
//    names a library function are inlined (inline_function.h);
//  * If/StatelessIf, Case/StatelessCase, While/StatelessWhile are lowered
//    (lower_control_flow.h);
//  * bodies are expanded in turn, to any depth. A call node keeps its name as
//    an IdentityN of the results (a NoOp without results) that also waits for
//    the function's control outputs, so feeds/fetches/targets naming it and
//    "^call" edges keep their meaning.
//
// Why inline rather than run bodies as sub-executors: the executor then sees
// one graph, so placement, partitioning across tasks, step stats and the
// graph optimizer all reach inside function bodies, and a loop iteration
// costs what a TensorFlow 1 loop iteration costs (docs/benchmarks.md).
// The price: a function that calls itself cannot be inlined; it is rejected
// (InvalidArgument naming the cycle), as is an expansion growing past
// kMaxExpandedNodes (ResourceExhausted).
//
// Every call node is validated against its op (InvalidArgument), its
// function must exist (NotFound) and match the node's types
// (InvalidArgument). A graph without calls is left untouched.

#include <cstdint>

#include "absl/status/status.h"
#include "common/op/op_registry.h"
#include "protos/graph.pb.h"

namespace tributary {

inline constexpr int64_t kMaxExpandedNodes = 10'000'000;

// True when `graph` holds a node ExpandFunctionCalls would replace.
bool HasFunctionCalls(const tensorflow::GraphDef& graph);

absl::Status ExpandFunctionCalls(const OpRegistryInterface& ops,
                                 tensorflow::GraphDef* graph);

}  // namespace tributary

#endif  // TRIBUTARY_COMMON_FUNCTION_EXPAND_FUNCTIONS_H_
