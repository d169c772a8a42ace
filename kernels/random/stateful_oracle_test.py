"""tf.random.Generator's resource-based random kernels against live TensorFlow:
the same state variable must give the SAME BITS (rtol = atol = 0), advance
the same way, and bad inputs must give the same error codes (see
kernels/testing/README.md for the harness).

Each case creates an int64 state variable (VarHandleOp + AssignVariableOp),
runs one or several ops on it in order (control dependencies) and fetches
their outputs and the final state, so both the values and how far each op
moves the counter (256 samples per output element, delta * 256 for the skip
ops) are compared. States include a counter whose low word carries into the
high one, and one whose 128-bit counter wraps. Also here: the stateless
helpers StatelessRandomGetKeyCounterAlg / GetAlg, V1
StatelessRandomUniformFullInt, StatelessShuffle and Bitcast (which the
Generator's graphs use to turn the state into key and counter).
"""
import sys

sys.path.insert(0, "kernels/testing")  # cwd is the runfiles root

import numpy as np  # noqa: E402

import tf_oracle  # noqa: E402
from tf_oracle import tf  # noqa: E402

raw = tf.raw_ops
INVALID_ARGUMENT = 3
UNIMPLEMENTED = 12
EXACT = dict(rtol=0, atol=0)

STATES = {
    "small": np.array([1, 2, 3], np.int64),
    # Low counter word near 2^64: the skip carries into counter word 1.
    "carry": np.array([-256, 5, 0x0123456789ABCDEF], np.int64),
    # All 128 counter bits set: the counter wraps around to zero.
    "wrap": np.array([-1, -1, -77], np.int64),
    # A longer state: only the first three words are used.
    "long": np.array([9, 8, 7, 6, 5], np.int64),
}
SHAPES = {
    "scalar": [],
    "n7": [7],
    "3x5": [3, 5],
    "big": [3, 3001],  # thousands of groups, split over threads
}
FLOAT_OPS = {
    "uniform": raw.StatefulUniform,
    "normal": raw.StatefulStandardNormalV2,
    "truncated": raw.StatefulTruncatedNormal,
}
FLOAT_DTYPES = {"f16": tf.float16, "bf16": tf.bfloat16, "f32": tf.float32,
                "f64": tf.float64}


def run_on_state(steps):
    """fn(state, *args) running `steps` in order, each step(h, *args) -> a
    Tensor (fetched) or an Operation; the final state is fetched last. The
    args are fed (unknown shape), so bad shapes reach the kernel."""
    def fn(state, *args):
        h = raw.VarHandleOp(dtype=tf.int64, shape=[None], shared_name="rng")
        dep = raw.AssignVariableOp(resource=h, value=state)
        outs = []
        for step in steps:
            with tf.control_dependencies([dep]):
                out = step(h, *args)
            if isinstance(out, tf.Operation):
                dep = out
            else:
                outs.append(out)
                dep = out.op
        with tf.control_dependencies([dep]):
            outs.append(raw.ReadVariableOp(resource=h, dtype=tf.int64))
        return outs
    return fn


def float_step(op, dtype, shape, alg=1):
    return lambda h, *_: op(resource=h, algorithm=np.int64(alg), shape=shape, dtype=dtype)


cases = tf_oracle.Cases()

for op_name, op in FLOAT_OPS.items():
    for dtype_name, dtype in FLOAT_DTYPES.items():
        for shape_name, shape in SHAPES.items():
            states = STATES if shape_name == "n7" else {"small": STATES["small"]}
            for state_name, state in states.items():
                cases.add(f"{op_name}_{dtype_name}_{shape_name}_{state_name}",
                          run_on_state([float_step(op, dtype, shape)]), [state], **EXACT)
    # Successive calls continue where the last one left the state; auto-select
    # (alg 3) is Philox.
    cases.add(f"{op_name}_three_steps", run_on_state([
        float_step(op, tf.float32, [5]), float_step(op, tf.float64, [2, 3], alg=3),
        float_step(op, tf.float32, [9])]), [STATES["carry"]], **EXACT)
    cases.add(f"{op_name}_empty", run_on_state([float_step(op, tf.float32, [4, 0])]),
              [STATES["small"]], **EXACT)
    cases.add(f"{op_name}_threefry", run_on_state([float_step(op, tf.float32, [3], alg=2)]),
              [STATES["small"]], expect_code=UNIMPLEMENTED,
              message_contains=["ThreeFry"])
    cases.add(f"{op_name}_bad_alg", run_on_state([float_step(op, tf.float32, [3], alg=7)]),
              [STATES["small"]], expect_code=INVALID_ARGUMENT,
              message_contains=["Unsupported algorithm id: 7"])
    cases.add(f"{op_name}_short_state", run_on_state([float_step(op, tf.float32, [3])]),
              [np.array([1, 2], np.int64)], expect_code=INVALID_ARGUMENT,
              message_contains=["size of state must be at least 3; got 2"])
    cases.add(f"{op_name}_matrix_state", run_on_state([float_step(op, tf.float32, [3])]),
              [np.array([[1, 2, 3]], np.int64)], expect_code=INVALID_ARGUMENT,
              message_contains=["one and only one dimension, not 2"])
    cases.add(f"{op_name}_negative_dim", run_on_state([float_step(op, tf.float32, [2, -1])]),
              [STATES["small"]], expect_code=INVALID_ARGUMENT)
    cases.add(f"{op_name}_alg_not_scalar",
              run_on_state([lambda h, alg, op=op: op(resource=h, algorithm=alg, shape=[3],
                                                     dtype=tf.float32)]),
              [STATES["small"], np.array([1], np.int64)], expect_code=INVALID_ARGUMENT,
              message_contains=["input 1 (0-based) must have shape [], not [1]"])


def int32_state_case():
    h = raw.VarHandleOp(dtype=tf.int32, shape=[3], shared_name="rng")
    a = raw.AssignVariableOp(resource=h, value=tf.constant([1, 2, 3], tf.int32))
    with tf.control_dependencies([a]):
        return raw.StatefulUniform(resource=h, algorithm=np.int64(1), shape=[3])


cases.add("uniform_int32_state", int32_state_case, [], expect_code=INVALID_ARGUMENT,
          message_contains=["dtype of RNG state variable must be int64, not int32"])

for dtype in (np.int32, np.int64, np.uint32, np.uint64):
    for shape_name, shape in SHAPES.items():
        cases.add(f"full_int_{dtype.__name__}_{shape_name}", run_on_state([
            lambda h, dtype=dtype, shape=shape: raw.StatefulUniformFullInt(
                resource=h, algorithm=np.int64(1), shape=shape, dtype=dtype)]),
            [STATES["carry"]], **EXACT)


def uniform_int_step(lo, hi, shape, alg=1):
    return lambda h: raw.StatefulUniformInt(resource=h, algorithm=np.int64(alg),
                                            shape=shape, minval=lo, maxval=hi)


def fed_bounds_step(shape):
    return lambda h, lo, hi: raw.StatefulUniformInt(resource=h, algorithm=np.int64(1),
                                                    shape=shape, minval=lo, maxval=hi)


for dtype in (np.int32, np.int64):
    info = np.iinfo(dtype)
    name = dtype.__name__
    for range_name, (lo, hi) in {"small": (-3, 4), "one": (5, 6),
                                 "wide": (info.min, info.max)}.items():
        for shape_name, shape in SHAPES.items():
            cases.add(f"int_{name}_{range_name}_{shape_name}",
                      run_on_state([uniform_int_step(dtype(lo), dtype(hi), shape)]),
                      [STATES["small"]], **EXACT)
    cases.add(f"int_{name}_empty_still_checks_range",
              run_on_state([uniform_int_step(dtype(3), dtype(3), [0])]),
              [STATES["small"]], expect_code=INVALID_ARGUMENT,
              message_contains=["Need minval < maxval, got 3 >= 3"])
    cases.add(f"int_{name}_minval_not_scalar", run_on_state([fed_bounds_step([2])]),
              [STATES["small"], np.array([0], dtype), dtype(4)],
              expect_code=INVALID_ARGUMENT, message_contains=["minval must be 0-D"])
    cases.add(f"int_{name}_maxval_not_scalar", run_on_state([fed_bounds_step([2])]),
              [STATES["small"], dtype(0), np.array([4, 5], dtype)],
              expect_code=INVALID_ARGUMENT,
              message_contains=["maxval must be 0-D"])

# ---- RngSkip / RngReadAndSkip -------------------------------------------------


def read_and_skip(delta, alg=1):
    return lambda h, *_: raw.RngReadAndSkip(resource=h, alg=np.int32(alg),
                                        delta=np.uint64(delta))


def skip(delta, alg=1):
    return lambda h, *_: raw.RngSkip(resource=h, algorithm=np.int64(alg),
                                 delta=np.int64(delta))


# TensorFlow 2.21's RngReadAndSkip corrupts its heap on a state longer than 3
# (it copies the whole state into its 3-element output), so the long state
# is only skipped and read back.
for state_name, state in STATES.items():
    if state_name == "long":
        cases.add("skip_long", run_on_state([skip(2), skip(-1), skip(2**40, alg=3)]),
                  [state], **EXACT)
        continue
    cases.add(f"read_and_skip_{state_name}", run_on_state([
        read_and_skip(3), read_and_skip(0), read_and_skip(2**56 + 5, alg=3),
        read_and_skip(1)]), [state], **EXACT)
    cases.add(f"skip_{state_name}", run_on_state([
        skip(2), read_and_skip(0), skip(-1), read_and_skip(0), skip(2**40, alg=3)]),
        [state], **EXACT)
# The skip is what the next draw starts from.
cases.add("skip_then_uniform", run_on_state([
    skip(10), float_step(raw.StatefulUniform, tf.float32, [6]), read_and_skip(1),
    float_step(raw.StatefulStandardNormalV2, tf.float64, [3])]), [STATES["carry"]],
    **EXACT)
for name, step in {"read_and_skip": read_and_skip(1), "skip": skip(1)}.items():
    for alg, code, text in ((2, UNIMPLEMENTED, "ThreeFry"),
                            (0, INVALID_ARGUMENT, "Unsupported algorithm id: 0")):
        cases.add(f"{name}_alg{alg}", run_on_state([
            (read_and_skip(1, alg) if name == "read_and_skip" else skip(1, alg))]),
            [STATES["small"]], expect_code=code, message_contains=[text])
    cases.add(f"{name}_short_state", run_on_state([step]), [np.array([1, 2], np.int64)],
              expect_code=INVALID_ARGUMENT,
              message_contains=["size of state must be at least 3; got 2"])
cases.add("skip_delta_not_scalar", run_on_state([
    lambda h, delta: raw.RngSkip(resource=h, algorithm=np.int64(1), delta=delta)]),
    [STATES["small"], np.array([1], np.int64)], expect_code=INVALID_ARGUMENT,
    message_contains=["input 2 (0-based) must have shape [], not [1]"])

# ---- Stateless helpers ------------------------------------------------------------

SEEDS = {
    "i64_1_2": np.array([1, 2], np.int64),
    "i32_neg": np.array([-7, 123], np.int32),
    "i64_high": np.array([0x123456789AB, -5], np.int64),
}
for seed_name, seed in SEEDS.items():
    cases.add(f"get_key_counter_alg_{seed_name}",
              lambda s: raw.StatelessRandomGetKeyCounterAlg(seed=s), [seed], **EXACT)
cases.add("get_key_counter_alg_bad_seed",
          lambda s: raw.StatelessRandomGetKeyCounterAlg(seed=s),
          [np.array([1, 2, 3], np.int64)], expect_code=INVALID_ARGUMENT,
          message_contains=["seed must have shape [2]"])
cases.add("get_alg", lambda: raw.StatelessRandomGetAlg(), [], **EXACT)

for dtype in (np.int32, np.int64, np.uint32, np.uint64):
    for shape_name, shape in SHAPES.items():
        for seed_name, seed in list(SEEDS.items())[:2]:
            cases.add(f"stateless_full_int_{dtype.__name__}_{shape_name}_{seed_name}",
                      lambda s, seed, dtype=dtype: raw.StatelessRandomUniformFullInt(
                          shape=s, seed=seed, dtype=dtype),
                      [np.array(shape, np.int32), seed], **EXACT)
for seed_dtype in (np.uint32, np.uint64):
    cases.add(f"stateless_full_int_seed_{seed_dtype.__name__}",
              lambda s, seed: raw.StatelessRandomUniformFullInt(shape=s, seed=seed,
                                                                dtype=tf.uint32),
              [np.array([3], np.int32), np.array([1, 2], seed_dtype)],
              expect_code=INVALID_ARGUMENT, message_contains=["Invalid seed type"])
    cases.add(f"stateless_full_int_seed_{seed_dtype.__name__}_empty",
              lambda s, seed: raw.StatelessRandomUniformFullInt(shape=s, seed=seed,
                                                                dtype=tf.uint32),
              [np.array([0], np.int32), np.array([1, 2], seed_dtype)], **EXACT)
cases.add("stateless_full_int_bad_seed",
          lambda s, seed: raw.StatelessRandomUniformFullInt(shape=s, seed=seed),
          [np.array([3], np.int32), np.array([1], np.int64)],
          expect_code=INVALID_ARGUMENT, message_contains=["seed must have shape [2]"])

KEY = np.array([0x0123456789ABCDEF], np.uint64)
COUNTER = np.array([5, 0xFFFFFFFFFFFFFFFF], np.uint64)
SHUFFLE_VALUES = {
    "n10_i64": np.arange(10, dtype=np.int64),
    "n1000_f32": np.arange(1000, dtype=np.float32),
    "rows_3d": np.arange(60, dtype=np.int32).reshape([6, 5, 2]),
    "one_row": np.arange(4, dtype=np.float64).reshape([1, 4]),
    "scalar": np.array(3.5, np.float32),
    "empty": np.zeros([0, 3], np.float32),
}


def shuffle(v, k, c, a):
    return raw.StatelessShuffle(value=v, key=k, counter=c, alg=a)


for name, value in SHUFFLE_VALUES.items():
    for alg in (1, 3):
        cases.add(f"stateless_shuffle_{name}_alg{alg}", shuffle,
                  [value, KEY, COUNTER, np.int32(alg)])
cases.add("stateless_shuffle_other_key", shuffle,
          [np.arange(20, dtype=np.int64), np.array([7], np.uint64),
           np.array([0, 0], np.uint64), np.int32(1)])
cases.add("stateless_shuffle_threefry", shuffle,
          [np.arange(5), KEY, COUNTER, np.int32(2)], expect_code=INVALID_ARGUMENT,
          message_contains=["Unsupported algorithm id: 2"])
cases.add("stateless_shuffle_bad_key", shuffle,
          [np.arange(5), np.array([1, 2], np.uint64), COUNTER, np.int32(1)],
          expect_code=INVALID_ARGUMENT, message_contains=["key must have shape [1]"])

# ---- Bitcast (the Generator's state -> key/counter step) ------------------------

BITCASTS = {
    "i64_to_u64": (np.array([-1, 5, 2**62], np.int64), tf.uint64),
    "u64_to_u32": (np.array([[0x0123456789ABCDEF, 7]], np.uint64), tf.uint32),
    "u32_to_u64": (np.array([[1, 2], [3, 0xFFFFFFFF]], np.uint32), tf.uint64),
    "f32_to_i32": (np.array([1.5, -0.0, np.inf], np.float32), tf.int32),
    "u8_to_f32": (np.arange(8, dtype=np.uint8).reshape([2, 4]), tf.float32),
    "f64_to_i16": (np.array(2.5, np.float64), tf.int16),
    "c64_to_f64": (np.array([1 + 2j], np.complex64), tf.float64),
    "empty": (np.zeros([0, 2], np.uint32), tf.uint64),
}
for name, (value, dtype) in BITCASTS.items():
    cases.add(f"bitcast_{name}", lambda x, dtype=dtype: tf.bitcast(x, dtype), [value])
for name, value in {"last_dim_3": np.zeros([2, 3], np.uint32),
                    "scalar": np.zeros([], np.uint32)}.items():
    cases.add(f"bitcast_{name}", lambda x: tf.bitcast(x, tf.uint64), [value],
              expect_code=INVALID_ARGUMENT, message_contains=["Cannot bitcast from 22 to 23"])

StatefulOracleTest = tf_oracle.make_test_class(
    "kernels/random/run_stateful_random_cases", cases)
