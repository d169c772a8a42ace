"""The constant-expression step across many tasks (issue 16, docs/benchmarks.md):
a small constant expression on each of N worker tasks, summed on task 0 and
fetched, through TensorFlow's Python client (tf.compat.v1.Session("grpc://..."))
against TensorFlow's own tf.distribute.Server tasks and against Tributary's
daemons (tributary-worker per task + tributary-master), with our graph
optimizer on (the default) and off (rewrite_options.disable_meta_optimizer).
Prints a markdown table of step latency.

  bazel build -c opt //worker:tributary-worker //master:tributary-master
  ~/.cache/tributary/tf-venv/bin/python tools/benchmarks/constant_step_benchmark.py [--tasks 16]

Without folding, the step is N partitions and N-1 cross-task tensors; folded
on the master, it is one Const on task 0.
"""

import argparse
import json
import os
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from distributed_benchmark import Cluster, free_ports, log, wait_listening  # noqa: E402

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
from tensorflow.core.protobuf import rewriter_config_pb2  # noqa: E402

tf1 = tf.compat.v1
tf1.disable_eager_execution()


def build(tasks):
    g = tf.Graph()
    with g.as_default():
        parts = []
        for i in range(tasks):
            with g.device(f"/job:worker/task:{i}"):
                c = tf.constant(np.arange(4, dtype=np.float32) + i, name=f"c{i}")
                parts.append(tf.reduce_sum(tf.square(c) * 2.0 + 1.0, name=f"part{i}"))
        with g.device("/job:worker/task:0"):
            total = tf.add_n(parts, name="total")
    return g, total


def measure(target, args, optimize=True):
    """Step latencies in ms after warm-up, and the fetched value."""
    g, total = build(args.tasks)
    config = tf1.ConfigProto()
    if not optimize:
        config.graph_options.rewrite_options.disable_meta_optimizer = True
    with tf1.Session(target, graph=g, config=config) as sess:
        for _ in range(args.warmup):
            value = sess.run(total)
        times = []
        for _ in range(args.steps):
            start = time.perf_counter()
            sess.run(total)
            times.append((time.perf_counter() - start) * 1e3)
    times.sort()
    return {"p50": times[len(times) // 2], "p90": times[int(len(times) * 0.9)],
            "value": float(value)}


def spec_for(ports):
    return {"worker": [f"127.0.0.1:{p}" for p in ports]}


def run_tensorflow(args, workdir):
    ports = free_ports(args.tasks)
    spec = spec_for(ports)
    with Cluster(workdir, "tf") as c:
        for i in range(args.tasks):
            c.start(f"worker{i}", [sys.executable,
                                   os.path.join(HERE, "distributed_tf_server.py"),
                                   json.dumps(spec), "worker", str(i)])
        for i, port in enumerate(ports):
            wait_listening(port, c.procs[f"worker{i}"][0], 180, f"TensorFlow worker {i}")
        try:
            return {"TensorFlow": measure(f"grpc://127.0.0.1:{ports[0]}", args)}
        except Exception:
            log(c.logs())
            raise


def run_tributary(args, workdir):
    ports = free_ports(args.tasks + 1)
    spec = spec_for(ports[:-1])
    spec_path = os.path.join(workdir, "cluster.json")
    with open(spec_path, "w") as f:
        json.dump(spec, f)
    master = f"127.0.0.1:{ports[-1]}"
    with Cluster(workdir, "trib") as c:
        for i in range(args.tasks):
            c.start(f"worker{i}", [args.worker, "--cluster", spec_path, "--job", "worker",
                                   "--task", str(i), "--log-level", "warn"])
        c.start("master", [args.master, "--cluster", spec_path, "--listen", master,
                           "--log-level", "warn"])
        for i, port in enumerate(ports[:-1]):
            wait_listening(port, c.procs[f"worker{i}"][0], 60, f"tributary worker {i}")
        wait_listening(ports[-1], c.procs["master"][0], 60, "tributary-master")
        try:
            return {"Tributary, optimizer on": measure(f"grpc://{master}", args),
                    "Tributary, optimizer off": measure(f"grpc://{master}", args,
                                                        optimize=False)}
        except Exception:
            log(c.logs())
            raise


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--worker", default="bazel-bin/worker/tributary-worker")
    p.add_argument("--master", default="bazel-bin/master/tributary-master")
    p.add_argument("--tasks", type=int, default=16)
    p.add_argument("--warmup", type=int, default=50)
    p.add_argument("--steps", type=int, default=1000)
    args = p.parse_args()
    load = os.getloadavg()
    log(f"[bench] load average at start: {load[0]:.2f}, {os.cpu_count()} CPUs")
    results = {}
    with tempfile.TemporaryDirectory(prefix="constant_step_benchmark.") as workdir:
        for fn in (run_tributary, run_tensorflow):
            results.update(fn(args, workdir))
            log(f"[bench] {results}")
    values = {r["value"] for r in results.values()}
    if len(values) != 1:
        log(f"[bench] warning: the fetched values differ: {values}")
    tf_p50 = results["TensorFlow"]["p50"]
    print(f"\nConstant step over {args.tasks} worker tasks: {args.steps} steps after "
          f"{args.warmup} warm-up, TensorFlow's Python client; load average at start "
          f"{load[0]:.2f}, {os.cpu_count()} CPUs\n")
    print("| server | p50 ms | p90 ms | p50 / TensorFlow's |")
    print("|---|---|---|---|")
    for name, r in results.items():
        print(f"| {name} | {r['p50']:.3f} | {r['p90']:.3f} | {r['p50'] / tf_p50:.2f}x |")


if __name__ == "__main__":
    main()
