"""Models through the master (issue 16, docs/benchmarks.md): the frozen models
and the CNN training step of model_benchmark.py, run by TensorFlow's Python
client (tf.compat.v1.Session("grpc://...")) against a one-worker cluster of
each runtime: TensorFlow's tf.distribute.Server, and Tributary's
tributary-master + tributary-worker with the graph optimizer on (the
default) and off (rewrite_options.disable_meta_optimizer). Prints a markdown
table of step times.

  bazel build -c opt //worker:tributary-worker //master:tributary-master
  ~/.cache/tributary/tf-venv/bin/python tools/benchmarks/model_benchmark.py \\
      --graphs-dir /tmp/mb --rounds 1 --steps 1      # writes the graphs once
  ~/.cache/tributary/tf-venv/bin/python tools/benchmarks/model_master_benchmark.py \\
      --graphs-dir /tmp/mb [--models resnet50_b1,mobilenetv2_b1,cnn_train] \\
      [--warmup 3] [--steps 10]

The master optimizes the graph on the first step of each signature, before
partitioning it; the timed steps are later ones. Both clusters live on
127.0.0.1; the client is the same Python process for all three.
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

tf1 = tf.compat.v1
tf1.disable_eager_execution()


def load(folder):
    with open(os.path.join(folder, "spec.json")) as f:
        spec = json.load(f)
    graph_def = tf1.GraphDef()
    with open(os.path.join(folder, "graph.pb"), "rb") as f:
        graph_def.ParseFromString(f.read())
    return graph_def, spec


def measure(target, folder, args, optimize=True):
    """Step times (ms) of one model through `target`, and the first fetch."""
    graph_def, spec = load(folder)
    g = tf.Graph()
    with g.as_default(), g.device("/job:worker/task:0"):
        tf1.import_graph_def(graph_def, name="")
    config = tf1.ConfigProto()
    if not optimize:
        config.graph_options.rewrite_options.disable_meta_optimizer = True
    with tf1.Session(target, graph=g, config=config) as sess:
        for init in spec["inits"]:
            sess.run(g.get_operation_by_name(init))
        fetches = [g.get_tensor_by_name(t) for t in spec["fetches"]]
        fetches += [g.get_operation_by_name(t) for t in spec["targets"]]
        feeds = {g.get_tensor_by_name(n): np.load(p) for n, p in spec["feeds"]}
        for _ in range(args.warmup):
            out = sess.run(fetches, feeds)
        times = []
        for _ in range(args.steps):
            start = time.perf_counter()
            out = sess.run(fetches, feeds)
            times.append((time.perf_counter() - start) * 1e3)
    return times, np.asarray(out[0])


def median(times):
    return float(np.median(times))


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--graphs-dir", required=True)
    p.add_argument("--models", default="resnet50_b1,mobilenetv2_b1,cnn_train")
    p.add_argument("--worker", default="bazel-bin/worker/tributary-worker")
    p.add_argument("--master", default="bazel-bin/master/tributary-master")
    p.add_argument("--warmup", type=int, default=3)
    p.add_argument("--steps", type=int, default=10)
    args = p.parse_args()
    models = args.models.split(",")
    load_avg = os.getloadavg()
    results = {m: {} for m in models}
    with tempfile.TemporaryDirectory(prefix="model_master_benchmark.") as workdir:
        ports = free_ports(3)
        spec = {"worker": [f"127.0.0.1:{ports[0]}"]}
        spec_path = os.path.join(workdir, "cluster.json")
        with open(spec_path, "w") as f:
            json.dump(spec, f)
        master = f"127.0.0.1:{ports[1]}"
        with Cluster(workdir, "trib") as c:
            c.start("worker0", [args.worker, "--cluster", spec_path, "--job", "worker",
                                "--task", "0", "--log-level", "warn"])
            c.start("master", [args.master, "--cluster", spec_path, "--listen", master,
                               "--log-level", "info"])
            wait_listening(ports[0], c.procs["worker0"][0], 60, "tributary-worker")
            wait_listening(ports[1], c.procs["master"][0], 60, "tributary-master")
            for m in models:
                folder = os.path.join(args.graphs_dir, m)
                for optimize in (True, False):
                    key = "on" if optimize else "off"
                    log(f"[bench] Tributary {m} optimizer {key} ...")
                    results[m][key] = measure(f"grpc://{master}", folder, args, optimize)
            master_log = c.procs["master"][1]
            with open(master_log) as f:
                optimized = [line.strip() for line in f if "optimized:" in line]
        tf_spec = {"worker": [f"127.0.0.1:{ports[2]}"]}
        with Cluster(workdir, "tf") as c:
            c.start("worker0", [sys.executable, os.path.join(HERE, "distributed_tf_server.py"),
                                json.dumps(tf_spec), "worker", "0"])
            wait_listening(ports[2], c.procs["worker0"][0], 180, "TensorFlow worker")
            for m in models:
                log(f"[bench] TensorFlow {m} ...")
                results[m]["tf"] = measure(f"grpc://127.0.0.1:{ports[2]}",
                                           os.path.join(args.graphs_dir, m), args)
    print(f"\nThrough the master, TensorFlow's Python client, one worker task; "
          f"{args.warmup} warm-up + {args.steps} timed steps; load average at start "
          f"{load_avg[0]:.2f}, {os.cpu_count()} CPUs\n")
    print("| model | TensorFlow median ms | ours, optimizer on | ours, optimizer off | "
          "on / TensorFlow | on / off |")
    print("|---|---|---|---|---|---|")
    for m in models:
        r = results[m]
        tf_ms, on_ms, off_ms = (median(r[k][0]) for k in ("tf", "on", "off"))
        print(f"| {m} | {tf_ms:.2f} | {on_ms:.2f} | {off_ms:.2f} | {on_ms / tf_ms:.2f}x | "
              f"{on_ms / off_ms:.2f}x |")
        if not np.allclose(r["on"][1], r["tf"][1], rtol=1e-3, atol=1e-4):
            log(f"[bench] warning: {m}: our first fetch differs from TensorFlow's")
    print("\nThe master's log, once per step signature:\n")
    for line in optimized:
        print("    " + line[:400])


if __name__ == "__main__":
    main()
