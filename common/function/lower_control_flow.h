#ifndef TRIBUTARY_COMMON_FUNCTION_LOWER_CONTROL_FLOW_H_
#define TRIBUTARY_COMMON_FUNCTION_LOWER_CONTROL_FLOW_H_

// TensorFlow 2's functional control flow lowered to TensorFlow 1's dataflow
// control flow, which the executor runs (TensorFlow's lower_if_op.cc,
// lower_case_op.cc, lower_while_op.cc). Each function appends the
// replacement of `node` through `ctx`; the branch and loop functions are
// inlined, and calls inside them are expanded later by the caller of these
// functions.
//
//  * If/StatelessIf: every input goes through Switch(input, pred); the then
//    body reads the true ports, the else body the false ports, each output is
//    a Merge of the two bodies' results. `pred` goes through ToBool first
//    (TensorFlow's rule for non-boolean and non-scalar predicates) unless it
//    is a bool marked _lower_using_switch_merge, which TensorFlow's cond_v2
//    always makes a scalar.
//  * Case/StatelessCase: the same over _SwitchN(input, branch_index); an
//    out-of-range index runs the last branch.
//  * While/StatelessWhile: per loop variable Enter -> Merge -> Switch on
//    LoopCond(cond(merges)) -> Exit, the true port through the body to
//    NextIteration; the frame is named after the node. The next iteration
//    waits for the body's control outputs (its side effects). A variable the
//    body returns unchanged is a loop invariant (a constant Enter), and one
//    nothing observes (TensorFlow's loop counter without
//    maximum_iterations) is dropped.
//
// The node's own name is kept as an IdentityN of the outputs (a NoOp when
// there are none), so "name:i" stays fetchable and "^name" still waits for
// the whole construct, side effects included.
//
// Errors: InvalidArgument naming the node for a branch or loop function
// whose signature does not match the node's types, or a While without loop
// variables; NotFound for a function missing from the library.

#include "absl/status/status.h"
#include "common/function/expansion_context.h"
#include "protos/node_def.pb.h"

namespace tributary {

absl::Status LowerIf(const tensorflow::NodeDef& node, ExpansionContext* ctx);
absl::Status LowerCase(const tensorflow::NodeDef& node, ExpansionContext* ctx);
absl::Status LowerWhile(const tensorflow::NodeDef& node, ExpansionContext* ctx);

}  // namespace tributary

#endif  // TRIBUTARY_COMMON_FUNCTION_LOWER_CONTROL_FLOW_H_
