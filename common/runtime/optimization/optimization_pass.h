#ifndef TRIBUTARY_COMMON_RUNTIME_OPTIMIZATION_OPTIMIZATION_PASS_H_
#define TRIBUTARY_COMMON_RUNTIME_OPTIMIZATION_OPTIMIZATION_PASS_H_

// One graph optimization pass (TensorFlow's Grappler optimizers, one per
// file here). A pass rewrites one step's graph in place after pruning and
// placement and before partitioning (GraphExecutionState::BuildClientGraph).
//
// What every pass must keep (the pipeline relies on it):
//  - the step's _Arg/_Retval (or client _Recv/_Send) nodes and what they
//    compute: a fed value is an _Arg by now, so it is never folded away;
//  - every stateful node and every side effect, and the order control
//    edges impose;
//  - error behaviour: a node whose evaluation fails at graph time is left
//    as it was, so the step reports the error, with its code, when it runs;
//  - placement: a node a pass adds gets the assigned device of the node(s)
//    it replaces.
// A pass validates before it mutates: an error return means the graph was
// not changed by that pass.

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/graph/graph.h"

namespace tributary {

class GraphOptimizationPass {
 public:
  virtual ~GraphOptimizationPass() = default;

  // The RewriterConfig field that switches this pass ("constant_folding").
  virtual absl::string_view name() const = 0;

  // Rewrites `g`; returns how many rewrites it made (0: graph unchanged).
  virtual absl::StatusOr<int> Run(Graph* g) const = 0;
};

}  // namespace tributary

#endif  // TRIBUTARY_COMMON_RUNTIME_OPTIMIZATION_OPTIMIZATION_PASS_H_
