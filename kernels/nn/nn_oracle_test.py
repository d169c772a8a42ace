"""Every nn kernel against live TensorFlow: values and error codes.

Covers BiasAdd, BiasAddGrad, Relu, ReluGrad, Relu6, Relu6Grad, Elu, Selu, LeakyRelu, Softplus,
Softsign and their gradients, ResizeNearestNeighborGrad, TanhGrad, SigmoidGrad, Softmax,
LogSoftmax, SoftmaxCrossEntropyWithLogits, SparseSoftmaxCrossEntropyWithLogits,
Conv2D, DepthwiseConv2dNative, _FusedConv2D, _FusedMatMul, MaxPool, AvgPool, FusedBatchNorm{,V2,V3} and FusedBatchNormGrad{,V2,V3} across dtypes, ranks, layouts, paddings, strides
and dilations, plus the shape and attribute errors TensorFlow reports.
"""
import os
import sys

# TensorFlow's x86 wheels rewrite Conv2D/MaxPool/... to oneDNN kernels in
# graph mode; those differ from TensorFlow's reference (Eigen) CPU kernels in
# error handling (some even CHECK-fail on bad ranks). Our kernels implement
# the reference semantics, so the oracle must run those.
os.environ["TF_ENABLE_ONEDNN_OPTS"] = "0"

sys.path.insert(0, "kernels/testing")  # cwd is the runfiles root

import numpy as np  # noqa: E402

import tf_oracle  # noqa: E402
from tf_oracle import tf  # noqa: E402

raw = tf.raw_ops
cases = tf_oracle.Cases()
rng = np.random.default_rng(20240613)

INVALID_ARGUMENT = 3
UNIMPLEMENTED = 12

FLOATS = [np.float32, np.float64]
REALS = [np.float32, np.float64, np.int32, np.int64]


def rand(shape, dtype):
    """Random values of `dtype`: small integers for integer types."""
    if np.issubdtype(dtype, np.integer):
        return rng.integers(-5, 6, size=shape).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


def tname(dtype):
    return np.dtype(dtype).name


def shape_name(shape):
    return "x".join(str(d) for d in shape) or "scalar"


# ---- BiasAdd / BiasAddGrad --------------------------------------------------

for dtype in REALS:
    for shape, fmt in [((2, 3), "NHWC"), ((2, 3, 4), "NHWC"),
                       ((2, 3, 4, 5), "NHWC"), ((1, 2, 3, 4, 5), "NHWC"),
                       ((2, 3), "NCHW"), ((2, 3, 4), "NCHW"),
                       ((2, 3, 4, 5), "NCHW"), ((2, 3, 2, 2, 2), "NCHW"),
                       ((0, 3), "NHWC")]:
        channels = shape[1] if fmt == "NCHW" else shape[-1]
        suffix = f"{tname(dtype)}_{shape_name(shape)}_{fmt}"
        cases.add(f"bias_add_{suffix}",
                  lambda v, b, fmt=fmt: raw.BiasAdd(value=v, bias=b, data_format=fmt),
                  [rand(shape, dtype), rand((channels,), dtype)])
        cases.add(f"bias_add_grad_{suffix}",
                  lambda g, fmt=fmt: raw.BiasAddGrad(out_backprop=g, data_format=fmt),
                  [rand(shape, dtype)], atol=1e-5)

cases.add("bias_add_rank1", lambda v, b: raw.BiasAdd(value=v, bias=b),
          [rand((3,), np.float32), rand((3,), np.float32)],
          expect_code=INVALID_ARGUMENT, message_contains=["at least 2D", "[3]"])
cases.add("bias_add_bias_2d", lambda v, b: raw.BiasAdd(value=v, bias=b),
          [rand((2, 3), np.float32), rand((1, 3), np.float32)],
          expect_code=INVALID_ARGUMENT, message_contains=["Biases must be 1D: [1,3]"])
cases.add("bias_add_mismatch", lambda v, b: raw.BiasAdd(value=v, bias=b),
          [rand((2, 3), np.float32), rand((4,), np.float32)],
          expect_code=INVALID_ARGUMENT, message_contains=["[4] vs. [2,3]"])
cases.add("bias_add_nchw_mismatch",
          lambda v, b: raw.BiasAdd(value=v, bias=b, data_format="NCHW"),
          [rand((2, 3, 4), np.float32), rand((4,), np.float32)],
          expect_code=INVALID_ARGUMENT, message_contains=["[4] vs. [2,3,4]"])
cases.add("bias_add_grad_rank1", lambda g: raw.BiasAddGrad(out_backprop=g),
          [rand((3,), np.float64)], expect_code=INVALID_ARGUMENT)

# ---- Relu / ReluGrad / TanhGrad / SigmoidGrad -------------------------------

SPECIALS = np.array([np.nan, -np.inf, np.inf, -1.0, -0.0, 0.0, 2.5], np.float32)

for dtype in REALS:
    for shape in [(7,), (3, 4), (2, 3, 4), (0, 5)]:
        suffix = f"{tname(dtype)}_{shape_name(shape)}"
        cases.add(f"relu_{suffix}", lambda x: raw.Relu(features=x), [rand(shape, dtype)])
        cases.add(f"relu_grad_{suffix}",
                  lambda g, f: raw.ReluGrad(gradients=g, features=f),
                  [rand(shape, dtype), rand(shape, dtype)])
for dtype in FLOATS:
    cases.add(f"relu_specials_{tname(dtype)}", lambda x: raw.Relu(features=x),
              [SPECIALS.astype(dtype)])
    cases.add(f"relu_grad_specials_{tname(dtype)}",
              lambda g, f: raw.ReluGrad(gradients=g, features=f),
              [SPECIALS[::-1].astype(dtype), SPECIALS.astype(dtype)])
cases.add("relu_grad_shape_mismatch",
          lambda g, f: raw.ReluGrad(gradients=g, features=f),
          [rand((2, 3), np.float32), rand((3, 2), np.float32)],
          expect_code=INVALID_ARGUMENT, message_contains=["[2,3]", "[3,2]"])

# Relu6: inputs scaled by 3 so both clamps (0 and 6) are hit; the specials
# add the boundaries themselves, where the gradient is 0.
SPECIALS6 = np.array([np.nan, -np.inf, np.inf, -1.0, -0.0, 0.0, 2.5, 6.0, 7.5],
                     np.float32)
for dtype in REALS:
    for shape in [(7,), (3, 4), (2, 3, 4), (0, 5)]:
        suffix = f"{tname(dtype)}_{shape_name(shape)}"
        cases.add(f"relu6_{suffix}", lambda x: raw.Relu6(features=x),
                  [(rand(shape, dtype) * 3).astype(dtype)])
        cases.add(f"relu6_grad_{suffix}",
                  lambda g, f: raw.Relu6Grad(gradients=g, features=f),
                  [rand(shape, dtype), (rand(shape, dtype) * 3).astype(dtype)])
    cases.add(f"relu6_grad_bounds_{tname(dtype)}",
              lambda g, f: raw.Relu6Grad(gradients=g, features=f),
              [np.ones((5,), dtype), np.array([-1, 0, 3, 6, 7], dtype)])
for dtype in FLOATS:
    cases.add(f"relu6_specials_{tname(dtype)}", lambda x: raw.Relu6(features=x),
              [SPECIALS6.astype(dtype)])
    cases.add(f"relu6_grad_specials_{tname(dtype)}",
              lambda g, f: raw.Relu6Grad(gradients=g, features=f),
              [SPECIALS6[::-1].astype(dtype), SPECIALS6.astype(dtype)])
cases.add("relu6_grad_shape_mismatch",
          lambda g, f: raw.Relu6Grad(gradients=g, features=f),
          [rand((2, 3), np.float32), rand((3, 2), np.float32)],
          expect_code=INVALID_ARGUMENT, message_contains=["[2,3]", "[3,2]"])

for op in ["TanhGrad", "SigmoidGrad"]:
    fn = getattr(raw, op)
    for dtype in FLOATS:
        for shape in [(5,), (3, 4), (2, 2, 3), (0,)]:
            y = np.tanh(rand(shape, dtype)) if op == "TanhGrad" else \
                1 / (1 + np.exp(-rand(shape, dtype)))
            cases.add(f"{op}_{tname(dtype)}_{shape_name(shape)}",
                      lambda a, b, fn=fn: fn(y=a, dy=b),
                      [y.astype(dtype), rand(shape, dtype)])
    cases.add(f"{op}_same_count_other_shape", lambda a, b, fn=fn: fn(y=a, dy=b),
              [rand((2, 3), np.float32), rand((3, 2), np.float32)])
    cases.add(f"{op}_count_mismatch", lambda a, b, fn=fn: fn(y=a, dy=b),
              [rand((2, 3), np.float32), rand((3,), np.float32)],
              expect_code=INVALID_ARGUMENT, message_contains=["got 6 and 3"])

# ---- Softmax / LogSoftmax -----------------------------------------------------

for op in ["Softmax", "LogSoftmax"]:
    fn = getattr(raw, op)
    for dtype in FLOATS:
        for shape in [(5,), (3, 4), (2, 3, 7), (2, 0), (0, 3), (1, 1)]:
            cases.add(f"{op}_{tname(dtype)}_{shape_name(shape)}",
                      lambda x, fn=fn: fn(logits=x), [rand(shape, dtype) * 4])
        cases.add(f"{op}_{tname(dtype)}_large",
                  lambda x, fn=fn: fn(logits=x),
                  [np.array([[1000, 1001, 999], [-1000, -1000, -999]], dtype)])
        cases.add(f"{op}_{tname(dtype)}_infinities",
                  lambda x, fn=fn: fn(logits=x),
                  [np.array([[np.inf, 1], [-np.inf, 1]], dtype)])
    cases.add(f"{op}_scalar", lambda x, fn=fn: fn(logits=x),
              [np.float32(1.0)], expect_code=INVALID_ARGUMENT,
              message_contains=[">= 1 dimension"])

# ---- Cross entropy ------------------------------------------------------------


def softmax_rows(shape, dtype):
    x = rng.random(shape) + 0.05
    return (x / x.sum(axis=-1, keepdims=True)).astype(dtype)


def xent(f, l):
    return list(raw.SoftmaxCrossEntropyWithLogits(features=f, labels=l))


for dtype in FLOATS:
    t = tname(dtype)
    cases.add(f"xent_{t}_4x5", xent, [rand((4, 5), dtype), softmax_rows((4, 5), dtype)])
    cases.add(f"xent_{t}_one_hot", xent,
              [rand((3, 4), dtype), np.eye(4, dtype=dtype)[[0, 3, 1]]])
    cases.add(f"xent_{t}_bcast_labels_row", xent,
              [rand((4, 5), dtype), softmax_rows((1, 5), dtype)])
    cases.add(f"xent_{t}_bcast_logits_row", xent,
              [rand((1, 5), dtype), softmax_rows((3, 5), dtype)])
    cases.add(f"xent_{t}_bcast_logits_vector", xent,
              [rand((5,), dtype), softmax_rows((3, 5), dtype)])
    cases.add(f"xent_{t}_bcast_labels_column", xent,
              [rand((3, 4), dtype), rng.random((3, 1)).astype(dtype)])
    cases.add(f"xent_{t}_empty_batch", xent,
              [rand((0, 3), dtype), rand((0, 3), dtype)])
    cases.add(f"xent_{t}_no_classes", xent,
              [rand((2, 0), dtype), rand((2, 0), dtype)])
    cases.add(f"xent_{t}_large", xent,
              [np.array([[1000, 0, -1000]], dtype), np.array([[0.2, 0.3, 0.5]], dtype)])
cases.add("xent_not_broadcastable", xent,
          [rand((2, 3), np.float32), rand((2, 4), np.float32)],
          expect_code=INVALID_ARGUMENT, message_contains=["[2,3]", "[2,4]"])
cases.add("xent_rank1", xent, [rand((3,), np.float32), rand((3,), np.float32)],
          expect_code=INVALID_ARGUMENT, message_contains=["2-dimensional"])
cases.add("xent_rank3", xent,
          [rand((2, 2, 3), np.float32), rand((2, 2, 3), np.float32)],
          expect_code=INVALID_ARGUMENT)


def sparse_xent(f, l):
    return list(raw.SparseSoftmaxCrossEntropyWithLogits(features=f, labels=l))


for dtype in FLOATS:
    for label_type in [np.int32, np.int64]:
        suffix = f"{tname(dtype)}_{tname(label_type)}"
        cases.add(f"sparse_xent_{suffix}", sparse_xent,
                  [rand((6, 5), dtype), rng.integers(0, 5, 6).astype(label_type)])
        cases.add(f"sparse_xent_{suffix}_one_class", sparse_xent,
                  [rand((3, 1), dtype), np.zeros(3, label_type)])
        cases.add(f"sparse_xent_{suffix}_empty_batch", sparse_xent,
                  [rand((0, 4), dtype), np.zeros(0, label_type)])
        cases.add(f"sparse_xent_{suffix}_label_too_big", sparse_xent,
                  [rand((2, 3), dtype), np.array([0, 3], label_type)],
                  expect_code=INVALID_ARGUMENT,
                  message_contains=["label value of 3", "[0, 3)", "0 3"])
        cases.add(f"sparse_xent_{suffix}_label_negative", sparse_xent,
                  [rand((2, 3), dtype), np.array([-1, 1], label_type)],
                  expect_code=INVALID_ARGUMENT, message_contains=["label value of -1"])
cases.add("sparse_xent_large_logits", sparse_xent,
          [np.array([[1000, 0, -1000], [5, 5, 5]], np.float32), np.array([2, 1], np.int32)])
cases.add("sparse_xent_logits_rank1", sparse_xent,
          [rand((3,), np.float32), np.array([0], np.int32)],
          expect_code=INVALID_ARGUMENT, message_contains=["logits must be 2-D"])
cases.add("sparse_xent_labels_rank2", sparse_xent,
          [rand((2, 3), np.float32), np.array([[0, 1]], np.int32)],
          expect_code=INVALID_ARGUMENT, message_contains=["labels must be 1-D"])
cases.add("sparse_xent_batch_mismatch", sparse_xent,
          [rand((2, 3), np.float32), np.array([0, 1, 2], np.int64)],
          expect_code=INVALID_ARGUMENT, message_contains=["same first dimension"])
cases.add("sparse_xent_no_classes", sparse_xent,
          [rand((2, 0), np.float32), np.array([0, 0], np.int32)],
          expect_code=INVALID_ARGUMENT, message_contains=["at least one class"])

# ---- Conv2D -------------------------------------------------------------------


def conv(strides=(1, 1), padding="SAME", dilations=(1, 1), explicit=None,
         data_format="NHWC"):
    def fn(x, w):
        kwargs = {}
        if explicit is not None:
            kwargs["explicit_paddings"] = explicit
        return raw.Conv2D(input=x, filter=w, strides=[1, *strides, 1],
                          padding=padding, dilations=[1, *dilations, 1],
                          data_format=data_format, **kwargs)
    return fn


# (name, input NHWC, filter HWIO, strides, padding, dilations, explicit)
CONV_CONFIGS = [
    ("3x3_same", (2, 7, 8, 3), (3, 3, 3, 4), (1, 1), "SAME", (1, 1), None),
    ("3x3_valid", (2, 7, 8, 3), (3, 3, 3, 4), (1, 1), "VALID", (1, 1), None),
    ("3x3_same_s2", (2, 7, 8, 3), (3, 3, 3, 4), (2, 2), "SAME", (1, 1), None),
    ("3x3_valid_s2", (2, 7, 8, 3), (3, 3, 3, 4), (2, 2), "VALID", (1, 1), None),
    ("2x4_same_s2x3", (1, 9, 10, 2), (2, 4, 2, 5), (2, 3), "SAME", (1, 1), None),
    ("2x4_valid_s3x2", (1, 9, 10, 2), (2, 4, 2, 5), (3, 2), "VALID", (1, 1), None),
    ("even_same", (1, 6, 6, 2), (4, 4, 2, 3), (1, 1), "SAME", (1, 1), None),
    ("dil2_same", (2, 8, 8, 2), (3, 3, 2, 3), (1, 1), "SAME", (2, 2), None),
    ("dil2_valid", (2, 8, 8, 2), (3, 3, 2, 3), (1, 1), "VALID", (2, 2), None),
    ("dil2x1_same", (1, 9, 7, 3), (3, 2, 3, 2), (1, 1), "SAME", (2, 1), None),
    ("dil3_valid_s2", (1, 12, 12, 1), (2, 3, 1, 2), (2, 2), "VALID", (3, 2), None),
    ("explicit", (1, 5, 6, 2), (3, 3, 2, 3), (1, 1), "EXPLICIT", (1, 1),
     [0, 0, 2, 1, 0, 3, 0, 0]),
    ("explicit_s2_dil2", (2, 7, 7, 2), (3, 2, 2, 3), (2, 1), "EXPLICIT", (2, 2),
     [0, 0, 1, 2, 3, 0, 0, 0]),
    ("1x1", (2, 5, 5, 8), (1, 1, 8, 6), (1, 1), "SAME", (1, 1), None),
    ("1x1_s2", (2, 5, 5, 8), (1, 1, 8, 6), (2, 2), "VALID", (1, 1), None),
    ("whole_image", (3, 4, 5, 2), (4, 5, 2, 6), (1, 1), "VALID", (1, 1), None),
    ("filter_bigger_same", (1, 3, 3, 2), (5, 5, 2, 2), (1, 1), "SAME", (1, 1), None),
    ("stride_bigger_than_image", (1, 4, 4, 1), (2, 2, 1, 1), (5, 5), "SAME", (1, 1), None),
    ("grouped_2", (2, 6, 6, 4), (3, 3, 2, 6), (1, 1), "SAME", (1, 1), None),
    ("grouped_depthwise", (1, 5, 5, 3), (2, 2, 1, 3), (1, 1), "VALID", (1, 1), None),
    ("grouped_s2_dil2", (1, 9, 9, 6), (3, 3, 3, 4), (2, 2), "SAME", (2, 2), None),
    ("larger", (4, 32, 32, 16), (3, 3, 16, 32), (1, 1), "SAME", (1, 1), None),
]

for name, ishape, fshape, strides, padding, dilations, explicit in CONV_CONFIGS:
    for dtype in [np.float32, np.float64, np.int32]:
        if dtype == np.int32 and ishape[0] * ishape[1] * ishape[2] > 1000:
            continue
        cases.add(f"conv2d_{name}_{tname(dtype)}",
                  conv(strides, padding, dilations, explicit),
                  [rand(ishape, dtype), rand(fshape, dtype)],
                  atol=1e-4 if dtype == np.float32 else None,
                  rtol=1e-4 if dtype == np.float32 else None)

cases.add("conv2d_empty_batch", conv(),
          [rand((0, 5, 5, 3), np.float32), rand((2, 2, 3, 4), np.float32)])
cases.add("conv2d_empty_out_depth", conv(),
          [rand((1, 5, 5, 3), np.float32), rand((2, 2, 3, 0), np.float32)])
cases.add("conv2d_empty_image_explicit_pad", conv(padding="EXPLICIT",
                                                  explicit=[0, 0, 1, 1, 1, 1, 0, 0]),
          [rand((1, 0, 0, 2), np.float32), rand((1, 1, 2, 3), np.float32)])
cases.add("conv2d_valid_zero_rows", conv(strides=(3, 3), padding="VALID"),
          [rand((1, 4, 4, 1), np.float32), rand((5, 2, 1, 1), np.float32)])
cases.add("conv2d_valid_output_size_zero", conv(strides=(2, 2), padding="VALID"),
          [rand((1, 5, 5, 1), np.float32), rand((6, 6, 1, 1), np.float32)])
cases.add("conv2d_nchw_unimplemented", conv(data_format="NCHW"),
          [rand((1, 3, 5, 5), np.float32), rand((2, 2, 3, 4), np.float32)],
          expect_code=UNIMPLEMENTED)
cases.add("conv2d_nchw_empty_ok", conv(data_format="NCHW"),
          [rand((0, 3, 5, 5), np.float32), rand((2, 2, 3, 4), np.float32)])
cases.add("conv2d_input_rank3", conv(),
          [rand((5, 5, 3), np.float32), rand((2, 2, 3, 4), np.float32)],
          expect_code=INVALID_ARGUMENT, message_contains=["[5,5,3]"])
cases.add("conv2d_filter_rank3", conv(),
          [rand((1, 5, 5, 3), np.float32), rand((2, 3, 4), np.float32)],
          expect_code=INVALID_ARGUMENT, message_contains=["[2,3,4]"])
cases.add("conv2d_depth_not_divisible", conv(),
          [rand((1, 5, 5, 3), np.float32), rand((2, 2, 2, 4), np.float32)],
          expect_code=INVALID_ARGUMENT, message_contains=["3 vs 2"])
cases.add("conv2d_groups_out_depth", conv(),
          [rand((1, 5, 5, 3), np.float32), rand((2, 2, 1, 4), np.float32)],
          expect_code=INVALID_ARGUMENT, message_contains=["4 vs 3"])
cases.add("conv2d_zero_filter_depth", conv(),
          [rand((1, 5, 5, 0), np.float32), rand((2, 2, 0, 4), np.float32)],
          expect_code=INVALID_ARGUMENT)
cases.add("conv2d_zero_filter_rows", conv(),
          [rand((1, 5, 5, 3), np.float32), rand((0, 2, 3, 4), np.float32)],
          expect_code=INVALID_ARGUMENT)
cases.add("conv2d_negative_output", conv(padding="VALID"),
          [rand((1, 5, 5, 3), np.float32), rand((7, 2, 3, 4), np.float32)],
          expect_code=INVALID_ARGUMENT, message_contains=["would be negative"])
cases.add("conv2d_negative_output_dilated", conv(padding="VALID", dilations=(3, 1)),
          [rand((1, 5, 5, 3), np.float32), rand((3, 2, 3, 4), np.float32)],
          expect_code=INVALID_ARGUMENT)
cases.add("conv2d_stride_batch",
          lambda x, w: raw.Conv2D(input=x, filter=w, strides=[2, 1, 1, 1], padding="SAME"),
          [rand((1, 5, 5, 3), np.float32), rand((2, 2, 3, 4), np.float32)],
          expect_code=UNIMPLEMENTED)
cases.add("conv2d_dilation_depth",
          lambda x, w: raw.Conv2D(input=x, filter=w, strides=[1, 1, 1, 1],
                                  padding="SAME", dilations=[1, 1, 1, 2]),
          [rand((1, 5, 5, 3), np.float32), rand((2, 2, 3, 4), np.float32)],
          expect_code=UNIMPLEMENTED)

# ---- DepthwiseConv2dNative ----------------------------------------------------
# TensorFlow's reference CPU kernel: equal row/column strides, no dilation,
# NHWC only. float32 to 1e-4 (the summation order differs), float64 to the
# default tolerance. Bad strides rank, zero stride and explicit_paddings
# without EXPLICIT are rejected by TensorFlow's shape function in graph mode,
# before any kernel runs, so they have no oracle case here.


def dwconv(stride=1, padding="SAME", explicit=None, data_format="NHWC",
           strides=None, dilations=(1, 1, 1, 1)):
    def fn(x, w):
        kwargs = {}
        if explicit is not None:
            kwargs["explicit_paddings"] = explicit
        return raw.DepthwiseConv2dNative(
            input=x, filter=w, strides=strides or [1, stride, stride, 1],
            padding=padding, dilations=list(dilations),
            data_format=data_format, **kwargs)
    return fn


# (name, input NHWC, filter [H, W, C, multiplier], stride, padding, explicit)
DWCONV_CONFIGS = [
    ("3x3_same_m1", (2, 7, 8, 3), (3, 3, 3, 1), 1, "SAME", None),
    ("3x3_same_m2", (2, 7, 8, 3), (3, 3, 3, 2), 1, "SAME", None),
    ("3x3_valid_m3", (1, 7, 6, 4), (3, 3, 4, 3), 1, "VALID", None),
    ("3x3_same_s2", (2, 9, 8, 5), (3, 3, 5, 2), 2, "SAME", None),
    ("5x5_valid_s2", (1, 11, 10, 3), (5, 5, 3, 1), 2, "VALID", None),
    ("2x4_same_s3", (1, 9, 10, 2), (2, 4, 2, 2), 3, "SAME", None),
    ("one_channel", (1, 5, 5, 1), (3, 3, 1, 4), 1, "SAME", None),
    ("1x1", (2, 5, 5, 6), (1, 1, 6, 2), 1, "SAME", None),
    ("whole_image", (2, 3, 4, 3), (3, 4, 3, 2), 1, "VALID", None),
    ("filter_bigger_same", (1, 3, 3, 2), (5, 5, 2, 1), 1, "SAME", None),
    ("explicit", (1, 5, 6, 2), (3, 3, 2, 2), 1, "EXPLICIT", [0, 0, 2, 1, 0, 3, 0, 0]),
    ("explicit_s2", (2, 7, 7, 3), (3, 2, 3, 1), 2, "EXPLICIT", [0, 0, 1, 2, 3, 0, 0, 0]),
    ("mobilenet_like", (2, 28, 28, 32), (3, 3, 32, 1), 2, "SAME", None),
]

for name, ishape, fshape, stride, padding, explicit in DWCONV_CONFIGS:
    for dtype in FLOATS:
        cases.add(f"depthwise_conv2d_{name}_{tname(dtype)}",
                  dwconv(stride, padding, explicit),
                  [rand(ishape, dtype), rand(fshape, dtype)],
                  atol=1e-4 if dtype == np.float32 else None,
                  rtol=1e-4 if dtype == np.float32 else None)

cases.add("depthwise_conv2d_empty_batch", dwconv(),
          [rand((0, 5, 5, 3), np.float32), rand((2, 2, 3, 2), np.float32)])
cases.add("depthwise_conv2d_zero_multiplier", dwconv(),
          [rand((1, 5, 5, 3), np.float32), rand((2, 2, 3, 0), np.float32)])
cases.add("depthwise_conv2d_zero_filter_rows", dwconv(),
          [rand((1, 5, 5, 2), np.float32), rand((0, 3, 2, 1), np.float32)])
cases.add("depthwise_conv2d_empty_image_explicit_pad",
          dwconv(padding="EXPLICIT", explicit=[0, 0, 1, 1, 1, 1, 0, 0]),
          [rand((1, 0, 0, 2), np.float32), rand((1, 1, 2, 3), np.float32)])
cases.add("depthwise_conv2d_nchw_unimplemented", dwconv(data_format="NCHW"),
          [rand((1, 2, 5, 5), np.float32), rand((3, 3, 2, 2), np.float32)],
          expect_code=UNIMPLEMENTED, message_contains=["NHWC"])
cases.add("depthwise_conv2d_nchw_empty_ok", dwconv(data_format="NCHW"),
          [rand((0, 2, 5, 5), np.float32), rand((3, 3, 2, 2), np.float32)])
cases.add("depthwise_conv2d_dilations_unimplemented",
          dwconv(dilations=(1, 2, 2, 1)),
          [rand((1, 5, 5, 2), np.float32), rand((3, 3, 2, 2), np.float32)],
          expect_code=UNIMPLEMENTED, message_contains=["received [1 2 2 1]"])
cases.add("depthwise_conv2d_unequal_strides", dwconv(strides=[1, 2, 1, 1]),
          [rand((1, 5, 5, 2), np.float32), rand((3, 3, 2, 2), np.float32)],
          expect_code=INVALID_ARGUMENT, message_contains=["equal length strides"])
cases.add("depthwise_conv2d_stride_batch", dwconv(strides=[2, 1, 1, 1]),
          [rand((1, 5, 5, 2), np.float32), rand((3, 3, 2, 2), np.float32)],
          expect_code=INVALID_ARGUMENT, message_contains=["batch and depth"])
cases.add("depthwise_conv2d_input_rank3", dwconv(),
          [rand((5, 5, 2), np.float32), rand((3, 3, 2, 2), np.float32)],
          expect_code=INVALID_ARGUMENT, message_contains=["[5,5,2]"])
cases.add("depthwise_conv2d_filter_rank3", dwconv(),
          [rand((1, 5, 5, 2), np.float32), rand((3, 2, 2), np.float32)],
          expect_code=INVALID_ARGUMENT, message_contains=["[3,2,2]"])
cases.add("depthwise_conv2d_depth_mismatch", dwconv(),
          [rand((1, 5, 5, 2), np.float32), rand((3, 3, 3, 2), np.float32)],
          expect_code=INVALID_ARGUMENT, message_contains=["same depth: 2 vs 3"])
cases.add("depthwise_conv2d_negative_output", dwconv(padding="VALID"),
          [rand((1, 5, 5, 2), np.float32), rand((7, 3, 2, 2), np.float32)],
          expect_code=INVALID_ARGUMENT, message_contains=["would be negative"])

# ---- MaxPool / AvgPool -------------------------------------------------------


def pool(op, ksize, strides, padding, explicit=None, data_format="NHWC"):
    def fn(x):
        if op == "MaxPool":
            kwargs = {"explicit_paddings": explicit} if explicit is not None else {}
            return raw.MaxPool(input=x, ksize=ksize, strides=strides, padding=padding,
                               data_format=data_format, **kwargs)
        return raw.AvgPool(value=x, ksize=ksize, strides=strides, padding=padding,
                           data_format=data_format)
    return fn


# (name, input, ksize, strides, padding)
POOL_CONFIGS = [
    ("2x2_s2_valid", (2, 6, 6, 3), [1, 2, 2, 1], [1, 2, 2, 1], "VALID"),
    ("2x2_s2_same_odd", (2, 5, 7, 3), [1, 2, 2, 1], [1, 2, 2, 1], "SAME"),
    ("3x3_s2_same", (1, 8, 8, 4), [1, 3, 3, 1], [1, 2, 2, 1], "SAME"),
    ("3x3_s1_same", (2, 5, 5, 2), [1, 3, 3, 1], [1, 1, 1, 1], "SAME"),
    ("3x2_s2x1_valid", (1, 7, 6, 5), [1, 3, 2, 1], [1, 2, 1, 1], "VALID"),
    ("window_bigger_same", (1, 3, 3, 2), [1, 5, 5, 1], [1, 1, 1, 1], "SAME"),
    ("stride_bigger_valid", (2, 5, 5, 4), [1, 2, 2, 1], [1, 9, 9, 1], "VALID"),
    ("1x1", (1, 4, 4, 3), [1, 1, 1, 1], [1, 1, 1, 1], "VALID"),
    ("depth_stride_ignored", (1, 5, 5, 4), [1, 2, 2, 1], [1, 1, 1, 2], "VALID"),
    ("empty_batch", (0, 4, 4, 2), [1, 2, 2, 1], [1, 1, 1, 1], "VALID"),
    ("larger", (8, 32, 32, 16), [1, 3, 3, 1], [1, 2, 2, 1], "SAME"),
]

for name, ishape, ksize, strides, padding in POOL_CONFIGS:
    for dtype in REALS:
        cases.add(f"max_pool_{name}_{tname(dtype)}", pool("MaxPool", ksize, strides, padding),
                  [rand(ishape, dtype)])
    for dtype in FLOATS:
        cases.add(f"avg_pool_{name}_{tname(dtype)}", pool("AvgPool", ksize, strides, padding),
                  [rand(ishape, dtype)])

for dtype in REALS:
    cases.add(f"max_pool_explicit_{tname(dtype)}",
              pool("MaxPool", [1, 3, 2, 1], [1, 2, 1, 1], "EXPLICIT",
                   explicit=[0, 0, 2, 1, 0, 1, 0, 0]),
              [rand((2, 6, 5, 3), dtype)])
    cases.add(f"max_pool_depthwise_{tname(dtype)}",
              pool("MaxPool", [1, 1, 1, 3], [1, 1, 1, 3], "VALID"),
              [rand((2, 3, 4, 6), dtype)])
cases.add("max_pool_depthwise_spatial_stride_ignored",
          pool("MaxPool", [1, 1, 1, 2], [1, 2, 2, 2], "SAME"), [rand((1, 5, 5, 4), np.float32)])
cases.add("max_pool_negative_values_same",
          pool("MaxPool", [1, 3, 3, 1], [1, 2, 2, 1], "SAME"),
          [-np.abs(rand((1, 4, 4, 2), np.float32)) - 1])
cases.add("max_pool_nan_ignored", pool("MaxPool", [1, 2, 2, 1], [1, 1, 1, 1], "VALID"),
          [np.array([1, np.nan, 3, 2], np.float32).reshape(1, 2, 2, 1)])

ERR_INPUT = (1, 5, 5, 4)
for op in ["MaxPool", "AvgPool"]:
    p = op.lower()
    cases.add(f"{p}_nchw", pool(op, [1, 1, 2, 2], [1, 1, 1, 1], "VALID", data_format="NCHW"),
              [rand((1, 4, 5, 5), np.float32)], expect_code=INVALID_ARGUMENT)
    cases.add(f"{p}_batch_window", pool(op, [2, 1, 1, 1], [1, 1, 1, 1], "VALID"),
              [rand(ERR_INPUT, np.float32)], expect_code=UNIMPLEMENTED)
    cases.add(f"{p}_batch_stride", pool(op, [1, 2, 2, 1], [2, 1, 1, 1], "VALID"),
              [rand(ERR_INPUT, np.float32)], expect_code=UNIMPLEMENTED)
    cases.add(f"{p}_ksize_zero", pool(op, [1, 0, 2, 1], [1, 1, 1, 1], "VALID"),
              [rand(ERR_INPUT, np.float32)], expect_code=INVALID_ARGUMENT)
    cases.add(f"{p}_input_rank3", pool(op, [1, 2, 2, 1], [1, 1, 1, 1], "VALID"),
              [rand((5, 5, 4), np.float32)], expect_code=INVALID_ARGUMENT,
              message_contains=["2 spatial dimensions"])
    cases.add(f"{p}_window_too_big", pool(op, [1, 7, 2, 1], [1, 1, 1, 1], "VALID"),
              [rand(ERR_INPUT, np.float32)], expect_code=INVALID_ARGUMENT)
    cases.add(f"{p}_depth_and_spatial", pool(op, [1, 2, 2, 2], [1, 1, 1, 2], "VALID"),
              [rand(ERR_INPUT, np.float32)], expect_code=UNIMPLEMENTED)
cases.add("avgpool_depth_window", pool("AvgPool", [1, 1, 1, 2], [1, 1, 1, 2], "VALID"),
          [rand(ERR_INPUT, np.float32)], expect_code=UNIMPLEMENTED)
cases.add("maxpool_depth_not_dividing", pool("MaxPool", [1, 1, 1, 3], [1, 1, 1, 3], "VALID"),
          [rand(ERR_INPUT, np.float32)], expect_code=UNIMPLEMENTED)
cases.add("maxpool_depth_stride_differs", pool("MaxPool", [1, 1, 1, 2], [1, 1, 1, 1], "VALID"),
          [rand(ERR_INPUT, np.float32)], expect_code=UNIMPLEMENTED)
cases.add("maxpool_explicit_pad_too_big",
          pool("MaxPool", [1, 2, 2, 1], [1, 1, 1, 1], "EXPLICIT",
               explicit=[0, 0, 0, 0, 0, 2, 0, 0]),
          [rand(ERR_INPUT, np.float32)], expect_code=INVALID_ARGUMENT,
          message_contains=["Right padding 2"])

# Not here: attribute errors TensorFlow's shape functions already reject while
# the graph is built (strides/ksize of the wrong length, zero strides or
# dilations, malformed explicit_paddings), so TensorFlow never runs the kernel
# on them. conv2d_op_test.cc and pooling_op_test.cc pin our kernels' messages
# for those, taken from TensorFlow's eager kernels.

# ---- FusedBatchNormV3 / FusedBatchNormGradV3 ----------------------------------
#
# Tolerance: our per-channel sums run in double, TensorFlow's in float in
# another order, so statistics and gradients agree to float rounding of a
# reduction (rtol/atol 1e-4 for float32; half outputs within 2e-3, a couple of
# half ulps, since the rounding of each y can flip).

BN_LAYOUTS = [((2, 3, 3, 4), "NHWC"), ((2, 4, 3, 3), "NCHW"),
              ((2, 2, 3, 2, 3), "NDHWC"), ((2, 3, 2, 2, 3), "NCDHW"),
              ((1, 1, 1, 5), "NHWC"), ((5, 4, 1, 1), "NHWC")]


def bn_channels(shape, fmt):
    return shape[1] if fmt.startswith("NC") else shape[-1]


def bn_params(c):
    """scale, offset, mean, variance (variance positive)."""
    return [rand((c,), np.float32), rand((c,), np.float32),
            rand((c,), np.float32), np.abs(rand((c,), np.float32)) + 0.5]


def fused_bn(fmt, training, eps=1e-3, factor=1.0, outputs=None):
    def fn(x, s, o, m, v):
        r = raw.FusedBatchNormV3(x=x, scale=s, offset=o, mean=m, variance=v,
                                 epsilon=eps, exponential_avg_factor=factor,
                                 data_format=fmt, is_training=training)
        return list(r) if outputs is None else [r[i] for i in outputs]
    return fn


def fused_bn_grad(fmt, training, eps=1e-3):
    def fn(dy, x, s, m, v):
        return list(raw.FusedBatchNormGradV3(
            y_backprop=dy, x=x, scale=s, reserve_space_1=m, reserve_space_2=v,
            reserve_space_3=tf.zeros([0]), epsilon=eps, data_format=fmt,
            is_training=training))
    return fn


def fused_bn_chain(fmt):
    """The training pair as the layer emits it: grad fed the forward's reserves."""
    def fn(x, dy, s, o):
        fwd = raw.FusedBatchNormV3(x=x, scale=s, offset=o, mean=tf.zeros([0]),
                                   variance=tf.zeros([0]), data_format=fmt)
        return list(raw.FusedBatchNormGradV3(
            y_backprop=dy, x=x, scale=s, reserve_space_1=fwd[3],
            reserve_space_2=fwd[4], reserve_space_3=fwd[5], data_format=fmt))
    return fn


BN_TOL = {np.float32: dict(rtol=1e-4, atol=1e-4),
          np.float16: dict(rtol=2e-3, atol=2e-3)}

for dtype in [np.float32, np.float16]:
    tol = BN_TOL[dtype]
    for shape, fmt in BN_LAYOUTS:
        c = bn_channels(shape, fmt)
        suffix = f"{tname(dtype)}_{shape_name(shape)}_{fmt}"
        x = (rand(shape, np.float32) * 2 + 1).astype(dtype)
        for training in [True, False]:
            mode = "train" if training else "infer"
            # Inference leaves reserve_space_1/2 uninitialised in TF.
            cases.add(f"fused_bn_{mode}_{suffix}",
                      fused_bn(fmt, training, outputs=None if training else [0, 1, 2, 5]),
                      [x] + bn_params(c), **tol)
            p = bn_params(c)
            # TF's CPU gradient in inference mode is NHWC-only.
            error = {} if training or not fmt.startswith("NC") else dict(
                expect_code=INVALID_ARGUMENT,
                message_contains=["is_training=False only support NHWC"])
            cases.add(f"fused_bn_grad_{mode}_{suffix}", fused_bn_grad(fmt, training),
                      [rand(shape, np.float32).astype(dtype), x, p[0], p[2], p[3]],
                      **tol, **error)
        cases.add(f"fused_bn_avg_factor_{suffix}", fused_bn(fmt, True, factor=0.3),
                  [x] + bn_params(c), **tol)
        cases.add(f"fused_bn_chain_{suffix}", fused_bn_chain(fmt),
                  [x, rand(shape, np.float32).astype(dtype),
                   rand((c,), np.float32), rand((c,), np.float32)], **tol)

# FusedBatchNorm (float) and FusedBatchNormV2 share the kernels: no
# reserve_space_3, 2-D layouts only.
for op, dtypes in [("FusedBatchNorm", [np.float32]),
                   ("FusedBatchNormV2", [np.float32, np.float16])]:
    fwd, grad = getattr(raw, op), getattr(raw, op.replace("Norm", "NormGrad"))
    for dtype in dtypes:
        for shape, fmt in BN_LAYOUTS[:2]:
            c = bn_channels(shape, fmt)
            suffix = f"{op}_{tname(dtype)}_{shape_name(shape)}_{fmt}"
            x = (rand(shape, np.float32) * 2 + 1).astype(dtype)
            for training in [True, False]:
                outputs = [0, 1, 2, 3, 4] if training else [0, 1, 2]
                cases.add(f"fused_bn_{'train' if training else 'infer'}_{suffix}",
                          lambda x, s, o, m, v, fwd=fwd, fmt=fmt, t=training,
                          outputs=outputs: [fwd(
                              x=x, scale=s, offset=o, mean=m, variance=v,
                              epsilon=1e-3, exponential_avg_factor=0.5 if t else 1.0,
                              data_format=fmt, is_training=t)[i] for i in outputs],
                          [x] + bn_params(c), **BN_TOL[dtype])
            p = bn_params(c)
            cases.add(f"fused_bn_grad_{suffix}",
                      lambda dy, x, s, m, v, grad=grad, fmt=fmt: list(grad(
                          y_backprop=dy, x=x, scale=s, reserve_space_1=m,
                          reserve_space_2=v, epsilon=1e-3, data_format=fmt)),
                      [rand(shape, np.float32).astype(dtype), x, p[0], p[2], p[3]],
                      **BN_TOL[dtype])
            cases.add(f"fused_bn_grad_infer_{suffix}",
                      lambda dy, x, s, m, v, grad=grad: list(grad(
                          y_backprop=dy, x=x, scale=s, reserve_space_1=m,
                          reserve_space_2=v, epsilon=1e-3, is_training=False)),
                      [rand((2, 3, 3, 4), np.float32).astype(dtype),
                       rand((2, 3, 3, 4), np.float32).astype(dtype),
                       p[0][:1].repeat(4), p[2][:1].repeat(4), p[3][:1].repeat(4)],
                      **BN_TOL[dtype])

# The older versions share V3's checks.
for op in ["FusedBatchNorm", "FusedBatchNormV2"]:
    fwd, grad = getattr(raw, op), getattr(raw, op.replace("Norm", "NormGrad"))
    p = bn_params(3)
    cases.add(f"fused_bn_error_{op}_rank3",
              lambda x, s, o, m, v, fwd=fwd: fwd(x=x, scale=s, offset=o, mean=m,
                                                 variance=v)[0],
              [rand((2, 2, 3), np.float32)] + p, expect_code=INVALID_ARGUMENT,
              message_contains=["input must be 4 or 5-dimensional[2,2,3]"])
    cases.add(f"fused_bn_error_{op}_scale_size",
              lambda x, s, o, m, v, fwd=fwd: fwd(x=x, scale=s, offset=o, mean=m,
                                                 variance=v)[0],
              [rand((2, 2, 2, 3), np.float32), rand((4,), np.float32)] + p[1:],
              expect_code=INVALID_ARGUMENT,
              message_contains=["scale must have the same number of elements"])
    cases.add(f"fused_bn_grad_error_{op}_infer_nchw",
              lambda dy, x, s, m, v, grad=grad: grad(
                  y_backprop=dy, x=x, scale=s, reserve_space_1=m, reserve_space_2=v,
                  data_format="NCHW", is_training=False)[0],
              [rand((2, 3, 2, 2), np.float32), rand((2, 3, 2, 2), np.float32),
               p[0], p[2], p[3]], expect_code=INVALID_ARGUMENT,
              message_contains=["is_training=False only support NHWC"])

# A NaN poisons its channel only; a large offset (|mean| >> stddev) needs
# the two-pass variance.
BN_NAN_X = rand((2, 2, 2, 3), np.float32)
BN_NAN_X[1, 0, 1, 0] = np.nan
cases.add("fused_bn_train_nan", fused_bn("NHWC", True), [BN_NAN_X] + bn_params(3),
          **BN_TOL[np.float32])
cases.add("fused_bn_train_large_mean", fused_bn("NHWC", True),
          [rand((4, 3, 3, 3), np.float32) + 1000] + bn_params(3),
          rtol=1e-4, atol=1e-3)

# Training ignores mean/variance (even empty ones) when the factor is 1.
cases.add("fused_bn_train_empty_estimates", fused_bn("NHWC", True),
          [rand((2, 2, 2, 3), np.float32)] + bn_params(3)[:2] +
          [np.zeros(0, np.float32)] * 2, **BN_TOL[np.float32])
cases.add("fused_bn_default_epsilon",
          lambda x, s, o, m, v: list(raw.FusedBatchNormV3(
              x=x, scale=s, offset=o, mean=m, variance=v)),
          [rand((2, 2, 2, 3), np.float32)] + bn_params(3), **BN_TOL[np.float32])
# An empty batch: NaN statistics (reserve_space_1/2 are uninitialised in TF).
cases.add("fused_bn_train_empty_x", fused_bn("NHWC", True, outputs=[0, 1, 2, 5]),
          [np.zeros((0, 2, 2, 3), np.float32)] + bn_params(3))
# TF checks for an empty x before the mode: NaN statistics in inference too.
cases.add("fused_bn_infer_empty_x", fused_bn("NHWC", False, outputs=[0, 1, 2, 5]),
          [np.zeros((0, 2, 2, 3), np.float32)] + bn_params(3))
for training in [True, False]:
    cases.add(f"fused_bn_grad_empty_{training}", fused_bn_grad("NHWC", training),
              [np.zeros((0, 2, 2, 3), np.float32)] * 2 + bn_params(3)[:1] +
              bn_params(3)[2:])

BN_X = rand((2, 2, 2, 3), np.float32)
BN_P = bn_params(3)
V4 = rand((4,), np.float32)
for name, args, training, factor, message in [
        ("rank3", [BN_X[0]] + BN_P, True, 1.0, "input must be 4 or 5-dimensional[2,2,3]"),
        ("scale_2d", [BN_X, BN_P[0][None]] + BN_P[1:], True, 1.0,
         "scale must be 1-dimensional[1,3]"),
        ("offset_2d", [BN_X, BN_P[0], BN_P[1][None]] + BN_P[2:], True, 1.0,
         "offset must be 1-dimensional[1,3]"),
        ("mean_2d", [BN_X] + BN_P[:2] + [BN_P[2][None], BN_P[3]], True, 1.0,
         "estimated_mean must be 1-dimensional"),
        ("variance_2d", [BN_X] + BN_P[:3] + [BN_P[3][None]], True, 1.0,
         "estimated_variance must be 1-dimensional"),
        ("scale_size", [BN_X, V4] + BN_P[1:], True, 1.0,
         "scale must have the same number of elements as the channels of x, got 4 and 3"),
        ("offset_size", [BN_X, BN_P[0], V4] + BN_P[2:], True, 1.0,
         "offset must have the same number of elements"),
        ("infer_mean_size", [BN_X] + BN_P[:2] + [V4, BN_P[3]], False, 1.0,
         "When is_training=false, mean must have the same number of elements"),
        ("infer_variance_size", [BN_X] + BN_P[:3] + [V4], False, 1.0,
         "When is_training=false, variance must have"),
        ("avg_mean_size", [BN_X] + BN_P[:2] + [V4, BN_P[3]], True, 0.5,
         "When exponential_avg_factor != 1, mean must have"),
        ("avg_variance_size", [BN_X] + BN_P[:3] + [V4], True, 0.5,
         "When exponential_avg_factor != 1, variance must have")]:
    cases.add(f"fused_bn_error_{name}", fused_bn("NHWC", training, factor=factor),
              args, expect_code=INVALID_ARGUMENT, message_contains=[message])

BN_DY = rand((2, 2, 2, 3), np.float32)
for name, args, message in [
        ("dy_rank3", [BN_DY[0], BN_X] + BN_P[:1] + BN_P[2:],
         "input must be 4 or 5-dimensional[2,2,3]"),
        ("x_rank3", [BN_DY, BN_X[0]] + BN_P[:1] + BN_P[2:],
         "input must be 4 or 5-dimensional[2,2,3]"),
        ("scale_2d", [BN_DY, BN_X, BN_P[0][None]] + BN_P[2:],
         "scale must be 1-dimensional[1,3]"),
        ("mean_2d", [BN_DY, BN_X, BN_P[0], BN_P[2][None], BN_P[3]],
         "saved mean must be 1-dimensional[1,3]"),
        ("variance_2d", [BN_DY, BN_X, BN_P[0], BN_P[2], BN_P[3][None]],
         "saved variance must be 1-dimensional[1,3]"),
        ("shape_mismatch", [BN_DY[:1], BN_X] + BN_P[:1] + BN_P[2:],
         "x and y_backprop must have same shape, but x has shape [2,2,2,3] and "
         "y_backprop has shape [1,2,2,3]"),
        ("scale_size", [BN_DY, BN_X, V4] + BN_P[2:],
         "scale must have the same number of elements as the channels of x, got 4 and 3"),
        ("mean_size", [BN_DY, BN_X, BN_P[0], V4, BN_P[3]],
         "reserve_space_1 must have the same number of elements"),
        ("variance_size", [BN_DY, BN_X, BN_P[0], BN_P[2], V4],
         "reserve_space_2 must have the same number of elements")]:
    cases.add(f"fused_bn_grad_error_{name}", fused_bn_grad("NHWC", True), args,
              expect_code=INVALID_ARGUMENT, message_contains=[message])

# ---- Mixed precision: half and bfloat16 -----------------------------------------
# Keras's mixed_float16 / mixed_bfloat16 policies run these layers in low
# precision. Convolutions accumulate in float on both sides (in another order),
# so results agree to a unit or two in the last place of the low type.
BF16 = tf.bfloat16.as_numpy_dtype


def low(shape, dtype):
    return rng.standard_normal(shape).astype(np.float32).astype(dtype)


for dtype, tol in [(np.float16, 4e-3), (BF16, 3e-2)]:
    n = "bfloat16" if dtype is BF16 else tname(dtype)
    for name, ishape, fshape, strides, padding, dilations, explicit in CONV_CONFIGS[:4] + [
            c for c in CONV_CONFIGS if c[0] in ("dil2_same", "1x1", "grouped_2")]:
        cases.add(f"conv2d_{name}_{n}", conv(strides, padding, dilations, explicit),
                  [low(ishape, dtype), low(fshape, dtype)], rtol=tol, atol=tol)
    cases.add(f"depthwise_{n}", dwconv(stride=2),
              [low((2, 7, 7, 3), dtype), low((3, 3, 3, 2), dtype)], rtol=tol, atol=tol)
    cases.add(f"bias_add_{n}", lambda v, b: raw.BiasAdd(value=v, bias=b),
              [low((2, 3, 4), dtype), low((4,), dtype)], rtol=tol, atol=tol)
    for op in ["Relu", "Relu6"]:
        cases.add(f"{op.lower()}_{n}", lambda x, fn=getattr(raw, op): fn(features=x),
                  [low((3, 5), dtype) * dtype(4)], rtol=tol, atol=tol)
    for op in ["Softmax", "LogSoftmax"]:
        cases.add(f"{op.lower()}_{n}", lambda x, fn=getattr(raw, op): fn(logits=x),
                  [low((3, 7), dtype)], rtol=tol, atol=tol)
    for op in ["MaxPool", "AvgPool"]:
        cases.add(f"{op.lower()}_{n}", pool(op, [1, 3, 3, 1], [1, 2, 2, 1], "SAME"),
                  [low((2, 5, 7, 3), dtype)], rtol=tol, atol=tol)

# ---- _FusedConv2D / _FusedMatMul (grappler's remapper output) -----------------
# TensorFlow's reference CPU kernels (oneDNN off) fuse, for Conv2D:
# [BiasAdd], [BiasAdd, Relu|Relu6|Elu|LeakyRelu], [FusedBatchNorm(, same)];
# for MatMul: [BiasAdd], [BiasAdd, Relu|Relu6|Elu|LeakyRelu|Tanh|Sigmoid].
# Ours accept more (Add, Tanh/Sigmoid on conv, Gelu; checked against the
# unfused kernels in the gtests), so only TensorFlow's set is compared here.
# _FusedDepthwiseConv2dNative has no reference CPU kernel in TensorFlow.

from tensorflow.python.framework import op_def_library  # noqa: E402


def fused_conv2d(x, w, *args, fused_ops, stride=1, padding="SAME",
                 explicit_paddings=(), alpha=0.2, epsilon=0.001):
    return op_def_library._apply_op_helper(
        "_FusedConv2D", name="fused", input=x, filter=w, args=list(args),
        host_args=[], num_args=len(args), strides=[1, stride, stride, 1],
        padding=padding, explicit_paddings=list(explicit_paddings),
        data_format="NHWC", filter_format="HWIO", dilations=[1, 1, 1, 1],
        use_cudnn_on_gpu=True, fused_ops=fused_ops, epsilon=epsilon,
        leakyrelu_alpha=alpha)[2].outputs[0]


def fused_matmul(a, b, *args, fused_ops, transpose_a=False, transpose_b=False,
                 alpha=0.2):
    return op_def_library._apply_op_helper(
        "_FusedMatMul", name="fused", a=a, b=b, args=list(args),
        fused_ops=fused_ops, transpose_a=transpose_a, transpose_b=transpose_b,
        epsilon=0.0001, leakyrelu_alpha=alpha)[2].outputs[0]


FUSED_CONV_SHAPES = [
    # (input, filter, stride, padding, explicit_paddings)
    ((1, 6, 7, 5), (3, 3, 5, 7), 1, "SAME", ()),
    ((2, 9, 8, 6), (3, 3, 6, 12), 2, "SAME", ()),
    ((1, 7, 7, 9), (2, 2, 9, 3), 1, "VALID", ()),
    ((2, 5, 6, 16), (1, 1, 16, 10), 1, "VALID", ()),
    ((1, 6, 6, 4), (3, 3, 4, 5), 2, "EXPLICIT", (0, 0, 1, 2, 2, 0, 0, 0)),
]
FUSED_CONV_OPS = [["BiasAdd"], ["BiasAdd", "Relu"], ["BiasAdd", "Relu6"],
                  ["BiasAdd", "Elu"], ["BiasAdd", "LeakyRelu"],
                  ["FusedBatchNorm"], ["FusedBatchNorm", "Relu"],
                  ["FusedBatchNorm", "LeakyRelu"]]

for dtype in FLOATS:
    for i, (xs, ws, stride, padding, explicit) in enumerate(FUSED_CONV_SHAPES):
        out_c = ws[3]
        for ops in FUSED_CONV_OPS:
            if ops[0] == "FusedBatchNorm":
                args = [rand((out_c,), dtype), rand((out_c,), dtype),
                        rand((out_c,), dtype),
                        (rng.uniform(0.1, 2.0, out_c)).astype(dtype)]
            else:
                args = [rand((out_c,), dtype)]
            cases.add(f"fused_conv2d_{tname(dtype)}_{i}_{'_'.join(ops)}",
                      lambda x, w, *a, ops=ops, stride=stride, padding=padding,
                      explicit=explicit: fused_conv2d(
                          x, w, *a, fused_ops=ops, stride=stride,
                          padding=padding, explicit_paddings=explicit,
                          alpha=0.3),
                      [rand(xs, dtype), rand(ws, dtype)] + args,
                      rtol=1e-4, atol=1e-4)

_x, _w, _b = rand((1, 5, 5, 3), np.float32), rand((3, 3, 3, 4), np.float32), rand((4,), np.float32)
cases.add("fused_conv2d_unsupported_fusion",
          lambda x, w, b: fused_conv2d(x, w, b, fused_ops=["Relu"]), [_x, _w, _b],
          expect_code=UNIMPLEMENTED, message_contains=["Fusion is not implemented: [Relu]"])
cases.add("fused_conv2d_no_fused_ops",
          lambda x, w, b: fused_conv2d(x, w, b, fused_ops=[]), [_x, _w, _b],
          expect_code=INVALID_ARGUMENT, message_contains=["must have at least one fused op"])
cases.add("fused_conv2d_two_args_for_bias",
          lambda x, w, b: fused_conv2d(x, w, b, b, fused_ops=["BiasAdd"]), [_x, _w, _b],
          expect_code=INVALID_ARGUMENT, message_contains=["must have one extra argument"])
cases.add("fused_conv2d_three_args_for_batch_norm",
          lambda x, w, b: fused_conv2d(x, w, b, b, b, fused_ops=["FusedBatchNorm"]),
          [_x, _w, _b], expect_code=INVALID_ARGUMENT,
          message_contains=["four extra arguments"])
cases.add("fused_conv2d_bias_2d",
          lambda x, w, b: fused_conv2d(x, w, b, fused_ops=["BiasAdd"]),
          [_x, _w, rand((1, 4), np.float32)], expect_code=INVALID_ARGUMENT,
          message_contains=["bias must be 1-dimensional[1,4]"])

for i, (m, k, n, ta, tb) in enumerate([(3, 5, 7, False, False), (17, 33, 9, True, False),
                                       (64, 40, 130, False, True), (1, 8, 3, True, True)]):
    for ops in [["BiasAdd"], ["BiasAdd", "Relu"], ["BiasAdd", "Relu6"], ["BiasAdd", "Elu"],
                ["BiasAdd", "LeakyRelu"], ["BiasAdd", "Tanh"], ["BiasAdd", "Sigmoid"]]:
        cases.add(f"fused_matmul_{i}_{'_'.join(ops)}",
                  lambda a, b, bias, ops=ops, ta=ta, tb=tb: fused_matmul(
                      a, b, bias, fused_ops=ops, transpose_a=ta, transpose_b=tb,
                      alpha=0.3),
                  [rand((k, m) if ta else (m, k), np.float32),
                   rand((n, k) if tb else (k, n), np.float32),
                   rand((n,), np.float32)], rtol=1e-4, atol=1e-5)
cases.add("fused_matmul_half_bias_relu",
          lambda a, b, bias: fused_matmul(a, b, bias, fused_ops=["BiasAdd", "Relu"]),
          [rand((4, 6), np.float16), rand((6, 5), np.float16), rand((5,), np.float16)],
          rtol=1e-2, atol=1e-2)
cases.add("fused_matmul_unsupported_fusion",
          lambda a, b, bias: fused_matmul(a, b, bias, fused_ops=["Relu"]),
          [rand((3, 4), np.float32), rand((4, 5), np.float32), rand((5,), np.float32)],
          expect_code=UNIMPLEMENTED, message_contains=["Fusion is not implemented: [Relu]"])
cases.add("fused_matmul_two_args_for_bias",
          lambda a, b, bias: fused_matmul(a, b, bias, bias, fused_ops=["BiasAdd"]),
          [rand((3, 4), np.float32), rand((4, 5), np.float32), rand((5,), np.float32)],
          expect_code=INVALID_ARGUMENT, message_contains=["must have one extra argument"])


# ---- Elu / Selu / LeakyRelu / Softplus / Softsign and gradients -------------

# A few ulps: the same Eigen expressions in T as TensorFlow's kernels. The
# atol is the smallest normal number: both sides flush denormal results to
# zero (flush_denormal.h), so nothing below it is compared.
ULPS = {np.float32: dict(rtol=5e-7, atol=1.2e-38),
        np.float64: dict(rtol=1e-15, atol=2.3e-308),
        np.float16: dict(rtol=2e-3, atol=1e-4),
        tf.bfloat16.as_numpy_dtype: dict(rtol=1.6e-2, atol=1e-3)}
ACT_DTYPES = [np.float32, np.float64, np.float16, tf.bfloat16.as_numpy_dtype]
ACT_SPECIALS = np.array([np.nan, -np.inf, np.inf, -100.0, -20.0, -15.0, -13.0,
                         -1.0, -0.0, 0.0, 1e-8, 2.5, 13.0, 15.0, 20.0, 100.0],
                        np.float32)


def act_inputs(shape, dtype):
    """Normal values spread over [-20, 20] so Softplus's thresholds are hit."""
    return (rng.standard_normal(shape) * 6).astype(np.float32).astype(dtype)


ACTIVATIONS = {
    "Elu": (lambda x: raw.Elu(features=x), "EluGrad",
            lambda g, y: raw.EluGrad(gradients=g, outputs=y)),
    "Selu": (lambda x: raw.Selu(features=x), "SeluGrad",
             lambda g, y: raw.SeluGrad(gradients=g, outputs=y)),
    "LeakyRelu": (lambda x: raw.LeakyRelu(features=x), "LeakyReluGrad",
                  lambda g, f: raw.LeakyReluGrad(gradients=g, features=f)),
    "LeakyRelu_alpha0_3": (lambda x: raw.LeakyRelu(features=x, alpha=0.3), "LeakyReluGrad",
                           lambda g, f: raw.LeakyReluGrad(gradients=g, features=f, alpha=0.3)),
    "LeakyRelu_alpha1_5": (lambda x: raw.LeakyRelu(features=x, alpha=1.5), "LeakyReluGrad",
                           lambda g, f: raw.LeakyReluGrad(gradients=g, features=f, alpha=1.5)),
    "Softplus": (lambda x: raw.Softplus(features=x), "SoftplusGrad",
                 lambda g, f: raw.SoftplusGrad(gradients=g, features=f)),
    "Softsign": (lambda x: raw.Softsign(features=x), "SoftsignGrad",
                 lambda g, f: raw.SoftsignGrad(gradients=g, features=f)),
}
# Elu and Selu compute exp(x) - 1 for x < 0, as TensorFlow's functors do: near
# 0 the subtraction cancels, so one ulp of exp near 1 (which Eigen's vector exp
# may differ by between AVX2 and AVX-512 builds) is an absolute error of up to
# alpha * scale * eps; the atol allows four.
EXP_MINUS_ONE = {"Elu", "Selu"}


def act_tolerance(name, dtype):
    tol = dict(ULPS[dtype])
    if name in EXP_MINUS_ONE and dtype in (np.float32, np.float64):
        tol["atol"] = max(tol["atol"], 4 * 1.7581 * float(np.finfo(dtype).eps))
    return tol


for name, (fwd, grad_name, grad) in ACTIVATIONS.items():
    for dtype in ACT_DTYPES:
        tol = act_tolerance(name, dtype)
        for shape in [(7,), (3, 40), (0, 5)]:
            suffix = f"{tname(dtype)}_{shape_name(shape)}"
            cases.add(f"{name}_{suffix}", fwd, [act_inputs(shape, dtype)], **tol)
            # Elu/Selu gradients take the forward's outputs: feed real ones.
            second = act_inputs(shape, dtype)
            if grad_name in ("EluGrad", "SeluGrad"):
                second = fwd(tf.constant(second)).numpy()
            cases.add(f"{name}_grad_{suffix}", grad,
                      [act_inputs(shape, dtype), second], **ULPS[dtype])
        cases.add(f"{name}_specials_{tname(dtype)}", fwd,
                  [ACT_SPECIALS.astype(dtype)], **tol)
    cases.add(f"{name}_grad_specials", grad,
              [ACT_SPECIALS[::-1].copy(), ACT_SPECIALS], **ULPS[np.float32])
for grad_name in ["EluGrad", "SeluGrad", "LeakyReluGrad", "SoftplusGrad", "SoftsignGrad"]:
    second = "outputs" if grad_name in ("EluGrad", "SeluGrad") else "features"
    cases.add(f"{grad_name}_shape_mismatch",
              lambda g, f, op=getattr(raw, grad_name), second=second: op(
                  **{"gradients": g, second: f}),
              [rand((2, 3), np.float32), rand((3, 2), np.float32)],
              expect_code=INVALID_ARGUMENT,
              message_contains=["must have the same size and shape", "[2,3]", "[3,2]"])

# ---- ResizeNearestNeighborGrad ----------------------------------------------

for dtype in [np.float32, np.float64, np.float16, np.int32, np.uint8]:
    for gshape, size in [((2, 4, 6, 3), (2, 3)), ((1, 3, 5, 2), (7, 4)),
                         ((1, 5, 5, 1), (5, 5)), ((1, 1, 1, 2), (3, 3)),
                         ((2, 6, 4, 1), (4, 8))]:
        for align, half in [(False, False), (True, False), (False, True)]:
            grads = (rng.integers(0, 4, size=gshape) if dtype == np.uint8
                     else rand(gshape, dtype)).astype(dtype)
            cases.add(f"resize_nn_grad_{tname(dtype)}_{shape_name(gshape)}_to_"
                      f"{size[0]}x{size[1]}_a{int(align)}_h{int(half)}",
                      lambda g, s, align=align, half=half: raw.ResizeNearestNeighborGrad(
                          grads=g, size=s, align_corners=align, half_pixel_centers=half),
                      [grads, np.array(size, np.int32)], rtol=1e-2 if dtype == np.float16 else None,
                      atol=1e-2 if dtype == np.float16 else None)
for name, g, size, msg in [
        ("rank", rand((2, 3), np.float32), [2, 2], "input must be 4-dimensional"),
        ("size_rank", rand((1, 2, 3, 1), np.float32), [[2, 2]], "shape_t must be 1-dimensional"),
        ("size_len", rand((1, 2, 3, 1), np.float32), [2, 2, 2], "shape_t must have two elements"),
        ("size_zero", rand((1, 2, 3, 1), np.float32), [0, 2],
         "shape_t's elements must be positive")]:
    cases.add(f"resize_nn_grad_error_{name}",
              lambda g, s: raw.ResizeNearestNeighborGrad(grads=g, size=s),
              [g, np.array(size, np.int32)], expect_code=INVALID_ARGUMENT,
              message_contains=[msg])


# Denormals flushed as TensorFlow's kernels run (flush_denormal.h):
# log1p(exp(-100)) is 0, not 3.7e-44; a denormal input reads as 0.
cases.add("Softplus_denormal_flushed", lambda x: raw.Softplus(features=x),
          [np.array([-100.0, -np.inf, 1e-40, -90.0, 0.0, -87.0], np.float32)],
          rtol=0, atol=0)

NnOracleTest = tf_oracle.make_test_class("kernels/nn/run_nn_cases", cases)
