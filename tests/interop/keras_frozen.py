"""Shared by the Keras interop tests: freeze a Keras model the way a user does,
run the frozen GraphDef in TensorFlow's Session and through `tributary run`,
and shard a test module's cases over Bazel's test shards.

Freezing is the documented user path:
    f = tf.function(lambda x: model(x, training=False))
    cf = f.get_concrete_function(tf.TensorSpec(shape, dtype))
    gd = convert_variables_to_constants_v2(cf).graph.as_graph_def()
The feed is the concrete function's input placeholder ("x") and the fetch its
first output (an Identity node), both taken from the frozen function.
"""
import os
import subprocess
import tempfile

# Compare against TensorFlow's reference CPU kernels, not its oneDNN rewrites.
os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
from tensorflow.python.framework.convert_to_constants import (  # noqa: E402
    convert_variables_to_constants_v2)

tf1 = tf.compat.v1
BINARY = "tools/tributary"  # cwd is the runfiles root


def freeze(model, shape, dtype=tf.float32):
    """(GraphDef, feed tensor name, fetch tensor name) of the frozen model."""
    f = tf.function(lambda x: model(x, training=False))
    cf = f.get_concrete_function(tf.TensorSpec(shape, dtype))
    frozen = convert_variables_to_constants_v2(cf)
    feed = frozen.inputs[0].name
    fetch = frozen.outputs[0].name
    return frozen.graph.as_graph_def(), feed, fetch


def run_tf(graph_def, feed, fetch, value):
    g = tf.Graph()
    with g.as_default():
        tf1.import_graph_def(graph_def, name="")
    config = tf1.ConfigProto(device_count={"CPU": 1})
    with tf1.Session(graph=g, config=config) as sess:
        return sess.run(g.get_tensor_by_name(fetch),
                        feed_dict={g.get_tensor_by_name(feed): value})


def run_ours(graph_def, feed, fetch, value):
    """("ok", array) or ("error", stdout JSON text) from `tributary run`."""
    with tempfile.TemporaryDirectory() as tmp:
        graph_path = os.path.join(tmp, "model.pb")
        with open(graph_path, "wb") as f:
            f.write(graph_def.SerializeToString())
        in_path = os.path.join(tmp, "in.npy")
        np.save(in_path, value)
        out_path = os.path.join(tmp, "out.npz")
        feed_name = feed[:-2] if feed.endswith(":0") else feed
        args = [BINARY, "run", "--graph", graph_path,
                "--feed", f"{feed_name}=@{in_path}", "--fetch", fetch,
                "--output", out_path]
        proc = subprocess.run(args, capture_output=True, text=True, timeout=600)
        if proc.returncode != 0:
            return "error", proc.stdout + proc.stderr
        with np.load(out_path) as out:
            return "ok", out[fetch]


def select_shard(names):
    """The names this Bazel test shard runs (all of them when not sharded)."""
    total = int(os.environ.get("TEST_TOTAL_SHARDS", "1"))
    index = int(os.environ.get("TEST_SHARD_INDEX", "0"))
    status = os.environ.get("TEST_SHARD_STATUS_FILE")
    if status:  # Tells Bazel this test understands sharding.
        open(status, "a").close()
    return [n for i, n in enumerate(names) if i % total == index]
