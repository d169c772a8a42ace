"""The CNN training gradients against live TensorFlow: values and error codes.

Covers Conv2DBackpropInput, Conv2DBackpropFilter,
DepthwiseConv2dNativeBackpropInput, DepthwiseConv2dNativeBackpropFilter,
MaxPoolGrad and AvgPoolGrad
across dtypes, paddings (SAME / VALID / EXPLICIT), strides, window sizes and
ties in max pooling, plus the shape and attribute errors TensorFlow's CPU
kernels report. Gradients are checked against TensorFlow's own values, not
numeric differentiation.
"""
import os
import sys

# As in nn_oracle_test.py: the oneDNN rewrites differ from TensorFlow's
# reference CPU kernels in error handling (some CHECK-fail on bad ranks).
os.environ["TF_ENABLE_ONEDNN_OPTS"] = "0"

sys.path.insert(0, "kernels/testing")  # cwd is the runfiles root

import numpy as np  # noqa: E402

import tf_oracle  # noqa: E402
from tf_oracle import tf  # noqa: E402

raw = tf.raw_ops
cases = tf_oracle.Cases()
rng = np.random.default_rng(20261125)

INVALID_ARGUMENT = 3
UNIMPLEMENTED = 12


def rand(shape, dtype):
    if np.issubdtype(dtype, np.integer):
        return rng.integers(-5, 6, size=shape).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


def tname(dtype):
    return np.dtype(dtype).name


def out_size(n, k, s, padding, pads=(0, 0)):
    if padding == "VALID":
        return (n - k + s) // s
    if padding == "SAME":
        return (n + s - 1) // s
    return (n + pads[0] + pads[1] - k + s) // s


def explicit_list(pads):
    if pads is None:
        return []
    (t, b), (l, r) = pads
    return [0, 0, t, b, l, r, 0, 0]


# ---- Conv2DBackpropInput / Conv2DBackpropFilter ------------------------------

# (name, input NHWC, filter HWIO, strides HW, padding, explicit ((t,b),(l,r)))
CONV_CASES = [
    ("valid_3x3", (2, 5, 5, 3), (3, 3, 3, 4), (1, 1), "VALID", None),
    ("same_3x3", (2, 5, 6, 3), (3, 3, 3, 4), (1, 1), "SAME", None),
    ("same_stride2", (2, 7, 8, 2), (3, 3, 2, 5), (2, 2), "SAME", None),
    ("valid_stride2x3", (1, 9, 10, 3), (2, 3, 3, 2), (2, 3), "VALID", None),
    ("same_even_filter", (3, 6, 6, 2), (4, 2, 2, 3), (1, 2), "SAME", None),
    ("explicit", (2, 5, 5, 2), (3, 3, 2, 3), (2, 1), "EXPLICIT", ((1, 2), (0, 1))),
    ("one_by_one", (2, 4, 4, 8), (1, 1, 8, 6), (1, 1), "VALID", None),
    ("whole_image", (3, 4, 4, 2), (4, 4, 2, 5), (1, 1), "VALID", None),
    ("big_channels", (2, 12, 12, 16), (3, 3, 16, 32), (1, 1), "SAME", None),
    ("stride_gt_filter", (2, 9, 9, 2), (2, 2, 2, 3), (3, 3), "VALID", None),
]


def conv_out_shape(inp, filt, strides, padding, pads):
    pads = pads or ((0, 0), (0, 0))
    return (inp[0], out_size(inp[1], filt[0], strides[0], padding, pads[0]),
            out_size(inp[2], filt[1], strides[1], padding, pads[1]), filt[3])


def backprop_input(strides, padding, pads, sizes=None, fmt="NHWC"):
    def fn(s, w, dy):
        return raw.Conv2DBackpropInput(
            input_sizes=s, filter=w, out_backprop=dy,
            strides=[1, strides[0], strides[1], 1], padding=padding,
            explicit_paddings=explicit_list(pads), data_format=fmt)
    return fn


def backprop_filter(strides, padding, pads, fmt="NHWC", dilations=None):
    def fn(x, s, dy):
        return raw.Conv2DBackpropFilter(
            input=x, filter_sizes=s, out_backprop=dy,
            strides=[1, strides[0], strides[1], 1], padding=padding,
            explicit_paddings=explicit_list(pads), data_format=fmt,
            dilations=dilations or [1, 1, 1, 1])
    return fn


for dtype in [np.float32, np.float64]:
    for name, inp, filt, strides, padding, pads in CONV_CASES:
        dy_shape = conv_out_shape(inp, filt, strides, padding, pads)
        suffix = f"{name}_{tname(dtype)}"
        cases.add(f"conv_backprop_input_{suffix}",
                  backprop_input(strides, padding, pads),
                  [tf_oracle.Const(np.array(inp, np.int32)), rand(filt, dtype),
                   rand(dy_shape, dtype)])
        # A filter gradient sums batch x rows x cols products per element (288
        # for big_channels): float32 to 1e-4 absolute, as the conv cases below,
        # since the summation order is not TensorFlow's.
        cases.add(f"conv_backprop_filter_{suffix}",
                  backprop_filter(strides, padding, pads),
                  [rand(inp, dtype), tf_oracle.Const(np.array(filt, np.int32)),
                   rand(dy_shape, dtype)],
                  atol=1e-4 if dtype == np.float32 else None)

# int32 has an input-gradient kernel only.
cases.add("conv_backprop_input_int32",
          backprop_input((2, 2), "SAME", None),
          [tf_oracle.Const(np.array((2, 5, 5, 3), np.int32)),
           rand((3, 3, 3, 4), np.int32), rand((2, 3, 3, 4), np.int32)])
# input_sizes may hold the two spatial sizes only.
cases.add("conv_backprop_input_two_sizes",
          backprop_input((1, 1), "VALID", None),
          [tf_oracle.Const(np.array((5, 5), np.int32)),
           rand((3, 3, 3, 4), np.float32), rand((2, 3, 3, 4), np.float32)])
# Empty batch: empty input gradient, zero filter gradient.
cases.add("conv_backprop_input_empty_batch",
          backprop_input((1, 1), "VALID", None),
          [tf_oracle.Const(np.array((0, 5, 5, 3), np.int32)),
           rand((3, 3, 3, 4), np.float32), rand((0, 3, 3, 4), np.float32)])
cases.add("conv_backprop_filter_empty_batch",
          backprop_filter((1, 1), "VALID", None),
          [rand((0, 5, 5, 3), np.float32),
           tf_oracle.Const(np.array((3, 3, 3, 4), np.int32)),
           rand((0, 3, 3, 4), np.float32)])

W = rand((3, 3, 3, 4), np.float32)
DY = rand((2, 3, 3, 4), np.float32)
X = rand((2, 5, 5, 3), np.float32)


def sizes(*v):
    """Fed, not a Const: TensorFlow's shape functions would reject bad sizes
    while the graph is built, and never run the kernel."""
    return np.array(v, np.int32)


BI_ERRORS = [
    ("sizes_three", sizes(5, 5, 3), W, DY, "4 values or 2 values, but got: 3"),
    ("sizes_matrix", np.array([[5, 5]], np.int32), W, DY,
     "input_sizes input must be 1-dim, not 2"),
    ("out_size_mismatch", sizes(2, 6, 5, 3), W, DY,
     "Conv2DCustomBackpropInput: Size of out_backprop doesn't match computed: "
     "actual = 3, computed = 4 spatial_dim: 1 input: 6 filter: 3 output: 3 "
     "stride: 1 dilation: 1"),
    ("batch_mismatch", sizes(3, 5, 5, 3), W, DY,
     "must have the same batch size. Input batch: 3, outbackprop batch: 2"),
    ("depth_not_divisible", sizes(2, 5, 5, 4), W, DY,
     "input depth must be evenly divisible by filter depth"),
    ("grouped", sizes(2, 5, 5, 6), W, DY,
     "Gradients for grouped convolutions are not supported on CPU"),
    ("out_depth_mismatch", sizes(2, 5, 5, 3), W, rand((2, 3, 3, 5), np.float32),
     "filter and out_backprop must have the same out_depth"),
    ("filter_rank3", sizes(2, 5, 5, 3), rand((3, 3, 3), np.float32), DY,
     "Conv2DCustomBackpropInput: filter must be 4-dimensional"),
    ("out_backprop_rank3", sizes(2, 5, 5, 3), W, rand((2, 3, 3), np.float32),
     "input_sizes must be 4-dimensional, got: 3"),
    ("negative_size", sizes(2, -5, 5, 3), W, DY, "must be >= 0"),
]
for name, s, w, dy, message in BI_ERRORS:
    cases.add(f"conv_backprop_input_error_{name}",
              backprop_input((1, 1), "VALID", None), [s, w, dy],
              expect_code=INVALID_ARGUMENT, message_contains=[message])
cases.add("conv_backprop_input_error_nchw",
          backprop_input((1, 1), "VALID", None, fmt="NCHW"),
          [sizes(2, 3, 5, 5), W, rand((2, 4, 3, 3), np.float32)],
          expect_code=INVALID_ARGUMENT,
          message_contains=["Conv2DCustomBackpropInputOp only supports NHWC."])

BF_ERRORS = [
    ("sizes_three", X, sizes(3, 3, 3), DY,
     "Conv2DCustomBackpropFilter: filter must be 4-dimensional"),
    ("sizes_matrix", X, np.array([[3, 3, 3, 4]], np.int32), DY,
     "filter_sizes input must be 1-dim, not 2"),
    ("out_size_mismatch", X, sizes(2, 3, 3, 4), DY,
     "Size of out_backprop doesn't match computed: actual = 3, computed = 4 "
     "spatial_dim: 1 input: 5 filter: 2 output: 3 stride: 1 dilation: 1"),
    ("depth_not_divisible", X, sizes(3, 3, 2, 4), DY,
     "input depth must be evenly divisible by filter depth"),
    ("input_rank3", rand((2, 5, 5), np.float32), sizes(3, 3, 3, 4), DY,
     "Conv2DCustomBackpropFilter: input must be 4-dimensional"),
    ("batch_mismatch", rand((3, 5, 5, 3), np.float32), sizes(3, 3, 3, 4), DY,
     "Input batch: 3, outbackprop batch: 2, batch_dim: 0"),
]
for name, x, s, dy, message in BF_ERRORS:
    cases.add(f"conv_backprop_filter_error_{name}",
              backprop_filter((1, 1), "VALID", None), [x, s, dy],
              expect_code=INVALID_ARGUMENT, message_contains=[message])
cases.add("conv_backprop_filter_error_nchw",
          backprop_filter((1, 1), "VALID", None, fmt="NCHW"),
          [rand((2, 3, 5, 5), np.float32), sizes(3, 3, 3, 4),
           rand((2, 4, 3, 3), np.float32)],
          expect_code=INVALID_ARGUMENT,
          message_contains=["Conv2DCustomBackpropFilterOp only supports NHWC."])
cases.add("conv_backprop_filter_error_dilation",
          backprop_filter((1, 1), "VALID", None, dilations=[1, 2, 2, 1]),
          [rand((2, 7, 7, 3), np.float32), sizes(3, 3, 3, 4), DY],
          expect_code=INVALID_ARGUMENT,
          message_contains=["do not yet support dilation rates larger than 1"])
# TensorFlow's message for a grouped filter gradient is an accident of its
# shape arithmetic; only the code is compared.
cases.add("conv_backprop_filter_error_grouped",
          backprop_filter((1, 1), "VALID", None),
          [rand((2, 5, 5, 6), np.float32), sizes(3, 3, 3, 4), DY],
          expect_code=INVALID_ARGUMENT)

# ---- DepthwiseConv2dNativeBackpropInput ---------------------------------------
# float32 to 1e-4 (summation order differs), float64 to the default tolerance.

# (name, input NHWC, filter [H, W, C, multiplier], stride, padding, explicit)
DW_CASES = [
    ("same_3x3_m1", (2, 5, 6, 3), (3, 3, 3, 1), 1, "SAME", None),
    ("same_3x3_m2", (2, 5, 6, 3), (3, 3, 3, 2), 1, "SAME", None),
    ("valid_3x3_m3", (1, 7, 6, 4), (3, 3, 4, 3), 1, "VALID", None),
    ("same_s2", (2, 9, 8, 5), (3, 3, 5, 2), 2, "SAME", None),
    ("valid_s3_even", (1, 10, 11, 2), (2, 4, 2, 2), 3, "VALID", None),
    ("one_by_one", (2, 4, 4, 6), (1, 1, 6, 2), 1, "VALID", None),
    ("explicit_s2", (2, 7, 7, 3), (3, 2, 3, 1), 2, "EXPLICIT", ((1, 2), (3, 0))),
    ("mobilenet_like", (2, 28, 28, 32), (3, 3, 32, 1), 2, "SAME", None),
]


def dw_backprop_input(stride, padding, pads, fmt="NHWC", dilations=(1, 1, 1, 1)):
    def fn(s, w, dy):
        return raw.DepthwiseConv2dNativeBackpropInput(
            input_sizes=s, filter=w, out_backprop=dy,
            strides=[1, stride, stride, 1], padding=padding,
            explicit_paddings=explicit_list(pads), data_format=fmt,
            dilations=list(dilations))
    return fn


for name, inp, filt, stride, padding, pads in DW_CASES:
    for dtype in [np.float32, np.float64]:
        p = pads or ((0, 0), (0, 0))
        dy_shape = (inp[0], out_size(inp[1], filt[0], stride, padding, p[0]),
                    out_size(inp[2], filt[1], stride, padding, p[1]),
                    filt[2] * filt[3])
        cases.add(f"depthwise_backprop_input_{name}_{tname(dtype)}",
                  dw_backprop_input(stride, padding, pads),
                  [tf_oracle.Const(np.array(inp, np.int32)), rand(filt, dtype),
                   rand(dy_shape, dtype)],
                  atol=1e-4 if dtype == np.float32 else None,
                  rtol=1e-4 if dtype == np.float32 else None)

DW_W = rand((3, 3, 2, 2), np.float32)
DW_DY = rand((1, 5, 5, 4), np.float32)
# Dilations are accepted and ignored by TensorFlow's CPU kernel.
cases.add("depthwise_backprop_input_dilations_ignored",
          dw_backprop_input(1, "SAME", None, dilations=(1, 2, 2, 1)),
          [sizes(1, 5, 5, 2), DW_W, DW_DY])
cases.add("depthwise_backprop_input_empty_batch",
          dw_backprop_input(1, "SAME", None),
          [sizes(0, 5, 5, 2), DW_W, rand((0, 5, 5, 4), np.float32)])
for label, args, needle in [
    ("sizes_rank3", [sizes(5, 5, 2), DW_W, DW_DY], "input must be 4-dimensional"),
    ("rows_mismatch", [sizes(1, 5, 5, 2), DW_W, DW_DY[:, :4]],
     "actual = 4, computed = 5"),
    ("depth_mismatch", [sizes(1, 5, 5, 3), DW_W, DW_DY], "same in_depth"),
    ("out_depth_mismatch", [sizes(1, 5, 5, 2), DW_W, DW_DY[..., :3]],
     "not equal to out_depth"),
    ("batch_mismatch", [sizes(2, 5, 5, 2), DW_W, DW_DY], "same batch size"),
    ("negative_size", [sizes(1, -5, 5, 2), DW_W, DW_DY], "must be >= 0"),
]:
    cases.add(f"depthwise_backprop_input_{label}",
              dw_backprop_input(1, "SAME", None), args,
              expect_code=INVALID_ARGUMENT, message_contains=[needle])
cases.add("depthwise_backprop_input_nchw_unimplemented",
          dw_backprop_input(1, "SAME", None, fmt="NCHW"),
          [sizes(1, 2, 5, 5), DW_W, rand((1, 4, 5, 5), np.float32)],
          expect_code=UNIMPLEMENTED, message_contains=["NHWC"])

# ---- DepthwiseConv2dNativeBackpropFilter --------------------------------------
# Same configurations and tolerances as the input gradient. (TensorFlow
# leaves the filter gradient of an empty batch uninitialised, so that case
# has no oracle.)


def dw_backprop_filter(stride, padding, pads, fmt="NHWC", dilations=(1, 1, 1, 1)):
    def fn(x, s, dy):
        return raw.DepthwiseConv2dNativeBackpropFilter(
            input=x, filter_sizes=s, out_backprop=dy,
            strides=[1, stride, stride, 1], padding=padding,
            explicit_paddings=explicit_list(pads), data_format=fmt,
            dilations=list(dilations))
    return fn


for name, inp, filt, stride, padding, pads in DW_CASES:
    for dtype in [np.float32, np.float64]:
        p = pads or ((0, 0), (0, 0))
        dy_shape = (inp[0], out_size(inp[1], filt[0], stride, padding, p[0]),
                    out_size(inp[2], filt[1], stride, padding, p[1]),
                    filt[2] * filt[3])
        cases.add(f"depthwise_backprop_filter_{name}_{tname(dtype)}",
                  dw_backprop_filter(stride, padding, pads),
                  [rand(inp, dtype), tf_oracle.Const(np.array(filt, np.int32)),
                   rand(dy_shape, dtype)],
                  atol=1e-4 if dtype == np.float32 else None,
                  rtol=1e-4 if dtype == np.float32 else None)

DW_X = rand((1, 5, 5, 2), np.float32)
cases.add("depthwise_backprop_filter_dilations_ignored",
          dw_backprop_filter(1, "SAME", None, dilations=(1, 2, 2, 1)),
          [DW_X, sizes(3, 3, 2, 2), DW_DY])
for label, args, needle in [
    ("sizes_rank3", [DW_X, sizes(3, 3, 2), DW_DY], "filter must be 4-dimensional"),
    ("input_rank3", [DW_X[0], sizes(3, 3, 2, 2), DW_DY], "input must be 4-dimensional"),
    ("cols_mismatch", [DW_X, sizes(3, 3, 2, 2), DW_DY[:, :, :4]],
     "actual = 4, computed = 5"),
    ("depth_mismatch", [DW_X, sizes(3, 3, 3, 2), DW_DY], "same in_depth"),
    ("out_depth_mismatch", [DW_X, sizes(3, 3, 2, 2), DW_DY[..., :3]],
     "not equal to out_depth"),
    ("batch_mismatch", [np.concatenate([DW_X, DW_X]), sizes(3, 3, 2, 2), DW_DY],
     "same batch size"),
    ("negative_size", [DW_X, sizes(3, -3, 2, 2), DW_DY], "must be >= 0"),
]:
    cases.add(f"depthwise_backprop_filter_{label}",
              dw_backprop_filter(1, "SAME", None), args,
              expect_code=INVALID_ARGUMENT, message_contains=[needle])
cases.add("depthwise_backprop_filter_nchw_unimplemented",
          dw_backprop_filter(1, "SAME", None, fmt="NCHW"),
          [rand((1, 2, 5, 5), np.float32), sizes(3, 3, 2, 2),
           rand((1, 4, 5, 5), np.float32)],
          expect_code=UNIMPLEMENTED, message_contains=["NHWC"])

# ---- MaxPoolGrad / AvgPoolGrad ------------------------------------------------

# (name, input NHWC, ksize HW, strides HW, padding, explicit ((t,b),(l,r)))
POOL_CASES = [
    ("valid_2x2", (2, 4, 4, 3), (2, 2), (2, 2), "VALID", None),
    ("same_3x3_s2", (2, 5, 7, 2), (3, 3), (2, 2), "SAME", None),
    ("overlap_valid", (1, 6, 6, 4), (3, 3), (1, 1), "VALID", None),
    ("same_overlap", (3, 5, 5, 2), (3, 2), (1, 2), "SAME", None),
    ("window_gt_stride", (2, 8, 8, 3), (4, 4), (3, 3), "SAME", None),
]


def max_pool_grad(ksize, strides, padding, pads, fmt="NHWC"):
    def fn(x, dy):
        y = raw.MaxPool(input=x, ksize=[1, ksize[0], ksize[1], 1],
                        strides=[1, strides[0], strides[1], 1], padding=padding,
                        explicit_paddings=explicit_list(pads))
        return raw.MaxPoolGrad(orig_input=x, orig_output=y, grad=dy,
                               ksize=[1, ksize[0], ksize[1], 1],
                               strides=[1, strides[0], strides[1], 1],
                               padding=padding,
                               explicit_paddings=explicit_list(pads),
                               data_format=fmt)
    return fn


def avg_pool_grad(ksize, strides, padding, fmt="NHWC", batch_k=1):
    def fn(s, dy):
        return raw.AvgPoolGrad(orig_input_shape=s, grad=dy,
                               ksize=[batch_k, ksize[0], ksize[1], 1],
                               strides=[1, strides[0], strides[1], 1],
                               padding=padding, data_format=fmt)
    return fn


def ties(shape, dtype):
    """Few distinct values, so most windows hold several maxima."""
    return rng.integers(0, 3, size=shape).astype(dtype)


POOL_CASES_EXPLICIT = POOL_CASES + [
    ("explicit", (2, 5, 5, 2), (3, 3), (2, 2), "EXPLICIT", ((1, 2), (2, 0)))]
for dtype in [np.float32, np.float64, np.int32, np.int64]:
    for name, inp, k, s, padding, pads in POOL_CASES_EXPLICIT:
        pp = pads or ((0, 0), (0, 0))
        dy_shape = (inp[0], out_size(inp[1], k[0], s[0], padding, pp[0]),
                    out_size(inp[2], k[1], s[1], padding, pp[1]), inp[3])
        suffix = f"{name}_{tname(dtype)}"
        cases.add(f"max_pool_grad_ties_{suffix}",
                  max_pool_grad(k, s, padding, pads),
                  [ties(inp, dtype), rand(dy_shape, dtype)])
        if np.issubdtype(dtype, np.floating):
            cases.add(f"max_pool_grad_{suffix}",
                      max_pool_grad(k, s, padding, pads),
                      [rand(inp, dtype), rand(dy_shape, dtype)])
            if padding != "EXPLICIT":
                cases.add(f"avg_pool_grad_{suffix}",
                          avg_pool_grad(k, s, padding),
                          [tf_oracle.Const(np.array(inp, np.int32)),
                           rand(dy_shape, dtype)])

# The small integer types (no forward MaxPool kernel, but TensorFlow's CPU
# MaxPoolGrad has them): values that fit every type.
for dtype in [np.int8, np.uint8, np.int16, np.uint16, np.uint32, np.uint64]:
    for name, inp, k, s, padding, pads in POOL_CASES[:2]:
        dy_shape = (inp[0], out_size(inp[1], k[0], s[0], padding),
                    out_size(inp[2], k[1], s[1], padding), inp[3])

        def fn(x, y, dy, k=k, s=s, padding=padding):
            return raw.MaxPoolGrad(orig_input=x, orig_output=y, grad=dy,
                                   ksize=[1, k[0], k[1], 1],
                                   strides=[1, s[0], s[1], 1], padding=padding)
        x = ties(inp, dtype)
        # orig_output only needs the right shape (TensorFlow recomputes the
        # argmax from orig_input).
        cases.add(f"max_pool_grad_ties_{name}_{tname(dtype)}", fn,
                  [x, ties(dy_shape, dtype), ties(dy_shape, dtype)])

# NaN inputs: a NaN never beats the current max (unless it is the window's
# first tap), as in TensorFlow's comparison.
NAN_IN = rand((1, 4, 4, 2), np.float32)
NAN_IN[0, 0, 0, 0] = np.nan
NAN_IN[0, 1, 1, 1] = np.nan
NAN_IN[0, 2, 3, :] = np.nan
cases.add("max_pool_grad_nan_inputs",
          lambda x, dy: raw.MaxPoolGrad(
              orig_input=x, orig_output=raw.MaxPool(
                  input=x, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1],
                  padding="VALID"),
              grad=dy, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding="VALID"),
          [NAN_IN, rand((1, 2, 2, 2), np.float32)])

X4 = rand((2, 4, 4, 3), np.float32)
Y2 = rand((2, 2, 2, 3), np.float32)


def mp_grad_raw(ksize=(1, 2, 2, 1), strides=(1, 2, 2, 1), fmt="NHWC"):
    def fn(x, y, dy):
        return raw.MaxPoolGrad(orig_input=x, orig_output=y, grad=dy,
                               ksize=list(ksize), strides=list(strides),
                               padding="VALID", data_format=fmt)
    return fn


MP_ERRORS = [
    ("input_rank3", mp_grad_raw(), [rand((2, 4, 4), np.float32), Y2, Y2],
     INVALID_ARGUMENT, "tensor_in must be 4-dimensional"),
    ("output_rank3", mp_grad_raw(), [X4, rand((2, 2, 2), np.float32), Y2],
     INVALID_ARGUMENT, "tensor_out must be 4-dimensional"),
    ("grad_rank3", mp_grad_raw(), [X4, Y2, rand((2, 2, 2), np.float32)],
     INVALID_ARGUMENT, "out_backprop must be 4-dimensional"),
    ("grad_shape", mp_grad_raw(), [X4, Y2, rand((2, 2, 3, 3), np.float32)],
     INVALID_ARGUMENT, "Expected grad shape to be [2,2,2,3], but got [2,2,3,3]"),
    ("output_shape", mp_grad_raw(), [X4, rand((2, 2, 3, 3), np.float32), Y2],
     INVALID_ARGUMENT,
     "Expected orig_output shape to be [2,2,2,3], but got [2,2,3,3]"),
    ("nchw", mp_grad_raw((1, 1, 2, 2), (1, 1, 2, 2), "NCHW"), [X4, Y2, Y2],
     INVALID_ARGUMENT,
     "Default MaxPoolingGradOp only supports NHWC on device type CPU"),
    ("batch_window", mp_grad_raw((2, 2, 2, 1)), [X4, Y2, Y2], UNIMPLEMENTED,
     "Pooling is not yet supported on the batch dimension."),
    ("depth_window", mp_grad_raw((1, 1, 1, 3), (1, 1, 1, 3)),
     [X4, rand((2, 4, 4, 1), np.float32), rand((2, 4, 4, 1), np.float32)],
     UNIMPLEMENTED, "MaxPoolingGrad is not yet supported on the depth dimension."),
]
for name, fn, inputs, code, message in MP_ERRORS:
    cases.add(f"max_pool_grad_error_{name}", fn, inputs, expect_code=code,
              message_contains=[message])

AP_ERRORS = [
    ("shape_three", avg_pool_grad((2, 2), (2, 2), "VALID"),
     [sizes(2, 4, 4), Y2], INVALID_ARGUMENT,
     "out_backprop must be 1-dimensional and 4 elements"),
    ("grad_rank3", avg_pool_grad((2, 2), (2, 2), "VALID"),
     [sizes(2, 4, 4, 3), rand((2, 2, 2), np.float32)], INVALID_ARGUMENT,
     "out_backprop must be 4-dimensional"),
    ("nchw", avg_pool_grad((2, 2), (2, 2), "VALID", fmt="NCHW"),
     [sizes(2, 3, 4, 4), rand((2, 3, 2, 2), np.float32)], INVALID_ARGUMENT,
     "Default AvgPoolingGradOp only supports NHWC on device type CPU"),
    ("batch_window", avg_pool_grad((2, 2), (2, 2), "VALID", batch_k=2),
     [sizes(2, 4, 4, 3), Y2], UNIMPLEMENTED,
     "Pooling is not yet supported on the batch dimension."),
    ("negative_size", avg_pool_grad((2, 2), (2, 2), "VALID"),
     [sizes(2, -4, 4, 3), Y2], INVALID_ARGUMENT,
     "Expected a non-negative size, got -4"),
]
for name, fn, inputs, code, message in AP_ERRORS:
    cases.add(f"avg_pool_grad_error_{name}", fn, inputs, expect_code=code,
              message_contains=[message])

NnGradOracleTest = tf_oracle.make_test_class("kernels/nn/run_nn_cases", cases)
