#ifndef TRIBUTARY_COMMON_RUNTIME_OPTIMIZATION_CONSTANT_FOLDING_H_
#define TRIBUTARY_COMMON_RUNTIME_OPTIMIZATION_CONSTANT_FOLDING_H_

// Constant folding (RewriterConfig.constant_folding): a node whose data
// inputs are all Const nodes is evaluated once, now, with its own CPU kernel
// (host_kernel_evaluator.h), and replaced by a Const per used output. Repeats
// in topological order, so whole constant subgraphs collapse.
//
// Folded: deterministic, stateless ops with at least one data input whose
// inputs and outputs are plain values (no ref, resource or variant dtypes),
// outside control-flow primitives, with a CPU kernel. Not folded: stateful
// ops (variables, random ops, queues, Assert, ...), _Arg/_Retval/_Send/_Recv,
// Placeholder, Switch/Merge/Enter/Exit/NextIteration/LoopCond, a node whose
// kernel fails now (the step reports that error when it runs) and a result
// over kMaxFoldedBytes (TensorFlow's cap, 10 MiB per output).
//
// An Identity of a Const on the same device, without control inputs, is not
// evaluated but bypassed: its readers read the Const (no copy of the value).
// Otherwise the replacement keeps the node's name when it has one output (so traces
// and errors keep naming it) and is named "<name>/folded_<i>" otherwise. It
// runs on the node's assigned device, and takes as control inputs the
// node's control inputs and those of its constant inputs: a constant inside
// a loop body or a cond branch (anchored there by a control edge) stays
// there. The node's control successors become the replacement's. Const
// inputs left without consumers are removed.

#include <cstdint>

#include "absl/status/statusor.h"
#include "common/runtime/optimization/optimization_pass.h"

namespace tributary {

class ConstantFolding : public GraphOptimizationPass {
 public:
  static constexpr int64_t kMaxFoldedBytes = 10 << 20;

  absl::string_view name() const override { return "constant_folding"; }
  absl::StatusOr<int> Run(Graph* g) const override;
};

}  // namespace tributary

#endif  // TRIBUTARY_COMMON_RUNTIME_OPTIMIZATION_CONSTANT_FOLDING_H_
