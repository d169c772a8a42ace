"""Every op we define has TensorFlow's signature, as TensorFlow's own registry has it.

Our registry is dumped by //kernels/ops:dump_op_defs (a text OpList); TensorFlow's
comes from the installed TensorFlow. Names, argument order and types, attrs with their
types, defaults, minimums and allowed values, and the op flags must all agree, so a
real GraphDef means the same thing here as there.
"""
import subprocess
import unittest

from google.protobuf import text_format
from tensorflow.core.framework import op_def_pb2
from tensorflow.python.framework import op_def_registry

DUMP = "kernels/ops/dump_op_defs"


def _arg(arg):
    return (arg.name, arg.type, arg.type_attr, arg.number_attr, arg.type_list_attr,
            arg.is_ref)


def _attr(attr):
    allowed = attr.allowed_values.list
    return {
        "type": attr.type,
        "default": attr.default_value.SerializeToString(deterministic=True)
        if attr.HasField("default_value") else None,
        "minimum": attr.minimum if attr.has_minimum else None,
        # As sets: TensorFlow's own lists repeat a type now and then
        # (ResizeBilinear names bfloat16 twice); the allowed set is what counts.
        "allowed": (sorted(set(allowed.type)), sorted(set(allowed.s)),
                    sorted(set(allowed.i)))
        if attr.HasField("allowed_values") else None,
    }


def differences(ours, theirs):
    problems = []
    if [_arg(a) for a in ours.input_arg] != [_arg(a) for a in theirs.input_arg]:
        problems.append(f"inputs {[_arg(a) for a in ours.input_arg]} != "
                        f"{[_arg(a) for a in theirs.input_arg]}")
    if [_arg(a) for a in ours.output_arg] != [_arg(a) for a in theirs.output_arg]:
        problems.append(f"outputs {[_arg(a) for a in ours.output_arg]} != "
                        f"{[_arg(a) for a in theirs.output_arg]}")
    our_attrs = {a.name: _attr(a) for a in ours.attr}
    their_attrs = {a.name: _attr(a) for a in theirs.attr}
    if sorted(our_attrs) != sorted(their_attrs):
        problems.append(f"attrs {sorted(our_attrs)} != {sorted(their_attrs)}")
    for name in set(our_attrs) & set(their_attrs):
        if our_attrs[name] != their_attrs[name]:
            problems.append(f"attr {name}: {our_attrs[name]} != {their_attrs[name]}")
    for flag in ("is_stateful", "is_commutative", "is_aggregate",
                 "allows_uninitialized_input"):
        if getattr(ours, flag) != getattr(theirs, flag):
            problems.append(f"{flag}: {getattr(ours, flag)} != {getattr(theirs, flag)}")
    return problems


class OpSignatureTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        text = subprocess.run([DUMP], capture_output=True, check=True, timeout=60).stdout
        cls.ops = text_format.Parse(text.decode(), op_def_pb2.OpList()).op

    def test_dump_is_not_empty(self):
        self.assertGreater(len(self.ops), 100)

    def test_every_op_matches_tensorflow(self):
        for op in self.ops:
            with self.subTest(op=op.name):
                theirs = op_def_registry.get(op.name)
                self.assertIsNotNone(theirs, f"TensorFlow has no op {op.name}")
                problems = differences(op, theirs)
                self.assertEqual(problems, [], f"{op.name}: " + "; ".join(problems))


if __name__ == "__main__":
    unittest.main()
