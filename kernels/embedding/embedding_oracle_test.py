"""Every embedding-family kernel against live TensorFlow: values and error
codes, across dtypes (see kernels/testing/README.md for the harness).

Inputs are Placeholders of unknown shape, so errors come from TensorFlow's
kernels, as they do from ours. String outputs are left to the gtests (the
harness decodes numbers); strings are still fed (Unique's idx,
StringToHashBucketFast).
"""
import sys

sys.path.insert(0, "kernels/testing")  # cwd is the runfiles root

import numpy as np  # noqa: E402

import tf_oracle  # noqa: E402
from tf_oracle import tf  # noqa: E402

raw = tf.raw_ops
cases = tf_oracle.Cases()
INVALID_ARGUMENT = 3

REAL = {"f32": np.float32, "f64": np.float64, "f16": np.float16,
        "i32": np.int32, "i64": np.int64, "u8": np.uint8, "i16": np.int16}
FLOATING = {"f32": np.float32, "f64": np.float64, "f16": np.float16}


def vals(dtype, shape, start=0):
    """Distinct values of `dtype` in `shape`, small enough for products."""
    n = int(np.prod(shape, dtype=np.int64))
    idx = np.arange(start, start + n)
    if dtype in (np.float16, np.float32, np.float64):
        return (idx * 0.75 - 2).astype(dtype).reshape(shape)
    return (idx % 7 + 1).astype(dtype).reshape(shape)


def i32(v):
    return np.asarray(v, np.int32)


def i64(v):
    return np.asarray(v, np.int64)


def add(name, fn, inputs, **kw):
    cases.add(name, fn, inputs, **kw)


def add_error(name, fn, inputs, *contains):
    cases.add(name, fn, inputs, message_contains=list(contains),
              expect_code=INVALID_ARGUMENT)


# --- Unique -------------------------------------------------------------------

for n, dt in REAL.items():
    add(f"unique_{n}", lambda x: raw.Unique(x=x, out_idx=tf.int64),
        [np.array([3, 1, 3, 2, 1, 1]).astype(dt)])
    add(f"unique_with_counts_{n}", lambda x: raw.UniqueWithCounts(x=x),
        [np.array([5, 5, 0, 7, 0]).astype(dt)])
add("unique_empty", lambda x: raw.Unique(x=x), [np.zeros((0,), np.int64)])
add("unique_string_idx", lambda x: raw.Unique(x=x)[1],
    [np.array([b"b", b"a", b"b", b""])])
add_error("unique_matrix", lambda x: raw.Unique(x=x), [i32([[1, 2]])],
          "unique expects a 1D vector.")

# --- DynamicPartition / DynamicStitch -------------------------------------------


def partition(n):
    return lambda d, p: raw.DynamicPartition(data=d, partitions=p,
                                             num_partitions=n)


for n, dt in REAL.items():
    add(f"dynamic_partition_{n}", partition(3),
        [vals(dt, (5, 2)), i32([2, 0, 2, 2, 1])])
add("dynamic_partition_matrix_ids", partition(2),
    [vals(np.float32, (2, 2, 3)), i32([[1, 0], [0, 0]])])
add("dynamic_partition_empty", partition(2),
    [np.zeros((0, 3), np.float32), np.zeros((0,), np.int32)])
add_error("dynamic_partition_out_of_range", partition(2),
          [vals(np.float32, (3,)), i32([0, 2, 1])],
          "partitions[1] = 2 is not in [0, 2)")
add_error("dynamic_partition_shape", partition(2),
          [vals(np.float32, (3,)), i32([0, 1])],
          "data.shape must start with partitions.shape")


def stitch(parallel=False):
    op = raw.ParallelDynamicStitch if parallel else raw.DynamicStitch
    return lambda i0, i1, d0, d1: op(indices=[i0, i1], data=[d0, d1])


for n, dt in REAL.items():
    for parallel in (False, True):
        add(f"dynamic_stitch_{n}_{parallel}", stitch(parallel),
            [i32([1, 4]), i32([[0, 2], [3, 5]]), vals(dt, (2, 3)),
             vals(dt, (2, 2, 3), 10)])
add("dynamic_stitch_duplicate_later_wins", stitch(),
    [i32([0, 1]), i32([1]), vals(np.float32, (2,)), vals(np.float32, (1,), 5)])
add_error("dynamic_stitch_negative", stitch(),
          [i32([0, -1]), i32([1]), vals(np.float32, (2,)), vals(np.float32, (1,))],
          "is out of range")

# --- Segment reductions -----------------------------------------------------------

SORTED = ["SegmentSum", "SegmentMean", "SegmentProd", "SegmentMax", "SegmentMin"]
UNSORTED = ["UnsortedSegmentSum", "UnsortedSegmentProd", "UnsortedSegmentMax",
            "UnsortedSegmentMin"]

for op in SORTED:
    for n, dt in REAL.items():
        add(f"{op}_{n}", lambda d, s, op=op: getattr(raw, op)(data=d, segment_ids=s),
            [vals(dt, (5, 2)), i64([0, 0, 2, 2, 3])])
    add_error(f"{op}_not_increasing",
              lambda d, s, op=op: getattr(raw, op)(data=d, segment_ids=s),
              [vals(np.float32, (3,)), i32([0, 2, 1])],
              "segment ids are not increasing")
for op in UNSORTED:
    for n, dt in REAL.items():
        add(f"{op}_{n}",
            lambda d, s, k, op=op: getattr(raw, op)(data=d, segment_ids=s,
                                                    num_segments=k),
            [vals(dt, (6, 2)), i32([3, -1, 0, 3, 0, -4]), i32(5)])
    add(f"{op}_matrix_ids",
        lambda d, s, k, op=op: getattr(raw, op)(data=d, segment_ids=s,
                                                num_segments=k),
        [vals(np.float32, (2, 2, 3)), i64([[1, 0], [1, 1]]), i64(3)])
    add_error(f"{op}_out_of_range",
              lambda d, s, k, op=op: getattr(raw, op)(data=d, segment_ids=s,
                                                      num_segments=k),
              [vals(np.float32, (3,)), i32([0, 3, 1]), i32(3)],
              "segment_ids[1] = 3 is out of range [0, 3)")
add("UnsortedSegmentSum_int16_ids",
    lambda d, s, k: raw.UnsortedSegmentSum(data=d, segment_ids=s, num_segments=k),
    [vals(np.float32, (3,)), np.array([1, 1, 0], np.int16), i32(2)])

# --- Sparse segment reductions and gradients ----------------------------------------

SPARSE = ["SparseSegmentSum", "SparseSegmentMean", "SparseSegmentSqrtN"]
for op in SPARSE:
    types = REAL if op == "SparseSegmentSum" else FLOATING
    for n, dt in types.items():
        add(f"{op}_{n}",
            lambda d, i, s, op=op: getattr(raw, op)(data=d, indices=i,
                                                    segment_ids=s),
            [vals(dt, (4, 3)), i64([0, 3, 3, 1, 2]), i32([0, 0, 0, 2, 2])])
        add(f"{op}WithNumSegments_{n}",
            lambda d, i, s, k, op=op: getattr(raw, op + "WithNumSegments")(
                data=d, indices=i, segment_ids=s, num_segments=k),
            [vals(dt, (4, 3)), i32([0, 3, 1]), i64([1, 1, 2]), i32(5)])
    add_error(f"{op}_bad_index",
              lambda d, i, s, op=op: getattr(raw, op)(data=d, indices=i,
                                                      segment_ids=s),
              [vals(np.float32, (4,)), i32([0, 4]), i32([0, 0])],
              "Bad: indices[1] == 4 out of range [0, 4)")
    add(f"{op}_empty",
        lambda d, i, s, op=op: getattr(raw, op)(data=d, indices=i, segment_ids=s),
        [vals(np.float32, (4, 2)), np.zeros((0,), np.int32),
         np.zeros((0,), np.int32)])
    for n, dt in FLOATING.items():
        add(f"{op}Grad_{n}",
            lambda g, i, s, k, op=op: getattr(raw, op + "Grad")(
                grad=g, indices=i, segment_ids=s, output_dim0=k),
            [vals(dt, (3, 2)), i32([0, 3, 3, 1, 2]), i64([0, 0, 0, 2, 2]),
             i32(5)])
    add_error(f"{op}Grad_bad_index",
              lambda g, i, s, k, op=op: getattr(raw, op + "Grad")(
                  grad=g, indices=i, segment_ids=s, output_dim0=k),
              [vals(np.float32, (2, 2)), i32([0, 5]), i32([0, 1]), i32(5)],
              "out of range")

# --- Hashing -----------------------------------------------------------------

add("string_to_hash_bucket_fast",
    lambda s: raw.StringToHashBucketFast(input=s, num_buckets=1000),
    [np.array([[b"", b"cat"], [b"dog", b"a token longer than sixteen bytes"]])])

EmbeddingOracleTest = tf_oracle.make_test_class(
    "kernels/embedding/run_embedding_cases", cases)
