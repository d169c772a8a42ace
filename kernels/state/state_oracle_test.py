"""State kernels against live TensorFlow (see kernels/testing/README.md).

Each case builds variables and the ops under test in one graph; ordering
comes from control dependencies, as in a TF1 program. Reading a reference
variable back uses a second VariableV2 node with the same shared_name (the
same variable) under a control dependency, so no kernel outside this
family is needed. Every case runs against a fresh ResourceMgr on our side
and a fresh Session on TensorFlow's.
"""
import sys

sys.path.insert(0, "kernels/testing")  # cwd is the runfiles root

import numpy as np  # noqa: E402
import tf_oracle  # noqa: E402
from tf_oracle import tf  # noqa: E402

raw = tf.raw_ops
deps = tf.control_dependencies

FAILED_PRECONDITION = 9
INVALID_ARGUMENT = 3
NOT_FOUND = 5

cases = tf_oracle.Cases()

DTYPES = [np.float32, np.float64, np.int32, np.int64]


def variable(name, shape, dtype):
    return raw.VariableV2(shape=shape, dtype=tf.as_dtype(dtype),
                          shared_name=name)


# ---- VariableV2 / Assign -------------------------------------------------------

for dt in DTYPES + [np.bool_]:
    init = np.array([[1, 0, 3], [0, 5, 6]]).astype(dt)

    def assign_then_read(x, dt=dt):
        v = variable("w", [2, 3], dt)
        a = raw.Assign(ref=v, value=x)
        with deps([a]):
            again = variable("w", [2, 3], dt)  # The same variable.
        return [a, again]

    cases.add(f"assign_{np.dtype(dt).name}", assign_then_read, [init])


def assign_wrong_shape(x):
    v = variable("w", [2], np.float32)
    return raw.Assign(ref=v, value=x, validate_shape=True)


cases.add("assign_validate_shape_mismatch", assign_wrong_shape,
          [np.ones(3, np.float32)], expect_code=INVALID_ARGUMENT,
          message_contains=["[2]", "[3]"])


def assign_reshape(x, y):
    v = variable("w", [2], np.float32)
    a = raw.Assign(ref=v, value=x, validate_shape=False)
    with deps([a]):
        b = raw.Assign(ref=v, value=y, validate_shape=False)
    with deps([b]):
        again = variable("w", [2], np.float32)
    return [a, b, again]


cases.add("assign_no_validate_changes_shape", assign_reshape,
          [np.arange(6, dtype=np.float32).reshape(2, 3),
           np.arange(3, dtype=np.float32)])


def partial_shape_variable():
    return raw.VariableV2(shape=tf.TensorShape([None, 2]), dtype=tf.float32)


cases.add("variable_partial_shape_rejected", partial_shape_variable, [],
          expect_code=INVALID_ARGUMENT, message_contains=["[?,2]"])


def unknown_rank_variable(x):
    v = raw.VariableV2(shape=tf.TensorShape(None), dtype=tf.float32,
                       shared_name="w")
    before = raw.IsVariableInitialized(ref=v)
    with deps([before]):
        a = raw.Assign(ref=v, value=x, validate_shape=False)
    return [before, a]


cases.add("variable_unknown_rank", unknown_rank_variable,
          [np.ones((2, 3), np.float32)])


def assign_unlocked(x, y):
    v = variable("w", [3], np.float64)
    a = raw.Assign(ref=v, value=x, use_locking=False)
    with deps([a]):
        b = raw.Assign(ref=v, value=y, use_locking=False)
    return b


cases.add("assign_use_locking_false", assign_unlocked,
          [np.array([1, 2, 3], np.float64), np.array([4, 5, 6], np.float64)])

for dt in DTYPES:
    for op, opname in ((raw.AssignAdd, "assignadd"), (raw.AssignSub, "assignsub")):
        for use_locking in (False, True):
            def update(x, y, dt=dt, op=op, use_locking=use_locking):
                v = variable("w", [2, 2], dt)
                a = raw.Assign(ref=v, value=x)
                with deps([a]):
                    u1 = op(ref=v, value=y, use_locking=use_locking)
                with deps([u1]):
                    u2 = op(ref=v, value=y, use_locking=use_locking)
                return [u1, u2]

            cases.add(f"{opname}_{np.dtype(dt).name}_lock{int(use_locking)}", update,
                      [np.array([[1, 2], [3, 4]]).astype(dt),
                       np.array([[10, 20], [-1, 0]]).astype(dt)])


def assignadd_uninitialized(y):
    v = variable("w", [2], np.float32)
    return raw.AssignAdd(ref=v, value=y)


cases.add("assignadd_uninitialized", assignadd_uninitialized,
          [np.ones(2, np.float32)], expect_code=FAILED_PRECONDITION)


def assignsub_wrong_shape(x, y):
    v = variable("w", [2], np.float32)
    a = raw.Assign(ref=v, value=x)
    with deps([a]):
        return raw.AssignSub(ref=v, value=y)


cases.add("assignsub_shape_mismatch", assignsub_wrong_shape,
          [np.ones(2, np.float32), np.ones(3, np.float32)],
          expect_code=INVALID_ARGUMENT)


def is_initialized_before():
    v = variable("w", [2], np.float32)
    return raw.IsVariableInitialized(ref=v)


cases.add("is_variable_initialized_false", is_initialized_before, [])


def is_initialized_after(x):
    v = variable("w", [2], np.int64)
    a = raw.Assign(ref=v, value=x)
    with deps([a]):
        return raw.IsVariableInitialized(ref=v)


cases.add("is_variable_initialized_true", is_initialized_after,
          [np.array([1, 2], np.int64)])


def shared_by_name(x):
    # VariableV2 nodes with no shared_name are keyed by node name: "a" and
    # "b" are different variables, "b" stays uninitialised.
    a = raw.VariableV2(shape=[2], dtype=tf.float32, name="a")
    b = raw.VariableV2(shape=[2], dtype=tf.float32, name="b")
    assign = raw.Assign(ref=a, value=x)
    with deps([assign]):
        return [raw.IsVariableInitialized(ref=a), raw.IsVariableInitialized(ref=b)]


cases.add("variables_keyed_by_node_name", shared_by_name, [np.ones(2, np.float32)])


def containers_are_separate(x):
    a = raw.VariableV2(shape=[2], dtype=tf.float32, shared_name="w", container="c1")
    b = raw.VariableV2(shape=[2], dtype=tf.float32, shared_name="w", container="c2")
    assign = raw.Assign(ref=a, value=x)
    with deps([assign]):
        return [raw.IsVariableInitialized(ref=a), raw.IsVariableInitialized(ref=b)]


cases.add("variables_keyed_by_container", containers_are_separate,
          [np.ones(2, np.float32)])

# ---- Resource variables --------------------------------------------------------


def handle(name, dtype, shape=(), container=""):
    return raw.VarHandleOp(dtype=tf.as_dtype(dtype), shape=list(shape),
                           shared_name=name, container=container)


for dt in DTYPES + [np.bool_]:
    def resource_assign_read(x, dt=dt):
        h = handle("w", dt, [3])
        a = raw.AssignVariableOp(resource=h, value=x)
        with deps([a]):
            return raw.ReadVariableOp(resource=h, dtype=tf.as_dtype(dt))

    cases.add(f"resource_assign_read_{np.dtype(dt).name}", resource_assign_read,
              [np.array([1, 0, 1]).astype(dt)])

for dt in DTYPES:
    def resource_update(x, y, dt=dt):
        h = handle("w", dt, [2])
        a = raw.AssignVariableOp(resource=h, value=x)
        with deps([a]):
            add = raw.AssignAddVariableOp(resource=h, value=y)
        with deps([add]):
            r1 = raw.ReadVariableOp(resource=h, dtype=tf.as_dtype(dt))
        with deps([r1]):
            sub = raw.AssignSubVariableOp(resource=h, value=y)
        with deps([sub]):
            sub2 = raw.AssignSubVariableOp(resource=h, value=y)
        with deps([sub2]):
            r2 = raw.ReadVariableOp(resource=h, dtype=tf.as_dtype(dt))
        # r1 must still hold its value after the later writes (a snapshot).
        return [r1, r2]

    cases.add(f"resource_add_sub_{np.dtype(dt).name}", resource_update,
              [np.array([5, 7]).astype(dt), np.array([1, 2]).astype(dt)])


def read_uninitialized():
    return raw.ReadVariableOp(resource=handle("w", np.float32), dtype=tf.float32)


cases.add("resource_read_uninitialized", read_uninitialized, [],
          expect_code=FAILED_PRECONDITION,
          message_contains=["Could not find variable w", "localhost"])


def add_uninitialized(y):
    return raw.AssignAddVariableOp(resource=handle("w", np.float32, [2]), value=y)


cases.add("resource_assignadd_uninitialized", add_uninitialized,
          [np.ones(2, np.float32)], expect_code=NOT_FOUND)


for out_type in (np.int32, np.int64):
    def variable_shape(x, out_type=out_type):
        h = handle("w", np.float32, [None, None, None])
        a = raw.AssignVariableOp(resource=h, value=x)
        with deps([a]):
            return raw.VariableShape(input=h, out_type=tf.as_dtype(out_type))

    cases.add(f"variable_shape_{np.dtype(out_type).name}", variable_shape,
              [np.ones((2, 0, 5), np.float32)])


def variable_shape_scalar(x):
    h = handle("w", np.float64)
    a = raw.AssignVariableOp(resource=h, value=x)
    with deps([a]):
        return raw.VariableShape(input=h)


cases.add("variable_shape_scalar", variable_shape_scalar, [np.float64(3)])
cases.add("variable_shape_missing",
          lambda: raw.VariableShape(input=handle("w", np.float32, [2])), [],
          expect_code=NOT_FOUND)


def resource_validate_shape(x, y):
    h = handle("w", np.float32, [None])
    a = raw.AssignVariableOp(resource=h, value=x, validate_shape=True)
    with deps([a]):
        return raw.AssignVariableOp(resource=h, value=y, validate_shape=True)


cases.add("resource_assign_validate_shape", resource_validate_shape,
          [np.ones(3, np.float32), np.ones(2, np.float32)],
          expect_code=INVALID_ARGUMENT, message_contains=["[3]", "[2]"])


def resource_reshape(x, y):
    h = handle("w", np.float32, [None])
    a = raw.AssignVariableOp(resource=h, value=x)
    with deps([a]):
        b = raw.AssignVariableOp(resource=h, value=y, validate_shape=False)
    with deps([b]):
        return raw.ReadVariableOp(resource=h, dtype=tf.float32)


cases.add("resource_assign_changes_shape", resource_reshape,
          [np.ones(3, np.float32), np.ones((2, 2), np.float32)])


def resource_update_wrong_shape(x, y):
    h = handle("w", np.float32, [None])
    a = raw.AssignVariableOp(resource=h, value=x)
    with deps([a]):
        return raw.AssignAddVariableOp(resource=h, value=y)


cases.add("resource_assignadd_shape_mismatch", resource_update_wrong_shape,
          [np.ones(3, np.float32), np.ones(2, np.float32)],
          expect_code=INVALID_ARGUMENT)


def resource_read_wrong_dtype(x):
    h = handle("w", np.float32, [2])
    as_int = handle("w", np.int32, [2])  # Same variable, declared int32.
    a = raw.AssignVariableOp(resource=h, value=x)
    with deps([a]):
        return raw.ReadVariableOp(resource=as_int, dtype=tf.int32)


cases.add("resource_read_wrong_dtype", resource_read_wrong_dtype,
          [np.ones(2, np.float32)], expect_code=INVALID_ARGUMENT)


def resource_assign_wrong_dtype(x, y):
    h = handle("w", np.float32, [2])
    as_int = handle("w", np.int32, [2])
    a = raw.AssignVariableOp(resource=h, value=x)
    with deps([a]):
        return raw.AssignVariableOp(resource=as_int, value=y)


cases.add("resource_assign_wrong_dtype", resource_assign_wrong_dtype,
          [np.ones(2, np.float32), np.ones(2, np.int32)],
          expect_code=INVALID_ARGUMENT)


def resource_is_initialized(x):
    h = handle("w", np.float32, [2])
    before = raw.VarIsInitializedOp(resource=h)
    with deps([before]):
        a = raw.AssignVariableOp(resource=h, value=x)
    with deps([a]):
        after = raw.VarIsInitializedOp(resource=h)
    with deps([after]):
        d = raw.DestroyResourceOp(resource=h, ignore_lookup_error=False)
    with deps([d]):
        destroyed = raw.VarIsInitializedOp(resource=h)
    return [before, after, destroyed]


cases.add("resource_is_initialized_and_destroy", resource_is_initialized,
          [np.ones(2, np.float32)])


def destroy_missing():
    return raw.DestroyResourceOp(resource=handle("w", np.float32),
                                 ignore_lookup_error=False)


cases.add("resource_destroy_missing", destroy_missing, [], expect_code=NOT_FOUND)


def destroy_missing_ignored():
    d = raw.DestroyResourceOp(resource=handle("w", np.float32),
                              ignore_lookup_error=True)
    with deps([d]):
        return raw.VarIsInitializedOp(resource=handle("w", np.float32))


cases.add("resource_destroy_missing_ignored", destroy_missing_ignored, [])


def resource_containers(x):
    a = handle("w", np.float32, [2], container="c1")
    b = handle("w", np.float32, [2], container="c2")
    same = handle("w", np.float32, [2], container="c1")
    assign = raw.AssignVariableOp(resource=a, value=x)
    with deps([assign]):
        return [raw.VarIsInitializedOp(resource=b),
                raw.ReadVariableOp(resource=same, dtype=tf.float32)]


cases.add("resource_keyed_by_container", resource_containers,
          [np.array([3, 4], np.float32)])


def resource_and_ref_are_distinct(x):
    # A VariableV2 "w" and a resource variable "w" are different variables.
    v = variable("w", [2], np.float32)
    a = raw.Assign(ref=v, value=x)
    with deps([a]):
        return raw.VarIsInitializedOp(resource=handle("w", np.float32, [2]))


cases.add("ref_and_resource_variables_distinct", resource_and_ref_are_distinct,
          [np.ones(2, np.float32)])

# ---- StridedSliceAssign / ResourceStridedSliceAssign ---------------------------

SLICE_ASSIGNS = [
    # name, variable shape, begin, end, strides, masks, value shape
    ("rows", (4, 3), [1], [3], [1], {}, (2, 3)),
    ("strided_reverse", (4, 5), [3, 0], [0, 5], [-2, 2], {}, (2, 3)),
    ("shrink", (4, 3), [2, 0], [3, 3], [1, 1], dict(shrink_axis_mask=1), (3,)),
    ("new_axis", (2, 3), [0, 0], [0, 0], [1, 1],
     dict(new_axis_mask=1, end_mask=2), (1, 2, 3)),
    ("empty_any_value", (2, 3), [0, 0], [0, 0], [1, 1], dict(new_axis_mask=1),
     (1, 2, 3)),
    ("ellipsis", (2, 3, 4), [0, 1], [0, 3], [1, 1], dict(ellipsis_mask=1),
     (2, 3, 2)),
    ("broadcast_scalar", (4, 3), [0, 1], [4, 2], [1, 1], {}, ()),
    ("broadcast_row", (4, 3), [1], [4], [1], {}, (3,)),
    ("empty", (4, 3), [3], [1], [1], {}, (0, 3)),
]


def _slice_value(shape, dt, start):
    n = int(np.prod(shape, dtype=np.int64))
    return (np.arange(start, start + n) % 97).astype(dt).reshape(shape)


for name, shape, b, e, s, masks, vshape in SLICE_ASSIGNS:
    def ref_slice_assign(x, v, b=b, e=e, s=s, masks=masks, shape=shape):
        var = variable("w", list(shape), np.float32)
        a = raw.Assign(ref=var, value=x)
        with deps([a]):
            out = raw.StridedSliceAssign(ref=var, begin=b, end=e, strides=s,
                                         value=v, **masks)
        with deps([out]):
            again = variable("w", list(shape), np.float32)
        return [out, again]

    def resource_slice_assign(x, v, b=b, e=e, s=s, masks=masks, shape=shape):
        h = handle("w", np.float32, shape)
        a = raw.AssignVariableOp(resource=h, value=x)
        with deps([a]):
            before = raw.ReadVariableOp(resource=h, dtype=tf.float32)
        with deps([before]):
            w = raw.ResourceStridedSliceAssign(ref=h, begin=b, end=e,
                                               strides=s, value=v, **masks)
        with deps([w]):
            # `before` was read first: the write must not reach it.
            return [before, raw.ReadVariableOp(resource=h, dtype=tf.float32)]

    inputs = [_slice_value(shape, np.float32, 0),
              _slice_value(vshape, np.float32, 50)]
    cases.add(f"strided_slice_assign_{name}", ref_slice_assign, inputs)
    cases.add(f"resource_strided_slice_assign_{name}", resource_slice_assign,
              inputs)

for dt in DTYPES + [np.bool_]:
    def resource_slice_assign_dtype(x, v, dt=dt):
        h = handle("w", dt, (6,))
        a = raw.AssignVariableOp(resource=h, value=x)
        with deps([a]):
            w = raw.ResourceStridedSliceAssign(ref=h, begin=[-1], end=[0],
                                               strides=[-2], value=v,
                                               end_mask=1)
        with deps([w]):
            return raw.ReadVariableOp(resource=h, dtype=tf.as_dtype(dt))

    cases.add(f"resource_strided_slice_assign_{np.dtype(dt).name}",
              resource_slice_assign_dtype,
              [_slice_value((6,), dt, 1), _slice_value((3,), dt, 40)])


def resource_slice_assign_mismatch(x, v):
    h = handle("w", np.float32, (4, 3))
    a = raw.AssignVariableOp(resource=h, value=x)
    with deps([a]):
        return raw.ResourceStridedSliceAssign(ref=h, begin=[0], end=[4],
                                              strides=[1], value=v)


cases.add("resource_strided_slice_assign_not_broadcastable",
          resource_slice_assign_mismatch,
          [np.zeros((4, 3), np.float32), np.ones((2,), np.float32)],
          expect_code=INVALID_ARGUMENT,
          message_contains=["Cannot broadcast input shape [2] into final "
                            "shape [4,3]"])


def resource_slice_assign_uninitialized(v):
    h = handle("w", np.float32, (4,))
    return raw.ResourceStridedSliceAssign(ref=h, begin=[0], end=[2],
                                          strides=[1], value=v)


# Never assigned: the variable does not exist yet.
cases.add("resource_strided_slice_assign_uninitialized",
          resource_slice_assign_uninitialized, [np.ones((2,), np.float32)],
          expect_code=NOT_FOUND)


def resource_slice_assign_bad_spec(x, v):
    h = handle("w", np.float32, (4,))
    a = raw.AssignVariableOp(resource=h, value=x)
    with deps([a]):
        return raw.ResourceStridedSliceAssign(ref=h, begin=[5], end=[6],
                                              strides=[1], value=v,
                                              shrink_axis_mask=1)


cases.add("resource_strided_slice_assign_out_of_bounds",
          resource_slice_assign_bad_spec,
          [np.zeros((4,), np.float32), np.float32(1)],
          expect_code=INVALID_ARGUMENT,
          message_contains=["slice index 5 of dimension 0 out of bounds."])

# ---- ScatterNd* on reference and resource variables -----------------------------

ND_KINDS = ["Update", "Add", "Sub", "Min", "Max"]
for kind in ND_KINDS:
    for dt in DTYPES:
        def ref_scatter_nd(x, i, u, kind=kind, dt=dt):
            var = variable("w", [3, 2], dt)
            a = raw.Assign(ref=var, value=x)
            with deps([a]):
                out = getattr(raw, f"ScatterNd{kind}")(ref=var, indices=i,
                                                       updates=u)
            with deps([out]):
                again = variable("w", [3, 2], dt)
            return [out, again]

        def resource_scatter_nd(x, i, u, kind=kind, dt=dt):
            h = handle("w", dt, (3, 2))
            a = raw.AssignVariableOp(resource=h, value=x)
            with deps([a]):
                before = raw.ReadVariableOp(resource=h, dtype=tf.as_dtype(dt))
            with deps([before]):
                w = getattr(raw, f"ResourceScatterNd{kind}")(
                    ref=h, indices=i, updates=u)
            with deps([w]):
                return [before,
                        raw.ReadVariableOp(resource=h, dtype=tf.as_dtype(dt))]

        inputs = [np.array([[1, 8], [3, 4], [9, 2]]).astype(dt),
                  np.array([[2, 1], [0, 0], [2, 1]], np.int64),
                  np.array([5, 6, 7]).astype(dt)]
        name = f"{kind.lower()}_{np.dtype(dt).name}"
        cases.add(f"scatter_nd_{name}", ref_scatter_nd, inputs)
        cases.add(f"resource_scatter_nd_{name}", resource_scatter_nd, inputs)


def resource_scatter_nd_rows(x, i, u):
    h = handle("w", np.float32, (3, 2))
    a = raw.AssignVariableOp(resource=h, value=x)
    with deps([a]):
        w = raw.ResourceScatterNdAdd(ref=h, indices=i, updates=u)
    with deps([w]):
        return raw.ReadVariableOp(resource=h, dtype=tf.float32)


cases.add("resource_scatter_nd_add_rows", resource_scatter_nd_rows,
          [np.ones((3, 2), np.float32), np.array([[2], [0]], np.int32),
           np.array([[1, 2], [3, 4]], np.float32)])
cases.add("resource_scatter_nd_out_of_range", resource_scatter_nd_rows,
          [np.ones((3, 2), np.float32), np.array([[2], [3]], np.int32),
           np.array([[1, 2], [3, 4]], np.float32)],
          expect_code=INVALID_ARGUMENT,
          message_contains=["indices[1] = [3] does not index into shape [3,2]"])
cases.add("resource_scatter_nd_shape_mismatch", resource_scatter_nd_rows,
          [np.ones((3, 2), np.float32), np.array([[2], [0]], np.int32),
           np.array([[1, 2, 3], [3, 4, 5]], np.float32)],
          expect_code=INVALID_ARGUMENT,
          message_contains=["Dimensions [1,2) of input[shape=[3,2]] must match "
                            "dimensions [1,2) of updates[shape=[2,3]]"])


def resource_scatter_nd_missing(i, u):
    return raw.ResourceScatterNdUpdate(ref=handle("w", np.float32, (3,)),
                                       indices=i, updates=u)


cases.add("resource_scatter_nd_missing_variable", resource_scatter_nd_missing,
          [np.array([[1]], np.int32), np.ones((1,), np.float32)],
          expect_code=NOT_FOUND)

StateOracleTest = tf_oracle.make_test_class("kernels/state/run_state_cases", cases,
                                            "StateOracleTest")
