"""Optimizer kernels against live TensorFlow (see kernels/testing/README.md).

Each case creates the variables (TF1 VariableV2 + Assign, or resource
VarHandleOp + AssignVariableOp), applies the update for a few steps chained
by control dependencies, and fetches every variable afterwards: the TF1
form reads back through a second VariableV2 node with the same shared_name
(the same variable), the resource form through ReadVariableOp. Our side
runs the same GraphDef with a fresh ResourceMgr per case.
"""
import sys

sys.path.insert(0, "kernels/testing")  # cwd is the runfiles root
sys.path.insert(0, "kernels/training")

import numpy as np  # noqa: E402
import tf_oracle  # noqa: E402
from tf_oracle import tf  # noqa: E402
import oracle_vars  # noqa: E402
from oracle_vars import STEPS, RefVars, ResourceVars, run_steps  # noqa: E402

raw = tf.raw_ops
deps = tf.control_dependencies

INVALID_ARGUMENT = 3
FAILED_PRECONDITION = 9
INTERNAL = 13

rng = np.random.RandomState(42)
cases = tf_oracle.Cases()


def shape_cases():
    return [(), (5,), (3, 4)]


for dt in (np.float16, np.float32, np.float64):
    dname = np.dtype(dt).name
    for kind_cls in (RefVars, ResourceVars):
        prefix = "resource_" if kind_cls.resource else ""
        for shape in shape_cases():
            sname = "x".join(map(str, shape)) or "scalar"
            init = np.asarray(rng.randn(*shape)).astype(dt)
            grads = rng.randn(STEPS, *shape).astype(dt)
            for use_locking in (False, True):
                lock = "_locked" if use_locking else ""

                # ---- GradientDescent ----
                def gd(init, g0, g1, g2, alpha, kind_cls=kind_cls, dt=dt,
                       use_locking=use_locking):
                    grads = [g0, g1, g2]
                    kind = kind_cls(dt)

                    def step(v, i):
                        op = (raw.ResourceApplyGradientDescent if kind.resource
                              else raw.ApplyGradientDescent)
                        return op(var=v["w"], alpha=alpha, delta=grads[i],
                                  use_locking=use_locking)
                    return run_steps(kind, {"w": init}, step)

                cases.add(f"{prefix}gd_{dname}_{sname}{lock}", gd,
                          [tf_oracle.Const(init), *grads, dt(0.1)])

                # ---- Momentum ----
                for nesterov in (False, True):
                    nest = "_nesterov" if nesterov else ""
                    accum0 = (np.asarray(rng.randn(*shape)) * 0.1).astype(dt)

                    def momentum(init, accum0, g0, g1, g2, lr, mom,
                                 kind_cls=kind_cls, dt=dt, nesterov=nesterov,
                                 use_locking=use_locking):
                        grads = [g0, g1, g2]
                        kind = kind_cls(dt)

                        def step(v, i):
                            op = (raw.ResourceApplyMomentum if kind.resource
                                  else raw.ApplyMomentum)
                            return op(var=v["w"], accum=v["accum"], lr=lr,
                                      grad=grads[i], momentum=mom,
                                      use_locking=use_locking,
                                      use_nesterov=nesterov)
                        return run_steps(kind, {"w": init, "accum": accum0}, step)

                    cases.add(f"{prefix}momentum_{dname}_{sname}{nest}{lock}",
                              momentum,
                              [tf_oracle.Const(init), tf_oracle.Const(accum0),
                               *grads, dt(0.05), dt(0.9)])

                    # ---- Adam ----
                    def adam(init, g0, g1, g2, lr, beta1, beta2, eps,
                             kind_cls=kind_cls, dt=dt, nesterov=nesterov,
                             use_locking=use_locking):
                        grads = [g0, g1, g2]
                        kind = kind_cls(dt)
                        zeros = np.zeros(init.shape, dt)

                        def step(v, i):
                            op = (raw.ResourceApplyAdam if kind.resource
                                  else raw.ApplyAdam)
                            t = i + 1
                            return op(var=v["w"], m=v["m"], v=v["v"],
                                      beta1_power=tf.constant(dt(0.9) ** t),
                                      beta2_power=tf.constant(dt(0.999) ** t),
                                      lr=lr, beta1=beta1, beta2=beta2,
                                      epsilon=eps, grad=grads[i],
                                      use_locking=use_locking,
                                      use_nesterov=nesterov)
                        return run_steps(kind, {"w": init, "m": zeros, "v": zeros},
                                         step)

                    cases.add(f"{prefix}adam_{dname}_{sname}{nest}{lock}", adam,
                              [tf_oracle.Const(init), *grads, dt(0.01), dt(0.9),
                               dt(0.999), dt(1e-7)],
                              # Steps of size ~lr through a divide by sqrt(v):
                              # a few ulps of drift (float32, half) are
                              # legitimate.
                              rtol=oracle_vars.SLOT_TOLERANCES[dt][0],
                              atol=oracle_vars.SLOT_TOLERANCES[dt][1])

# ---- A larger tensor: exercises the sharded (multi-threaded) paths ----
big = rng.randn(257, 129).astype(np.float32)
big_grads = rng.randn(STEPS, 257, 129).astype(np.float32)
for kind_cls in (RefVars, ResourceVars):
    prefix = "resource_" if kind_cls.resource else ""

    def big_adam(init, g0, g1, g2, kind_cls=kind_cls):
        grads = [g0, g1, g2]
        kind = kind_cls(np.float32)
        zeros = np.zeros(init.shape, np.float32)

        def step(v, i):
            op = raw.ResourceApplyAdam if kind.resource else raw.ApplyAdam
            t = i + 1
            return op(var=v["w"], m=v["m"], v=v["v"],
                      beta1_power=np.float32(0.9) ** t,
                      beta2_power=np.float32(0.999) ** t, lr=np.float32(0.001),
                      beta1=np.float32(0.9), beta2=np.float32(0.999),
                      epsilon=np.float32(1e-7), grad=grads[i])
        return run_steps(kind, {"w": init, "m": zeros, "v": zeros}, step)

    cases.add(f"{prefix}adam_float32_257x129", big_adam,
              [tf_oracle.Const(big), *big_grads])

# ---- Errors ----


def gd_uninitialized(delta):
    v = raw.VariableV2(shape=[2], dtype=tf.float32, shared_name="w")
    return raw.ApplyGradientDescent(var=v, alpha=np.float32(0.1), delta=delta)


cases.add("gd_uninitialized", gd_uninitialized, [np.ones(2, np.float32)],
          expect_code=FAILED_PRECONDITION)


def gd_missing_resource(delta):
    h = raw.VarHandleOp(dtype=tf.float32, shape=[2], shared_name="w")
    return raw.ResourceApplyGradientDescent(var=h, alpha=np.float32(0.1),
                                            delta=delta)


cases.add("resource_gd_missing_variable", gd_missing_resource,
          [np.ones(2, np.float32)], expect_code=INTERNAL)


def gd_alpha_not_scalar(init, alpha, delta):
    v = raw.VariableV2(shape=[2], dtype=tf.float32, shared_name="w")
    a = raw.Assign(ref=v, value=init)
    with deps([a]):
        return raw.ApplyGradientDescent(var=v, alpha=alpha, delta=delta)


cases.add("gd_alpha_not_scalar", gd_alpha_not_scalar,
          [np.ones(2, np.float32), np.ones(1, np.float32), np.ones(2, np.float32)],
          expect_code=INVALID_ARGUMENT, message_contains=["alpha", "[1]"])
cases.add("gd_delta_wrong_shape", gd_alpha_not_scalar,
          [np.ones(2, np.float32), np.float32(0.1), np.ones(3, np.float32)],
          expect_code=INVALID_ARGUMENT, message_contains=["[2]", "[3]"])


def momentum_bad_accum(init, accum0, grad):
    v = raw.VariableV2(shape=[2], dtype=tf.float32, shared_name="w")
    # Unknown rank, so Assign(validate_shape=False) can give it another shape.
    acc = raw.VariableV2(shape=tf.TensorShape(None), dtype=tf.float32,
                         shared_name="accum")
    a = raw.Assign(ref=v, value=init)
    b = raw.Assign(ref=acc, value=accum0, validate_shape=False)
    with deps([a, b]):
        return raw.ApplyMomentum(var=v, accum=acc, lr=np.float32(0.1), grad=grad,
                                 momentum=np.float32(0.9))


cases.add("momentum_accum_wrong_shape", momentum_bad_accum,
          [np.ones(2, np.float32), np.ones(3, np.float32), np.ones(2, np.float32)],
          expect_code=INVALID_ARGUMENT, message_contains=["[2]", "[3]"])


def resource_momentum_bad_grad(init, grad):
    w = raw.VarHandleOp(dtype=tf.float64, shape=[2], shared_name="w")
    acc = raw.VarHandleOp(dtype=tf.float64, shape=[2], shared_name="accum")
    a = raw.AssignVariableOp(resource=w, value=init)
    b = raw.AssignVariableOp(resource=acc, value=init)
    with deps([a, b]):
        return raw.ResourceApplyMomentum(var=w, accum=acc, lr=np.float64(0.1),
                                         grad=grad, momentum=np.float64(0.9))


cases.add("resource_momentum_grad_wrong_shape", resource_momentum_bad_grad,
          [np.ones(2, np.float64), np.ones(4, np.float64)],
          expect_code=INVALID_ARGUMENT, message_contains=["[2]", "[4]"])


def adam_epsilon_not_scalar(init, eps):
    names = ("w", "m", "v")
    vs = [raw.VariableV2(shape=[2], dtype=tf.float32, shared_name=n) for n in names]
    assigns = [raw.Assign(ref=v, value=init) for v in vs]
    with deps(assigns):
        return raw.ApplyAdam(var=vs[0], m=vs[1], v=vs[2],
                             beta1_power=np.float32(0.9),
                             beta2_power=np.float32(0.999), lr=np.float32(0.1),
                             beta1=np.float32(0.9), beta2=np.float32(0.999),
                             epsilon=eps, grad=init)


cases.add("adam_epsilon_not_scalar", adam_epsilon_not_scalar,
          [np.ones(2, np.float32), np.ones((1, 1), np.float32)],
          expect_code=INVALID_ARGUMENT, message_contains=["epsilon", "[1,1]"])

TrainingOracleTest = tf_oracle.make_test_class(
    "kernels/training/run_training_cases", cases, "TrainingOracleTest")
