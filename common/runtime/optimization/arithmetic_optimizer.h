#ifndef TRIBUTARY_COMMON_RUNTIME_OPTIMIZATION_ARITHMETIC_OPTIMIZER_H_
#define TRIBUTARY_COMMON_RUNTIME_OPTIMIZATION_ARITHMETIC_OPTIMIZER_H_

// Arithmetic optimization (RewriterConfig.arithmetic_optimization): nodes
// that provably return their input unchanged (every bit, dtype and shape)
// stop being computed. Visited in topological order, so chains collapse in
// one run. The rules, each only with every node involved (the Const
// included) on one assigned device:
//
//   Identity(x), IdentityN(x...)   bypassed (see below)
//   Mul(x, 1), Mul(1, x)           -> x   integer and real floating dtypes
//   Add/AddV2(x, 0), (0, x)        -> x   integers; floats only for -0.0
//   Sub(x, 0)                      -> x   integers; floats only for +0.0
//   Neg(Neg(x))                    -> x
//   AddN(x)                        -> x
//   Transpose(x, [0..n-1])         -> x when x's rank is known to be n
//   Reshape(x, s)                  -> x when x's shape is known to be s
//   Reshape(Reshape(x, s1), s2)    -> Reshape(x, s2) when both shapes are
//                                     constants and the inner one fails
//                                     exactly when the outer one would
//
// Exactness. Floating-point x + (+0) turns -0 into +0, so only -0.0 is an
// additive identity (x - (+0) is x + (-0)); TensorFlow rewrites x + 0
// anyway, we do not. A constant "1"/"0" must not broadcast x: it is a
// scalar or, x's rank being known, has no more dims than x, each 1 or
// equal to x's. Complex Mul by 1 is left alone (inf * 0 makes a NaN).
// Denormals survive x * 1 because the runtime does not flush them to zero;
// a signaling NaN input comes out signaling instead of quiet.
//
// Shapes are known from a Const's value, or from `_output_shapes` on a node
// no feed reaches (a fed value's shape is whatever the client sent, so
// annotations downstream of an _Arg/_Recv are not trusted).
//
// Names and ordering. A rewritten node with no control inputs (its own,
// and those of a Const or inner Neg it used) that sits on x's device is
// bypassed: its data readers read x, its control successors wait on x's
// producer. Otherwise it becomes Identity(x) under its own name, keeping
// those control inputs, so ordering and deadness are unchanged (and an
// Identity is the copy a node on another device did). Identity itself is
// bypassed only under the first condition, and never when x is a ref or
// resource (reading a ref is a snapshot) or comes from a control-flow
// primitive (Switch/Merge/Enter/Exit/NextIteration/LoopCond: control edges
// from those carry frame and deadness meaning). Fetches are _Retval/_Send
// nodes and simply read x. Consts and inner nodes left unread are removed.

#include "absl/status/statusor.h"
#include "common/runtime/optimization/optimization_pass.h"

namespace tributary {

class ArithmeticOptimizer : public GraphOptimizationPass {
 public:
  absl::string_view name() const override { return "arithmetic_optimization"; }
  absl::StatusOr<int> Run(Graph* g) const override;
};

}  // namespace tributary

#endif  // TRIBUTARY_COMMON_RUNTIME_OPTIMIZATION_ARITHMETIC_OPTIMIZER_H_
