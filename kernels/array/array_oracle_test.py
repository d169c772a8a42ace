"""Every array and plumbing kernel against live TensorFlow: values and error
codes, across dtypes (see kernels/testing/README.md for the harness).

Inputs are fed through Placeholders of unknown shape, so TensorFlow's shape
functions cannot reject bad inputs at graph construction: errors come from
TensorFlow's kernels, as they do from ours.
"""
import sys

sys.path.insert(0, "kernels/testing")  # cwd is the runfiles root

import numpy as np  # noqa: E402

import tf_oracle  # noqa: E402
from tf_oracle import tf  # noqa: E402

raw = tf.raw_ops
tf1 = tf.compat.v1


def _decode_tensor(b64):
    """tf_oracle._decode, plus DT_STRING tensors whose elements are in
    tensor_content (TensorFlow's C++ string-list coding: every length as a
    varint32, then the bytes), which tf.make_ndarray cannot read. Our binary
    encodes strings that way (Tensor::AsProtoTensorContent)."""
    import base64
    from tensorflow.core.framework import tensor_pb2, types_pb2
    proto = tensor_pb2.TensorProto()
    proto.ParseFromString(base64.b64decode(b64))
    if proto.dtype != types_pb2.DT_STRING or not proto.tensor_content:
        return tf.make_ndarray(proto)
    shape = [d.size for d in proto.tensor_shape.dim]
    n = int(np.prod(shape, dtype=np.int64))
    data, pos, lengths = proto.tensor_content, 0, []
    for _ in range(n):
        value, shift = 0, 0
        while True:
            byte = data[pos]
            pos += 1
            value |= (byte & 0x7F) << shift
            shift += 7
            if byte < 0x80:
                break
        lengths.append(value)
    items = []
    for length in lengths:
        items.append(data[pos:pos + length])
        pos += length
    return np.array(items, dtype=object).reshape(shape)


tf_oracle._decode = _decode_tensor
cases = tf_oracle.Cases()
INVALID_ARGUMENT = 3

# Element types the data-movement kernels must handle. Strings are the
# interesting outlier (not plain memory); float16, uint8 and complex64 cover
# the 2-, 1- and 8/16-byte widths.
MOVABLE = {
    "f32": np.float32, "f64": np.float64, "i32": np.int32, "i64": np.int64,
    "bool": np.bool_, "str": bytes, "f16": np.float16, "u8": np.uint8,
    "i8": np.int8, "i16": np.int16, "c64": np.complex64, "c128": np.complex128,
}
NUMERIC = {k: v for k, v in MOVABLE.items() if v is not bytes}
CORE = {k: MOVABLE[k] for k in ("f32", "f64", "i32", "i64", "bool", "str")}


def vals(dtype, shape, start=0):
    """Distinct values of `dtype` in `shape` (so misplaced elements show)."""
    n = int(np.prod(shape, dtype=np.int64))
    idx = np.arange(start, start + n)
    if dtype is bytes:
        if n == 0:
            return np.zeros(shape, dtype="S1")
        return np.array([f"s{i}".encode() for i in idx]).reshape(shape)
    if dtype is np.bool_:
        return (idx % 3 == 0).reshape(shape)
    if dtype in (np.complex64, np.complex128):
        return (idx + 1j * (idx + 0.5)).astype(dtype).reshape(shape)
    if dtype in (np.float16, np.float32, np.float64):
        return (idx * 1.5 - 3).astype(dtype).reshape(shape)
    return (idx % 100).astype(dtype).reshape(shape)


def i32(v):
    return np.asarray(v, np.int32)


def i64(v):
    return np.asarray(v, np.int64)


def add(name, fn, inputs, **kw):
    cases.add(name, fn, inputs, **kw)


def add_error(name, fn, inputs, *contains):
    cases.add(name, fn, inputs, message_contains=list(contains),
              expect_code=INVALID_ARGUMENT)


# --- Plumbing ----------------------------------------------------------------

for n, dt in MOVABLE.items():
    add(f"identity_{n}", lambda x: raw.Identity(input=x), [vals(dt, (2, 3))])
    add(f"stop_gradient_{n}", lambda x: raw.StopGradient(input=x),
        [vals(dt, (3,))])
    add(f"prevent_gradient_{n}",
        lambda x: raw.PreventGradient(input=x, message="no second derivative"),
        [vals(dt, (2, 2))])
    add(f"placeholder_with_default_{n}",
        lambda x: raw.PlaceholderWithDefault(input=x, shape=[None, 2]),
        [vals(dt, (2, 2))])
add("identity_scalar", lambda x: raw.Identity(input=x), [np.float32(7)])
add("identity_empty", lambda x: raw.Identity(input=x),
    [np.zeros((0, 3), np.float32)])
add("identity_n_mixed", lambda x, y, z: raw.IdentityN(input=[x, y, z]),
    [vals(np.float32, (2,)), vals(bytes, (3,)), vals(np.int64, (1, 2))])
add("identity_n_single", lambda x: raw.IdentityN(input=[x]),
    [vals(np.bool_, (4,))])
# PlaceholderWithDefault's shape attr may be less specific than the value.
add("placeholder_with_default_unknown_rank",
    lambda x: raw.PlaceholderWithDefault(input=x, shape=None),
    [vals(np.int32, (2, 1, 2))])

# Unfed placeholders: the kernel itself reports the missing feed.
add_error("placeholder_unfed_partial_shape",
          lambda: tf1.placeholder(tf.float32, shape=[None, 3], name="x"), [],
          "You must feed a value for placeholder tensor 'x' with dtype float "
          "and shape [?,3]")
add_error("placeholder_unfed_unknown_shape",
          lambda: tf1.placeholder(tf.int64, shape=None, name="ids"), [],
          "You must feed a value for placeholder tensor 'ids' with dtype int64")
add_error("placeholder_unfed_scalar",
          lambda: tf1.placeholder(tf.string, shape=[], name="s"), [],
          "You must feed a value for placeholder tensor 's' with dtype string")
add_error("placeholder_unfed_through_identity",
          lambda: tf.identity(tf1.placeholder(tf.float64, shape=[2], name="p")),
          [], "placeholder tensor 'p'", "shape [2]")

for n, dt in CORE.items():
    add(f"const_{n}", lambda v=vals(dt, (2, 2)): tf.constant(v), [])
add("const_scalar_splat", lambda: tf.constant(5.0, shape=[2, 3]), [])
add("noop_target", lambda: tf.no_op(), [])
add("noop_with_control_input",
    lambda x: [raw.Identity(input=x), tf.group(raw.Identity(input=x))],
    [vals(np.float32, (2,))])

# --- Shape, ShapeN, Size, Rank -----------------------------------------------

for n, dt in MOVABLE.items():
    add(f"shape_{n}", lambda x: raw.Shape(input=x), [vals(dt, (2, 3, 1))])
    add(f"size_{n}", lambda x: raw.Size(input=x), [vals(dt, (2, 3))])
    add(f"rank_{n}", lambda x: raw.Rank(input=x), [vals(dt, (2, 1, 1, 2))])
add("shape_int64", lambda x: raw.Shape(input=x, out_type=tf.int64),
    [np.zeros((4, 0, 5), np.float32)])
add("shape_scalar", lambda x: raw.Shape(input=x), [np.float32(1)])
add("size_int64", lambda x: raw.Size(input=x, out_type=tf.int64),
    [np.zeros((4, 5), np.float32)])
add("size_empty", lambda x: raw.Size(input=x), [np.zeros((4, 0), np.int32)])
add("rank_scalar", lambda x: raw.Rank(input=x), [np.int32(3)])
# ShapeN: one output per input; inputs of one dtype, any ranks.
for n, dt in MOVABLE.items():
    add(f"shape_n_{n}", lambda x, y: raw.ShapeN(input=[x, y]),
        [vals(dt, (2, 3, 1)), vals(dt, (4,))])
add("shape_n_one_int64", lambda x: raw.ShapeN(input=[x], out_type=tf.int64),
    [np.zeros((4, 0, 5), np.float32)])
add("shape_n_scalar_and_empty",
    lambda x, y, z: raw.ShapeN(input=[x, y, z]),
    [np.float32(1), np.zeros((0, 2), np.float32), np.ones((1, 1, 1, 7), np.float32)])

# --- Reshape, ExpandDims, Squeeze -------------------------------------------

for n, dt in MOVABLE.items():
    add(f"reshape_{n}", lambda x, s: raw.Reshape(tensor=x, shape=s),
        [vals(dt, (2, 6)), i32([3, -1, 2])])
    add(f"expand_dims_{n}", lambda x, a: raw.ExpandDims(input=x, axis=a),
        [vals(dt, (2, 3)), i32(1)])
    add(f"squeeze_{n}", lambda x: raw.Squeeze(input=x),
        [vals(dt, (1, 3, 1, 2))])
add("reshape_int64_shape", lambda x, s: raw.Reshape(tensor=x, shape=s),
    [vals(np.float32, (2, 3)), i64([3, 2])])
add("reshape_to_scalar", lambda x, s: raw.Reshape(tensor=x, shape=s),
    [vals(np.float32, (1, 1)), np.zeros((0,), np.int32)])
add("reshape_scalar_shape_tensor", lambda x, s: raw.Reshape(tensor=x, shape=s),
    [vals(np.float32, (1,)), i32(1)])
add("reshape_empty_infer", lambda x, s: raw.Reshape(tensor=x, shape=s),
    [np.zeros((0, 3), np.float32), i32([-1, 0])])
add("reshape_empty_to_empty", lambda x, s: raw.Reshape(tensor=x, shape=s),
    [np.zeros((0, 6), np.float32), i32([3, 0, -1])])
add_error("reshape_two_unknown", lambda x, s: raw.Reshape(tensor=x, shape=s),
          [vals(np.float32, (2, 3)), i32([-1, -1])],
          "Only one input size may be -1, not both 0 and 1")
add_error("reshape_negative", lambda x, s: raw.Reshape(tensor=x, shape=s),
          [vals(np.float32, (2, 3)), i32([-2, 3])],
          "Size 0 must be non-negative, not -2")
add_error("reshape_wrong_count", lambda x, s: raw.Reshape(tensor=x, shape=s),
          [vals(np.float32, (2, 3)), i32([4])],
          "Input to reshape is a tensor with 6 values, but the requested "
          "shape has 4")
add_error("reshape_not_multiple", lambda x, s: raw.Reshape(tensor=x, shape=s),
          [vals(np.float32, (2, 3)), i32([-1, 4])],
          "requested shape requires a multiple of 4")
add_error("reshape_matrix_shape", lambda x, s: raw.Reshape(tensor=x, shape=s),
          [vals(np.float32, (2, 3)), i32([[6]])],
          "sizes input must be 1-D, not [1,1]")

add("expand_dims_front", lambda x, a: raw.ExpandDims(input=x, axis=a),
    [vals(np.int32, (2, 3)), i32(0)])
add("expand_dims_end", lambda x, a: raw.ExpandDims(input=x, axis=a),
    [vals(np.int32, (2, 3)), i32(2)])
add("expand_dims_minus1", lambda x, a: raw.ExpandDims(input=x, axis=a),
    [vals(np.int32, (2, 3)), i64(-1)])
add("expand_dims_minus3", lambda x, a: raw.ExpandDims(input=x, axis=a),
    [vals(np.int32, (2, 3)), i32(-3)])
add("expand_dims_scalar", lambda x, a: raw.ExpandDims(input=x, axis=a),
    [np.float64(2.5), i32([0])])
add_error("expand_dims_too_big", lambda x, a: raw.ExpandDims(input=x, axis=a),
          [vals(np.float32, (2, 3)), i32(3)],
          "Tried to expand dim index 3 for tensor with 2 dimensions.")
add_error("expand_dims_too_small", lambda x, a: raw.ExpandDims(input=x, axis=a),
          [vals(np.float32, (2, 3)), i32(-4)],
          "Tried to expand dim index -4 for tensor with 2 dimensions.")
add_error("expand_dims_two_values",
          lambda x, a: raw.ExpandDims(input=x, axis=a),
          [vals(np.float32, (2, 3)), i32([0, 1])],
          "'dim' must be a tensor with a single value")

add("squeeze_listed", lambda x: raw.Squeeze(input=x, axis=[2]),
    [vals(np.float32, (1, 3, 1, 2))])
add("squeeze_negative", lambda x: raw.Squeeze(input=x, axis=[-2, 0]),
    [vals(np.float32, (1, 3, 1, 2))])
add("squeeze_nothing", lambda x: raw.Squeeze(input=x),
    [vals(np.float32, (2, 3))])
add("squeeze_to_scalar", lambda x: raw.Squeeze(input=x),
    [vals(np.float32, (1, 1))])
add_error("squeeze_not_one", lambda x: raw.Squeeze(input=x, axis=[1]),
          [vals(np.float32, (2, 3))],
          "Can not squeeze dim[1], expected a dimension of 1, got 3")
add_error("squeeze_out_of_range", lambda x: raw.Squeeze(input=x, axis=[-4]),
          [vals(np.float32, (1, 2, 1))],
          "Tried to squeeze dim index -4 for tensor with 3 dimensions.")

# --- Fill, ZerosLike, OnesLike ----------------------------------------------

for n, dt in MOVABLE.items():
    add(f"fill_{n}", lambda d, v: raw.Fill(dims=d, value=v),
        [i32([2, 3]), vals(dt, (), start=4)])
    add(f"zeros_like_{n}", lambda x: raw.ZerosLike(x=x), [vals(dt, (3, 2))])
for n, dt in NUMERIC.items():
    add(f"ones_like_{n}", lambda x: raw.OnesLike(x=x), [vals(dt, (2, 3))])
add("fill_int64_dims", lambda d, v: raw.Fill(dims=d, value=v),
    [i64([3, 1, 2]), np.float32(2.5)])
add("fill_scalar_dims", lambda d, v: raw.Fill(dims=d, value=v),
    [i32(3), np.int32(9)])
add("fill_empty", lambda d, v: raw.Fill(dims=d, value=v),
    [i32([0, 4]), np.float32(1)])
add("fill_to_scalar", lambda d, v: raw.Fill(dims=d, value=v),
    [np.zeros((0,), np.int32), np.float32(1)])
add("fill_legacy_vector_value", lambda d, v: raw.Fill(dims=d, value=v),
    [i32([2]), np.array([3.0], np.float32)])
add_error("fill_matrix_dims", lambda d, v: raw.Fill(dims=d, value=v),
          [i32([[2]]), np.float32(1)],
          "dims must represent a vector, got shape [1,1]")
add_error("fill_vector_value", lambda d, v: raw.Fill(dims=d, value=v),
          [i32([2]), np.array([1.0, 2.0], np.float32)],
          "value must represent a scalar, got shape [2]")
add_error("fill_negative_dim", lambda d, v: raw.Fill(dims=d, value=v),
          [i32([2, -1]), np.float32(1)], "Dimension -1 must be >= 0")
add("zeros_like_empty", lambda x: raw.ZerosLike(x=x),
    [np.zeros((0, 2), np.float32)])
add("ones_like_scalar", lambda x: raw.OnesLike(x=x), [np.float64(3)])

# --- ConcatV2 ----------------------------------------------------------------

for n, dt in MOVABLE.items():
    add(f"concat_axis0_{n}", lambda a, b, x: raw.ConcatV2(values=[a, b], axis=x),
        [vals(dt, (2, 3)), vals(dt, (1, 3), 10), i32(0)])
    add(f"concat_axis1_{n}", lambda a, b, c, x: raw.ConcatV2(values=[a, b, c],
                                                             axis=x),
        [vals(dt, (2, 3)), vals(dt, (2, 1), 10), vals(dt, (2, 2), 20), i32(1)])
add("concat_negative_axis", lambda a, b, x: raw.ConcatV2(values=[a, b], axis=x),
    [vals(np.float32, (2, 2, 1)), vals(np.float32, (2, 2, 3), 9), i64(-1)])
add("concat_middle_axis", lambda a, b, x: raw.ConcatV2(values=[a, b], axis=x),
    [vals(np.int32, (2, 1, 3)), vals(np.int32, (2, 4, 3), 9), i32(1)])
add("concat_with_empty", lambda a, b, x: raw.ConcatV2(values=[a, b], axis=x),
    [np.zeros((0, 3), np.float32), vals(np.float32, (2, 3)), i32(0)])
add("concat_all_empty", lambda a, b, x: raw.ConcatV2(values=[a, b], axis=x),
    [np.zeros((2, 0), np.float32), np.zeros((2, 0), np.float32), i32(1)])
add("concat_legacy_vector_axis",
    lambda a, b, x: raw.ConcatV2(values=[a, b], axis=x),
    [vals(np.float32, (2,)), vals(np.float32, (3,)), i32([0])])
add_error("concat_rank_mismatch",
          lambda a, b, x: raw.ConcatV2(values=[a, b], axis=x),
          [vals(np.float32, (2, 3)), vals(np.float32, (3,)), i32(0)],
          "Ranks of all input tensors should match: shape[0] = [2,3] vs. "
          "shape[1] = [3]")
add_error("concat_dim_mismatch",
          lambda a, b, x: raw.ConcatV2(values=[a, b], axis=x),
          [vals(np.float32, (2, 3)), vals(np.float32, (2, 4)), i32(0)],
          "Dimension 1 in both shapes must be equal: shape[0] = [2,3] vs. "
          "shape[1] = [2,4]")
add_error("concat_axis_out_of_range",
          lambda a, b, x: raw.ConcatV2(values=[a, b], axis=x),
          [vals(np.float32, (2, 3)), vals(np.float32, (2, 4)), i32(2)],
          "Expected concatenating dimensions in the range [-2, 2), but got 2")
add_error("concat_scalars",
          lambda a, b, x: raw.ConcatV2(values=[a, b], axis=x),
          [np.float32(1), np.float32(2), i32(0)], "Can't concatenate scalars")
add_error("concat_matrix_axis",
          lambda a, b, x: raw.ConcatV2(values=[a, b], axis=x),
          [vals(np.float32, (2,)), vals(np.float32, (2,)), i32([[0]])],
          "axis tensor should be a scalar integer, but got shape [1,1]")

# --- Pack, Unpack --------------------------------------------------------------

for n, dt in MOVABLE.items():
    add(f"pack_axis0_{n}", lambda a, b, c: raw.Pack(values=[a, b, c]),
        [vals(dt, (2, 2)), vals(dt, (2, 2), 4), vals(dt, (2, 2), 8)])
    add(f"pack_axis_last_{n}", lambda a, b: raw.Pack(values=[a, b], axis=-1),
        [vals(dt, (2, 3)), vals(dt, (2, 3), 6)])
    add(f"unpack_axis0_{n}", lambda x: raw.Unpack(value=x, num=2),
        [vals(dt, (2, 3))])
    add(f"unpack_axis1_{n}", lambda x: raw.Unpack(value=x, num=3, axis=1),
        [vals(dt, (2, 3, 2))])
add("pack_single", lambda a: raw.Pack(values=[a], axis=1),
    [vals(np.float32, (2, 3))])
add("pack_scalars", lambda a, b: raw.Pack(values=[a, b]),
    [np.int64(3), np.int64(4)])
add("pack_middle", lambda a, b: raw.Pack(values=[a, b], axis=1),
    [vals(np.float32, (2, 3)), vals(np.float32, (2, 3), 6)])
add("pack_empty", lambda a, b: raw.Pack(values=[a, b], axis=1),
    [np.zeros((2, 0), np.float32), np.zeros((2, 0), np.float32)])
add_error("pack_shape_mismatch", lambda a, b: raw.Pack(values=[a, b]),
          [vals(np.float32, (2,)), vals(np.float32, (3,))],
          "Shapes of all inputs must match: values[0].shape = [2] != "
          "values[1].shape = [3]")
add_error("pack_axis_out_of_range", lambda a, b: raw.Pack(values=[a, b], axis=3),
          [vals(np.float32, (2,)), vals(np.float32, (2,))],
          "axis = 3 not in [-2, 2)")
add("unpack_negative_axis", lambda x: raw.Unpack(value=x, num=3, axis=-1),
    [vals(np.int32, (2, 3))])
add("unpack_vector", lambda x: raw.Unpack(value=x, num=4),
    [vals(np.float32, (4,))])
add("unpack_zero_outputs", lambda x: raw.Unpack(value=x, num=0, axis=1),
    [np.zeros((2, 0), np.float32)])
add_error("unpack_wrong_num", lambda x: raw.Unpack(value=x, num=3),
          [vals(np.float32, (2, 3))],
          "Input shape axis 0 must equal 3, got shape [2,3]")
add_error("unpack_axis_out_of_range", lambda x: raw.Unpack(value=x, num=2,
                                                            axis=2),
          [vals(np.float32, (2, 3))], "axis = 2 not in [-2, 2)")
add_error("unpack_scalar", lambda x: raw.Unpack(value=x, num=1),
          [np.float32(1)], "axis = 0 not in [0, 0)")

# --- Transpose -----------------------------------------------------------------

for n, dt in MOVABLE.items():
    add(f"transpose_2d_{n}", lambda x, p: raw.Transpose(x=x, perm=p),
        [vals(dt, (3, 5)), i32([1, 0])])
    add(f"transpose_3d_{n}", lambda x, p: raw.Transpose(x=x, perm=p),
        [vals(dt, (2, 3, 4)), i32([2, 0, 1])])
add("transpose_4d", lambda x, p: raw.Transpose(x=x, perm=p),
    [vals(np.float32, (2, 3, 4, 5)), i64([0, 3, 1, 2])])
add("transpose_large_blocked", lambda x, p: raw.Transpose(x=x, perm=p),
    [vals(np.float32, (67, 130)), i32([1, 0])])
add("transpose_large_batched", lambda x, p: raw.Transpose(x=x, perm=p),
    [vals(np.float64, (3, 40, 37)), i32([0, 2, 1])])
add("transpose_identity", lambda x, p: raw.Transpose(x=x, perm=p),
    [vals(np.float32, (2, 3)), i32([0, 1])])
add("transpose_singleton_dims", lambda x, p: raw.Transpose(x=x, perm=p),
    [vals(np.float32, (1, 3, 1, 2)), i32([1, 0, 3, 2])])
add("transpose_negative_perm", lambda x, p: raw.Transpose(x=x, perm=p),
    [vals(np.float32, (2, 3)), i32([-1, 0])])
add("transpose_scalar", lambda x, p: raw.Transpose(x=x, perm=p),
    [np.float32(3), np.zeros((0,), np.int32)])
add("transpose_empty", lambda x, p: raw.Transpose(x=x, perm=p),
    [np.zeros((2, 0, 3), np.float32), i32([2, 1, 0])])
add_error("transpose_wrong_length", lambda x, p: raw.Transpose(x=x, perm=p),
          [vals(np.float32, (2, 3)), i32([0, 1, 2])],
          "transpose expects a vector of size 2. But input(1) is a vector of "
          "size 3")
add_error("transpose_duplicate", lambda x, p: raw.Transpose(x=x, perm=p),
          [vals(np.float32, (2, 3)), i32([1, 1])], "0 is missing from {1,1}.")
add_error("transpose_out_of_range", lambda x, p: raw.Transpose(x=x, perm=p),
          [vals(np.float32, (2, 3)), i32([0, 2])], "2 is out of range [0 .. 2)")
add_error("transpose_matrix_perm", lambda x, p: raw.Transpose(x=x, perm=p),
          [vals(np.float32, (2, 3)), i32([[0, 1]])],
          "perm must be rank 1, got shape [1,2]")

# --- Tile -------------------------------------------------------------------------

for n, dt in MOVABLE.items():
    add(f"tile_{n}", lambda x, m: raw.Tile(input=x, multiples=m),
        [vals(dt, (2, 3)), i32([2, 3])])
add("tile_3d", lambda x, m: raw.Tile(input=x, multiples=m),
    [vals(np.float32, (2, 1, 3)), i64([1, 4, 2])])
add("tile_identity", lambda x, m: raw.Tile(input=x, multiples=m),
    [vals(np.float32, (2, 3)), i32([1, 1])])
add("tile_zero", lambda x, m: raw.Tile(input=x, multiples=m),
    [vals(np.float32, (2, 3)), i32([0, 2])])
add("tile_scalar", lambda x, m: raw.Tile(input=x, multiples=m),
    [np.float32(3), np.zeros((0,), np.int32)])
add("tile_large", lambda x, m: raw.Tile(input=x, multiples=m),
    [vals(np.float32, (33, 17)), i32([20, 30])])
add_error("tile_wrong_length", lambda x, m: raw.Tile(input=x, multiples=m),
          [vals(np.float32, (2, 3)), i32([2])],
          "Expected multiples argument to be a vector of length 2 but got "
          "length 1")
add_error("tile_negative", lambda x, m: raw.Tile(input=x, multiples=m),
          [vals(np.float32, (2, 3)), i32([1, -1])],
          "Expected multiples[1] >= 0, but got -1")
add_error("tile_matrix_multiples", lambda x, m: raw.Tile(input=x, multiples=m),
          [vals(np.float32, (2, 3)), i32([[1, 1]])],
          "Expected multiples to be 1-D, but got shape [1,2]")

# --- Pad, PadV2 ----------------------------------------------------------------------

def pad(x, p):
    return raw.Pad(input=x, paddings=p)


def pad_v2(x, p, c):
    return raw.PadV2(input=x, paddings=p, constant_values=c)


for n, dt in MOVABLE.items():
    add(f"pad_{n}", pad, [vals(dt, (2, 3)), i32([[1, 0], [2, 1]])])
    add(f"padv2_{n}", pad_v2,
        [vals(dt, (2, 3)), i64([[0, 2], [1, 1]]), vals(dt, (), start=7)])
add("pad_4d_nhwc", pad, [vals(np.float32, (2, 3, 4, 5)),
                         i32([[0, 0], [1, 2], [3, 1], [0, 0]])])
add("pad_last_dim_only", pad, [vals(np.int64, (3, 4)), i64([[0, 0], [2, 3]])])
add("pad_identity", pad, [vals(np.float32, (2, 3)), i32([[0, 0], [0, 0]])])
add("pad_scalar", pad, [np.float32(3), np.zeros((0, 2), np.int32)])
add("pad_empty_input", pad, [np.zeros((0, 3), np.float32),
                             i32([[1, 1], [0, 1]])])
add("pad_1d", pad, [vals(np.float64, (5,)), i32([[3, 4]])])
add("pad_large", pad, [vals(np.float32, (64, 33, 17)),
                       i32([[1, 2], [3, 0], [5, 7]])])
add("padv2_nan", pad_v2, [vals(np.float32, (2, 2)), i32([[1, 1], [1, 1]]),
                          np.float32(np.nan)])
add_error("pad_paddings_not_matrix", pad,
          [vals(np.float32, (2, 3)), i32([1, 1])],
          "paddings must be a matrix with 2 columns: [2]")
add_error("pad_paddings_three_columns", pad,
          [vals(np.float32, (2, 3)), i32([[1, 1, 1], [1, 1, 1]])],
          "paddings must be a matrix with 2 columns: [2,3]")
add_error("pad_paddings_wrong_rank", pad,
          [vals(np.float32, (2, 3)), i32([[1, 1]])],
          "The first dimension of paddings must be the rank of inputs[1,2] "
          "[2,3]")
add_error("pad_negative", pad,
          [vals(np.float32, (2, 3)), i32([[1, -1], [0, 0]])],
          "Paddings must be non-negative: 1 -1")
add_error("padv2_constant_not_scalar", pad_v2,
          [vals(np.float32, (2, 3)), i32([[1, 1], [0, 0]]),
           np.array([1, 2], np.float32)],
          "constant_values must be a scalar. Found: [2]")
cases.add("pad_rank_9", pad,
          [np.ones([1] * 9, np.float32), np.zeros((9, 2), np.int32)],
          message_contains=["inputs rank not in [0,8]: 9"], expect_code=12)

# --- MirrorPad -------------------------------------------------------------------------

def mirror_pad(mode):
    return lambda x, p: raw.MirrorPad(input=x, paddings=p, mode=mode)


for n, dt in MOVABLE.items():
    add(f"mirror_pad_reflect_{n}", mirror_pad("REFLECT"),
        [vals(dt, (3, 4)), i32([[2, 1], [3, 2]])])
    add(f"mirror_pad_symmetric_{n}", mirror_pad("SYMMETRIC"),
        [vals(dt, (3, 4)), i64([[3, 0], [1, 4]])])
add("mirror_pad_reflect_4d", mirror_pad("REFLECT"),
    [vals(np.float32, (2, 4, 5, 3)), i32([[0, 0], [2, 3], [4, 1], [0, 0]])])
add("mirror_pad_symmetric_1d", mirror_pad("SYMMETRIC"),
    [vals(np.float64, (3,)), i32([[3, 2]])])
add("mirror_pad_reflect_5d", mirror_pad("REFLECT"),
    [vals(np.int32, (2, 3, 2, 3, 2)), i32([[1, 0], [0, 2], [1, 1], [2, 0],
                                          [0, 1]])])
add("mirror_pad_identity", mirror_pad("REFLECT"),
    [vals(np.float32, (2, 3)), i32([[0, 0], [0, 0]])])
add("mirror_pad_scalar", mirror_pad("SYMMETRIC"),
    [np.float32(3), np.zeros((0, 2), np.int32)])
add("mirror_pad_empty_dim", mirror_pad("SYMMETRIC"),
    [np.zeros((0, 3), np.float32), i32([[0, 0], [1, 2]])])
add("mirror_pad_large", mirror_pad("REFLECT"),
    [vals(np.float32, (40, 33, 17)), i32([[1, 2], [3, 0], [5, 7]])])
add_error("mirror_pad_reflect_too_big", mirror_pad("REFLECT"),
          [vals(np.float32, (2, 3)), i32([[2, 1], [2, 2]])],
          "paddings must be less than the dimension size: 2, 1 not less than 2")
add_error("mirror_pad_symmetric_too_big", mirror_pad("SYMMETRIC"),
          [vals(np.float32, (2, 3)), i32([[3, 2], [3, 3]])],
          "paddings must be no greater than the dimension size: 3, 2 greater "
          "than 2")
add_error("mirror_pad_negative", mirror_pad("REFLECT"),
          [vals(np.float32, (2, 3)), i32([[-1, 0], [0, 0]])],
          "paddings must be non-negative: -1 0")
add_error("mirror_pad_wrong_rank", mirror_pad("REFLECT"),
          [vals(np.float32, (2, 3)), i32([[1, 1]])],
          "The first dimension of paddings must be the rank of inputs[1,2], "
          "[2,3]")
add_error("mirror_pad_not_matrix", mirror_pad("SYMMETRIC"),
          [vals(np.float32, (2, 3)), i32([1, 1])],
          "paddings must be a matrix with 2 columns: [2]")
cases.add("mirror_pad_rank_6", mirror_pad("REFLECT"),
          [np.ones([1] * 6, np.float32), np.zeros((6, 2), np.int32)],
          message_contains=["inputs rank not in [0,5]: 6"], expect_code=12)

# --- Split, SplitV --------------------------------------------------------------------

def split(n):
    return lambda d, x: raw.Split(axis=d, value=x, num_split=n)


def split_v(n):
    return lambda x, s, d: raw.SplitV(value=x, size_splits=s, axis=d,
                                      num_split=n)


for n, dt in MOVABLE.items():
    add(f"split_{n}", split(3), [i32(1), vals(dt, (4, 6))])
    add(f"splitv_{n}", split_v(3), [vals(dt, (4, 6)), i64([1, 2, 3]), i32(1)])
add("split_axis0", split(2), [i32(0), vals(np.float32, (4, 3))])
add("split_negative_axis", split(2), [i32(-1), vals(np.float32, (2, 3, 4))])
add("split_middle_axis", split(3), [i32(1), vals(np.float64, (2, 3, 4))])
add("split_one_piece", split(1), [i32(0), vals(np.float32, (2, 3))])
add("split_empty_pieces", split(2), [i32(1), np.zeros((3, 0), np.float32)])
add("split_large", split(4), [i32(1), vals(np.float32, (64, 128, 3))])
add("splitv_inferred", split_v(3), [vals(np.float32, (4, 6)), i32([1, -1, 3]),
                                    i32(1)])
add("splitv_zero_size", split_v(3), [vals(np.float32, (5, 2)),
                                     i64([2, 0, 3]), i32(-2)])
add("splitv_int8_sizes", split_v(2), [vals(np.int32, (2, 5)),
                                      np.array([3, 2], np.int8), i32(1)])
add("splitv_vector_split_dim", split_v(3), [vals(np.float32, (4, 6)),
                                            i64([1, 2, 3]), i32([1])])
add("splitv_one_piece", split_v(1), [vals(np.float32, (4, 6)), i64([6]),
                                     i32(1)])
add_error("splitv_one_piece_inferred", split_v(1),
          [vals(np.float32, (4, 6)), i64([-1]), i32(0)],
          "If there is only one output, it must have the same size as the "
          "input. Input size: 4 output size: -1")
add_error("split_axis_too_big", split(3), [i32(2), vals(np.float32, (4, 6))],
          "-input rank(-2) <= split_dim < input rank (2), but got 2")
add_error("split_axis_too_small", split(3), [i32(-3), vals(np.float32, (4, 6))],
          "-input rank(-2) <= split_dim < input rank (2), but got -3")
add_error("split_scalar_input", split(2), [i32(0), np.float32(1)],
          "-input rank(-0) <= split_dim < input rank (0), but got 0")
add_error("split_uneven", split(4), [i32(1), vals(np.float32, (4, 6))],
          "Number of ways to split should evenly divide the split dimension, "
          "but got split_dim 1 (size = 6) and num_split 4")
add_error("split_uneven_negative_axis", split(4),
          [i32(-1), vals(np.float32, (4, 6))], "(size = 6) and num_split 4")
add_error("split_axis_not_scalar", split(3), [i32([1]), vals(np.float32, (4, 6))],
          "split_dim must be a scalar but has rank 1")
add_error("splitv_sum_mismatch", split_v(3),
          [vals(np.float32, (4, 6)), i64([1, 2, 2]), i32(1)],
          "Determined shape must either match input shape along split_dim "
          "exactly if fully specified, or be less than the size of the input "
          "along split_dim if not fully specified.  Got: 5")
add_error("splitv_inferred_too_big", split_v(3),
          [vals(np.float32, (4, 6)), i64([1, 6, -1]), i32(1)], "Got: 7")
add_error("splitv_two_inferred", split_v(3),
          [vals(np.float32, (4, 6)), i64([1, -1, -1]), i32(1)],
          "There can only be one -1 in the input.")
add_error("splitv_negative_size", split_v(3),
          [vals(np.float32, (4, 6)), i64([1, -2, 7]), i32(1)],
          "Split size at index 1 must be >= 0. Got: -2")
add_error("splitv_wrong_count", split_v(3),
          [vals(np.float32, (4, 6)), i64([1, 2]), i32(1)],
          "size of the split_tensor must be 1-D and have the same elements as "
          "outputs got 1 -D and 2 elements")
add_error("splitv_sizes_matrix", split_v(3),
          [vals(np.float32, (4, 6)), i64([[1, 2, 3]]), i32(1)],
          "got 2 -D and 3 elements")
add_error("splitv_axis_too_big", split_v(3),
          [vals(np.float32, (4, 6)), i64([1, 2, 3]), i32(2)],
          "but got 2")

# --- Slice ------------------------------------------------------------------------

for n, dt in MOVABLE.items():
    add(f"slice_{n}", lambda x, b, s: raw.Slice(input=x, begin=b, size=s),
        [vals(dt, (4, 5)), i32([1, 2]), i32([2, 3])])
add("slice_dim0_only", lambda x, b, s: raw.Slice(input=x, begin=b, size=s),
    [vals(np.float32, (4, 5)), i32([1, 0]), i32([2, 5])])
add("slice_to_end", lambda x, b, s: raw.Slice(input=x, begin=b, size=s),
    [vals(np.float32, (4, 5, 2)), i64([1, 1, 0]), i64([-1, -1, 1])])
add("slice_identity", lambda x, b, s: raw.Slice(input=x, begin=b, size=s),
    [vals(np.float32, (2, 3)), i32([0, 0]), i32([2, -1])])
add("slice_empty", lambda x, b, s: raw.Slice(input=x, begin=b, size=s),
    [vals(np.float32, (2, 3)), i32([1, 3]), i32([1, 0])])
add("slice_of_empty_dim", lambda x, b, s: raw.Slice(input=x, begin=b, size=s),
    [np.zeros((0, 3), np.float32), i32([0, 1]), i32([-1, 2])])
add_error("slice_wrong_length", lambda x, b, s: raw.Slice(input=x, begin=b,
                                                          size=s),
          [vals(np.float32, (2, 3)), i32([0]), i32([1, 1])],
          "Expected begin and size arguments to be 1-D tensors of size 2, but "
          "got shapes [1] and [2] instead.")
add_error("slice_size_too_big", lambda x, b, s: raw.Slice(input=x, begin=b,
                                                          size=s),
          [vals(np.float32, (2, 3)), i32([0, 1]), i32([1, 3])],
          "Expected size[1] in [0, 2], but got 3")
add_error("slice_begin_too_big", lambda x, b, s: raw.Slice(input=x, begin=b,
                                                           size=s),
          [vals(np.float32, (2, 3)), i32([0, 4]), i32([1, -1])],
          "Expected begin[1] in [0, 3], but got 4")
add_error("slice_negative_begin", lambda x, b, s: raw.Slice(input=x, begin=b,
                                                            size=s),
          [vals(np.float32, (2, 3)), i32([-1, 0]), i32([1, 1])],
          "Expected begin[0] in [0, 2], but got -1")

# --- StridedSlice -----------------------------------------------------------------


def ss(**masks):
    return lambda x, b, e, s: raw.StridedSlice(input=x, begin=b, end=e,
                                               strides=s, **masks)


for n, dt in MOVABLE.items():
    add(f"strided_slice_{n}", ss(),
        [vals(dt, (5, 6)), i32([1, 0]), i32([5, 6]), i32([2, 3])])
    add(f"strided_slice_reverse_{n}", ss(end_mask=1),
        [vals(dt, (6,)), i32([-1]), i32([0]), i32([-2])])
SS_CASES = [
    # name, shape, begin, end, strides, masks
    ("basic", (6,), [1], [4], [1], {}),
    ("negative_indices", (6,), [-4], [-1], [1], {}),
    ("clamped", (6,), [-100], [100], [2], {}),
    ("clamped_reverse", (6,), [100], [-100], [-2], {}),
    ("empty_interval", (6,), [4], [2], [1], {}),
    ("begin_mask", (4, 5), [3, 1], [4, 4], [1, 1], dict(begin_mask=1)),
    ("end_mask", (4, 5), [1, 1], [0, 0], [1, 2], dict(end_mask=3)),
    ("reverse_all", (3, 4), [0, 0], [0, 0], [-1, -1],
     dict(begin_mask=3, end_mask=3)),
    ("shrink_first", (3, 4), [1, 0], [2, 4], [1, 1], dict(shrink_axis_mask=1)),
    ("shrink_negative", (6,), [-1], [0], [1], dict(shrink_axis_mask=1)),
    ("shrink_two", (2, 3, 4), [1, -1], [2, 0], [1, 1],
     dict(shrink_axis_mask=3)),
    ("shrink_inner", (3, 4), [0, 2], [3, 3], [1, 1], dict(shrink_axis_mask=2)),
    ("new_axis", (2, 3), [0, 0], [0, 0], [1, 1], dict(new_axis_mask=1)),
    ("ellipsis", (2, 3, 4), [0, 1], [0, 3], [1, 1], dict(ellipsis_mask=1)),
    ("ellipsis_middle", (2, 3, 4), [1, 0, 1], [2, 0, 3], [1, 1, 1],
     dict(ellipsis_mask=2)),
    ("ellipsis_new_axis", (2, 3, 4), [0, 0, 1], [0, 0, 3], [1, 1, 1],
     dict(ellipsis_mask=1, new_axis_mask=2)),
    ("ellipsis_only", (2, 3), [0], [0], [1], dict(ellipsis_mask=1)),
    ("new_and_shrink", (6,), [0], [1], [1],
     dict(new_axis_mask=1, shrink_axis_mask=1)),
    ("implicit_trailing", (3, 4, 2), [1], [3], [1], {}),
    ("identity", (3, 4), [0, 0], [3, 4], [1, 1], {}),
    ("dim0_contiguous", (5, 4), [1, 0], [4, 4], [1, 1], {}),
    ("strided_3d", (4, 5, 6), [3, 0, 5], [0, 5, 0], [-2, 2, -3], {}),
]
for name, shape, b, e, s, masks in SS_CASES:
    add(f"strided_slice_{name}", ss(**masks),
        [vals(np.float32, shape), i32(b), i32(e), i32(s)])
add("strided_slice_int64_spec", ss(),
    [vals(np.int32, (6,)), i64([1]), i64([5]), i64([2])])
add_error("strided_slice_zero_stride", ss(),
          [vals(np.float32, (2, 3)), i32([0]), i32([1]), i32([0])],
          "strides[0] must be non-zero")
add_error("strided_slice_spec_lengths", ss(),
          [vals(np.float32, (2, 3)), i32([0]), i32([1, 1]), i32([1])],
          "Expected begin, end, and strides to be 1D equal size tensors, but "
          "got shapes [1], [2], and [1] instead.")
add_error("strided_slice_shrink_out_of_bounds", ss(shrink_axis_mask=1),
          [vals(np.float32, (2, 3)), i32([5]), i32([6]), i32([1])],
          "slice index 5 of dimension 0 out of bounds.")
add_error("strided_slice_shrink_negative_stride", ss(shrink_axis_mask=1),
          [vals(np.float32, (6,)), i32([2]), i32([3]), i32([-1])],
          "only stride 1 allowed on non-range indexing.")
add_error("strided_slice_two_ellipses", ss(ellipsis_mask=3),
          [vals(np.float32, (2, 3)), i32([0, 0]), i32([1, 1]), i32([1, 1])],
          "Multiple ellipses in slice spec not allowed")
add_error("strided_slice_too_many_dims", ss(),
          [vals(np.float32, (2, 3)), i32([0, 0, 0]), i32([1, 1, 1]),
           i32([1, 1, 1])],
          "Index out of range using input dim 2; input has only 2 dims")
add_error("strided_slice_scalar", ss(),
          [np.float32(1), i32([0]), i32([1]), i32([1])],
          "Attempting to slice scalar input.")

# --- BroadcastTo, BroadcastGradientArgs ---------------------------------------------

for n, dt in MOVABLE.items():
    add(f"broadcast_to_{n}", lambda x, s: raw.BroadcastTo(input=x, shape=s),
        [vals(dt, (3, 1)), i32([2, 3, 4])])
add("broadcast_to_scalar", lambda x, s: raw.BroadcastTo(input=x, shape=s),
    [np.float32(2), i32([2, 2])])
add("broadcast_to_same", lambda x, s: raw.BroadcastTo(input=x, shape=s),
    [vals(np.float32, (2, 3)), i64([2, 3])])
add("broadcast_to_inner", lambda x, s: raw.BroadcastTo(input=x, shape=s),
    [vals(np.float32, (1, 4)), i32([5, 4])])
add("broadcast_to_empty", lambda x, s: raw.BroadcastTo(input=x, shape=s),
    [np.zeros((0, 1), np.float32), i32([0, 3])])
add_error("broadcast_to_incompatible",
          lambda x, s: raw.BroadcastTo(input=x, shape=s),
          [vals(np.float32, (2, 3)), i32([4, 3])],
          "Incompatible shapes: [2,3] vs. [4,3]")
add_error("broadcast_to_lower_rank",
          lambda x, s: raw.BroadcastTo(input=x, shape=s),
          [vals(np.float32, (2, 3)), i32([3])],
          "Rank of input (2) must be no greater than rank of output shape (1).")
add_error("broadcast_to_unable", lambda x, s: raw.BroadcastTo(input=x, shape=s),
          [vals(np.float32, (1, 3)), i32([2, 1])],
          "Unable to broadcast tensor of shape [1,3] to tensor of shape [2,1]")
add_error("broadcast_to_negative", lambda x, s: raw.BroadcastTo(input=x,
                                                                 shape=s),
          [vals(np.float32, (3,)), i32([-1, 3])], "Dimension -1 must be >= 0")

BGA_CASES = [
    ("basic", [2, 1, 3], [4, 1]),
    ("same", [2, 3], [2, 3]),
    ("ones", [1, 1], [2, 1]),
    ("scalar", [], [3, 1]),
    ("big_rank", [5, 1, 1, 3], [1, 4, 1, 3]),
    ("zero_dim", [0, 1], [1, 3]),
]
for name, s0, s1 in BGA_CASES:
    for tn, conv in (("i32", i32), ("i64", i64)):
        add(f"broadcast_gradient_args_{name}_{tn}",
            lambda a, b: raw.BroadcastGradientArgs(s0=a, s1=b),
            [conv(s0), conv(s1)])
add_error("broadcast_gradient_args_incompatible",
          lambda a, b: raw.BroadcastGradientArgs(s0=a, s1=b),
          [i32([2, 3]), i32([4])], "Incompatible shapes: [2,3] vs. [4]")
add_error("broadcast_gradient_args_matrix",
          lambda a, b: raw.BroadcastGradientArgs(s0=a, s1=b),
          [i32([[2]]), i32([2])], "In[0] must be a vector.[1,1]")

# --- Range ------------------------------------------------------------------------

RANGE_CASES = [
    ("up", 0, 10, 3), ("down", 10, 1, -3), ("empty", 4, 4, 1), ("one", 0, 1, 5),
]
for name, start, limit, delta in RANGE_CASES:
    for tn, dt in (("i32", np.int32), ("i64", np.int64), ("f32", np.float32),
                   ("f64", np.float64)):
        add(f"range_{name}_{tn}", lambda a, b, c: raw.Range(start=a, limit=b,
                                                            delta=c),
            [dt(start), dt(limit), dt(delta)])
add("range_float_steps", lambda a, b, c: raw.Range(start=a, limit=b, delta=c),
    [np.float32(0.5), np.float32(2.0), np.float32(0.3)])
add("range_float_tenths", lambda a, b, c: raw.Range(start=a, limit=b, delta=c),
    [np.float32(0), np.float32(1), np.float32(0.1)])
add("range_legacy_vector", lambda a, b, c: raw.Range(start=a, limit=b, delta=c),
    [i32([1]), np.int32(5), np.int32(2)])
add_error("range_zero_delta", lambda a, b, c: raw.Range(start=a, limit=b,
                                                        delta=c),
          [np.int32(0), np.int32(5), np.int32(0)], "Requires delta != 0: 0")
add_error("range_wrong_direction_up",
          lambda a, b, c: raw.Range(start=a, limit=b, delta=c),
          [np.int32(5), np.int32(1), np.int32(1)],
          "Requires start <= limit when delta > 0: 5/1")
add_error("range_wrong_direction_down",
          lambda a, b, c: raw.Range(start=a, limit=b, delta=c),
          [np.int64(1), np.int64(5), np.int64(-1)],
          "Requires start >= limit when delta < 0: 1/5")
add_error("range_vector_limit", lambda a, b, c: raw.Range(start=a, limit=b,
                                                          delta=c),
          [np.int32(1), i32([5, 6]), np.int32(1)],
          "limit must be a scalar, not shape [2]")

# --- GatherV2 -----------------------------------------------------------------------


def gather(batch_dims=0):
    return lambda p, i, a: raw.GatherV2(params=p, indices=i, axis=a,
                                        batch_dims=batch_dims)


for n, dt in MOVABLE.items():
    add(f"gather_axis0_{n}", gather(),
        [vals(dt, (4, 3)), i32([[3, 0], [1, 1]]), i32(0)])
    add(f"gather_axis1_{n}", gather(),
        [vals(dt, (2, 4, 3)), i64([2, 0, 3]), i32(1)])
add("gather_scalar_index", gather(), [vals(np.float32, (4, 3)), i32(2), i32(0)])
add("gather_last_axis", gather(),
    [vals(np.float32, (2, 3)), i32([2, 0]), i64(-1)])
add("gather_batch_dims", gather(batch_dims=1),
    [vals(np.float32, (2, 3, 2)), i32([[2, 0], [1, 1]]), i32(1)])
add("gather_batch_dims_negative", gather(batch_dims=-1),
    [vals(np.float32, (3, 2)), i32([[0], [1], [0]]), i32(1)])
add("gather_empty_indices", gather(),
    [vals(np.float32, (3, 2)), np.zeros((0,), np.int32), i32(0)])
add_error("gather_out_of_range", gather(),
          [vals(np.float32, (3, 2)), i32([[0, 5]]), i32(0)],
          "indices[0,1] = 5 is not in [0, 3)")
add_error("gather_negative_index", gather(),
          [vals(np.float32, (3, 2)), i32([-1]), i32(0)],
          "indices[0] = -1 is not in [0, 3)")
add_error("gather_batch_out_of_range", gather(batch_dims=1),
          [vals(np.float32, (2, 3, 2)), i32([[2, 0], [1, 3]]), i32(1)],
          "indices[1,1] = 3 is not in [0, 3)")
add_error("gather_vector_axis", gather(),
          [vals(np.float32, (3, 2)), i32([0]), i32([0])], "axis must be scalar")
add_error("gather_scalar_params", gather(),
          [np.float32(1), i32([0]), i32(0)],
          "params must be at least 1 dimensional")
add_error("gather_batch_dims_range", gather(batch_dims=2),
          [vals(np.float32, (3, 2)), i32([0]), i32(1)],
          "Expected batch_dims in the range [-1, 1], but got 2")
add_error("gather_batch_dims_after_axis", gather(batch_dims=1),
          [vals(np.float32, (3, 2)), i32([[0]]), i32(0)],
          "batch_dims (1) must be less than or equal to axis (0).")
add_error("gather_batch_shape_mismatch", gather(batch_dims=1),
          [vals(np.float32, (3, 2)), i32([0, 1]), i32(1)],
          "params.shape[0]: 3 should be equal to indices.shape[0]: 2")

# --- SpaceToBatchND / BatchToSpaceND -------------------------------------------

# TensorFlow's shape functions insist on block_shape and paddings/crops of
# known shape (their values stay unknown, so the kernels do the checking);
# the rank errors its shape functions raise first are covered by the gtests.


def shaped(v):
    return tf_oracle.Placeholder(v, shape=v.shape)


# (input shape, block_shape, paddings/crops): 1-D and 2-D blocks as dilated
# Conv1D/Conv2D emit them, a block over fewer dimensions than the spatial
# ones, unit blocks, and padding that fills whole blocks.
S2B = [((1, 6, 1), [2], [[0, 0]]),
       ((2, 5, 3), [2], [[1, 2]]),
       ((2, 4, 6, 3), [2, 3], [[0, 0], [0, 0]]),
       ((1, 5, 5, 2), [2, 2], [[2, 1], [1, 2]]),
       ((2, 3, 4, 5, 2), [3, 2], [[1, 2], [0, 0]]),
       ((3, 2, 3), [1, 1], [[0, 0], [1, 0]]),
       ((0, 4, 4, 1), [2, 2], [[0, 0], [0, 0]]),
       ((2, 2, 2, 1), [2, 2], [[2, 2], [0, 2]])]
for i, (shape, block, pads) in enumerate(S2B):
    for n, dt in (MOVABLE.items() if i == 2 else NUMERIC.items() if i == 3 else
                  [("f32", np.float32)]):
        if dt in (bytes, np.bool_, np.complex64, np.complex128):
            continue  # TensorFlow registers real numbers only
        for idx_name, idx in [("i32", i32), ("i64", i64)] if i < 2 else [("i32", i32)]:
            add(f"space_to_batch_nd_{i}_{n}_{idx_name}",
                lambda x, b, p: raw.SpaceToBatchND(input=x, block_shape=b, paddings=p),
                [vals(dt, shape), shaped(idx(block)), shaped(idx(pads))])
            # The inverse: crop what was padded.
            out = raw.SpaceToBatchND(input=np.zeros(shape, np.float32),
                                     block_shape=block, paddings=pads).shape
            add(f"batch_to_space_nd_{i}_{n}_{idx_name}",
                lambda x, b, c: raw.BatchToSpaceND(input=x, block_shape=b, crops=c),
                [vals(dt, tuple(out)), shaped(idx(block)), shaped(idx(pads))])
add("space_to_batch_nd_mixed_index_types",
    lambda x, b, p: raw.SpaceToBatchND(input=x, block_shape=b, paddings=p),
    [vals(np.float32, (1, 4, 4, 1)), shaped(i64([2, 2])), shaped(i32([[0, 0], [0, 0]]))])
_x = vals(np.float32, (2, 4, 4, 1))
for name, b, p, msg in [
        ("zero_block", [0, 2], [[0, 0], [0, 0]],
         "All values in block_shape must be positive, got value, 0 at index 0."),
        ("neg_pad", [2, 2], [[-1, 0], [0, 0]], "Paddings must be non-negative"),
        ("not_divisible", [3, 2], [[0, 0], [0, 0]],
         "padded_shape[0]=4 is not divisible by block_shape[0]=3")]:
    add_error(f"space_to_batch_nd_error_{name}",
              lambda x, b, p: raw.SpaceToBatchND(input=x, block_shape=b, paddings=p),
              [_x, shaped(i32(b)), shaped(i32(p))], msg)
for name, shape, b, c, msg in [
        ("batch", (3, 4, 4, 1), [2, 1], [[0, 0], [0, 0]],
         "Input batch dimension (3) is not divisible by product of block sizes (2)"),
        ("neg_crop", (4, 4, 4, 1), [2, 2], [[-1, 0], [0, 0]], "Crops must be non-negative"),
        ("crop_big", (4, 1, 4, 1), [2, 2], [[2, 1], [0, 0]],
         "cropped_shape[0]=-1 must be non-negative"),
        ("zero_block", (4, 4, 4, 1), [0, 2], [[0, 0], [0, 0]],
         "Product of block sizes must be positive, got 0")]:
    add_error(f"batch_to_space_nd_error_{name}",
              lambda x, b, c: raw.BatchToSpaceND(input=x, block_shape=b, crops=c),
              [vals(np.float32, shape), shaped(i32(b)), shaped(i32(c))], msg)

# --- OneHot --------------------------------------------------------------------

for n, dt in MOVABLE.items():
    on, off = vals(dt, (2,), start=7)
    add(f"one_hot_{n}",
        lambda i, d, a, b: raw.OneHot(indices=i, depth=d, on_value=a, off_value=b),
        [i64([[0, 2, -1], [3, 1, 5]]), i32(4), on, off])
for ti_name, ti in [("u8", np.uint8), ("i8", np.int8), ("i32", np.int32), ("i64", np.int64)]:
    for axis in [-1, 0, 1, 2]:
        add(f"one_hot_axis{axis}_{ti_name}",
            lambda i, d, a, b, axis=axis: raw.OneHot(indices=i, depth=d, on_value=a,
                                                     off_value=b, axis=axis),
            [np.array([[0, 2, 1], [3, 1, 9]], ti), i32(4), np.float32(5), np.float32(-1)])
add("one_hot_scalar_index",
    lambda i, d, a, b: raw.OneHot(indices=i, depth=d, on_value=a, off_value=b),
    [i32(2), i32(3), np.float64(1), np.float64(0)])
add("one_hot_depth_zero",
    lambda i, d, a, b: raw.OneHot(indices=i, depth=d, on_value=a, off_value=b, axis=0),
    [i32([1, 2]), i32(0), np.float32(1), np.float32(0)])
add("one_hot_empty_indices",
    lambda i, d, a, b: raw.OneHot(indices=i, depth=d, on_value=a, off_value=b),
    [np.zeros((0, 2), np.int32), i32(3), np.float32(1), np.float32(0)])
for name, d, a, b, axis, msg in [
        ("depth_negative", i32(-1), 1.0, 0.0, -1, "depth must be non-negative, got: -1"),
        ("axis_high", i32(3), 1.0, 0.0, 2,
         "Expected axis to be -1 or between [0, 2).  But received: 2"),
        ("depth_shape", i32([3]), 1.0, 0.0, -1, "depth must be a scalar, but got: [1]"),
        ("on_shape", i32(3), [1.0], 0.0, -1, "on_value must be a scalar, but got: [1]"),
        ("off_shape", i32(3), 1.0, [0.0], -1, "off_value must be a scalar, but got: [1]")]:
    add_error(f"one_hot_error_{name}",
              lambda i, d, a, b, axis=axis: raw.OneHot(indices=i, depth=d, on_value=a,
                                                       off_value=b, axis=axis),
              [i32([1, 2]), d, np.asarray(a, np.float32), np.asarray(b, np.float32)], msg)

# --- StridedSliceGrad, TensorStridedSliceUpdate ---------------------------------


def ss_grad(**masks):
    return lambda shape, b, e, s, dy: raw.StridedSliceGrad(
        shape=shape, begin=b, end=e, strides=s, dy=dy, **masks)


def ss_update(**masks):
    return lambda x, b, e, s, v: raw.TensorStridedSliceUpdate(
        input=x, begin=b, end=e, strides=s, value=v, **masks)


def slice_shape(shape, b, e, s, masks):
    """The shape StridedSlice gives, from TensorFlow itself (numpy-free)."""
    x = np.zeros(shape, np.float32)
    return tuple(raw.StridedSlice(input=x, begin=i32(b), end=i32(e),
                                  strides=i32(s), **masks).shape)


for name, shape, b, e, s, masks in SS_CASES:
    out = slice_shape(shape, b, e, s, masks)
    add(f"strided_slice_grad_{name}", ss_grad(**masks),
        [i32(shape), i32(b), i32(e), i32(s), vals(np.float32, out, 1)])
    add(f"tensor_strided_slice_update_{name}", ss_update(**masks),
        [vals(np.float32, shape), i32(b), i32(e), i32(s),
         vals(np.float32, out, 100)])
for n, dt in MOVABLE.items():
    add(f"strided_slice_grad_{n}", ss_grad(),
        [i32([5, 6]), i32([1, 0]), i32([5, 6]), i32([2, 3]),
         vals(dt, (2, 2))])
    add(f"tensor_strided_slice_update_{n}", ss_update(end_mask=1),
        [vals(dt, (6,)), i32([-1]), i32([0]), i32([-2]), vals(dt, (3,), 50)])
add("strided_slice_grad_int64", ss_grad(shrink_axis_mask=2),
    [i64([3, 4]), i64([0, 2]), i64([3, 3]), i64([1, 1]),
     vals(np.float64, (3,))])
add("strided_slice_grad_empty", ss_grad(),
    [i32([0, 4]), i32([0]), i32([0]), i32([1]), np.zeros((0, 4), np.float32)])
add_error("strided_slice_grad_dy_shape", ss_grad(),
          [i32([5, 6]), i32([1, 0]), i32([5, 6]), i32([2, 3]),
           vals(np.float32, (2, 3))], "shape of dy was [2,3] instead of [2,2]")
add_error("strided_slice_grad_bad_spec", ss_grad(),
          [i32([5, 6]), i32([1, 0]), i32([5, 6]), i32([0, 3]),
           vals(np.float32, (2, 2))], "strides[0] must be non-zero")
# The update broadcasts its value to the slice's shape, numpy-style.
add("tensor_strided_slice_update_broadcast_row", ss_update(),
    [vals(np.float32, (4, 3)), i32([0]), i32([4]), i32([2]),
     vals(np.float32, (3,), 9)])
add("tensor_strided_slice_update_broadcast_scalar", ss_update(),
    [vals(np.int32, (4, 3)), i32([1, 0]), i32([3, 3]), i32([1, 2]),
     np.int32(-7)])
add("tensor_strided_slice_update_broadcast_ones", ss_update(),
    [vals(np.float64, (2, 3, 4)), i32([0, 1]), i32([2, 3]), i32([1, 1]),
     vals(np.float64, (2, 1, 4), 5)])
add("tensor_strided_slice_update_empty_slice", ss_update(),
    [vals(np.float32, (6,)), i32([4]), i32([2]), i32([1]),
     np.zeros((0,), np.float32)])
add_error("tensor_strided_slice_update_not_broadcastable", ss_update(),
          [vals(np.float32, (4, 3)), i32([0]), i32([4]), i32([1]),
           vals(np.float32, (2,))],
          "Cannot broadcast input shape [2] into final shape [4,3]")
# Extra leading dims of 1 are accepted; others are not.
add("tensor_strided_slice_update_leading_ones", ss_update(),
    [vals(np.float32, (4, 3)), i32([0]), i32([4]), i32([1]),
     vals(np.float32, (1, 1, 4, 1), 3)])
add_error("tensor_strided_slice_update_value_rank_too_high", ss_update(),
          [vals(np.float32, (4, 3)), i32([0]), i32([4]), i32([1]),
           vals(np.float32, (2, 4, 3))],
          "Cannot broadcast input shape [2,4,3] into final shape [4,3]")

# --- ScatterNd, TensorScatter*, ScatterNdNonAliasingAdd ---------------------


def scatter_nd(policy=""):
    return lambda i, u, s: raw.ScatterNd(indices=i, updates=u, shape=s,
                                         bad_indices_policy=policy)


def tensor_scatter(op, policy=""):
    return lambda t, i, u: getattr(raw, op)(tensor=t, indices=i, updates=u,
                                            bad_indices_policy=policy)


NUMBERS = {k: v for k, v in NUMERIC.items() if v is not np.bool_}
for n, dt in NUMBERS.items():
    # Repeated index 0: ScatterNd adds both.
    add(f"scatter_nd_{n}", scatter_nd(),
        [i32([[0], [2], [0]]), vals(dt, (3, 2), 1), i32([4, 2])])
    for op in ("TensorScatterAdd", "TensorScatterSub"):
        add(f"{op}_{n}", tensor_scatter(op),
            [vals(dt, (4, 2)), i64([[1, 0], [3, 1], [1, 0]]),
             vals(dt, (3,), 5)])
    add(f"scatter_nd_non_aliasing_add_{n}",
        lambda x, i, u: raw.ScatterNdNonAliasingAdd(input=x, indices=i,
                                                   updates=u),
        [vals(dt, (4, 2)), i32([[2], [0]]), vals(dt, (2, 2), 3)])
    if dt not in (np.complex64, np.complex128):
        for op in ("TensorScatterMin", "TensorScatterMax"):
            add(f"{op}_{n}", tensor_scatter(op),
                [vals(dt, (5,)), i32([[1], [4], [1]]), vals(dt, (3,), 2)])
for n, dt in MOVABLE.items():
    # Repeated index: the last update wins.
    add(f"tensor_scatter_update_{n}", tensor_scatter("TensorScatterUpdate"),
        [vals(dt, (3, 2)), i32([[2], [0], [2]]), vals(dt, (3, 2), 10)])
add("scatter_nd_string", scatter_nd(),
    [i32([[1], [3]]), vals(bytes, (2,)), i32([4])])
add("scatter_nd_full_index", scatter_nd(),
    [i64([[1, 2], [0, 0], [1, 2]]), vals(np.float64, (3,)), i64([2, 3])])
add("scatter_nd_k0_whole", scatter_nd(),
    [np.zeros((2, 0), np.int32), vals(np.float32, (2, 3)), i32([3])])
add("scatter_nd_empty", scatter_nd(),
    [np.zeros((0, 1), np.int32), np.zeros((0,), np.float32), i32([4])])
add("scatter_nd_batched_indices", scatter_nd(),
    [i32([[[0], [1]], [[1], [3]]]), vals(np.float32, (2, 2, 3)), i32([4, 3])])
add("scatter_nd_ignore_bad", scatter_nd("IGNORE"),
    [i32([[0], [5], [-1]]), vals(np.float32, (3,), 1), i32([4])])
add("tensor_scatter_update_ignore_bad",
    tensor_scatter("TensorScatterUpdate", "IGNORE"),
    [vals(np.float32, (4,)), i32([[9], [1]]), vals(np.float32, (2,), 7)])
add("tensor_scatter_update_empty_indices",
    tensor_scatter("TensorScatterUpdate"),
    [vals(np.float32, (2,)), np.zeros((0, 1), np.int32),
     np.zeros((0,), np.float32)])
add_error("scatter_nd_out_of_range", scatter_nd(),
          [i32([[0], [5]]), vals(np.float32, (2,)), i32([4])],
          "indices[1] = [5] does not index into shape [4]")
add_error("scatter_nd_negative_index", scatter_nd(),
          [i32([[0], [-1]]), vals(np.float32, (2,)), i32([4])],
          "indices[1] = [-1] does not index into shape [4]")
add_error("scatter_nd_outer_mismatch", scatter_nd(),
          [i32([[0], [1]]), vals(np.float32, (3,)), i32([4])],
          "Dimensions [0,1) of indices[shape=[2,1]] must match dimensions "
          "[0,1) of updates[shape=[3]]")
add_error("scatter_nd_inner_mismatch", scatter_nd(),
          [i32([[0, 1, 2]]), vals(np.float32, (1,)), i32([4, 4])],
          "Dimensions [3,2) of input[shape=[4,4]] must match dimensions "
          "[1,1) of updates[shape=[1]]")
add_error("scatter_nd_empty_output", scatter_nd(),
          [i32([[0]]), vals(np.float32, (1,)), i32([0])],
          "Indices and updates specified for empty output.  indices shape: "
          "[1,1]")
add_error("scatter_nd_negative_shape", scatter_nd(),
          [i32([[1]]), vals(np.float32, (1,)), i32([-3])], "-3")
add_error("scatter_nd_shape_not_vector", scatter_nd(),
          [i32([[1]]), vals(np.float32, (1,)), i32([[4]])],
          "Shape must be a vector")
add_error("scatter_nd_scalar_indices", scatter_nd(),
          [i32(1), vals(np.float32, (1,)), i32([4])],
          "Indices shape must have rank at least one. Found:[]")
add_error("scatter_nd_unknown_policy", scatter_nd("SKIP"),
          [i32([[1]]), vals(np.float32, (1,)), i32([4])], "SKIP")
add_error("tensor_scatter_add_out_of_range", tensor_scatter("TensorScatterAdd"),
          [vals(np.float32, (4,)), i32([[1], [4]]), vals(np.float32, (2,))],
          "indices[1] = [4] does not index into shape [4]")
add_error("tensor_scatter_update_outer_mismatch",
          tensor_scatter("TensorScatterUpdate"),
          [vals(np.float32, (4,)), i32([[1], [2]]), vals(np.float32, (1,))],
          "Outer dimensions of indices and update must match. Indices shape: "
          "[2,1], updates shape:[1]")
add_error("tensor_scatter_update_scalar_tensor",
          tensor_scatter("TensorScatterUpdate"),
          [np.float32(1), i32([[1]]), vals(np.float32, (1,))],
          "Inner dimensions of output shape must match inner dimensions of "
          "updates shape. Output: [] updates: [1]")
add_error("tensor_scatter_update_inner_mismatch",
          tensor_scatter("TensorScatterUpdate"),
          [vals(np.float32, (4, 3)), i32([[1]]), vals(np.float32, (1, 2))],
          "The inner 1 dimensions of output.shape=[4,3] must match the inner "
          "1 dimensions of updates.shape=[1,2]")
add_error("tensor_scatter_update_k0_empty_output",
          tensor_scatter("TensorScatterUpdate"),
          [vals(np.float32, (2,)), np.zeros((1, 0), np.int32),
           vals(np.float32, (1, 2))],
          "Indices and updates specified for empty output shape")

# --- EnsureShape, BroadcastArgs, MatrixBandPart, Roll, ReverseSequence ---------


def ensure_shape(shape):
    return lambda x: raw.EnsureShape(input=x, shape=shape)


add("ensure_shape_exact", ensure_shape([2, 3]), [vals(np.float32, (2, 3))])
add("ensure_shape_partial", ensure_shape([None, 3]), [vals(np.int64, (5, 3))])
add("ensure_shape_unknown_rank", ensure_shape(None), [vals(bytes, (2,))])
add_error("ensure_shape_mismatch", ensure_shape([None, 4]),
          [vals(np.float32, (2, 3))],
          "Shape of tensor input [2,3] is not compatible with expected shape "
          "[?,4].")
add_error("ensure_shape_rank_mismatch", ensure_shape([2]),
          [vals(np.float32, (2, 1))], "is not compatible with expected shape")

broadcast_args = lambda a, b: raw.BroadcastArgs(s0=a, s1=b)  # noqa: E731
add("broadcast_args_i32", broadcast_args, [i32([2, 1, 3]), i32([4, 1])])
add("broadcast_args_i64", broadcast_args, [i64([5, 1]), i64([1])])
add("broadcast_args_scalar_shape", broadcast_args,
    [np.zeros((0,), np.int32), i32([3, 2])])
add("broadcast_args_zero_dim", broadcast_args, [i32([0, 1]), i32([1, 4])])
add_error("broadcast_args_incompatible", broadcast_args,
          [i32([2, 3]), i32([4])], "Incompatible shapes: [2,3] vs. [4]")


def band(x, lo, hi):
    return raw.MatrixBandPart(input=x, num_lower=lo, num_upper=hi)


for n, dt in NUMERIC.items():  # TensorFlow has no string kernel
    add(f"matrix_band_part_{n}", band, [vals(dt, (2, 3, 4)), i64(1), i64(0)])
add("matrix_band_part_upper_all", band,
    [vals(np.float32, (4, 3)), i32(0), i32(-1)])
add("matrix_band_part_lower_all", band,
    [vals(np.float64, (3, 5)), i64(-1), i64(2)])
add("matrix_band_part_whole", band,
    [vals(np.float32, (2, 2, 3, 3)), i64(-1), i64(-1)])
add("matrix_band_part_diag", band, [vals(np.int32, (5, 5)), i64(0), i64(0)])
add("matrix_band_part_empty", band,
    [np.zeros((0, 3, 3), np.float32), i64(1), i64(1)])
add_error("matrix_band_part_lower_too_big", band,
          [vals(np.float32, (3, 4)), i64(5), i64(0)],
          "num_lower must be negative or less or equal to number of rows (3) "
          "got: 5")
add_error("matrix_band_part_upper_too_big", band,
          [vals(np.float32, (3, 4)), i64(0), i64(5)],
          "num_upper must be negative or less or equal to number of columns "
          "(4) got: 5")
add_error("matrix_band_part_vector", band,
          [vals(np.float32, (3,)), i64(0), i64(0)],
          "input must be at least 2-dim, received shape: [3]")


def roll(x, s, a):
    return raw.Roll(input=x, shift=s, axis=a)


for n, dt in MOVABLE.items():
    add(f"roll_{n}", roll, [vals(dt, (3, 4)), i32(1), i32(1)])
add("roll_negative_shift", roll, [vals(np.float32, (7,)), i64(-3), i64(0)])
add("roll_big_shift", roll, [vals(np.float32, (5,)), i32(13), i32(-1)])
add("roll_multi_axis", roll,
    [vals(np.int64, (2, 3, 4)), i32([1, -2, 5]), i64([0, 1, 2])])
add("roll_same_axis_twice", roll,
    [vals(np.float32, (6,)), i32([2, 3]), i32([0, 0])])
add("roll_empty", roll, [np.zeros((0, 3), np.float32), i32(1), i32(1)])
add_error("roll_axis_out_of_range", roll,
          [vals(np.float32, (2, 3)), i32(1), i32(2)], "axis 2 is out of range")
add_error("roll_size_mismatch", roll,
          [vals(np.float32, (2, 3)), i32([1, 2]), i32([0])],
          "shift and axis must have the same size")


def rev_seq(seq_dim, batch_dim=0):
    return lambda x, lens: raw.ReverseSequence(
        input=x, seq_lengths=lens, seq_dim=seq_dim, batch_dim=batch_dim)


for n, dt in MOVABLE.items():
    add(f"reverse_sequence_{n}", rev_seq(1),
        [vals(dt, (3, 4, 2)), i64([4, 0, 2])])
add("reverse_sequence_batch_after_seq", rev_seq(0, 2),
    [vals(np.float32, (5, 2, 3)), i32([5, 1, 3])])
add("reverse_sequence_batch_middle", rev_seq(2, 1),
    [vals(np.int32, (2, 3, 4, 2)), i64([1, 4, 3])])
add_error("reverse_sequence_too_long", rev_seq(1),
          [vals(np.float32, (2, 3)), i64([4, 1])], "> input.dims(1)")
add_error("reverse_sequence_wrong_count", rev_seq(1),
          [vals(np.float32, (3, 3)), i64([1, 1])],
          "Length of seq_lengths != input.dims(0), (2 vs. 3)")
add_error("reverse_sequence_negative", rev_seq(1),
          [vals(np.float32, (2, 3)), i64([1, -1])], "seq_lens(1) < 0")

# --- DepthToSpace, SpaceToDepth, MirrorPadGrad --------------------------------


def d2s(b):
    return lambda x: raw.DepthToSpace(input=x, block_size=b)


def s2d(b):
    return lambda x: raw.SpaceToDepth(input=x, block_size=b)


for n, dt in MOVABLE.items():
    add(f"depth_to_space_{n}", d2s(2), [vals(dt, (2, 2, 3, 8))])
    add(f"space_to_depth_{n}", s2d(2), [vals(dt, (2, 4, 6, 3))])
add("depth_to_space_block3", d2s(3), [vals(np.float32, (1, 2, 2, 18))])
add("space_to_depth_block3", s2d(3), [vals(np.float32, (1, 6, 3, 2))])
add_error("depth_to_space_indivisible", d2s(2), [vals(np.float32, (1, 2, 2, 6))],
          "Input depth dimension 6 should be divisible by: 4")
add_error("space_to_depth_indivisible", s2d(2), [vals(np.float32, (1, 3, 2, 1))],
          "Image width 2 and height 3 should be divisible by block_size: 2")
add_error("space_to_depth_rank", s2d(2), [vals(np.float32, (2, 2, 2))],
          "Input rank should be 4 instead of 3")


def mirror_pad_grad(mode):
    return lambda x, p: raw.MirrorPadGrad(input=x, paddings=p, mode=mode)


for n, dt in NUMBERS.items():
    add(f"mirror_pad_grad_reflect_{n}", mirror_pad_grad("REFLECT"),
        [vals(dt, (6, 7)), i32([[2, 1], [3, 2]])])
    add(f"mirror_pad_grad_symmetric_{n}", mirror_pad_grad("SYMMETRIC"),
        [vals(dt, (7, 9)), i64([[3, 1], [1, 4]])])
add("mirror_pad_grad_3d", mirror_pad_grad("REFLECT"),
    [vals(np.float32, (4, 9, 7)), i32([[0, 0], [2, 3], [1, 1]])])
add("mirror_pad_grad_identity", mirror_pad_grad("SYMMETRIC"),
    [vals(np.float32, (2, 3)), i32([[0, 0], [0, 0]])])
add_error("mirror_pad_grad_too_big", mirror_pad_grad("REFLECT"),
          [vals(np.float32, (3, 3)), i32([[2, 1], [0, 0]])],
          "Total paddings must be less than the input dimension size: 3 was "
          "not less than 3")

# --- Diag, MatrixDiag, MatrixDiagPart, MatrixSetDiag (V1-V3) ------------------

ALIGNS = ("RIGHT_LEFT", "LEFT_RIGHT", "LEFT_LEFT", "RIGHT_RIGHT")
POD = NUMERIC  # TensorFlow's TF_CALL_POD_TYPES: numbers and bool


def matrix_diag_v3(align="RIGHT_LEFT"):
    return lambda d, k, r, c, p: raw.MatrixDiagV3(
        diagonal=d, k=k, num_rows=r, num_cols=c, padding_value=p, align=align)


def matrix_diag_part_v3(align="RIGHT_LEFT"):
    return lambda x, k, p: raw.MatrixDiagPartV3(input=x, k=k, padding_value=p,
                                                align=align)


def matrix_set_diag_v3(align="RIGHT_LEFT"):
    return lambda x, d, k: raw.MatrixSetDiagV3(input=x, diagonal=d, k=k,
                                               align=align)


for n, dt in {k: v for k, v in NUMERIC.items() if k != "bool" and
              k not in ("u8", "i8", "i16")}.items():
    add(f"diag_{n}", lambda d: raw.Diag(diagonal=d), [vals(dt, (2, 3))])
for n, dt in POD.items():
    add(f"matrix_diag_{n}", lambda d: raw.MatrixDiag(diagonal=d),
        [vals(dt, (2, 3))])
    add(f"matrix_diag_part_{n}", lambda x: raw.MatrixDiagPart(input=x),
        [vals(dt, (2, 3, 4))])
    add(f"matrix_set_diag_{n}",
        lambda x, d: raw.MatrixSetDiag(input=x, diagonal=d),
        [vals(dt, (2, 4, 3)), vals(dt, (2, 3), 50)])
    add(f"matrix_diag_v3_band_{n}", matrix_diag_v3(),
        [vals(dt, (2, 3, 3)), i32([-1, 1]), i32(-1), i32(-1),
         vals(dt, (), 7)])
    add(f"matrix_diag_part_v3_band_{n}", matrix_diag_part_v3(),
        [vals(dt, (2, 3, 4)), i32([-2, 1]), vals(dt, (), 9)])
    add(f"matrix_set_diag_v3_band_{n}", matrix_set_diag_v3(),
        [vals(dt, (2, 3, 4)), vals(dt, (2, 3, 3), 40), i32([-1, 1])])
for align in ALIGNS:
    add(f"matrix_diag_v3_{align}", matrix_diag_v3(align),
        [vals(np.float32, (2, 4, 3), 1), i32([-2, 1]), i32(4), i32(5),
         np.float32(-1)])
    add(f"matrix_diag_part_v3_{align}", matrix_diag_part_v3(align),
        [vals(np.float32, (2, 4, 5)), i32([-3, 2]), np.float32(-9)])
    add(f"matrix_diag_part_v3_super_{align}", matrix_diag_part_v3(align),
        [vals(np.int32, (5, 3)), i32([1, 2]), i32(0)])
    add(f"matrix_set_diag_v3_{align}", matrix_set_diag_v3(align),
        [vals(np.float64, (4, 5)), vals(np.float64, (4, 4), 100),
         i32([-1, 2])])
add("matrix_diag_v2_band", lambda d, k, r, c, p: raw.MatrixDiagV2(
    diagonal=d, k=k, num_rows=r, num_cols=c, padding_value=p),
    [vals(np.float32, (2, 3), 1), i32([0, 1]), i32(-1), i32(-1),
     np.float32(0)])
add("matrix_diag_part_v2_band", lambda x, k, p: raw.MatrixDiagPartV2(
    input=x, k=k, padding_value=p),
    [vals(np.float32, (4, 3)), i32([-2, 0]), np.float32(5)])
add("matrix_set_diag_v2_band", lambda x, d, k: raw.MatrixSetDiagV2(
    input=x, diagonal=d, k=k),
    [vals(np.int64, (3, 3)), vals(np.int64, (2, 3), 10), i32([-1, 0])])
add("matrix_diag_v3_one_subdiag_rows", matrix_diag_v3(),
    [vals(np.float32, (3,)), i32(-2), i32(-1), i32(-1), np.float32(0)])
add("matrix_diag_v3_num_rows_given", matrix_diag_v3(),
    [vals(np.float32, (2, 3)), i32(1), i32(5), i32(-1), np.float32(0)])
add("matrix_diag_v3_num_cols_given", matrix_diag_v3(),
    [vals(np.float32, (3,)), i32(0), i32(-1), i32(6), np.float32(2)])
add("matrix_diag_v3_eye", matrix_diag_v3(),
    [np.ones((4,), np.float32), i32(0), i32(4), i32(6), np.float32(0)])
add("matrix_diag_part_v3_scalar_k", matrix_diag_part_v3(),
    [vals(np.float32, (3, 5)), i32(2), np.float32(0)])
add("matrix_diag_part_v3_empty", matrix_diag_part_v3(),
    [np.zeros((2, 0, 3), np.float32), i32(0), np.float32(0)])
add("matrix_diag_part_v3_k_vector1", matrix_diag_part_v3(),
    [vals(np.float32, (3, 3)), i32([-1]), np.float32(0)])
add("matrix_set_diag_empty", lambda x, d: raw.MatrixSetDiag(input=x,
                                                            diagonal=d),
    [np.zeros((0, 3, 3), np.float32), np.zeros((0, 3), np.float32)])
add_error("matrix_diag_part_k_out_of_bound", matrix_diag_part_v3(),
          [vals(np.float32, (3, 4)), i32([-5, 0]), np.float32(0)],
          "lower_diag_index is out of bound: -5")
add_error("matrix_diag_part_upper_out_of_bound", matrix_diag_part_v3(),
          [vals(np.float32, (3, 4)), i32([0, 4]), np.float32(0)],
          "upper_diag_index is out of bound: 4")
add_error("matrix_diag_part_k_unordered", matrix_diag_part_v3(),
          [vals(np.float32, (3, 4)), i32([1, 0]), np.float32(0)],
          "lower_diag_index must not be larger than upper_diag_index: 1 > 0")
add_error("matrix_diag_part_k_three", matrix_diag_part_v3(),
          [vals(np.float32, (3, 4)), i32([0, 1, 2]), np.float32(0)],
          "diag_index must have only one or two elements, received 3 "
          "elements.")
add_error("matrix_diag_part_k_matrix", matrix_diag_part_v3(),
          [vals(np.float32, (3, 4)), i32([[0, 1]]), np.float32(0)],
          "diag_index must be a scalar or vector, received shape: [1,2]")
add_error("matrix_diag_part_vector", lambda x: raw.MatrixDiagPart(input=x),
          [vals(np.float32, (3,))],
          "input must be at least 2-dim, received shape: [3]")
add_error("matrix_diag_scalar", lambda d: raw.MatrixDiag(diagonal=d),
          [np.float32(1)], "diagonal must be at least 1-dim, received shape: []")
add_error("matrix_diag_num_diags_mismatch", matrix_diag_v3(),
          [vals(np.float32, (2, 3)), i32([-2, 0]), i32(-1), i32(-1),
           np.float32(0)],
          "The number of diagonals provided in the input does not match the "
          "lower_diag_index and upper_diag_index range.")
add_error("matrix_diag_rows_too_small", matrix_diag_v3(),
          [vals(np.float32, (3,)), i32(-1), i32(3), i32(-1), np.float32(0)],
          "The number of rows is too small.")
add_error("matrix_diag_cols_too_small", matrix_diag_v3(),
          [vals(np.float32, (3,)), i32(1), i32(-1), i32(3), np.float32(0)],
          "The number of columns is too small.")
add_error("matrix_diag_rows_cols_inconsistent", matrix_diag_v3(),
          [vals(np.float32, (3,)), i32(0), i32(5), i32(5), np.float32(0)],
          "The number of rows or columns is not consistent with the specified "
          "d_lower, d_upper, and diagonal.")
add_error("matrix_set_diag_shape_mismatch",
          lambda x, d: raw.MatrixSetDiag(input=x, diagonal=d),
          [vals(np.float32, (2, 3, 3)), vals(np.float32, (2, 2))],
          "Either first dimensions of diagonal don't match input.shape[:-2]")
add_error("matrix_set_diag_num_diags_mismatch", matrix_set_diag_v3(),
          [vals(np.float32, (3, 3)), vals(np.float32, (3, 3)), i32([-1, 0])],
          "The number of diagonals provided in `diag` is not consistent")
add_error("matrix_set_diag_out_of_bound", matrix_set_diag_v3(),
          [vals(np.float32, (3, 3)), vals(np.float32, (1,)), i32(3)],
          "lower_diag_index is out of bound: 3")
add_error("matrix_set_diag_scalar_diagonal",
          lambda x, d: raw.MatrixSetDiag(input=x, diagonal=d),
          [vals(np.float32, (3, 3)), np.float32(1)],
          "diagonal must be at least 1-dim, received shape: []")
add_error("diag_scalar", lambda d: raw.Diag(diagonal=d), [np.float32(2)],
          "Input must be at least rank 1, got 0")

ArrayOracleTest = tf_oracle.make_test_class("kernels/array/run_array_cases",
                                            cases)
