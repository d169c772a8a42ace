// Array ops: graph sources (Const, Placeholder), pass-throughs (Identity,
// StopGradient) and ops that rearrange elements without arithmetic.
//
// Index-typed inputs (shapes, axes, permutations) take their own type attr
// (Tshape, Tidx, Tperm, ...) defaulting to int32, as in TensorFlow, so
// GraphDefs written before int64 indices existed still validate once defaults
// are filled in.

#include "common/op/op_registry.h"

// One builder call per line reads like the op signature it defines;
// clang-format would fold short chains onto one line.
// clang-format off

namespace tributary {

// --- Sources and pass-throughs ---------------------------------------------

// `value` holds the tensor; `dtype` must equal value.dtype (checked by the
// kernel, not the signature).
REGISTER_OP("Const")
    .Output("output: dtype")
    .Attr("value: tensor")
    .Attr("dtype: type");

// Must be fed. The default shape is unknown rank: a Placeholder without a
// `shape` attr accepts any feed.
REGISTER_OP("Placeholder")
    .Output("output: dtype")
    .Attr("dtype: type")
    .Attr("shape: shape = { unknown_rank: true }");

// Yields `input` unless fed; `shape` may be less specific than input's shape.
REGISTER_OP("PlaceholderWithDefault")
    .Input("input: dtype")
    .Output("output: dtype")
    .Attr("dtype: type")
    .Attr("shape: shape");

REGISTER_OP("Identity")
    .Input("input: T")
    .Output("output: T")
    .Attr("T: type");

// Identity over a list of tensors of possibly different types.
REGISTER_OP("IdentityN")
    .Input("input: T")
    .Output("output: T")
    .Attr("T: list(type) >= 1");

// Identity for the forward pass; gradient construction treats it as a leaf.
REGISTER_OP("StopGradient")
    .Input("input: T")
    .Output("output: T")
    .Attr("T: type");

// The same bytes read as another type: equal sizes keep the shape, a
// smaller output type adds a last dimension, a larger one removes it.
REGISTER_OP("Bitcast")
    .Input("input: T")
    .Output("output: type")
    .Attr("T: {bfloat16, half, float, double, int64, int32, uint8, uint16, uint32, uint64, int8, int16, complex64, complex128, qint8, quint8, qint16, quint16, qint32}")
    .Attr("type: {bfloat16, half, float, double, int64, int32, uint8, uint16, uint32, uint64, int8, int16, complex64, complex128, qint8, quint8, qint16, quint16, qint32}");

// --- Shape queries -----------------------------------------------------------

REGISTER_OP("Shape")
    .Input("input: T")
    .Output("output: out_type")
    .Attr("T: type")
    .Attr("out_type: {int32, int64} = DT_INT32");

// Shape of each of N inputs (one op instead of N Shape ops; gradients of
// broadcasting ops use it).
REGISTER_OP("ShapeN")
    .Input("input: N * T")
    .Output("output: N * out_type")
    .Attr("N: int >= 1")
    .Attr("T: type")
    .Attr("out_type: {int32, int64} = DT_INT32");

REGISTER_OP("Size")
    .Input("input: T")
    .Output("output: out_type")
    .Attr("T: type")
    .Attr("out_type: {int32, int64} = DT_INT32");

REGISTER_OP("Rank")
    .Input("input: T")
    .Output("output: int32")
    .Attr("T: type");

// Broadcasting helpers used by gradients: r0/r1 are the reduction axes that
// undo broadcasting s0 and s1 against each other.
REGISTER_OP("BroadcastGradientArgs")
    .Input("s0: T")
    .Input("s1: T")
    .Output("r0: T")
    .Output("r1: T")
    .Attr("T: {int32, int64} = DT_INT32");

// The broadcast of shapes s0 and s1 (tf.broadcast_dynamic_shape).
REGISTER_OP("BroadcastArgs")
    .Input("s0: T")
    .Input("s1: T")
    .Output("r0: T")
    .Attr("T: {int32, int64} = DT_INT32");

// The input, after checking its shape against `shape` (tf.ensure_shape).
REGISTER_OP("EnsureShape")
    .Input("input: T")
    .Output("output: T")
    .Attr("shape: shape")
    .Attr("T: type");

// --- Creation ----------------------------------------------------------------

REGISTER_OP("Fill")
    .Input("dims: index_type")
    .Input("value: T")
    .Output("output: T")
    .Attr("T: type")
    .Attr("index_type: {int32, int64} = DT_INT32");

REGISTER_OP("ZerosLike")
    .Input("x: T")
    .Output("y: T")
    .Attr("T: type");

// Unlike ZerosLike, restricted to types that have a "one".
REGISTER_OP("OnesLike")
    .Input("x: T")
    .Output("y: T")
    .Attr(
        "T: {bfloat16, half, float, double, int8, uint8, int16, uint16, int32, "
        "uint32, int64, uint64, complex64, complex128, bool}");

// --- Reshaping ---------------------------------------------------------------

REGISTER_OP("Reshape")
    .Input("tensor: T")
    .Input("shape: Tshape")
    .Output("output: T")
    .Attr("T: type")
    .Attr("Tshape: {int32, int64} = DT_INT32");

REGISTER_OP("ExpandDims")
    .Input("input: T")
    .Input("dim: Tdim")
    .Output("output: T")
    .Attr("T: type")
    .Attr("Tdim: {int32, int64} = DT_INT32");

// Empty squeeze_dims means "every dimension of size 1".
REGISTER_OP("Squeeze")
    .Input("input: T")
    .Output("output: T")
    .Attr("T: type")
    .Attr("squeeze_dims: list(int) >= 0 = []");

REGISTER_OP("BroadcastTo")
    .Input("input: T")
    .Input("shape: Tidx")
    .Output("output: T")
    .Attr("T: type")
    .Attr("Tidx: {int32, int64} = DT_INT32");

// --- Joining and splitting ---------------------------------------------------

// The axis comes last (unlike the deprecated Concat), so `values` and `axis`
// keep stable input indices 0..N-1 and N.
REGISTER_OP("ConcatV2")
    .Input("values: N * T")
    .Input("axis: Tidx")
    .Output("output: T")
    .Attr("N: int >= 2")
    .Attr("T: type")
    .Attr("Tidx: {int32, int64} = DT_INT32");

REGISTER_OP("ConcatOffset")
    .Input("concat_dim: int32")
    .Input("shape: N * shape_type")
    .Output("offset: N * shape_type")
    .Attr("N: int >= 2")
    .Attr("shape_type: {int32, int64} = DT_INT32");

REGISTER_OP("InvertPermutation")
    .Input("x: T")
    .Output("y: T")
    .Attr("T: {int32, int64} = DT_INT32");

REGISTER_OP("Pack")
    .Input("values: N * T")
    .Output("output: T")
    .Attr("N: int >= 1")
    .Attr("T: type")
    .Attr("axis: int = 0");

REGISTER_OP("Unpack")
    .Input("value: T")
    .Output("output: num * T")
    .Attr("num: int >= 0")
    .Attr("T: type")
    .Attr("axis: int = 0");

// The coordinates of the true (non-zero) elements, [count, rank] int64.
REGISTER_OP("Where")
    .Input("input: T")
    .Attr("T: {numbertype, bool} = DT_BOOL")
    .Output("index: int64");

// A [d1..dk, d1..dk] tensor with `diagonal` on its diagonal, zeros elsewhere.
REGISTER_OP("Diag")
    .Input("diagonal: T")
    .Output("output: T")
    .Attr(
        "T: {bfloat16, half, float, double, int32, int64, complex64, "
        "complex128}");

// The diagonal of a [d1..dk, d1..dk] tensor, shape [d1..dk].
REGISTER_OP("DiagPart")
    .Input("input: T")
    .Output("diagonal: T")
    .Attr(
        "T: {bfloat16, half, float, double, int32, int64, complex64, "
        "complex128}");

// --- Reordering and slicing --------------------------------------------------

REGISTER_OP("Transpose")
    .Input("x: T")
    .Input("perm: Tperm")
    .Output("y: T")
    .Attr("T: type")
    .Attr("Tperm: {int32, int64} = DT_INT32");

// Reverses `tensor` along the dims listed in `axis` (negative counts from the
// end). TensorFlow declares Tidx before T.
REGISTER_OP("ReverseV2")
    .Input("tensor: T")
    .Input("axis: Tidx")
    .Output("output: T")
    .Attr("Tidx: {int32, int64} = DT_INT32")
    .Attr("T: {uint8, int8, uint16, int16, int32, uint32, int64, uint64, "
          "bool, bfloat16, half, float, double, complex64, complex128, "
          "string}");

REGISTER_OP("Tile")
    .Input("input: T")
    .Input("multiples: Tmultiples")
    .Output("output: T")
    .Attr("T: type")
    .Attr("Tmultiples: {int32, int64} = DT_INT32");

// Pads with zeros (Pad) or a scalar (PadV2); paddings is a [rank, 2] matrix
// of (before, after) counts.
REGISTER_OP("Pad")
    .Input("input: T")
    .Input("paddings: Tpaddings")
    .Output("output: T")
    .Attr("T: type")
    .Attr("Tpaddings: {int32, int64} = DT_INT32");

REGISTER_OP("PadV2")
    .Input("input: T")
    .Input("paddings: Tpaddings")
    .Input("constant_values: T")
    .Output("output: T")
    .Attr("T: type")
    .Attr("Tpaddings: {int32, int64} = DT_INT32");

// Pads with the input mirrored at each edge, without (REFLECT) or with
// (SYMMETRIC) the edge element itself.
REGISTER_OP("MirrorPad")
    .Input("input: T")
    .Input("paddings: Tpaddings")
    .Output("output: T")
    .Attr("T: type")
    .Attr("Tpaddings: {int32, int64} = DT_INT32")
    .Attr("mode: {'REFLECT', 'SYMMETRIC'}");

// num_split equal pieces along split_dim (which comes first, unlike SplitV).
REGISTER_OP("Split")
    .Input("split_dim: int32")
    .Input("value: T")
    .Output("output: num_split * T")
    .Attr("num_split: int >= 1")
    .Attr("T: type");

// Pieces of size_splits[i] along split_dim; one size may be -1 (the rest).
REGISTER_OP("SplitV")
    .Input("value: T")
    .Input("size_splits: Tlen")
    .Input("split_dim: int32")
    .Output("output: num_split * T")
    .Attr("num_split: int >= 1")
    .Attr("T: type")
    .Attr("Tlen: {int8, int32, int64} = DT_INT64");

// `Index` has no default here (unlike most index attrs) in TensorFlow either.
REGISTER_OP("Slice")
    .Input("input: T")
    .Input("begin: Index")
    .Input("size: Index")
    .Output("output: T")
    .Attr("T: type")
    .Attr("Index: {int32, int64}");

// The masks are bit sets over the slice spec's positions (Python's
// `x[a:, ..., tf.newaxis, 3]` sugar).
REGISTER_OP("StridedSlice")
    .Input("input: T")
    .Input("begin: Index")
    .Input("end: Index")
    .Input("strides: Index")
    .Output("output: T")
    .Attr("T: type")
    .Attr("Index: {int16, int32, int64}")
    .Attr("begin_mask: int = 0")
    .Attr("end_mask: int = 0")
    .Attr("ellipsis_mask: int = 0")
    .Attr("new_axis_mask: int = 0")
    .Attr("shrink_axis_mask: int = 0");

// The writes into a strided slice (kernels/array/strided_slice_write.h):
// StridedSlice's gradient (dy placed into zeros of `shape`), the functional
// update `x[spec] = value` (tf.tensor_strided_slice_update), and the in-place
// assignments `v[spec].assign(value)` on TF1 reference and resource
// variables. Same spec inputs and masks as StridedSlice.
#define TRIB_STRIDED_SLICE_MASKS             \
  Attr("begin_mask: int = 0")                \
      .Attr("end_mask: int = 0")             \
      .Attr("ellipsis_mask: int = 0")        \
      .Attr("new_axis_mask: int = 0")        \
      .Attr("shrink_axis_mask: int = 0")

REGISTER_OP("StridedSliceGrad")
    .Input("shape: Index")
    .Input("begin: Index")
    .Input("end: Index")
    .Input("strides: Index")
    .Input("dy: T")
    .Output("output: T")
    .Attr("T: type")
    .Attr("Index: {int32, int64}")
    .TRIB_STRIDED_SLICE_MASKS;

REGISTER_OP("TensorStridedSliceUpdate")
    .Input("input: T")
    .Input("begin: Index")
    .Input("end: Index")
    .Input("strides: Index")
    .Input("value: T")
    .Output("output: T")
    .Attr("T: type")
    .Attr("Index: {int32, int64}")
    .TRIB_STRIDED_SLICE_MASKS;

REGISTER_OP("StridedSliceAssign")
    .Input("ref: Ref(T)")
    .Input("begin: Index")
    .Input("end: Index")
    .Input("strides: Index")
    .Input("value: T")
    .Output("output_ref: Ref(T)")
    .Attr("T: type")
    .Attr("Index: {int32, int64}")
    .TRIB_STRIDED_SLICE_MASKS;

REGISTER_OP("ResourceStridedSliceAssign")
    .Input("ref: resource")
    .Input("begin: Index")
    .Input("end: Index")
    .Input("strides: Index")
    .Input("value: T")
    .Attr("T: type")
    .Attr("Index: {int32, int64}")
    .TRIB_STRIDED_SLICE_MASKS
    .SetIsStateful();
#undef TRIB_STRIDED_SLICE_MASKS

// Scatter by index tuples (kernels/array/scatter_nd.h): indices [..., K]
// name slices of the output, updates hold indices.shape[:-1] + shape[K:].
// ScatterNd adds into zeros (the gradient of GatherNd); TensorScatter*
// combine into a copy of `tensor`.
REGISTER_OP("ScatterNd")
    .Input("indices: Tindices")
    .Input("updates: T")
    .Input("shape: Tindices")
    .Output("output: T")
    .Attr("T: type")
    .Attr("Tindices: {int16, int32, int64}")
    .Attr("bad_indices_policy: string = ''");

REGISTER_OP("TensorScatterUpdate")
    .Input("tensor: T")
    .Input("indices: Tindices")
    .Input("updates: T")
    .Output("output: T")
    .Attr("T: type")
    .Attr("Tindices: {int16, int32, int64, uint16}")
    .Attr("bad_indices_policy: string = ''");

#define TRIB_TENSOR_SCATTER_OP(NAME)        \
  REGISTER_OP(NAME)                         \
      .Input("tensor: T")                   \
      .Input("indices: Tindices")           \
      .Input("updates: T")                  \
      .Output("output: T")                  \
      .Attr("T: type")                      \
      .Attr("Tindices: {int32, int64}")     \
      .Attr("bad_indices_policy: string = ''")

TRIB_TENSOR_SCATTER_OP("TensorScatterAdd");
TRIB_TENSOR_SCATTER_OP("TensorScatterSub");
TRIB_TENSOR_SCATTER_OP("TensorScatterMin");
TRIB_TENSOR_SCATTER_OP("TensorScatterMax");
#undef TRIB_TENSOR_SCATTER_OP

REGISTER_OP("ScatterNdNonAliasingAdd")
    .Input("input: T")
    .Input("indices: Tindices")
    .Input("updates: T")
    .Output("output: T")
    .Attr("T: {numbertype, bool}")
    .Attr("Tindices: {int32, int64}")
    .Attr("bad_indices_policy: string = ''");

// --- Reordering within a tensor ------------------------------------------------

// Zeros outside a band of each innermost matrix (tf.linalg.band_part; a
// negative bound keeps the whole triangle).
REGISTER_OP("MatrixBandPart")
    .Input("input: T")
    .Input("num_lower: Tindex")
    .Input("num_upper: Tindex")
    .Output("band: T")
    .Attr("T: type")
    .Attr("Tindex: {int32, int64} = DT_INT64");

// Batched matrices built from diagonals (tf.linalg.diag, tf.eye), the
// diagonals of batched matrices (tf.linalg.diag_part) and matrices with
// their diagonals replaced (tf.linalg.set_diag). V2 and V3 take a band of
// diagonals `k` (see kernels/array/matrix_diag_ops.cc); V3 says where a
// short diagonal sits in its packed row.
REGISTER_OP("MatrixDiag").Input("diagonal: T").Output("output: T").Attr(
    "T: type");
REGISTER_OP("MatrixDiagV2")
    .Input("diagonal: T")
    .Input("k: int32")
    .Input("num_rows: int32")
    .Input("num_cols: int32")
    .Input("padding_value: T")
    .Output("output: T")
    .Attr("T: type");
REGISTER_OP("MatrixDiagV3")
    .Input("diagonal: T")
    .Input("k: int32")
    .Input("num_rows: int32")
    .Input("num_cols: int32")
    .Input("padding_value: T")
    .Output("output: T")
    .Attr("T: type")
    .Attr(
        "align: {'LEFT_RIGHT', 'RIGHT_LEFT', 'LEFT_LEFT', 'RIGHT_RIGHT'} = "
        "'RIGHT_LEFT'");
REGISTER_OP("MatrixDiagPart").Input("input: T").Output("diagonal: T").Attr(
    "T: type");
REGISTER_OP("MatrixDiagPartV2")
    .Input("input: T")
    .Input("k: int32")
    .Input("padding_value: T")
    .Output("diagonal: T")
    .Attr("T: type");
REGISTER_OP("MatrixDiagPartV3")
    .Input("input: T")
    .Input("k: int32")
    .Input("padding_value: T")
    .Output("diagonal: T")
    .Attr("T: type")
    .Attr(
        "align: {'LEFT_RIGHT', 'RIGHT_LEFT', 'LEFT_LEFT', 'RIGHT_RIGHT'} = "
        "'RIGHT_LEFT'");
REGISTER_OP("MatrixSetDiag")
    .Input("input: T")
    .Input("diagonal: T")
    .Output("output: T")
    .Attr("T: type");
REGISTER_OP("MatrixSetDiagV2")
    .Input("input: T")
    .Input("diagonal: T")
    .Input("k: int32")
    .Output("output: T")
    .Attr("T: type");
REGISTER_OP("MatrixSetDiagV3")
    .Input("input: T")
    .Input("diagonal: T")
    .Input("k: int32")
    .Output("output: T")
    .Attr("T: type")
    .Attr(
        "align: {'LEFT_RIGHT', 'RIGHT_LEFT', 'LEFT_LEFT', 'RIGHT_RIGHT'} = "
        "'RIGHT_LEFT'");

// Elements shifted cyclically along axes (tf.roll).
REGISTER_OP("Roll")
    .Input("input: T")
    .Input("shift: Tshift")
    .Input("axis: Taxis")
    .Output("output: T")
    .Attr("T: type")
    .Attr("Tshift: {int32, int64}")
    .Attr("Taxis: {int32, int64}");

// The first seq_lengths[b] elements along seq_dim reversed, per batch entry.
REGISTER_OP("ReverseSequence")
    .Input("input: T")
    .Input("seq_lengths: Tlen")
    .Output("output: T")
    .Attr("seq_dim: int")
    .Attr("batch_dim: int = 0")
    .Attr("T: type")
    .Attr("Tlen: {int32, int64} = DT_INT64");

// Depth moved into spatial blocks and back (tf.nn.depth_to_space and
// space_to_depth).
REGISTER_OP("DepthToSpace")
    .Input("input: T")
    .Output("output: T")
    .Attr("T: type")
    .Attr("block_size: int >= 2")
    .Attr("data_format: {'NHWC', 'NCHW', 'NCHW_VECT_C'} = 'NHWC'");

REGISTER_OP("SpaceToDepth")
    .Input("input: T")
    .Output("output: T")
    .Attr("T: type")
    .Attr("block_size: int >= 2")
    .Attr("data_format: {'NHWC', 'NCHW', 'NCHW_VECT_C'} = 'NHWC'");

// The gradient of MirrorPad: the padding folded back onto the elements it
// mirrored.
REGISTER_OP("MirrorPadGrad")
    .Input("input: T")
    .Input("paddings: Tpaddings")
    .Output("output: T")
    .Attr("T: type")
    .Attr("Tpaddings: {int32, int64} = DT_INT32")
    .Attr("mode: {'REFLECT', 'SYMMETRIC'}");

// Gathers slices of `params` along `axis`; reduction gradients use it to pick
// the kept dimensions of an input's shape.
// Slices of params picked by the last dimension of indices (index tuples).
REGISTER_OP("GatherNd")
    .Input("params: Tparams")
    .Input("indices: Tindices")
    .Output("output: Tparams")
    .Attr("Tparams: type")
    .Attr("Tindices: {int16, int32, int64}")
    .Attr("bad_indices_policy: string = ''");

REGISTER_OP("GatherV2")
    .Input("params: Tparams")
    .Input("indices: Tindices")
    .Input("axis: Taxis")
    .Attr("batch_dims: int = 0")
    .Output("output: Tparams")
    .Attr("Tparams: type")
    .Attr("Tindices: {int16, int32, int64}")
    .Attr("Taxis: {int32, int64}");

// Identity whose gradient is an error (`message` says why).
REGISTER_OP("PreventGradient")
    .Input("input: T")
    .Output("output: T")
    .Attr("T: type")
    .Attr("message: string = ''");

// One-hot encoding: a new dimension of `depth` at `axis` holding on_value at
// each index and off_value elsewhere.
REGISTER_OP("OneHot")
    .Input("indices: TI")
    .Input("depth: int32")
    .Input("on_value: T")
    .Input("off_value: T")
    .Attr("axis: int = -1")
    .Output("output: T")
    .Attr("T: type")
    .Attr("TI: {uint8, int8, int32, int64} = DT_INT64");

// Zero-pads the spatial dimensions, then moves blocks of block_shape from
// them into the batch (dilated convolutions); BatchToSpaceND inverts it and
// crops.
REGISTER_OP("SpaceToBatchND")
    .Input("input: T")
    .Input("block_shape: Tblock_shape")
    .Input("paddings: Tpaddings")
    .Output("output: T")
    .Attr("T: type")
    .Attr("Tblock_shape: {int32, int64} = DT_INT32")
    .Attr("Tpaddings: {int32, int64} = DT_INT32");

REGISTER_OP("BatchToSpaceND")
    .Input("input: T")
    .Input("block_shape: Tblock_shape")
    .Input("crops: Tcrops")
    .Output("output: T")
    .Attr("T: type")
    .Attr("Tblock_shape: {int32, int64} = DT_INT32")
    .Attr("Tcrops: {int32, int64} = DT_INT32");

}  // namespace tributary

// clang-format on
