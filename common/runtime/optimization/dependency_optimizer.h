#ifndef TRIBUTARY_COMMON_RUNTIME_OPTIMIZATION_DEPENDENCY_OPTIMIZER_H_
#define TRIBUTARY_COMMON_RUNTIME_OPTIMIZATION_DEPENDENCY_OPTIMIZER_H_

// Dependency optimization (RewriterConfig.dependency_optimization): removes
// control edges that order nothing, then the constants left unread.
//
// A control edge from a Const orders nothing the Const does (it has no side
// effect and is ready once its own control inputs are), so `c -> n` becomes
// an edge from each of c's control inputs to n, or disappears when c has
// none. Frozen TensorFlow 2 functions need this: their output Identity waits
// on a NoOp that waits on every weight, which would keep every original
// weight alive beside the ones the remapper scales. A Const no node reads
// any more (no data or control successor) is then removed.

#include "absl/status/statusor.h"
#include "common/runtime/optimization/optimization_pass.h"

namespace tributary {

class DependencyOptimizer : public GraphOptimizationPass {
 public:
  absl::string_view name() const override { return "dependency_optimization"; }
  absl::StatusOr<int> Run(Graph* g) const override;
};

}  // namespace tributary

#endif  // TRIBUTARY_COMMON_RUNTIME_OPTIMIZATION_DEPENDENCY_OPTIMIZER_H_
