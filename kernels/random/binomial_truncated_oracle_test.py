"""StatelessRandomBinomial, StatefulRandomBinomial, (Stateless)
ParameterizedTruncatedNormal, StatelessMultinomial (and Multinomial on half
and bfloat16 logits) against live TensorFlow: the SAME BITS (rtol = atol = 0)
and TensorFlow's error codes. The gamma special functions (RandomGammaGrad,
Igamma, Igammac, IgammaGradA, Zeta, Polygamma) to float tolerance: both
sides are Eigen's special functions, ours from Debian's Eigen.

The truncated normal and multinomial kernels draw batches in order from one
stream; TensorFlow's values depend on how it shards them over its threads,
so TensorFlow runs those cases on one intra-op thread (tf_single_thread).
Binomial outputs each have their own stream (thread-count independent).
"""
import sys

sys.path.insert(0, "kernels/testing")  # cwd is the runfiles root

import numpy as np  # noqa: E402

import tf_oracle  # noqa: E402
from tf_oracle import tf  # noqa: E402

raw = tf.raw_ops
INVALID_ARGUMENT = 3
EXACT = dict(rtol=0, atol=0)
ONE_THREAD = dict(EXACT, tf_single_thread=True)
cases = tf_oracle.Cases()

FLOATS = {"f16": np.float16, "f32": np.float32, "f64": np.float64}
OUTS = {"f16": tf.float16, "f32": tf.float32, "f64": tf.float64,
        "i32": tf.int32, "i64": tf.int64}
# (counts, probs): inversion (n p < 10), BTRS (n p >= 10), prob > 0.5 (the
# flipped forms), 0/1/negative edges, broadcasting.
BINOMIAL = {
    "small": ([5.0], [0.3]),
    "btrs": ([200.0], [0.25]),
    "flip": ([7.0, 300.0], [0.9, 0.6]),
    "edges": ([0.0, -3.0, 4.0, 4.0, 1e6], [0.5, 0.5, 0.0, 1.0, 0.5]),
    "bcast": ([[10.0], [50.0]], [0.1, 0.5, 0.8]),
}
SHAPES = {"s1": [], "s7": [7], "s3x4": [3, 4], "s600": [600]}


def binomial_shape(sample, counts, probs):
    return list(sample) + list(np.broadcast_shapes(np.shape(counts), np.shape(probs)))


for tname, tdtype in FLOATS.items():
    for bname, (counts, probs) in BINOMIAL.items():
        for sname, sample in SHAPES.items():
            if tname != "f64" and sname in ("s3x4", "s600"):
                continue
            shape = np.array(binomial_shape(sample, counts, probs), np.int32)
            for oname, odtype in OUTS.items():
                if oname not in ("i64", "f32") and (tname != "f64" or sname != "s7"):
                    continue
                cases.add(f"stateless_binomial_{tname}_{bname}_{sname}_{oname}",
                          lambda s, c, p, odtype=odtype: raw.StatelessRandomBinomial(
                              shape=s, seed=np.array([7, 11], np.int64), counts=c,
                              probs=p, dtype=odtype),
                          [shape, np.array(counts, tdtype), np.array(probs, tdtype)],
                          **EXACT)

cases.add("stateless_binomial_int32_seed_int64_shape",
          lambda s, c, p: raw.StatelessRandomBinomial(
              shape=s, seed=np.array([-3, 4], np.int32), counts=c, probs=p),
          [np.array([4, 2], np.int64), np.array([9.0, 40.0]), np.array(0.35)], **EXACT)
cases.add("stateless_binomial_nan_prob_float",
          lambda s, c, p: raw.StatelessRandomBinomial(
              shape=s, seed=np.array([1, 2], np.int64), counts=c, probs=p, dtype=tf.float64),
          [np.array([3], np.int32), np.array(5.0), np.array(np.nan)], **EXACT)
cases.add("stateless_binomial_not_ending_with_bcast",
          lambda s, c, p: raw.StatelessRandomBinomial(
              shape=s, seed=np.array([1, 2], np.int64), counts=c, probs=p),
          [np.array([3, 4], np.int32), np.array([1.0, 2.0]), np.array(0.5)],
          expect_code=INVALID_ARGUMENT, message_contains=["must end with"])
cases.add("stateless_binomial_incompatible",
          lambda s, c, p: raw.StatelessRandomBinomial(
              shape=s, seed=np.array([1, 2], np.int64), counts=c, probs=p),
          [np.array([3], np.int32), np.array([1.0, 2.0]), np.array([0.5, 0.1, 0.2])],
          expect_code=INVALID_ARGUMENT, message_contains=["compatible batch dimensions"])
cases.add("stateless_binomial_empty",
          lambda s, c, p: raw.StatelessRandomBinomial(
              shape=s, seed=np.array([1, 2], np.int64), counts=c, probs=p),
          [np.array([0, 2], np.int32), np.array([1.0, 2.0]), np.array(0.5)], **EXACT)


def on_state(state, op):
    """Runs op(handle) on a fresh int64 state variable and fetches its output.
    (Not the state after: TensorFlow's StatefulRandomBinomial takes the
    state's data pointer before its copy-on-write, so when the variable's
    buffer is shared (here with the assigned value) its update goes to the
    old buffer and is lost, and its next call returns the same samples.
    Tributary updates the variable itself; "stateful_binomial_state_advance"
    checks the reservation.)"""
    h = raw.VarHandleOp(dtype=tf.int64, shape=[None], shared_name="rng")
    assign = raw.AssignVariableOp(resource=h, value=state)
    with tf.control_dependencies([assign]):
        return op(h)


def state_advance(state, op):
    """How far one call of op(handle) moves the state's counter: the read
    after a second call minus the read after the first (the difference is
    the same on both sides even though TensorFlow drops the first update)."""
    h = raw.VarHandleOp(dtype=tf.int64, shape=[None], shared_name="rng_advance")
    assign = raw.AssignVariableOp(resource=h, value=state)
    with tf.control_dependencies([assign]):
        first = op(h)
    # Each read is copied (+ 0) before the next call, so that no reader still
    # shares the variable's buffer when TensorFlow's kernel updates it.
    with tf.control_dependencies([first]):
        read1 = raw.ReadVariableOp(resource=h, dtype=tf.int64) + 0
    with tf.control_dependencies([read1]):
        second = op(h)
    with tf.control_dependencies([second]):
        read2 = raw.ReadVariableOp(resource=h, dtype=tf.int64) + 0
    return read2 - read1


for bname, (counts, probs) in BINOMIAL.items():
    for oname in ("i64", "f64"):
        shape = np.array(binomial_shape([5], counts, probs), np.int32)
        cases.add(f"stateful_binomial_{bname}_{oname}",
                  lambda st, s, c, p, odtype=OUTS[oname]: on_state(
                      st, lambda h: raw.StatefulRandomBinomial(
                          resource=h, algorithm=np.int64(1), shape=s, counts=c,
                          probs=p, dtype=odtype)),
                  [np.array([5, 9, 0x12345], np.int64), shape,
                   np.array(counts, np.float64), np.array(probs, np.float64)], **EXACT)
for shape, counts in (([5], 10.0), ([3, 40], np.linspace(1.0, 700.0, 40))):
    cases.add(f"stateful_binomial_state_advance_{'x'.join(map(str, shape))}",
              lambda st, s, c, p: state_advance(
                  st, lambda h: raw.StatefulRandomBinomial(
                      resource=h, algorithm=np.int64(1), shape=s, counts=c, probs=p,
                      dtype=tf.int64)),
              [np.array([5, 9, 0x12345], np.int64), np.array(shape, np.int32),
               np.array(counts, np.float64), np.array(0.3, np.float64)],
              expect_code=0, **EXACT)
for alg in (2, 3, 7):
    cases.add(f"stateful_binomial_algorithm_{alg}",
              lambda st, s, c, p, alg=alg: on_state(
                  st, lambda h: raw.StatefulRandomBinomial(
                      resource=h, algorithm=np.int64(alg), shape=s, counts=c, probs=p)),
              [np.array([1, 2, 3], np.int64), np.array([2], np.int32),
               np.array(3.0), np.array(0.5)],
              expect_code=INVALID_ARGUMENT, message_contains=["Unsupported algorithm id"])

# ---- ParameterizedTruncatedNormal ------------------------------------------
# (means, stdevs, minvals, maxvals): the normal-rejection, uniform-rejection
# and exponential samplers, one-sided bounds, flipped bounds.
PTN = {
    "wide": (0.0, 1.0, -2.0, 2.0),
    "narrow": (0.0, 1.0, 0.5, 0.7),
    "tail": (0.0, 1.0, 3.0, 10.0),
    "upper_inf": (1.0, 2.0, 1.5, np.inf),
    "lower_inf": (0.0, 1.0, -np.inf, -2.5),
    "below_mean": (5.0, 0.5, -1.0, 4.0),
}
for dname, dtype in FLOATS.items():
    for pname, params in PTN.items():
        for shape in ([7], [3, 50], [6, 200]):
            if dname != "f32" and shape != [7]:
                continue
            sname = "x".join(map(str, shape))
            cases.add(f"ptn_{dname}_{pname}_{sname}",
                      lambda s, m, sd, lo, hi: raw.ParameterizedTruncatedNormal(
                          shape=s, means=m, stdevs=sd, minvals=lo, maxvals=hi,
                          seed=3, seed2=9),
                      [np.array(shape, np.int32)] + [np.array(p, dtype) for p in params],
                      **ONE_THREAD)
            cases.add(f"stateless_ptn_{dname}_{pname}_{sname}",
                      lambda s, m, sd, lo, hi: raw.StatelessParameterizedTruncatedNormal(
                          shape=s, seed=np.array([4, 5], np.int64), means=m,
                          stddevs=sd, minvals=lo, maxvals=hi),
                      [np.array(shape, np.int64)] + [np.array(p, dtype) for p in params],
                      **ONE_THREAD)
# Per-row parameters (vectors of length shape[0]) and broadcasting.
rows = [np.array(v, np.float32) for v in ([0.0, 1.0, -1.0], [1.0, 0.5, 2.0],
                                           [-1.0, 0.8, -np.inf], [1.0, 1.2, 0.0])]
cases.add("ptn_per_row", lambda s, m, sd, lo, hi: raw.ParameterizedTruncatedNormal(
    shape=s, means=m, stdevs=sd, minvals=lo, maxvals=hi, seed=1, seed2=2),
    [np.array([3, 40], np.int32)] + rows, **ONE_THREAD)
cases.add("stateless_ptn_broadcast",
          lambda s, m, sd, lo, hi: raw.StatelessParameterizedTruncatedNormal(
              shape=s, seed=np.array([4, 5], np.int32), means=m, stddevs=sd,
              minvals=lo, maxvals=hi),
          [np.array([10, 2, 3], np.int32), np.array([[0.0], [3.0]], np.float64),
           np.array(1.0), np.array([-1.0, 0.0, 2.5]), np.array(4.0)], **ONE_THREAD)
for name, params in {"stddev_zero": (0.0, 0.0, -1.0, 1.0),
                     "min_above_max": (0.0, 1.0, 2.0, 1.0),
                     "both_infinite": (0.0, 1.0, -np.inf, np.inf)}.items():
    for op in ("ptn", "stateless_ptn"):
        fn = (lambda s, m, sd, lo, hi: raw.ParameterizedTruncatedNormal(
            shape=s, means=m, stdevs=sd, minvals=lo, maxvals=hi)) if op == "ptn" else (
            lambda s, m, sd, lo, hi: raw.StatelessParameterizedTruncatedNormal(
                shape=s, seed=np.array([1, 2], np.int64), means=m, stddevs=sd,
                minvals=lo, maxvals=hi))
        cases.add(f"{op}_{name}", fn,
                  [np.array([4], np.int32)] + [np.array(p, np.float32) for p in params],
                  expect_code=INVALID_ARGUMENT, message_contains=["Invalid parameters"])
cases.add("ptn_empty_shape", lambda s, m, sd, lo, hi: raw.ParameterizedTruncatedNormal(
    shape=s, means=m, stdevs=sd, minvals=lo, maxvals=hi),
    [np.array([], np.int32)] + [np.array(p, np.float32) for p in (0, 1, -1, 1)],
    expect_code=INVALID_ARGUMENT, message_contains=["Shape tensor must not be empty"])
cases.add("ptn_matrix_means", lambda s, m, sd, lo, hi: raw.ParameterizedTruncatedNormal(
    shape=s, means=m, stdevs=sd, minvals=lo, maxvals=hi),
    [np.array([2, 3], np.int32), np.zeros([2, 1], np.float32)] +
    [np.array(p, np.float32) for p in (1, -1, 1)],
    expect_code=INVALID_ARGUMENT, message_contains=["should be a scalar or vector"])
cases.add("ptn_wrong_length", lambda s, m, sd, lo, hi: raw.ParameterizedTruncatedNormal(
    shape=s, means=m, stdevs=sd, minvals=lo, maxvals=hi),
    [np.array([2, 3], np.int32), np.zeros([3], np.float32)] +
    [np.array(p, np.float32) for p in (1, -1, 1)],
    expect_code=INVALID_ARGUMENT, message_contains=["should have length 1 or shape[0]"])

# ---- Multinomial on every logit type, StatelessMultinomial -------------------
LOGITS = np.array([[0.1, 1.0, -2.0, 0.5], [3.0, 0.0, 0.0, -np.inf]])
for lname, ldtype in {"f16": np.float16, "bf16": tf.bfloat16.as_numpy_dtype,
                      "f32": np.float32, "f64": np.float64}.items():
    for oname, odtype in (("i32", tf.int32), ("i64", tf.int64)):
        cases.add(f"stateless_multinomial_{lname}_{oname}",
                  lambda l, n, odtype=odtype: raw.StatelessMultinomial(
                      logits=l, num_samples=n, seed=np.array([3, 4], np.int64),
                      output_dtype=odtype),
                  [LOGITS.astype(ldtype), np.int32(9)], **ONE_THREAD)
        cases.add(f"multinomial_{lname}_{oname}",
                  lambda l, n, odtype=odtype: raw.Multinomial(
                      logits=l, num_samples=n, seed=5, seed2=6, output_dtype=odtype),
                  [LOGITS.astype(ldtype), np.int32(9)], **ONE_THREAD)
cases.add("stateless_multinomial_int32_seed_many",
          lambda l, n: raw.StatelessMultinomial(
              logits=l, num_samples=n, seed=np.array([-1, 77], np.int32)),
          [np.random.default_rng(3).normal(size=[5, 30]).astype(np.float32), np.int32(40)],
          **ONE_THREAD)
cases.add("stateless_multinomial_vector_logits",
          lambda l, n: raw.StatelessMultinomial(
              logits=l, num_samples=n, seed=np.array([1, 2], np.int64)),
          [np.array([1.0, 2.0], np.float32), np.int32(2)],
          expect_code=INVALID_ARGUMENT, message_contains=["logits should be a matrix"])

# ---- The gamma special functions --------------------------------------------
rng = np.random.default_rng(5)
for dname, dtype in (("f32", np.float32), ("f64", np.float64)):
    a = rng.uniform(0.1, 20.0, size=[4, 6]).astype(dtype)
    x = rng.uniform(0.01, 30.0, size=[4, 6]).astype(dtype)
    for op in ("Igamma", "Igammac", "IgammaGradA", "RandomGammaGrad"):
        cases.add(f"{op}_{dname}", lambda p, q, op=op: getattr(raw, op)(
            **dict(zip(("alpha", "sample") if op == "RandomGammaGrad" else ("a", "x"),
                       (p, q)))), [a, x], rtol=1e-4 if dtype == np.float32 else 1e-9,
                  atol=1e-6 if dtype == np.float32 else 1e-12)
    cases.add(f"Igamma_broadcast_{dname}", lambda p, q: raw.Igamma(a=p, x=q),
              [a[:, :1], x[0]], rtol=1e-4, atol=1e-6)
    cases.add(f"Zeta_{dname}", lambda p, q: raw.Zeta(x=p, q=q),
              [rng.uniform(1.5, 6.0, size=[8]).astype(dtype),
               rng.uniform(0.5, 4.0, size=[8]).astype(dtype)], rtol=1e-4, atol=1e-6)
    cases.add(f"Polygamma_{dname}", lambda p, q: raw.Polygamma(a=p, x=q),
              [np.array([0, 1, 2, 3, 1, 0], dtype),
               rng.uniform(0.5, 5.0, size=[6]).astype(dtype)], rtol=1e-4, atol=1e-6)
# The gradient TensorFlow's autodiff gives tf.random.gamma.
cases.add("random_gamma_gradient",
          lambda al: raw.RandomGammaGrad(alpha=al, sample=raw.RandomGamma(
              shape=np.array([5], np.int32), alpha=al, seed=3, seed2=4)),
          [np.array([0.5, 2.0, 7.5], np.float64)], rtol=1e-9, atol=1e-12)
cases.add("Igamma_incompatible", lambda p, q: raw.Igamma(a=p, x=q),
          [np.ones([2], np.float32), np.ones([3], np.float32)],
          expect_code=INVALID_ARGUMENT)

BinomialTruncatedOracleTest = tf_oracle.make_test_class(
    "kernels/random/run_stateful_random_cases", cases)
