"""tf.keras.applications models, frozen as a user freezes them
(keras_frozen.py), run in TensorFlow's Session and through `tributary run`
(--feed x=@in.npy --output out.npz): the outputs must agree.

One model per family, the smallest variant, built with weights=None (Keras's
initialisers, seeded by keras.utils.set_random_seed) at a small input size
(the family's minimum or close to it) and batch 2; classes=10 keeps the
classifier small. classifier_activation=None fetches the logits: a softmax
over random-weight logits is nearly one-hot or flat and hides differences,
the logits do not.

Tolerance: rtol 1e-4 and atol 1e-5 * max|logit|. Both runtimes compute in
float32 with different summation orders (im2col/GEMM blocking, Eigen vs.
OpenBLAS, pooling sums) through 20..200 layers; with random weights and
inference-mode BatchNorm (moving mean 0, variance 1) the activations' scale
drifts with depth, so the absolute part is relative to the output's scale.

ConvNeXtTiny does not freeze into plain ops: its depthwise convolutions are
Conv2D with groups=channels, which Keras 3 runs through a
tf.function(jit_compile=True) (`_conv_xla`), and
convert_variables_to_constants_v2 keeps that call as a
StatefulPartitionedCall over the function library; Tributary inlines it
(common/function), so the case also checks that the call is there.

The cases are spread over Bazel's test shards (select_shard).
"""
import os
import sys
import unittest

sys.path.insert(0, "tests/interop")  # cwd is the runfiles root

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

from keras_frozen import freeze, run_ours, run_tf, select_shard  # noqa: E402

RTOL, ATOL_SCALE = 1e-4, 1e-5
BATCH, CLASSES = 2, 10

# name -> input size (height = width). Minimums: Xception 71,
# InceptionV3/InceptionResNetV2 75, the others 32. The order spreads the
# costly models (InceptionResNetV2, DenseNet121, VGG16, ResNet50V2) over the
# shards, which take every fourth name.
MODELS = {
    "InceptionResNetV2": 75,
    "DenseNet121": 32,
    "VGG16": 32,
    "ResNet50V2": 32,
    "MobileNet": 32,
    "ResNet50": 32,
    "InceptionV3": 75,
    "EfficientNetB0": 32,
    "MobileNetV3Small": 32,
    "EfficientNetV2B0": 32,
    "Xception": 71,
    "NASNetMobile": 32,
    "ConvNeXtTiny": 32,
    "MobileNetV2": 32,
    "RegNetX002": 32,
}

# Models whose frozen graph still calls a function (inlined by Tributary).
CALLS_FUNCTIONS = {"ConvNeXtTiny"}


def build(name, size):
    tf.keras.utils.set_random_seed(2026)
    ctor = getattr(tf.keras.applications, name)
    return ctor(weights=None, input_shape=(size, size, 3), classes=CLASSES,
                classifier_activation=None)


class KerasApplicationsTest(unittest.TestCase):
    def check_model(self, name, size):
        if not hasattr(tf.keras.applications, name):
            self.skipTest(f"this Keras has no applications.{name}")
        model = build(name, size)
        graph_def, feed, fetch = freeze(model, (BATCH, size, size, 3))
        rng = np.random.default_rng(7)
        # Inputs in the range the models' preprocessing expects ([0, 255]
        # for those that rescale inside the model, about [-1, 1] for others
        # does no harm either way: only agreement is checked).
        x = rng.uniform(0, 255, (BATCH, size, size, 3)).astype(np.float32)
        kind, got = run_ours(graph_def, feed, fetch, x)
        if name in CALLS_FUNCTIONS:
            self.assertIn("StatefulPartitionedCall",
                          {node.op for node in graph_def.node})
        want = run_tf(graph_def, feed, fetch, x)
        self.assertEqual(kind, "ok", got)
        self.assertEqual(got.dtype, np.float32)
        self.assertEqual(got.shape, (BATCH, CLASSES))
        self.assertTrue(np.all(np.isfinite(want)), f"{name}: TensorFlow gave {want}")
        atol = ATOL_SCALE * float(np.max(np.abs(want)))
        np.testing.assert_allclose(got, want, rtol=RTOL, atol=atol, err_msg=name)


def _add_case(name, size):
    def test(self):
        self.check_model(name, size)
    setattr(KerasApplicationsTest, f"test_{name}", test)


for _name in select_shard(list(MODELS)):
    _add_case(_name, MODELS[_name])


if __name__ == "__main__":
    unittest.main()
