"""Adadelta, ProximalGradientDescent, ProximalAdagrad, AdagradDA, AdaMax, AddSign,
PowerSign and KerasMomentum kernels against live TensorFlow.

Same protocol as adaptive_oracle_test.py (oracle_vars.add_slot_cases): var
and the slots updated STEPS times with fed gradients and hyperparameters,
ref and resource variables, float and double, three shapes.
"""
import sys

sys.path.insert(0, "kernels/testing")  # cwd is the runfiles root
sys.path.insert(0, "kernels/training")

import numpy as np  # noqa: E402
import oracle_vars  # noqa: E402
import tf_oracle  # noqa: E402
from oracle_vars import RefVars, ResourceVars, raw, deps  # noqa: E402
from tf_oracle import tf  # noqa: E402

INVALID_ARGUMENT = 3

rng = np.random.RandomState(11)
cases = tf_oracle.Cases()


def positive(shape):
    return 0.1 + np.abs(rng.randn(*shape))


def small(shape):
    return 0.1 * rng.randn(*shape)


def specs():
    yield ("adadelta", "ApplyAdadelta",
           [("accum", positive), ("accum_update", positive)],
           [("lr", 1.0), ("rho", 0.95), ("epsilon", 1e-6)], {})
    for l1 in (0.0, 0.05):
        tag = "_l1" if l1 else ""
        yield (f"proximal_gd{tag}", "ApplyProximalGradientDescent", [],
               [("alpha", 0.1), ("l1", l1), ("l2", 0.02)], {}, "delta")
        yield (f"proximal_adagrad{tag}", "ApplyProximalAdagrad",
               [("accum", positive)], [("lr", 0.1), ("l1", l1), ("l2", 0.02)],
               {})
    for l1 in (0.0, 0.05):
        yield ("adagrad_da" + ("_l1" if l1 else ""), "ApplyAdagradDA",
               [("gradient_accumulator", small),
                ("gradient_squared_accumulator", positive)],
               [("lr", 0.1), ("l1", l1), ("l2", 0.02),
                ("global_step", np.int64(4))], {})
    yield ("adamax", "ApplyAdaMax", [("m", small), ("v", positive)],
           [("beta1_power", 0.9 ** 3), ("lr", 0.01), ("beta1", 0.9),
            ("beta2", 0.999), ("epsilon", 1e-7)], {})
    yield ("add_sign", "ApplyAddSign", [("m", small)],
           [("lr", 0.1), ("alpha", 1.0), ("sign_decay", 0.5), ("beta", 0.9)], {})
    yield ("power_sign", "ApplyPowerSign", [("m", small)],
           [("lr", 0.1), ("logbase", float(np.log(2.0))), ("sign_decay", 0.5),
            ("beta", 0.9)], {})
    for nesterov in (False, True):
        yield ("keras_momentum" + ("_nesterov" if nesterov else ""),
               "ApplyKerasMomentum", [("accum", small)],
               [("lr", 0.05), ("momentum", 0.9)], {"use_nesterov": nesterov})


oracle_vars.add_slot_cases(cases, specs(), rng)
# TensorFlow's half kernels too (bfloat16 is registered as well, but numpy
# has no bfloat16 to feed).
# AdagradDA and the proximal optimizers have no half kernels in TensorFlow.
oracle_vars.add_slot_cases(
    cases, [s for s in specs() if not s[0].startswith(("adagrad_da", "proximal"))],
    rng, dtypes=(np.float16,))

# ---- Errors: TensorFlow's codes, and the names and shapes in the message ----


def two_vars(kind_cls, dtype, shapes):
    kind = kind_cls(dtype)
    made = [kind.make(f"v{i}", np.ones(s, dtype)) for i, s in enumerate(shapes)]
    return [h for h, _ in made], [a for _, a in made]


def adadelta_bad(grad, rho):
    (v, a, u), assigns = two_vars(ResourceVars, np.float32, [(2,), (2,), (2,)])
    with deps(assigns):
        return raw.ResourceApplyAdadelta(var=v, accum=a, accum_update=u,
                                         lr=np.float32(1), rho=rho,
                                         epsilon=np.float32(1e-6), grad=grad)


cases.add("resource_adadelta_rho_not_scalar", adadelta_bad,
          [np.ones(2, np.float32), np.ones(3, np.float32)],
          expect_code=INVALID_ARGUMENT, message_contains=["rho", "[3]"])
cases.add("resource_adadelta_grad_wrong_shape", adadelta_bad,
          [np.ones(4, np.float32), np.float32(0.9)],
          expect_code=INVALID_ARGUMENT, message_contains=["grad", "[2]", "[4]"])


def proximal_gd_bad(delta, l1):
    (v,), assigns = two_vars(RefVars, np.float64, [(2,)])
    with deps(assigns):
        return raw.ApplyProximalGradientDescent(
            var=v, alpha=np.float64(0.1), l1=l1, l2=np.float64(0), delta=delta)


cases.add("proximal_gd_l1_not_scalar", proximal_gd_bad,
          [np.ones(2, np.float64), np.ones(2, np.float64)],
          expect_code=INVALID_ARGUMENT, message_contains=["l1", "[2]"])
cases.add("proximal_gd_delta_wrong_shape", proximal_gd_bad,
          [np.ones(3, np.float64), np.float64(0)],
          expect_code=INVALID_ARGUMENT, message_contains=["delta", "[2]", "[3]"])


def proximal_adagrad_bad(lr, l1, l2):
    (v, a), assigns = two_vars(RefVars, np.float32, [(2,), (2,)])
    with deps(assigns):
        return raw.ApplyProximalAdagrad(var=v, accum=a, lr=lr, l1=l1, l2=l2,
                                        grad=np.ones(2, np.float32))


# ProximalAdagrad checks its hyperparameters' values too, in one message.
for tag, args, words in [
        ("lr_not_scalar", [np.ones(2), 0, 0], ["lr is not a positive scalar: [2]"]),
        ("lr_zero", [0, 0, 0], ["lr is not a positive scalar: []"]),
        ("l1_negative", [0.1, -1, 0],
         ["l1 regularization strength is not a non-negative scalar: []"]),
        ("l2_not_scalar", [0.1, 0, np.ones(2)],
         ["l2 regularization strength is not a non-negative scalar: [2]"])]:
    cases.add(f"proximal_adagrad_{tag}", proximal_adagrad_bad,
              [np.asarray(a, np.float32) for a in args],
              expect_code=INVALID_ARGUMENT, message_contains=words)


def keras_momentum_bad(grad, momentum):
    (v, a), assigns = two_vars(ResourceVars, np.float32, [(2,), (2,)])
    with deps(assigns):
        return raw.ResourceApplyKerasMomentum(var=v, accum=a, lr=np.float32(0.1),
                                              grad=grad, momentum=momentum)


cases.add("resource_keras_momentum_momentum_not_scalar", keras_momentum_bad,
          [np.ones(2, np.float32), np.ones(2, np.float32)],
          expect_code=INVALID_ARGUMENT, message_contains=["momentum", "[2]"])

ExtraOracleTest = tf_oracle.make_test_class(
    "kernels/training/run_training_cases", cases, "ExtraOracleTest")
