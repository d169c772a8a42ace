"""Variables for the optimizer oracle tests: TF1 reference variables
(VariableV2 + Assign) or resource variables (VarHandleOp + AssignVariableOp),
made, updated STEPS times in order, and read back (see
training_oracle_test.py for the protocol)."""
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
