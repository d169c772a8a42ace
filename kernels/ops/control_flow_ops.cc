// TensorFlow 1 control-flow primitives (the dataflow form of cond and while).
//
//   Switch        routes `data` to output_false or output_true by `pred`; the
//                 other output is dead.
//   Merge         forwards whichever input arrives alive first, and its index.
//   Enter / Exit  move a tensor into / out of a child frame (a loop body).
//   NextIteration feeds a value to the next iteration of the current frame.
//   LoopCond      marks the loop predicate (a pass-through for the executor).
//   ControlTrigger a no-op that runs even when its control inputs are dead.
//
// The Ref* variants carry reference tensors (TF1 variables) through the same
// routing. RefSwitch allows an uninitialised input so that a variable can be
// routed into the branch that initialises it.

#include "common/op/op_registry.h"

// One builder call per line reads like the op signature it defines;
// clang-format would fold short chains onto one line.
// clang-format off

namespace tributary {

REGISTER_OP("Switch")
    .Input("data: T")
    .Input("pred: bool")
    .Output("output_false: T")
    .Output("output_true: T")
    .Attr("T: type");

REGISTER_OP("RefSwitch")
    .Input("data: Ref(T)")
    .Input("pred: bool")
    .Output("output_false: Ref(T)")
    .Output("output_true: Ref(T)")
    .Attr("T: type")
    .SetAllowsUninitializedInput();

REGISTER_OP("Merge")
    .Input("inputs: N * T")
    .Output("output: T")
    .Output("value_index: int32")
    .Attr("T: type")
    .Attr("N: int >= 1");

REGISTER_OP("RefMerge")
    .Input("inputs: Ref(N * T)")
    .Output("output: Ref(T)")
    .Output("value_index: int32")
    .Attr("T: type")
    .Attr("N: int >= 1");

REGISTER_OP("Enter")
    .Input("data: T")
    .Output("output: T")
    .Attr("T: type")
    .Attr("frame_name: string")
    .Attr("is_constant: bool = false")
    .Attr("parallel_iterations: int = 10");

REGISTER_OP("RefEnter")
    .Input("data: Ref(T)")
    .Output("output: Ref(T)")
    .Attr("T: type")
    .Attr("frame_name: string")
    .Attr("is_constant: bool = false")
    .Attr("parallel_iterations: int = 10");

REGISTER_OP("Exit")
    .Input("data: T")
    .Output("output: T")
    .Attr("T: type");

REGISTER_OP("RefExit")
    .Input("data: Ref(T)")
    .Output("output: Ref(T)")
    .Attr("T: type");

REGISTER_OP("NextIteration")
    .Input("data: T")
    .Output("output: T")
    .Attr("T: type");

REGISTER_OP("RefNextIteration")
    .Input("data: Ref(T)")
    .Output("output: Ref(T)")
    .Attr("T: type");

REGISTER_OP("LoopCond")
    .Input("input: bool")
    .Output("output: bool");

REGISTER_OP("ControlTrigger");

// Fails the step with the summarized data when condition is false (TensorFlow
// defines it with the logging ops).
REGISTER_OP("Assert")
    .Input("condition: bool")
    .Input("data: T")
    .Attr("T: list(type) >= 1")
    .Attr("summarize: int = 3")
    .SetIsStateful();

}  // namespace tributary

// clang-format on
