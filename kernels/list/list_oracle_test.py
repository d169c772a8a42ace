"""The TensorList ops that move many elements at once (TensorListGather,
TensorListScatter/V2, TensorListScatterIntoExistingList, TensorListConcatV2,
TensorListSplit, TensorListResize) and TensorListStack, against live
TensorFlow: each case builds a small graph of list ops with tf.raw_ops on fed
Placeholders (the list itself is a DT_VARIANT value inside the graph; the
fetches are dense tensors), runs it in TensorFlow and through
//kernels/list:run_list_cases. Moving elements is exact: rtol = atol = 0.
Error cases must give TensorFlow's code. (String elements are tested in
list_kernels_test: the oracle's result decoding takes numeric tensors only.
A scatter past the end of an existing list is tested without a gap: there
TensorFlow fills the gap with empty float tensors, and its Stack then moves
the later rows up and leaves the last ones unwritten; ours reads the gap as
zeros.)
"""
import sys

sys.path.insert(0, "kernels/testing")  # cwd is the runfiles root

import numpy as np  # noqa: E402

import tf_oracle  # noqa: E402
from tf_oracle import tf  # noqa: E402

raw = tf.raw_ops
cases = tf_oracle.Cases()
rng = np.random.default_rng(77)
INVALID_ARGUMENT = 3
EXACT = dict(rtol=0, atol=0)
UNKNOWN = np.int32(-1)   # element_shape: unknown rank


def values(shape, dtype):
    if dtype == np.bool_:
        return rng.integers(0, 2, size=shape).astype(np.bool_)
    return (rng.standard_normal(shape) * 10).astype(dtype)


def from_tensor(x, shape=UNKNOWN):
    return raw.TensorListFromTensor(tensor=x, element_shape=shape)


def stack(handle, dtype, shape=UNKNOWN):
    return raw.TensorListStack(input_handle=handle, element_shape=shape,
                               element_dtype=dtype)


DTYPES = [np.float32, np.float64, np.int32, np.int64, np.bool_, np.float16]

# ---- TensorListGather --------------------------------------------------------------
for dtype in DTYPES:
    n = np.dtype(dtype).name
    cases.add(f"gather_{n}",
              lambda x, i: raw.TensorListGather(input_handle=from_tensor(x), indices=i,
                                                element_shape=UNKNOWN,
                                                element_dtype=x.dtype),
              [values((5, 3), dtype), np.array([4, 0, 2, 2], np.int32)], **EXACT)
cases.add("gather_matrix_indices",
          lambda x, i: raw.TensorListGather(input_handle=from_tensor(x), indices=i,
                                            element_shape=UNKNOWN,
                                            element_dtype=tf.float32),
          [values((5, 2, 2), np.float32), np.array([[1, 2], [0, 4]], np.int32)], **EXACT)


def reserved_with(x, i, shape):
    """A reserved list of 4 with element 1 set to x: elements 0, 2, 3 unset."""
    h = raw.TensorListReserve(element_shape=shape, num_elements=4,
                              element_dtype=tf.float32)
    return raw.TensorListSetItem(input_handle=h, index=1, item=x)


cases.add("gather_uninitialized_as_zeros",
          lambda x, i: raw.TensorListGather(
              input_handle=reserved_with(x, i, np.array([3], np.int32)), indices=i,
              element_shape=np.array([3], np.int32), element_dtype=tf.float32),
          [values((3,), np.float32), np.array([0, 1, 3], np.int32)], **EXACT)
cases.add("gather_uninitialized_shape_from_set_element",
          lambda x, i: raw.TensorListGather(
              input_handle=reserved_with(x, i, UNKNOWN), indices=i,
              element_shape=UNKNOWN, element_dtype=tf.float32),
          [values((3,), np.float32), np.array([1, 2], np.int32)], **EXACT)
cases.add("gather_uninitialized_unknown_shape",
          lambda x, i: raw.TensorListGather(
              input_handle=reserved_with(x, i, UNKNOWN), indices=i,
              element_shape=UNKNOWN, element_dtype=tf.float32),
          [values((3,), np.float32), np.array([0, 2], np.int32)],
          expect_code=INVALID_ARGUMENT)
cases.add("gather_nothing_known_shape",
          lambda x, i: raw.TensorListGather(input_handle=from_tensor(x), indices=i,
                                            element_shape=np.array([3], np.int32),
                                            element_dtype=tf.float32),
          [values((5, 3), np.float32), np.zeros((0,), np.int32)], **EXACT)
cases.add("gather_nothing_unknown_shape",
          lambda i: raw.TensorListGather(
              input_handle=raw.EmptyTensorList(element_shape=UNKNOWN,
                                               max_num_elements=-1,
                                               element_dtype=tf.float32),
              indices=i, element_shape=UNKNOWN, element_dtype=tf.float32),
          [np.zeros((0,), np.int32)], expect_code=INVALID_ARGUMENT,
          message_contains=["Tried to gather 0-elements"])
cases.add("gather_out_of_range",
          lambda x, i: raw.TensorListGather(input_handle=from_tensor(x), indices=i,
                                            element_shape=UNKNOWN,
                                            element_dtype=tf.float32),
          [values((3, 2), np.float32), np.array([0, 3], np.int32)],
          expect_code=INVALID_ARGUMENT, message_contains=["Index 3 out o range"])
# ---- TensorListScatter, TensorListScatterV2 -----------------------------------------
for dtype in DTYPES:
    n = np.dtype(dtype).name
    cases.add(f"scatter_v2_{n}",
              lambda x, i: stack(raw.TensorListScatterV2(
                  tensor=x, indices=i, element_shape=np.array([2], np.int32),
                  num_elements=np.int32(-1)), x.dtype, np.array([2], np.int32)),
              [values((3, 2), dtype), np.array([4, 0, 2], np.int32)], **EXACT)
cases.add("scatter_v2_num_elements",
          lambda x, i: stack(raw.TensorListScatterV2(
              tensor=x, indices=i, element_shape=np.array([2], np.int64),
              num_elements=np.int32(6)), tf.float32, np.array([2], np.int32)),
          [values((2, 2), np.float32), np.array([1, 3], np.int32)], **EXACT)
cases.add("scatter_v2_repeated_index",
          lambda x, i: stack(raw.TensorListScatterV2(
              tensor=x, indices=i, element_shape=UNKNOWN,
              num_elements=np.int32(-1)), tf.float32),
          [values((3, 2), np.float32), np.array([1, 0, 1], np.int32)], **EXACT)
cases.add("scatter_v1",
          lambda x, i: stack(raw.TensorListScatter(
              tensor=x, indices=i, element_shape=UNKNOWN), tf.int32),
          [values((3, 2), np.int32), np.array([2, 1, 0], np.int32)], **EXACT)
cases.add("scatter_negative_index",
          lambda x, i: stack(raw.TensorListScatterV2(
              tensor=x, indices=i, element_shape=UNKNOWN,
              num_elements=np.int32(-1)), tf.float32),
          [values((2, 2), np.float32), np.array([0, -1], np.int32)],
          expect_code=INVALID_ARGUMENT, message_contains=["non-negative"])
cases.add("scatter_index_past_num_elements",
          lambda x, i: stack(raw.TensorListScatterV2(
              tensor=x, indices=i, element_shape=UNKNOWN,
              num_elements=np.int32(2)), tf.float32),
          [values((2, 2), np.float32), np.array([0, 2], np.int32)],
          expect_code=INVALID_ARGUMENT, message_contains=["Trying to scatter at index 2"])
cases.add("scatter_rows_mismatch",
          lambda x, i: stack(raw.TensorListScatterV2(
              tensor=x, indices=i, element_shape=UNKNOWN,
              num_elements=np.int32(-1)), tf.float32),
          [values((3, 2), np.float32), np.array([0, 1], np.int32)],
          expect_code=INVALID_ARGUMENT, message_contains=["Invalid number of rows"])
cases.add("scatter_shape_mismatch",
          lambda x, i: stack(raw.TensorListScatterV2(
              tensor=x, indices=i, element_shape=np.array([3], np.int32),
              num_elements=np.int32(-1)), tf.float32),
          [values((2, 2), np.float32), np.array([0, 1], np.int32)],
          expect_code=INVALID_ARGUMENT)

# ---- TensorListScatterIntoExistingList ----------------------------------------------
cases.add("scatter_into_existing_grows",
          lambda x, i: stack(raw.TensorListScatterIntoExistingList(
              input_handle=raw.TensorListReserve(element_shape=np.array([2], np.int32),
                                                 num_elements=3,
                                                 element_dtype=tf.float32),
              tensor=x, indices=i), tf.float32, np.array([2], np.int32)),
          [values((2, 2), np.float32), np.array([1, 3], np.int32)], **EXACT)
cases.add("scatter_into_existing_overwrites",
          lambda x, y, i: stack(raw.TensorListScatterIntoExistingList(
              input_handle=from_tensor(x), tensor=y, indices=i), tf.float64),
          [values((4, 3), np.float64), values((2, 3), np.float64),
           np.array([3, 0], np.int32)], **EXACT)
cases.add("scatter_into_existing_len_mismatch",
          lambda x, y, i: stack(raw.TensorListScatterIntoExistingList(
              input_handle=from_tensor(x), tensor=y, indices=i), tf.float32),
          [values((4, 3), np.float32), values((2, 3), np.float32),
           np.array([3], np.int32)],
          expect_code=INVALID_ARGUMENT, message_contains=["len(indices)"])

# ---- TensorListSplit and TensorListConcatV2 -----------------------------------------


def split(x, lengths, shape=UNKNOWN):
    return raw.TensorListSplit(tensor=x, element_shape=shape, lengths=lengths)


def concat(handle, dtype, shape=UNKNOWN, leading=None):
    if leading is None:
        leading = np.zeros((0,), np.int64)
    return raw.TensorListConcatV2(input_handle=handle, element_shape=shape,
                                  leading_dims=leading, element_dtype=dtype)


for dtype in DTYPES:
    n = np.dtype(dtype).name
    cases.add(f"split_concat_{n}",
              lambda x, ln: list(concat(split(x, ln), x.dtype)),
              [values((6, 2), dtype), np.array([1, 3, 0, 2], np.int64)], **EXACT)
cases.add("split_then_get_item",
          lambda x, ln: raw.TensorListGetItem(input_handle=split(x, ln), index=1,
                                              element_shape=UNKNOWN,
                                              element_dtype=tf.float32),
          [values((5, 3), np.float32), np.array([2, 3], np.int64)], **EXACT)
cases.add("split_then_length",
          lambda x, ln: raw.TensorListLength(input_handle=split(x, ln)),
          [values((5,), np.float32), np.array([2, 0, 3], np.int64)], **EXACT)
cases.add("split_unused_rows",
          lambda x, ln: raw.TensorListLength(input_handle=split(x, ln)),
          [values((5, 2), np.float32), np.array([2, 2], np.int64)],
          expect_code=INVALID_ARGUMENT, message_contains=["Unused values in tensor"])
cases.add("split_past_end",
          lambda x, ln: raw.TensorListLength(input_handle=split(x, ln)),
          [values((5, 2), np.float32), np.array([4, 2], np.int64)],
          expect_code=INVALID_ARGUMENT, message_contains=["Attempting to slice"])
cases.add("split_negative_length",
          lambda x, ln: raw.TensorListLength(input_handle=split(x, ln)),
          [values((5, 2), np.float32), np.array([-1, 6], np.int64)],
          expect_code=INVALID_ARGUMENT, message_contains=["Invalid value in lengths"])
cases.add("split_scalar_element_shape",
          lambda x, ln: raw.TensorListLength(
              input_handle=split(x, ln, np.zeros((0,), np.int32))),
          [values((5, 2), np.float32), np.array([5], np.int64)],
          expect_code=INVALID_ARGUMENT, message_contains=["at least of rank 1"])
cases.add("split_incompatible_shape",
          lambda x, ln: raw.TensorListLength(
              input_handle=split(x, ln, np.array([-1, 3], np.int32))),
          [values((5, 2), np.float32), np.array([5], np.int64)],
          expect_code=INVALID_ARGUMENT, message_contains=["is not compatible"])
cases.add("concat_uninitialized_leading_dims",
          lambda x, ld: list(concat(reserved_with(x, None, np.array([-1, 2], np.int32)),
                                    tf.float32, np.array([-1, 2], np.int32), ld)),
          [values((3, 2), np.float32), np.array([2, 0, 1, 4], np.int64)], **EXACT)
cases.add("concat_uninitialized_first_dim_from_elements",
          lambda x: list(concat(reserved_with(x, None, np.array([-1, 2], np.int32)),
                                tf.float32)),
          [values((3, 2), np.float32)], **EXACT)
cases.add("concat_uninitialized_first_dim_from_shape",
          lambda x: list(concat(reserved_with(x, None, np.array([3, 2], np.int32)),
                                tf.float32, np.array([3, 2], np.int32))),
          [values((3, 2), np.float32)], **EXACT)
cases.add("concat_first_dim_mismatch",
          lambda x, ln: list(concat(split(x, ln), tf.float32, np.array([2, 2], np.int32))),
          [values((5, 2), np.float32), np.array([2, 3], np.int64)],
          expect_code=INVALID_ARGUMENT, message_contains=["First entry of element_shape"])
cases.add("concat_scalars",
          lambda x: list(concat(from_tensor(x), tf.float32)),
          [values((4,), np.float32)], expect_code=INVALID_ARGUMENT,
          message_contains=["Concat saw a scalar shape at index 0"])
cases.add("concat_empty_known_rest",
          lambda: list(concat(raw.EmptyTensorList(element_shape=np.array([-1, 3], np.int32),
                                                  max_num_elements=-1,
                                                  element_dtype=tf.float32),
                              tf.float32, np.array([-1, 3], np.int32))),
          [], **EXACT)
cases.add("concat_empty_unknown_rest",
          lambda: list(concat(raw.EmptyTensorList(element_shape=UNKNOWN,
                                                  max_num_elements=-1,
                                                  element_dtype=tf.float32),
                              tf.float32)),
          [], expect_code=INVALID_ARGUMENT, message_contains=["must be fully defined"])

# ---- TensorListResize -----------------------------------------------------------------
cases.add("resize_shrink",
          lambda x: stack(raw.TensorListResize(input_handle=from_tensor(x), size=2),
                          tf.float32),
          [values((4, 2), np.float32)], **EXACT)
cases.add("resize_grow_zeros",
          lambda x: stack(raw.TensorListResize(input_handle=from_tensor(x), size=6),
                          tf.int64, np.array([2], np.int32)),
          [values((4, 2), np.int64)], **EXACT)
cases.add("resize_negative",
          lambda x: stack(raw.TensorListResize(input_handle=from_tensor(x), size=-1),
                          tf.float32),
          [values((4, 2), np.float32)], expect_code=INVALID_ARGUMENT)

ListOracleTest = tf_oracle.make_test_class("kernels/list/run_list_cases", cases)
