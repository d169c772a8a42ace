// TensorFlow 2's function calls and functional control flow: PartitionedCall,
// StatefulPartitionedCall, If/StatelessIf, While/StatelessWhile,
// Case/StatelessCase, and the two helpers their lowering uses (ToBool,
// _SwitchN).
//
// No kernel runs the call and control-flow ops themselves: the session
// expands them before placement (common/function/expand_functions.h), by
// inlining function bodies and lowering If/While/Case into Switch/Merge/
// Enter/Exit/NextIteration. The definitions exist so graphs holding them
// validate exactly as in TensorFlow.

#include "common/op/op_registry.h"

// One builder call per line reads like the op signature it defines;
// clang-format would fold short chains onto one line.
// clang-format off

namespace tributary {

REGISTER_OP("PartitionedCall")
    .Input("args: Tin")
    .Output("output: Tout")
    .Attr("Tin: list(type) >= 0")
    .Attr("Tout: list(type) >= 0")
    .Attr("f: func")
    .Attr("config: string = ''")
    .Attr("config_proto: string = ''")
    .Attr("executor_type: string = ''");

REGISTER_OP("StatefulPartitionedCall")
    .Input("args: Tin")
    .Output("output: Tout")
    .Attr("Tin: list(type) >= 0")
    .Attr("Tout: list(type) >= 0")
    .Attr("f: func")
    .Attr("config: string = ''")
    .Attr("config_proto: string = ''")
    .Attr("executor_type: string = ''")
    .SetIsStateful()
    .SetIsDistributedCommunication();

// `cond` is converted to a bool as TensorFlow does: a non-scalar is true when
// non-empty, a numeric scalar when non-zero, a string scalar when non-empty.
REGISTER_OP("If")
    .Input("cond: Tcond")
    .Input("input: Tin")
    .Output("output: Tout")
    .Attr("Tcond: type")
    .Attr("Tin: list(type) >= 0")
    .Attr("Tout: list(type) >= 0")
    .Attr("then_branch: func")
    .Attr("else_branch: func")
    .Attr("output_shapes: list(shape) = []")
    .SetIsStateful();

REGISTER_OP("StatelessIf")
    .Input("cond: Tcond")
    .Input("input: Tin")
    .Output("output: Tout")
    .Attr("Tcond: type")
    .Attr("Tin: list(type) >= 0")
    .Attr("Tout: list(type) >= 0")
    .Attr("then_branch: func")
    .Attr("else_branch: func")
    .Attr("output_shapes: list(shape) = []");

// An out-of-range branch_index runs the last branch.
REGISTER_OP("Case")
    .Input("branch_index: int32")
    .Input("input: Tin")
    .Output("output: Tout")
    .Attr("Tin: list(type) >= 0")
    .Attr("Tout: list(type) >= 0")
    .Attr("branches: list(func) >= 1")
    .Attr("output_shapes: list(shape) = []")
    .SetIsStateful();

REGISTER_OP("StatelessCase")
    .Input("branch_index: int32")
    .Input("input: Tin")
    .Output("output: Tout")
    .Attr("Tin: list(type) >= 0")
    .Attr("Tout: list(type) >= 0")
    .Attr("branches: list(func) >= 1")
    .Attr("output_shapes: list(shape) = []");

REGISTER_OP("While")
    .Input("input: T")
    .Output("output: T")
    .Attr("T: list(type) >= 0")
    .Attr("cond: func")
    .Attr("body: func")
    .Attr("output_shapes: list(shape) = []")
    .Attr("parallel_iterations: int = 10")
    .SetIsStateful();

REGISTER_OP("StatelessWhile")
    .Input("input: T")
    .Output("output: T")
    .Attr("T: list(type) >= 0")
    .Attr("cond: func")
    .Attr("body: func")
    .Attr("output_shapes: list(shape) = []")
    .Attr("parallel_iterations: int = 10");

// The predicate If's lowering switches on (If's conversion rule above).
REGISTER_OP("ToBool")
    .Input("input: T")
    .Output("output: bool")
    .Attr("T: type");

// Switch with num_outs outputs: `data` goes to outputs[output_index] (the
// last one when output_index is out of range); the others are dead. Case's
// lowering.
REGISTER_OP("_SwitchN")
    .Input("data: T")
    .Input("output_index: int32")
    .Output("outputs: num_outs * T")
    .Attr("num_outs: int >= 1")
    .Attr("T: type");

}  // namespace tributary

// clang-format on
