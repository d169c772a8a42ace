"""The parameter-server embedding benchmark (issue 13, docs/benchmarks.md):
training steps per second of one embedding model on a 1 ps + 2 worker cluster,
Tributary's daemons (tributary-worker per task, tributary-master) against
TensorFlow's own tf.distribute.Server tasks, the same client code (TensorFlow's
Python client, tf.compat.v1.Session("grpc://...")) and the same graph, one run
after the other on the same machine. Prints a markdown table.

  bazel build //worker:tributary-worker //master:tributary-master
  ~/.cache/tributary/tf-venv/bin/python tools/benchmarks/ps_embedding_benchmark.py

The model: a 100000 x 16 float table in two shards (fixed_size_partitioner)
on the ps task, looked up with tf.nn.embedding_lookup_sparse (mean combiner)
by two towers, one per worker task, each on its half of the batch, a dense
layer 16 -> 1 and sigmoid cross-entropy; Adagrad applies both towers'
IndexedSlices gradients on the ps task; placed by replica_device_setter.
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


def build(args):
    g = tf.Graph()
    with g.as_default():
        tf1.set_random_seed(1)
        losses = []
        feeds = []
        grads_and_vars = []
        with g.device("/job:ps/task:0"):
            with tf1.variable_scope("emb", partitioner=tf1.fixed_size_partitioner(2),
                                    use_resource=True):
                table = tf1.get_variable(
                    "table", [args.vocab, args.dim],
                    initializer=tf1.random_uniform_initializer(-0.1, 0.1))
            w = tf1.get_variable("w", [args.dim, 1], use_resource=True)
        opt = tf1.train.AdagradOptimizer(0.1)
        for task in range(2):
            with g.device(f"/job:worker/task:{task}"):
                sp = tf1.sparse_placeholder(tf.int64, name=f"ids{task}")
                labels = tf1.placeholder(tf.float32, [None, 1], name=f"labels{task}")
                rows = tf1.nn.embedding_lookup_sparse(table, sp, None, combiner="mean")
                loss = tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(
                    labels=labels, logits=tf.matmul(rows, w)))
                losses.append(loss)
                feeds.append((sp, labels))
                grads_and_vars += opt.compute_gradients(loss)
        with g.device("/job:ps/task:0"):
            train = opt.apply_gradients(grads_and_vars)
        init = tf1.global_variables_initializer()
    return g, losses, feeds, train, init


def batches(args, feeds, n):
    rng = np.random.default_rng(0)
    half = args.batch // 2
    out = []
    for _ in range(n):
        fd = {}
        for sp, labels in feeds:
            per_row = args.ids_per_example
            idx = np.stack([np.repeat(np.arange(half), per_row),
                            np.tile(np.arange(per_row), half)], 1).astype(np.int64)
            vals = rng.integers(0, args.vocab, half * per_row).astype(np.int64)
            fd[sp] = tf1.SparseTensorValue(idx, vals, [half, per_row])
            fd[labels] = rng.integers(0, 2, (half, 1)).astype(np.float32)
        out.append(fd)
    return out


def measure(target, args):
    """Steps/s through `target` after warm-up; also the last losses."""
    g, losses, feeds, train, init = build(args)
    data = batches(args, feeds, 16)
    with tf1.Session(target, graph=g) as sess:
        sess.run(init)
        for i in range(args.warmup):
            sess.run([train] + losses, data[i % len(data)])
        times = []
        for rep in range(args.repeats):
            start = time.perf_counter()
            for i in range(args.steps):
                out = sess.run([train] + losses, data[i % len(data)])
            times.append(time.perf_counter() - start)
    best = min(times)
    median = sorted(times)[len(times) // 2]
    return {"steps_per_s_median": args.steps / median,
            "steps_per_s_best": args.steps / best,
            "last_losses": [float(x) for x in out[1:]]}


def spec_for(ports):
    return {"ps": [f"127.0.0.1:{ports[0]}"],
            "worker": [f"127.0.0.1:{ports[1]}", f"127.0.0.1:{ports[2]}"]}


def run_tensorflow(args, workdir):
    ports = free_ports(3)
    spec = spec_for(ports)
    with Cluster(workdir, "tf") as c:
        tasks = [("ps", 0), ("worker", 0), ("worker", 1)]
        for (job, i), port in zip(tasks, ports):
            c.start(f"{job}{i}", [sys.executable,
                                  os.path.join(HERE, "distributed_tf_server.py"),
                                  json.dumps(spec), job, str(i)])
        for (job, i), port in zip(tasks, ports):
            wait_listening(port, c.procs[f"{job}{i}"][0], 120, f"TensorFlow {job} {i}")
        try:
            return measure(f"grpc://127.0.0.1:{ports[1]}", args)
        except Exception:
            log(c.logs())
            raise


def run_tributary(args, workdir):
    ports = free_ports(4)
    spec = spec_for(ports)
    spec_path = os.path.join(workdir, "cluster.json")
    with open(spec_path, "w") as f:
        json.dump(spec, f)
    master = f"127.0.0.1:{ports[3]}"
    with Cluster(workdir, "trib") as c:
        tasks = [("ps", 0), ("worker", 0), ("worker", 1)]
        for (job, i) in tasks:
            c.start(f"{job}{i}", [args.worker, "--cluster", spec_path, "--job", job,
                                  "--task", str(i), "--log-level", "warn"])
        c.start("master", [args.master, "--cluster", spec_path, "--listen", master,
                           "--log-level", "warn"])
        for (job, i), port in zip(tasks, ports):
            wait_listening(port, c.procs[f"{job}{i}"][0], 60, f"tributary {job} {i}")
        wait_listening(ports[3], c.procs["master"][0], 60, "tributary-master")
        try:
            return measure(f"grpc://{master}", args)
        except Exception:
            log(c.logs())
            raise


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--worker", default="bazel-bin/worker/tributary-worker")
    p.add_argument("--master", default="bazel-bin/master/tributary-master")
    p.add_argument("--vocab", type=int, default=100000)
    p.add_argument("--dim", type=int, default=16)
    p.add_argument("--batch", type=int, default=256, help="examples per step, "
                   "half per worker task")
    p.add_argument("--ids-per-example", type=int, default=4)
    p.add_argument("--warmup", type=int, default=20)
    p.add_argument("--steps", type=int, default=200, help="steps per repeat")
    p.add_argument("--repeats", type=int, default=5)
    args = p.parse_args()
    load = os.getloadavg()
    log(f"[bench] load average at start: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}, "
        f"{os.cpu_count()} CPUs")
    results = {}
    with tempfile.TemporaryDirectory(prefix="ps_embedding_benchmark.") as workdir:
        for name, fn in (("Tributary", run_tributary), ("TensorFlow", run_tensorflow)):
            log(f"[bench] {name} ...")
            results[name] = fn(args, workdir)
            log(f"[bench] {name}: {results[name]}")
    trib, tf_ = results["Tributary"], results["TensorFlow"]
    print(f"\nPS embedding workload: table {args.vocab} x {args.dim} float (2 shards "
          f"on 1 ps task), batch {args.batch} ({args.batch // 2} per worker x "
          f"{args.ids_per_example} ids), Adagrad; {args.repeats} x {args.steps} steps "
          f"after {args.warmup} warm-up; load average at start {load[0]:.2f}, "
          f"{os.cpu_count()} CPUs\n")
    print("| cluster (1 ps + 2 workers) | steps/s, median of repeats | steps/s, best |")
    print("|---|---|---|")
    for name, r in results.items():
        print(f"| {name} | {r['steps_per_s_median']:.1f} | {r['steps_per_s_best']:.1f} |")
    print(f"| Tributary / TensorFlow | {trib['steps_per_s_median'] / tf_['steps_per_s_median']:.2f}x "
          f"| {trib['steps_per_s_best'] / tf_['steps_per_s_best']:.2f}x |")
    # Same graph, same seeds, same data: the two clusters train alike.
    if not np.allclose(trib["last_losses"], tf_["last_losses"], rtol=1e-4):
        log(f"[bench] warning: last losses differ: {trib['last_losses']} vs "
            f"{tf_['last_losses']}")


if __name__ == "__main__":
    main()
