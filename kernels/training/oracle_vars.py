"""Variables for the optimizer oracle tests: TF1 reference variables
(VariableV2 + Assign) or resource variables (VarHandleOp + AssignVariableOp),
made, updated STEPS times in order, and read back (see
training_oracle_test.py for the protocol)."""
import numpy as np
import tf_oracle
from tf_oracle import tf

raw = tf.raw_ops
deps = tf.control_dependencies

STEPS = 3  # Each case takes one fed gradient per step (g0, g1, g2).


class RefVars:
    """TF1 reference variables named by shared_name."""

    resource = False

    def __init__(self, dtype):
        self.dtype = tf.as_dtype(dtype)

    def make(self, name, init):
        v = raw.VariableV2(shape=init.shape, dtype=self.dtype, shared_name=name)
        return v, raw.Assign(ref=v, value=init)

    def read(self, name, shape):
        return raw.VariableV2(shape=shape, dtype=self.dtype, shared_name=name)


class ResourceVars:
    resource = True

    def __init__(self, dtype):
        self.dtype = tf.as_dtype(dtype)

    def make(self, name, init):
        h = raw.VarHandleOp(dtype=self.dtype, shape=init.shape, shared_name=name)
        return h, raw.AssignVariableOp(resource=h, value=init)

    def read(self, name, shape):
        h = raw.VarHandleOp(dtype=self.dtype, shape=shape, shared_name=name)
        return raw.ReadVariableOp(resource=h, dtype=self.dtype)


def run_steps(kind, inits, step_fn):
    """Makes variables from `inits` (name -> array), runs `step_fn(vars, i)`
    STEPS times in order, then reads every variable back."""
    handles, assigns = {}, []
    for name, init in inits.items():
        h, a = kind.make(name, init)
        handles[name] = h
        assigns.append(a)
    last = assigns
    for i in range(STEPS):
        with deps(last):
            last = [step_fn(handles, i)]
    with deps(last):
        return [kind.read(name, init.shape) for name, init in inits.items()]


def make_fn(op_name, slot_names, scalar_names, attrs, kind_cls, dt, locking,
            grad_name="grad"):
    """A case function (init, *slot_inits, g0..g{STEPS-1}, *scalars) applying
    `op_name` (or its Resource form) STEPS times to var and its slots."""
    n_slots, n_scalars = len(slot_names), len(scalar_names)

    def fn(init, *args):
        slot_inits = args[:n_slots]
        grads = args[n_slots:n_slots + STEPS]
        scalars = args[n_slots + STEPS:n_slots + STEPS + n_scalars]
        kind = kind_cls(dt)
        op = getattr(raw, ("Resource" if kind.resource else "") + op_name)
        inits = {"var": init, **dict(zip(slot_names, slot_inits))}

        def step(v, i):
            return op(**v, **{grad_name: grads[i]},
                      **dict(zip(scalar_names, scalars)),
                      use_locking=locking, **attrs)
        return run_steps(kind, inits, step)
    return fn


# (rtol, atol) per dtype. The updates divide by square roots and powers:
# float32 may drift by a few ulps over the steps, half by a few of its ulps.
SLOT_TOLERANCES = {np.float16: (2e-3, 2e-3), np.float32: (1e-5, 1e-6),
                   np.float64: (1e-12, 1e-12)}


def add_slot_cases(cases, specs, rng, dtypes=(np.float32, np.float64)):
    """For each spec (name, op, slots as (input, init fn), scalars as (input,
    value), attrs[, grad input name]): cases over float32/float64, ref and
    resource variables (resource only where TensorFlow has no ref form),
    scalar, vector and matrix shapes."""
    specs = list(specs)
    for dt in dtypes:
        dname = np.dtype(dt).name
        for kind_cls in (RefVars, ResourceVars):
            prefix = "resource_" if kind_cls.resource else ""
            for shape in [(), (5,), (3, 4)]:
                sname = "x".join(map(str, shape)) or "scalar"
                # use_locking changes only which mutexes are held: one shape
                # of each combination checks the attr is accepted and honoured.
                locking = shape == (3, 4)
                lock = "_locked" if locking else ""
                for name, op_name, slots, scalars, attrs, *grad_name in specs:
                    if not kind_cls.resource and not hasattr(raw, op_name):
                        continue
                    init = np.asarray(rng.randn(*shape)).astype(dt)
                    slot_inits = [np.asarray(f(shape)).astype(dt)
                                  for _, f in slots]
                    grads = rng.randn(STEPS, *shape).astype(dt)
                    fn = make_fn(op_name, [s for s, _ in slots],
                                 [s for s, _ in scalars], attrs, kind_cls, dt,
                                 locking, *grad_name)
                    cases.add(f"{prefix}{name}_{dname}_{sname}{lock}", fn,
                              [tf_oracle.Const(init),
                               *[tf_oracle.Const(s) for s in slot_inits],
                               *grads,
                               # np.int64 etc. keep their type.
                               *[v if isinstance(v, np.generic) else dt(v)
                                 for _, v in scalars]],
                              rtol=SLOT_TOLERANCES[dt][0],
                              atol=SLOT_TOLERANCES[dt][1])
