"""Small Keras models, one per layer family, frozen as a user freezes them
(keras_frozen.py) and run in TensorFlow's Session and through `tributary run`:
Conv1D, Conv2DTranspose, UpSampling2D (nearest and bilinear), Resizing
(bilinear, nearest, and crop_to_aspect_ratio), global pooling,
LayerNormalization, Dense with gelu (exact and tanh approximation),
Embedding, MultiHeadAttention (its Einsum ops), EinsumDense, the elu/selu/
softplus/softsign activations with LeakyReLU and ELU layers, and dilated
Conv1D/Conv2D (TensorFlow 2.21 freezes those as SpaceToBatchND -> Conv2D ->
BatchToSpaceND).

Weights are Keras's initialisers seeded by keras.utils.set_random_seed.
Tolerance: rtol 1e-5, atol 1e-5 (shallow float32 models; summation order
is the only difference).
"""
import sys
import unittest

sys.path.insert(0, "tests/interop")  # cwd is the runfiles root

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

from keras_frozen import freeze, run_ours, run_tf  # noqa: E402

L = tf.keras.layers
RTOL, ATOL = 1e-5, 1e-5


def seq(input_shape, layers, dtype="float32"):
    return tf.keras.Sequential([L.Input(input_shape, dtype=dtype)] + layers)


def mha_model():
    x = L.Input((6, 16))
    y = L.MultiHeadAttention(num_heads=2, key_dim=8)(x, x)
    y = L.LayerNormalization()(x + y)
    y = L.Dense(16, activation="gelu")(y)
    return tf.keras.Model(x, y)


def cross_attention_model():
    # Query and key/value of different lengths, value_dim != key_dim, an
    # extra batch axis (attention over axis 2 only): other Einsum equations.
    x = L.Input((4, 6, 8))
    q = L.Lambda(lambda t: t[:, :, :3, :])(x)
    y = L.MultiHeadAttention(num_heads=3, key_dim=4, value_dim=5,
                             attention_axes=(2,))(q, x)
    return tf.keras.Model(x, y)


# name -> (model builder, input shape with batch 2, dtype).
MODELS = {
    "conv1d": (lambda: seq((16, 4), [
        L.Conv1D(8, 3, padding="same", activation="relu"),
        L.Conv1D(6, 3, padding="causal"),
        L.MaxPooling1D(2), L.Conv1D(4, 2, strides=2),
        L.GlobalAveragePooling1D(), L.Dense(3)]), (2, 16, 4), tf.float32),
    "conv2d_transpose": (lambda: seq((7, 7, 3), [
        L.Conv2DTranspose(4, 3, strides=2, padding="same"),
        L.Conv2DTranspose(5, 3, strides=2, padding="valid"),
        L.GlobalMaxPooling2D()]), (2, 7, 7, 3), tf.float32),
    "upsampling_nearest": (lambda: seq((5, 6, 3), [
        L.UpSampling2D(2), L.Conv2D(2, 3)]), (2, 5, 6, 3), tf.float32),
    "upsampling_bilinear": (lambda: seq((5, 6, 3), [
        L.UpSampling2D((2, 3), interpolation="bilinear")]), (2, 5, 6, 3),
        tf.float32),
    "resizing_bilinear": (lambda: seq((8, 8, 3), [
        L.Resizing(11, 5)]), (2, 8, 8, 3), tf.float32),
    "resizing_nearest": (lambda: seq((8, 8, 3), [
        L.Resizing(13, 6, interpolation="nearest")]), (2, 8, 8, 3), tf.float32),
    "resizing_crop": (lambda: seq((8, 12, 3), [
        L.Resizing(6, 6, crop_to_aspect_ratio=True)]), (2, 8, 12, 3),
        tf.float32),
    "global_pooling": (lambda: seq((6, 6, 4), [
        L.Conv2D(4, 1), L.GlobalAveragePooling2D(keepdims=True),
        L.GlobalMaxPooling2D()]), (2, 6, 6, 4), tf.float32),
    "layer_norm_gelu": (lambda: seq((5, 8), [
        L.LayerNormalization(), L.Dense(4, activation="gelu"),
        L.LayerNormalization(axis=[1, 2]), L.BatchNormalization(),
        L.Dropout(0.3), L.Flatten()]), (2, 5, 8), tf.float32),
    "dense_gelu_tanh": (lambda: seq((8,), [
        L.Dense(6, activation=lambda t: tf.keras.activations.gelu(
            t, approximate=True))]), (2, 8), tf.float32),
    "embedding": (lambda: seq((6,), [
        L.Embedding(50, 8), L.GlobalAveragePooling1D(),
        L.Dense(2, activation="softmax")], dtype="int32"), (2, 6), tf.int32),
    "multi_head_attention": (mha_model, (2, 6, 16), tf.float32),
    "cross_attention": (cross_attention_model, (2, 4, 6, 8), tf.float32),
    "activations": (lambda: seq((10, 4), [
        L.Conv1D(6, 3, activation="elu"), L.LeakyReLU(0.3),
        L.Dense(5, activation="selu"), L.ELU(0.7),
        L.Dense(5, activation="softplus"), L.Dense(4, activation="softsign"),
        L.LeakyReLU()]), (2, 10, 4), tf.float32),
    "dilated_conv": (lambda: seq((16, 3), [
        L.Conv1D(4, 3, dilation_rate=2, padding="causal", activation="relu"),
        L.Reshape((4, 4, 4)),
        L.Conv2D(3, 3, dilation_rate=2, padding="same"),
        L.Conv2D(2, 2, dilation_rate=(1, 2))]), (2, 16, 3), tf.float32),
    "einsum_dense": (lambda: seq((5, 8), [
        L.EinsumDense("abc,cde->abde", output_shape=(5, 3, 4), bias_axes="de"),
    ]), (2, 5, 8), tf.float32),
}


class KerasLayersTest(unittest.TestCase):
    def check_model(self, name):
        ctor, shape, dtype = MODELS[name]
        tf.keras.utils.set_random_seed(2026)
        model = ctor()
        graph_def, feed, fetch = freeze(model, shape, dtype)
        rng = np.random.default_rng(11)
        if dtype == tf.int32:
            x = rng.integers(0, 50, shape).astype(np.int32)
        else:
            x = rng.standard_normal(shape).astype(np.float32)
        want = run_tf(graph_def, feed, fetch, x)
        kind, got = run_ours(graph_def, feed, fetch, x)
        self.assertEqual(kind, "ok", got)
        self.assertEqual(got.dtype, want.dtype)
        self.assertEqual(got.shape, want.shape)
        np.testing.assert_allclose(got, want, rtol=RTOL, atol=ATOL, err_msg=name)


def _add_case(name):
    def test(self):
        self.check_model(name)
    setattr(KerasLayersTest, f"test_{name}", test)


for _name in MODELS:
    _add_case(_name)


if __name__ == "__main__":
    unittest.main()
