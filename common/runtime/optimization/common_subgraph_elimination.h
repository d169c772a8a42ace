#ifndef TRIBUTARY_COMMON_RUNTIME_OPTIMIZATION_COMMON_SUBGRAPH_ELIMINATION_H_
#define TRIBUTARY_COMMON_RUNTIME_OPTIMIZATION_COMMON_SUBGRAPH_ELIMINATION_H_

// Common subgraph elimination (RewriterConfig.common_subgraph_elimination):
// two nodes that must compute the same values are merged into one.
//
// Equivalent means all of: the same op; the same attrs (every attr,
// annotations such as _class and _output_shapes included, compared by
// value); the same data inputs (the same producer and output, in order);
// the same set of control inputs; the same assigned device. Nodes are
// visited in topological order and inputs already merged count as the
// same, so duplicated chains collapse in one run. The node met first
// (of two unordered nodes, the one added to the graph first) survives; the other one's data consumers and control successors move to
// it and it is removed. A fetch is a _Retval/_Send reading the node, so it
// simply reads the survivor, which computes the same value.
//
// Inputs are put in canonical order only where that keeps every bit:
// AddV2, Add and Mul on integer dtypes. Floating-point Add/Mul are left in
// order (when both operands are NaN the result carries the first one's
// payload) and so are Maximum/Minimum (max(+0, -0) depends on the order).
//
// Never merged, because two of them are not interchangeable or because
// the step names them: stateful ops (variables, random ops, queues,
// Assert, ...) and any node with a ref, resource or variant input or
// output; _Arg/_Retval/_Send/_Recv, Placeholder and PlaceholderWithDefault;
// control-flow primitives (Switch, Merge, Enter, Exit, NextIteration,
// LoopCond, ControlTrigger); nodes without outputs (NoOp: a target or a
// control-dependency group, nothing to share); Consts whose value proto is
// over kMaxConstBytes (comparing large weights costs more than it saves,
// and a frozen model's weights are never duplicated by construction).

#include <cstdint>

#include "absl/status/statusor.h"
#include "common/runtime/optimization/optimization_pass.h"

namespace tributary {

class CommonSubgraphElimination : public GraphOptimizationPass {
 public:
  static constexpr int64_t kMaxConstBytes = 1024;

  absl::string_view name() const override {
    return "common_subgraph_elimination";
  }
  absl::StatusOr<int> Run(Graph* g) const override;
};

}  // namespace tributary

#endif  // TRIBUTARY_COMMON_RUNTIME_OPTIMIZATION_COMMON_SUBGRAPH_ELIMINATION_H_
