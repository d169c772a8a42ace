"""Keras mixed precision, frozen: a model built under the mixed_float16 and the
mixed_bfloat16 policy computes its layers in half / bfloat16 (Cast, Conv2D,
DepthwiseConv2dNative, BiasAdd, Relu, pooling, MatMul, gelu's Erfc, ...) with
float32 variables and a float32 softmax at the end. TensorFlow's session and
`tributary run` run the same frozen GraphDef and must agree.

Tolerance: rtol/atol 2e-2 for half, 6e-2 for bfloat16 on the final float32
softmax. Each layer rounds its output to 11 (half) or 8 (bfloat16) significant
bits on both sides, but the sums inside convolutions and matrix products are
accumulated in another order (ours in float, blocked differently), so a
rounding boundary may fall on either side: differences of a few units in the
last place, carried through the layers. Within one layer the kernel oracles
(kernels/math/math_oracle_test.py) hold each op to one or two units.
"""
import os
import sys
import unittest

os.environ["TF_ENABLE_ONEDNN_OPTS"] = "0"
os.environ["TF_CPP_MIN_LOG_LEVEL"] = "2"

sys.path.insert(0, "tests/interop")  # cwd is the runfiles root

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
import keras  # noqa: E402
from tensorflow.python.framework.convert_to_constants import (  # noqa: E402
    convert_variables_to_constants_v2)

from session_oracle_test import SessionOracleTest  # noqa: E402

L = keras.layers
TOLERANCE = {"mixed_float16": 2e-2, "mixed_bfloat16": 6e-2}
INPUT_SHAPE = (2, 12, 12, 3)


def frozen_model(policy, build):
    """(GraphDef, input name, output name) of `build()` under `policy`."""
    keras.mixed_precision.set_global_policy(policy)
    try:
        keras.utils.set_random_seed(7)
        model = build()
        fn = tf.function(lambda x: model(x, training=False))
        concrete = fn.get_concrete_function(tf.TensorSpec(INPUT_SHAPE, tf.float32))
        frozen = convert_variables_to_constants_v2(concrete)
        return (frozen.graph.as_graph_def(), frozen.inputs[0].name,
                frozen.outputs[0].name)
    finally:
        keras.mixed_precision.set_global_policy("float32")


def convnet():
    return keras.Sequential([
        L.Input(INPUT_SHAPE[1:]),
        L.Conv2D(8, 3, padding="same", activation="relu"),
        L.BatchNormalization(),
        L.DepthwiseConv2D(3, padding="same", activation="relu6"),
        L.MaxPooling2D(),
        L.Conv2D(6, 1),
        L.AveragePooling2D(2),
        L.Flatten(),
        L.Dense(16, activation="gelu"),
        L.LayerNormalization(),
        L.Dense(8, activation="tanh"),
        L.Dense(4),
        L.Activation("softmax", dtype="float32"),
    ])


class MixedPrecisionTest(SessionOracleTest):
    def check_policy(self, policy, build):
        graph_def, x, y = frozen_model(policy, build)
        low = {"mixed_float16": "DT_HALF", "mixed_bfloat16": "DT_BFLOAT16"}[policy]
        computed_low = {n.op for n in graph_def.node
                        if any(a.type == getattr(tf, low[3:].lower()).as_datatype_enum
                               for k, a in n.attr.items() if k == "T")}
        # The policy really put the layers in low precision.
        self.assertTrue({"Conv2D", "MatMul", "BiasAdd"} <= computed_low, computed_low)
        x_value = np.random.default_rng(3).standard_normal(INPUT_SHAPE).astype(np.float32)
        tol = TOLERANCE[policy]
        self.check(graph_def, {x: x_value}, [y], rtol=tol, atol=tol)

    def test_convnet_mixed_float16(self):
        self.check_policy("mixed_float16", convnet)

    def test_convnet_mixed_bfloat16(self):
        self.check_policy("mixed_bfloat16", convnet)


if __name__ == "__main__":
    unittest.main()
