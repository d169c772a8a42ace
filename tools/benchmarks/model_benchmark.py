"""Models vs TensorFlow: step times and peak memory, Tributary's local session
against TensorFlow 2.21's own session, on the same frozen graphs, side by side.

    ~/.cache/tributary/tf-venv/bin/python tools/benchmarks/model_benchmark.py \
        [--threads 2] [--rounds 3] [--warmup 3] [--steps 10] \
        [--models resnet50_b1,resnet50_b8,mobilenetv2_b1,lstm,cnn_train] [--unoptimized] \
        [--ours bazel-bin/tools/benchmarks/model_step_benchmark] [--json-out F]

(build the C++ side first: bazel build //tools/benchmarks:model_step_benchmark)

Each model is built here with TensorFlow's public APIs: Keras applications with
weights=None after keras.utils.set_random_seed(0), frozen as a user would
(tf.function -> get_concrete_function -> convert_variables_to_constants_v2);
the CNN training step is tests/interop/cnn_session_test.py's graph (SGD). The
GraphDef and the .npy feeds go to a temporary folder. Then, per model, each
round starts one fresh process per side (TensorFlow: this script with --tf-child;
Tributary: model_step_benchmark), alternating TF, ours, TF, ours, ...; each
process runs W warm-up steps and K timed ones and reports its step times and
its peak resident set (VmHWM) at the end, plus its resident set before the
first step (after importing TensorFlow / loading the graph). Both sessions get
intra_op_parallelism_threads = N and inter_op_parallelism_threads = 1.
TensorFlow runs as shipped (oneDNN and grappler on, as a user gets it);
TensorFlow's steps go through Session.make_callable (no per-step feed-dict
parsing). The table gives, per model, the median and p90 over all timed steps
of all rounds, and the largest VmHWM over the rounds.

With --unoptimized, a third process per round runs ours with the graph
optimizer off (constant folding and fusion; docs/operations.md), to show
what the optimizer is worth. The parameter-server workload has its own
benchmark, ps_embedding_benchmark.py.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def vm_kib(field):
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return -1


# ---- model builders: each returns a spec dict (graph_def, feeds, fetches, targets, inits)

def _frozen_keras(make_model, batch, size):
    import keras
    import tensorflow as tf
    from tensorflow.python.framework.convert_to_constants import (
        convert_variables_to_constants_v2)
    keras.utils.set_random_seed(0)
    model = make_model(input_shape=(size, size, 3), weights=None)
    fn = tf.function(lambda x: model(x, training=False))
    concrete = fn.get_concrete_function(
        tf.TensorSpec([batch, size, size, 3], tf.float32))
    frozen = convert_variables_to_constants_v2(concrete)
    graph_def = frozen.graph.as_graph_def()
    feed = frozen.inputs[0].name  # e.g. "x:0"
    fetch = frozen.outputs[0].name
    image = np.random.default_rng(1).random((batch, size, size, 3), np.float32)
    return {"graph_def": graph_def, "feeds": {feed: image}, "fetches": [fetch],
            "targets": [], "inits": []}


def build_resnet50(batch):
    import keras
    return _frozen_keras(keras.applications.ResNet50, batch, 224)


def build_mobilenetv2(batch):
    import keras
    return _frozen_keras(keras.applications.MobileNetV2, batch, 224)


def build_lstm(batch, steps, features, units):
    """A Keras LSTM (lowered to a while loop over TensorList ops), frozen."""
    import keras
    import tensorflow as tf
    from tensorflow.python.framework.convert_to_constants import (
        convert_variables_to_constants_v2)
    keras.utils.set_random_seed(0)
    model = keras.Sequential([keras.layers.Input((steps, features)),
                              keras.layers.LSTM(units), keras.layers.Dense(10)])
    fn = tf.function(lambda x: model(x, training=False))
    concrete = fn.get_concrete_function(
        tf.TensorSpec([batch, steps, features], tf.float32))
    frozen = convert_variables_to_constants_v2(concrete)
    seq = np.random.default_rng(1).random((batch, steps, features), np.float32)
    return {"graph_def": frozen.graph.as_graph_def(),
            "feeds": {frozen.inputs[0].name: seq},
            "fetches": [frozen.outputs[0].name], "targets": [], "inits": []}


def build_cnn_train():
    sys.path.insert(0, os.path.join(ROOT, "tests", "interop"))
    import tensorflow as tf
    from cnn_session_test import build_cnn
    graph_def, feeds = build_cnn(tf.compat.v1.train.GradientDescentOptimizer(0.1))
    return {"graph_def": graph_def,
            "feeds": {name + ":0": value for name, value in feeds.items()},
            "fetches": ["loss:0"], "targets": ["train"], "inits": ["init"]}


MODELS = {
    "resnet50_b1": ("ResNet50 224x224, batch 1 (frozen inference)", lambda: build_resnet50(1)),
    "resnet50_b8": ("ResNet50 224x224, batch 8 (frozen inference)", lambda: build_resnet50(8)),
    "mobilenetv2_b1": ("MobileNetV2 224x224, batch 1 (frozen inference)",
                       lambda: build_mobilenetv2(1)),
    "lstm": ("Keras LSTM(128) over 32 steps of 64 features, batch 16 (frozen inference)",
             lambda: build_lstm(16, 32, 64, 128)),
    "cnn_train": ("CNN training step (cnn_session_test.py, SGD, batch 8)", build_cnn_train),
}
# Hooks for workloads whose ops other engineers are adding: give each a builder
# in MODELS (same spec dict) once its graph runs on Tributary.
# (The parameter-server workload has its own benchmark: ps_embedding_benchmark.py.)
PENDING = {}


# ---- the two sides, each in its own process

def tf_child(args):
    """Runs in a fresh process: one TensorFlow session over the saved spec."""
    import tensorflow as tf
    with open(os.path.join(args.tf_child, "spec.json")) as f:
        spec = json.load(f)
    graph_def = tf.compat.v1.GraphDef()
    with open(os.path.join(args.tf_child, "graph.pb"), "rb") as f:
        graph_def.ParseFromString(f.read())
    graph = tf.Graph()
    with graph.as_default():
        tf.compat.v1.import_graph_def(graph_def, name="")
    config = tf.compat.v1.ConfigProto(intra_op_parallelism_threads=args.threads,
                                      inter_op_parallelism_threads=1)
    feeds = [(name, np.load(path)) for name, path in spec["feeds"]]
    with tf.compat.v1.Session(graph=graph, config=config) as sess:
        for init in spec["inits"]:
            sess.run(graph.get_operation_by_name(init))
        fetches = [graph.get_tensor_by_name(t) for t in spec["fetches"]]
        fetches += [graph.get_operation_by_name(t) for t in spec["targets"]]
        step = sess.make_callable(fetches, [graph.get_tensor_by_name(n) for n, _ in feeds])
        values = [v for _, v in feeds]
        rss_ready = vm_kib("VmRSS")
        for _ in range(args.warmup):
            step(*values)
        times = []
        for _ in range(args.steps):
            start = time.perf_counter()
            step(*values)
            times.append((time.perf_counter() - start) * 1e3)
    print(json.dumps({"step_ms": times, "vmhwm_kib": vm_kib("VmHWM"),
                      "rss_ready_kib": rss_ready}))


def run_tf(args, folder):
    out = subprocess.run(
        [sys.executable, os.path.abspath(__file__), "--tf-child", folder,
         "--threads", str(args.threads), "--warmup", str(args.warmup),
         "--steps", str(args.steps)],
        capture_output=True, text=True, timeout=1800)
    if out.returncode != 0:
        raise RuntimeError("TensorFlow side failed:\n" + out.stderr[-3000:])
    return json.loads(out.stdout.strip().splitlines()[-1])


def run_ours(args, folder, spec, optimize=True):
    cmd = [args.ours, "--graph", os.path.join(folder, "graph.pb"),
           "--threads", str(args.threads), "--warmup", str(args.warmup),
           "--steps", str(args.steps)]
    for name, path in spec["feeds"]:
        cmd += ["--feed", name + "=" + path]
    for fetch in spec["fetches"]:
        cmd += ["--fetch", fetch]
    for target in spec["targets"]:
        cmd += ["--target", target]
    for init in spec["inits"]:
        cmd += ["--init", init]
    if args.profile:
        cmd += ["--profile"]
    if not optimize:
        cmd += ["--no-optimize"]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=1800)
    if out.returncode != 0:
        raise RuntimeError("Tributary side failed:\n" + out.stderr[-3000:])
    return json.loads(out.stdout.strip().splitlines()[-1])


def save_spec(spec, folder):
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "graph.pb"), "wb") as f:
        f.write(spec["graph_def"].SerializeToString())
    feeds = []
    for i, (name, value) in enumerate(spec["feeds"].items()):
        path = os.path.join(folder, "feed%d.npy" % i)
        np.save(path, value)
        feeds.append([name, path])
    saved = {"feeds": feeds, "fetches": spec["fetches"], "targets": spec["targets"],
             "inits": spec["inits"]}
    with open(os.path.join(folder, "spec.json"), "w") as f:
        json.dump(saved, f)
    return saved


def pct(values, q):
    return float(np.percentile(np.asarray(values), q))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--models", default=",".join(MODELS))
    parser.add_argument("--ours", default=os.path.join(
        ROOT, "bazel-bin", "tools", "benchmarks", "model_step_benchmark"))
    parser.add_argument("--json-out")
    parser.add_argument("--graphs-dir", help="keep the frozen graphs and feeds here and "
                        "reuse them on the next run (default: a temporary folder)")
    parser.add_argument("--profile", action="store_true",
                        help="print our per-op-type kernel time of one traced step")
    parser.add_argument("--unoptimized", action="store_true",
                        help="also run ours with the graph optimizer off "
                        "(rewrite_options.disable_meta_optimizer), as a third side")
    parser.add_argument("--tf-child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.tf_child:
        tf_child(args)
        return

    names = [m for m in args.models.split(",") if m]
    with open("/proc/loadavg") as f:
        load = " ".join(f.read().split()[:3])
    print("threads: intra_op_parallelism_threads=%d, inter_op_parallelism_threads=1 on "
          "both sides; %d rounds x (%d warm-up + %d timed steps) per side; load average "
          "at start %s" % (args.threads, args.rounds, args.warmup, args.steps, load))
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        tmp = args.graphs_dir or tmp
        for name in names:
            if name in PENDING:
                print("%s: pending (%s)" % (name, PENDING[name]))
                continue
            title, build = MODELS[name]
            folder = os.path.join(tmp, name)
            saved = os.path.join(folder, "spec.json")
            if args.graphs_dir and os.path.exists(saved):
                with open(saved) as f:
                    spec = json.load(f)
            else:
                spec = save_spec(build(), folder)
            tf_runs, our_runs, unopt_runs = [], [], []
            for _ in range(args.rounds):
                tf_runs.append(run_tf(args, folder))
                our_runs.append(run_ours(args, folder, spec))
                if args.unoptimized:
                    unopt_runs.append(run_ours(args, folder, spec, optimize=False))
            results[name] = {"title": title, "tf": tf_runs, "ours": our_runs,
                             "ours_unoptimized": unopt_runs}
            if args.profile and "profile_ms_by_op" in our_runs[-1]:
                prof = sorted(our_runs[-1]["profile_ms_by_op"].items(),
                              key=lambda kv: -kv[1])
                print("%s, ours, one traced step, ms by op: %s" % (
                    name, ", ".join("%s %.1f" % kv for kv in prof[:16])))
            sys.stdout.flush()
    print()
    print("| model | TF median / p90 ms | ours median / p90 ms | ours / TF (median) "
          "| peak RSS TF / ours (MiB) | RSS before 1st step TF / ours (MiB) "
          "| ours, optimizer off: median ms / peak RSS MiB |")
    print("|---|---|---|---|---|---|---|")
    for name, r in results.items():
        tf_ms = sum((run["step_ms"] for run in r["tf"]), [])
        our_ms = sum((run["step_ms"] for run in r["ours"]), [])
        tf_hwm = max(run["vmhwm_kib"] for run in r["tf"]) / 1024
        our_hwm = max(run["vmhwm_kib"] for run in r["ours"]) / 1024
        tf_ready = max(run["rss_ready_kib"] for run in r["tf"]) / 1024
        our_ready = max(run.get("rss_ready_kib", -1024) for run in r["ours"]) / 1024
        unopt = "not run"
        if r["ours_unoptimized"]:
            unopt_ms = sum((run["step_ms"] for run in r["ours_unoptimized"]), [])
            unopt = "%.2f / %.0f" % (pct(unopt_ms, 50), max(
                run["vmhwm_kib"] for run in r["ours_unoptimized"]) / 1024)
        print("| %s | %.2f / %.2f | %.2f / %.2f | %.2fx | %.0f / %.0f | %.0f / %.0f | %s |" % (
            r["title"], pct(tf_ms, 50), pct(tf_ms, 90), pct(our_ms, 50), pct(our_ms, 90),
            pct(our_ms, 50) / pct(tf_ms, 50), tf_hwm, our_hwm, tf_ready, our_ready, unopt))
    for name in PENDING:
        print("| %s | pending | | | | | |" % PENDING[name])
    if results and results[next(iter(results))]["ours"]:
        first = results[next(iter(results))]["ours"][0]
        print("\nours: %s; %s" % (first.get("conv_backend", "conv: im2col + Eigen GEMM"),
                                  first.get("matmul_backend", "")))
    if args.json_out:
        with open(args.json_out, "w") as f:
            json.dump(results, f)


if __name__ == "__main__":
    main()
