#ifndef TRIBUTARY_COMMON_RUNTIME_OPTIMIZATION_DEAD_BRANCH_REMOVAL_H_
#define TRIBUTARY_COMMON_RUNTIME_OPTIMIZATION_DEAD_BRANCH_REMOVAL_H_

// Dead-branch removal (RewriterConfig.loop_optimization, where TensorFlow's
// Grappler does it too): a Switch whose predicate is a Const (after constant
// folding: tf.cond on a constant, a lowered If on one, Keras' learning phase
// left at its default) always forwards its data on the same port, so
// everything the other port feeds never runs. The pass
//
//  - propagates deadness from the untaken port as the executor would: a
//    node with any dead input (data or control) is dead, a Merge is dead
//    when all its data inputs are;
//  - removes the dead nodes;
//  - replaces each Merge left with exactly one live data input by an
//    Identity of that input, and each such Switch by an Identity of its
//    data, both keeping the node's name, device and control edges (so
//    traces, fetches and the arithmetic pass still see them).
//
// Switches sharing one predicate (one tf.cond's) are handled together, and
// each group is left as it is when the rewrite could change what the step
// observes: a fetched (_Retval/_Send) or loop-frame node (Enter, Exit,
// NextIteration, LoopCond) would be removed, a Merge would keep two or more
// live inputs, its value_index output is read, or a dead node reaches it by
// a control edge.

#include "absl/status/statusor.h"
#include "common/runtime/optimization/optimization_pass.h"

namespace tributary {

class DeadBranchRemoval : public GraphOptimizationPass {
 public:
  absl::string_view name() const override { return "loop_optimization"; }
  absl::StatusOr<int> Run(Graph* g) const override;
};

}  // namespace tributary

#endif  // TRIBUTARY_COMMON_RUNTIME_OPTIMIZATION_DEAD_BRANCH_REMOVAL_H_
