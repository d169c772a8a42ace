"""Adagrad(V2), (Centered)RMSProp and Ftrl(V2) kernels against live TensorFlow.

Same protocol as training_oracle_test.py (oracle_vars.py): each case makes
var and the optimizer's slots, applies STEPS updates with fed gradients and
reads every variable back, for ref and resource variables, float and double.
The hyperparameters are fed too, so the kernels see them only at run time.
"""
import sys

sys.path.insert(0, "kernels/testing")  # cwd is the runfiles root
sys.path.insert(0, "kernels/training")

import numpy as np  # noqa: E402
import tf_oracle  # noqa: E402
from tf_oracle import tf  # noqa: E402
import oracle_vars  # noqa: E402
from oracle_vars import STEPS, ResourceVars, make_fn  # noqa: E402

raw = tf.raw_ops
deps = tf.control_dependencies

INVALID_ARGUMENT = 3

rng = np.random.RandomState(7)
cases = tf_oracle.Cases()


def positive(shape):
    return 0.1 + np.abs(rng.randn(*shape))


def small(shape):
    return 0.1 * rng.randn(*shape)


# (name, op, slots as (input name, init), scalars as (input name, value),
#  attrs). Slot inits keep the updates finite: accumulators positive, and
# ms well above mg^2 for the centered form.
def specs():
    yield ("adagrad", "ApplyAdagrad", [("accum", positive)], [("lr", 0.1)],
           {"update_slots": True})
    yield ("adagrad_no_slot_update", "ApplyAdagrad", [("accum", positive)],
           [("lr", 0.1)], {"update_slots": False})
    yield ("adagrad_v2", "ApplyAdagradV2", [("accum", positive)],
           [("lr", 0.1), ("epsilon", 1e-7)], {"update_slots": True})
    yield ("adagrad_v2_no_slot_update", "ApplyAdagradV2",
           [("accum", positive)], [("lr", 0.1), ("epsilon", 0.5)],
           {"update_slots": False})
    rms_scalars = [("lr", 0.01), ("rho", 0.9), ("momentum", 0.5),
                   ("epsilon", 1e-7)]
    yield ("rmsprop", "ApplyRMSProp", [("ms", positive), ("mom", small)],
           rms_scalars, {})
    yield ("centered_rmsprop", "ApplyCenteredRMSProp",
           [("mg", small), ("ms", lambda s: 1 + positive(s)), ("mom", small)],
           rms_scalars, {})
    ftrl_slots = [("accum", positive), ("linear", small)]
    for mult in (False, True):
        m = "_mult_lr" if mult else ""
        for power in (-0.5, -0.3, 0.0):
            p = {-0.5: "", -0.3: "_pow03", 0.0: "_pow0"}[power]
            # l1 of 0.05 against |linear| ~0.1..1 zeroes some elements.
            yield (f"ftrl{m}{p}", "ApplyFtrl", ftrl_slots,
                   [("lr", 0.2), ("l1", 0.05), ("l2", 0.02),
                    ("lr_power", power)],
                   {"multiply_linear_by_lr": mult})
            yield (f"ftrl_v2{m}{p}", "ApplyFtrlV2", ftrl_slots,
                   [("lr", 0.2), ("l1", 0.05), ("l2", 0.02),
                    ("l2_shrinkage", 0.1), ("lr_power", power)],
                   {"multiply_linear_by_lr": mult})


oracle_vars.add_slot_cases(cases, specs(), rng)
# TensorFlow's half kernels too (bfloat16 is registered as well, but numpy
# has no bfloat16 to feed).
oracle_vars.add_slot_cases(cases, [s for s in specs()], rng,
                           dtypes=(np.float16,))

# ---- A larger tensor: the sharded (multi-threaded) paths ----
big_shape = (257, 129)
for name, op_name, slots, scalars, attrs in specs():
    if name not in ("adagrad_v2", "centered_rmsprop", "ftrl_v2_mult_lr"):
        continue
    init = rng.randn(*big_shape).astype(np.float32)
    slot_inits = [np.asarray(f(big_shape)).astype(np.float32) for _, f in slots]
    grads = rng.randn(STEPS, *big_shape).astype(np.float32)
    fn = make_fn(op_name, [s for s, _ in slots], [s for s, _ in scalars], attrs,
                 ResourceVars, np.float32, False)
    cases.add(f"resource_{name}_float32_257x129", fn,
              [tf_oracle.Const(init), *[tf_oracle.Const(s) for s in slot_inits],
               *grads, *[np.float32(v) for _, v in scalars]])

# ---- Errors: TensorFlow's codes, and the names and shapes in the message ----


def ref_vars(dtype, shapes):
    """VariableV2s of unknown rank assigned the given shapes, so a slot can
    disagree with var; returns (refs, assigns)."""
    refs, assigns = [], []
    for i, shape in enumerate(shapes):
        v = raw.VariableV2(shape=tf.TensorShape(None), dtype=dtype,
                           shared_name=f"v{i}")
        refs.append(v)
        assigns.append(raw.Assign(ref=v, value=np.ones(shape, dtype.as_numpy_dtype),
                                  validate_shape=False))
    return refs, assigns


def adagrad_bad(grad, lr):
    (v, a), assigns = ref_vars(tf.float32, [(2,), (2,)])
    with deps(assigns):
        return raw.ApplyAdagrad(var=v, accum=a, lr=lr, grad=grad)


cases.add("adagrad_grad_wrong_shape", adagrad_bad,
          [np.ones(3, np.float32), np.float32(0.1)],
          expect_code=INVALID_ARGUMENT, message_contains=["grad", "[2]", "[3]"])
cases.add("adagrad_lr_not_scalar", adagrad_bad,
          [np.ones(2, np.float32), np.ones(2, np.float32)],
          expect_code=INVALID_ARGUMENT, message_contains=["lr", "[2]"])


def adagrad_v2_bad_accum(grad):
    (v, a), assigns = ref_vars(tf.float64, [(2,), (4,)])
    with deps(assigns):
        return raw.ApplyAdagradV2(var=v, accum=a, lr=np.float64(0.1),
                                  epsilon=np.float64(1e-7), grad=grad)


cases.add("adagrad_v2_accum_wrong_shape", adagrad_v2_bad_accum,
          [np.ones(2, np.float64)], expect_code=INVALID_ARGUMENT,
          message_contains=["accum", "[2]", "[4]"])


def centered_rmsprop_bad(mg_shape, rho):
    def fn(grad, rho=rho):
        (v, mg, ms, mom), assigns = ref_vars(tf.float32,
                                             [(2,), mg_shape, (2,), (2,)])
        with deps(assigns):
            return raw.ApplyCenteredRMSProp(
                var=v, mg=mg, ms=ms, mom=mom, lr=np.float32(0.1), rho=rho,
                momentum=np.float32(0.9), epsilon=np.float32(1e-7), grad=grad)
    return fn


cases.add("centered_rmsprop_mg_wrong_shape", centered_rmsprop_bad((3,), np.float32(0.9)),
          [np.ones(2, np.float32)], expect_code=INVALID_ARGUMENT,
          message_contains=["mg", "[2]", "[3]"])
cases.add("centered_rmsprop_rho_not_scalar",
          lambda grad, rho: centered_rmsprop_bad((2,), rho)(grad),
          [np.ones(2, np.float32), np.ones(2, np.float32)], expect_code=INVALID_ARGUMENT,
          message_contains=["rho", "[2]"])


def ftrl_bad(grad, lr, l1, l2, l2s, lr_power):
    (v, a, lin), assigns = ref_vars(tf.float32, [(2,), (2,), (2,)])
    with deps(assigns):
        return raw.ApplyFtrlV2(var=v, accum=a, linear=lin, grad=grad, lr=lr,
                               l1=l1, l2=l2, l2_shrinkage=l2s,
                               lr_power=lr_power)


ok = dict(lr=0.1, l1=0.0, l2=0.0, l2s=0.0, lr_power=-0.5)
names = ("lr", "l1", "l2", "l2s", "lr_power")
for arg, words in [("lr", ["lr is not a scalar: [2]"]),
                   ("l1", ["l1 regularization strength is not a scalar: [2]"]),
                   ("l2", ["l2 regularization strength is not a scalar: [2]"]),
                   ("l2s", ["l2 shrinkage regularization strength is not a "
                            "scalar: [2]"]),
                   ("lr_power", ["lr_power is not a scalar[2]"])]:
    cases.add(f"ftrl_v2_{arg}_not_scalar", ftrl_bad,
              [np.ones(2, np.float32),
               *[np.ones(2, np.float32) if k == arg else np.float32(ok[k])
                 for k in names]],
              expect_code=INVALID_ARGUMENT, message_contains=words)
# Out-of-range hyperparameters are not errors in TensorFlow's dense kernel:
# the update runs as written.
for arg, bad in [("lr", -1.0), ("l1", -0.1), ("l2", -0.1), ("l2s", -0.1),
                 ("lr_power", 0.5)]:
    vals = {**ok, arg: bad}
    cases.add(f"ftrl_v2_out_of_range_{arg}", ftrl_bad,
              [np.ones(2, np.float32), *[np.float32(vals[k]) for k in names]])
cases.add("ftrl_v2_grad_wrong_shape", ftrl_bad,
          [np.ones(5, np.float32), *[np.float32(ok[k]) for k in names]],
          expect_code=INVALID_ARGUMENT, message_contains=["grad", "[2]", "[5]"])


def ftrl_mult_zero_lr(grad):
    (v, a, lin), assigns = ref_vars(tf.float32, [(2,), (2,), (2,)])
    with deps(assigns):
        return raw.ApplyFtrl(var=v, accum=a, linear=lin, grad=grad,
                             lr=np.float32(0), l1=np.float32(0.01),
                             l2=np.float32(0), lr_power=np.float32(-0.5),
                             multiply_linear_by_lr=True)


# lr == 0 with multiply_linear_by_lr: the step is all shrinkage.
cases.add("ftrl_mult_lr_zero_lr", ftrl_mult_zero_lr, [np.ones(2, np.float32)])

AdaptiveOracleTest = tf_oracle.make_test_class(
    "kernels/training/run_training_cases", cases, "AdaptiveOracleTest")
