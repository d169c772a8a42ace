// Resource variables (TF2 style). VarHandleOp outputs a DT_RESOURCE handle
// naming a variable in the device's resource manager; reads and writes are
// separate stateful ops on that handle, so ordering comes from control edges
// rather than from reference-typed dataflow.

#include "common/op/op_registry.h"

// One builder call per line reads like the op signature it defines;
// clang-format would fold short chains onto one line.
// clang-format off

namespace tributary {

// debug_name is informational only. allowed_devices lists the devices
// that may share this variable (empty: only the op's own device).
REGISTER_OP("VarHandleOp")
    .Output("resource: resource")
    .Attr("container: string = ''")
    .Attr("shared_name: string = ''")
    .Attr("debug_name: string = ''")
    .Attr("dtype: type")
    .Attr("shape: shape")
    .Attr("allowed_devices: list(string) = []")
    .SetIsStateful();

REGISTER_OP("ReadVariableOp")
    .Input("resource: resource")
    .Output("value: dtype")
    .Attr("dtype: type")
    .SetIsStateful();

// Creates the variable on first assignment. Unlike Assign, validate_shape
// defaults to false.
REGISTER_OP("AssignVariableOp")
    .Input("resource: resource")
    .Input("value: dtype")
    .Attr("dtype: type")
    .Attr("validate_shape: bool = false")
    .SetIsStateful();

REGISTER_OP("AssignAddVariableOp")
    .Input("resource: resource")
    .Input("value: dtype")
    .Attr("dtype: type")
    .SetIsStateful();

REGISTER_OP("AssignSubVariableOp")
    .Input("resource: resource")
    .Input("value: dtype")
    .Attr("dtype: type")
    .SetIsStateful();

// Savers emit it before reading a variable they save: it turns off the
// variable's copy-on-read mode (TensorFlow's sparse-update optimisation).
REGISTER_OP("DisableCopyOnRead")
    .Input("resource: resource")
    .SetIsStateful();

// The variable's shape (tf.shape of a resource variable).
REGISTER_OP("VariableShape")
    .Input("input: resource")
    .Output("output: out_type")
    .Attr("out_type: {int32, int64} = DT_INT32")
    .SetIsStateful();

REGISTER_OP("VarIsInitializedOp")
    .Input("resource: resource")
    .Output("is_initialized: bool")
    .SetIsStateful();

// Deletes the resource behind any handle (not only variables). With
// ignore_lookup_error, deleting a missing resource is not an error.
REGISTER_OP("DestroyResourceOp")
    .Input("resource: resource")
    .Attr("ignore_lookup_error: bool = true")
    .SetIsStateful();

}  // namespace tributary

// clang-format on
