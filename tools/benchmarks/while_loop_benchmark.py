"""Functional While vs TensorFlow 1 while loop: the per-iteration cost of a
loop of N iterations of a cheap body (i += 1; a = a * 0.5 + 1), on
Tributary's local session and on TensorFlow 2.21's session, same machine,
same run.

    ~/.cache/tributary/tf-venv/bin/python tools/benchmarks/while_loop_benchmark.py \
        [--iterations 10000] [--rounds 5] [--steps 5] [--threads 2] \
        [--ours bazel-bin/tools/benchmarks/model_step_benchmark]

(build the C++ side first: bazel build //tools/benchmarks:model_step_benchmark)

Two graphs of the same loop: "tf1" built with control flow v1
(tf.compat.v1.while_loop: Enter/Merge/Switch/NextIteration/Exit in the
GraphDef) and "tf2" a tf.function whose Python while becomes a
StatelessWhile inside a PartitionedCall, which Tributary inlines and lowers
(common/function). Each round runs, per graph, TensorFlow (this script, one
warm-up step then --steps timed steps through Session.make_callable) and
Tributary (model_step_benchmark: one warm-up, --steps timed), alternating.
The table gives the median microseconds per iteration over all timed steps.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

tf1 = tf.compat.v1


def build(form):
    g = tf.Graph()
    if form == "tf1":
        tf1.disable_control_flow_v2()
    try:
        with g.as_default():
            n = tf1.placeholder(tf.int32, [], name="n")
            if form == "tf1":
                _, a = tf1.while_loop(lambda i, a: i < n,
                                      lambda i, a: (i + 1, a * 0.5 + 1.0),
                                      [tf.constant(0), tf.constant(0.0)])
            else:
                @tf.function
                def loop(n):
                    i = tf.constant(0)
                    a = tf.constant(0.0)
                    while i < n:
                        i += 1
                        a = a * 0.5 + 1.0
                    return a
                a = loop(n)
            tf.identity(a, name="y")
    finally:
        tf1.enable_control_flow_v2()
    return g


def tf_step_seconds(g, iterations, steps, threads):
    config = tf1.ConfigProto(intra_op_parallelism_threads=threads,
                             inter_op_parallelism_threads=1)
    with tf1.Session(graph=g, config=config) as sess:
        run = sess.make_callable("y:0", ["n:0"])
        run(iterations)
        times = []
        for _ in range(steps):
            start = time.perf_counter()
            run(iterations)
            times.append(time.perf_counter() - start)
    return times


def our_step_seconds(binary, graph_path, feed_path, steps, threads):
    out = subprocess.run(
        [binary, "--graph", graph_path, "--threads", str(threads), "--warmup",
         "1", "--steps", str(steps), "--feed", f"n={feed_path}", "--fetch",
         "y"], check=True, capture_output=True, text=True)
    return [ms / 1000.0 for ms in json.loads(out.stdout)["step_ms"]]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--iterations", type=int, default=10000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--steps", type=int, default=5)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--ours",
                        default="bazel-bin/tools/benchmarks/model_step_benchmark")
    args = parser.parse_args()
    tmp = tempfile.mkdtemp(prefix="while_loop_benchmark.")
    feed = os.path.join(tmp, "n.npy")
    np.save(feed, np.array(args.iterations, np.int32))
    graphs = {}
    for form in ("tf1", "tf2"):
        g = build(form)
        path = os.path.join(tmp, form + ".pb")
        with open(path, "wb") as f:
            f.write(g.as_graph_def().SerializeToString())
        graphs[form] = (g, path)
    times = {(form, side): [] for form in graphs for side in ("ours", "tf")}
    for _ in range(args.rounds):
        for form, (g, path) in graphs.items():
            times[(form, "tf")] += tf_step_seconds(g, args.iterations,
                                                   args.steps, args.threads)
            times[(form, "ours")] += our_step_seconds(
                args.ours, path, feed, args.steps, args.threads)
    per_iter = {k: statistics.median(v) / args.iterations * 1e6
                for k, v in times.items()}
    print(f"{args.iterations} iterations, {args.rounds} rounds x {args.steps} "
          f"steps, {args.threads} threads; median us per iteration")
    print("| loop | Tributary | TensorFlow | Tributary / TensorFlow |")
    print("|---|---|---|---|")
    for form in graphs:
        ours, theirs = per_iter[(form, "ours")], per_iter[(form, "tf")]
        print(f"| {form} | {ours:.2f} | {theirs:.2f} | {ours / theirs:.2f}x |")
    print(f"Tributary tf2 / Tributary tf1: "
          f"{per_iter[('tf2', 'ours')] / per_iter[('tf1', 'ours')]:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
