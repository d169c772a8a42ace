"""Checkpoint save and restore of 1 GiB of float variables (issue 11,
docs/benchmarks.md): Tributary (a tributary-worker task and a tributary-master,
driven by TensorFlow's Python client over gRPC) against TensorFlow's own
in-process tf.compat.v1 Session, the same graph and the same
tf.compat.v1.train.Saver, and the disk's sequential bandwidth measured with dd
in the same run. Prints a markdown table.

  bazel build --jobs=2 //worker:tributary-worker //master:tributary-master
  ~/.cache/tributary/tf-venv/bin/python tools/benchmarks/checkpoint_benchmark.py [--dir DIR]

Both sessions hold their variables at once and the repeats alternate
(Tributary, TensorFlow, Tributary, ...); the page cache is dropped before every
save and restore. Timings (median of --repeats):
  * save: the Saver's save op, as the client sees it (neither side fsyncs, as
    in TensorFlow, so the data may still be in the page cache);
  * save+sync: the same plus a sync(2) of the filesystem after it, the time
    until the bytes are on the disk, comparable with dd's conv=fdatasync write;
  * restore (cold): the restore op after the checkpoint's pages were dropped
    from the page cache (echo 1 > /proc/sys/vm/drop_caches when allowed,
    else posix_fadvise(POSIX_FADV_DONTNEED) on each file after a sync), so the
    bytes come from the disk; compare with dd's O_DIRECT read;
  * restore (warm): the restore op with the checkpoint in the page cache.
dd: write `dd if=/dev/zero of=F bs=8M count=128 conv=fdatasync`, read
`dd if=F of=/dev/null bs=8M iflag=direct` (O_DIRECT: never the page cache).
"""

import argparse
import json
import os
import re
import statistics
import subprocess
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

GIB = 1 << 30


def build(args, device):
    """args.variables float variables of GIB / args.variables bytes each."""
    g = tf.Graph()
    n = GIB // 4 // args.variables
    with g.as_default(), g.device(device):
        for i in range(args.variables):
            tf1.get_variable(f"v{i}", [n], initializer=tf1.constant_initializer(i + 0.5),
                             use_resource=False)
        saver = tf1.train.Saver(sharded=False)
        init = tf1.global_variables_initializer()
    return g, saver, init


def drop_cache(prefix):
    """Gets the checkpoint's pages out of the page cache; says how."""
    os.sync()
    try:
        with open("/proc/sys/vm/drop_caches", "w") as f:
            f.write("1\n")
        return "drop_caches"
    except OSError:
        d, base = os.path.split(prefix)
        for name in os.listdir(d):
            if name.startswith(base + "."):
                fd = os.open(os.path.join(d, name), os.O_RDONLY)
                os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
                os.close(fd)
        return "fadvise"


def remove_checkpoint(prefix):
    d, base = os.path.split(prefix)
    for name in os.listdir(d):
        if name.startswith(base + "."):
            os.remove(os.path.join(d, name))


def measure_once(sess, saver, prefix, out):
    """One save and two restores; the page cache is dropped before the save
    too, so each side starts from the same state of memory."""
    sd = saver.saver_def
    if os.path.exists(prefix + ".index"):
        remove_checkpoint(prefix)
    drop_cache(prefix)
    t0 = time.perf_counter()
    sess.run(sd.save_tensor_name, {sd.filename_tensor_name: prefix})
    t1 = time.perf_counter()
    os.sync()
    t2 = time.perf_counter()
    out["save"].append(t1 - t0)
    out["save_sync"].append(t2 - t0)
    how = drop_cache(prefix)
    t0 = time.perf_counter()
    sess.run(sd.restore_op_name, {sd.filename_tensor_name: prefix})
    out["restore_cold"].append(time.perf_counter() - t0)
    t0 = time.perf_counter()
    sess.run(sd.restore_op_name, {sd.filename_tensor_name: prefix})
    out["restore_warm"].append(time.perf_counter() - t0)
    remove_checkpoint(prefix)
    return how


def dd(args, path):
    def rate(stderr):
        m = re.search(r"(\d+) bytes .* copied, ([\d.]+) s", stderr)
        return int(m.group(1)) / float(m.group(2))
    writes, reads = [], []
    for _ in range(args.repeats):
        w = subprocess.run(["dd", "if=/dev/zero", f"of={path}", "bs=8M", "count=128",
                            "conv=fdatasync"], capture_output=True, text=True, check=True)
        writes.append(rate(w.stderr))
        r = subprocess.run(["dd", f"if={path}", "of=/dev/null", "bs=8M", "iflag=direct"],
                           capture_output=True, text=True, check=True)
        reads.append(rate(r.stderr))
        os.remove(path)
    return statistics.median(writes), statistics.median(reads)


def run_both(args, workdir, prefix):
    """Tributary and TensorFlow sessions side by side, their repeats
    interleaved (Tributary, TensorFlow, Tributary, ...), so neither gets a
    systematically different machine state."""
    ports = free_ports(2)
    spec = {"worker": [f"127.0.0.1:{ports[0]}"]}
    spec_path = os.path.join(workdir, "cluster.json")
    with open(spec_path, "w") as f:
        json.dump(spec, f)
    keys = ("save", "save_sync", "restore_cold", "restore_warm")
    ours = {k: [] for k in keys}
    theirs = {k: [] for k in keys}
    with Cluster(workdir, "tributary") as cluster:
        w = cluster.start("worker", [args.worker, "--cluster", spec_path, "--job", "worker",
                                     "--task", "0"])
        wait_listening(ports[0], w, 60, "tributary-worker")
        m = cluster.start("master", [args.master, "--cluster", spec_path, "--listen",
                                     f"127.0.0.1:{ports[1]}"])
        wait_listening(ports[1], m, 60, "tributary-master")
        g1, saver1, init1 = build(args, "/job:worker/task:0")
        g2, saver2, init2 = build(args, None)
        with tf1.Session(f"grpc://127.0.0.1:{ports[1]}", graph=g1) as s1, \
                tf1.Session(graph=g2) as s2:
            s1.run(init1)
            s2.run(init2)
            for i in range(args.repeats):
                how = measure_once(s1, saver1, prefix, ours)
                measure_once(s2, saver2, prefix, theirs)
                log(f"repeat {i}: tributary {[round(ours[k][-1], 3) for k in keys]}, "
                    f"tensorflow {[round(theirs[k][-1], 3) for k in keys]}")
    median = {k: statistics.median(v) for k, v in ours.items()}
    return median, {k: statistics.median(v) for k, v in theirs.items()}, how


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--dir", default=None, help="where checkpoints go (a disk)")
    parser.add_argument("--variables", type=int, default=8)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--worker", default="bazel-bin/worker/tributary-worker")
    parser.add_argument("--master", default="bazel-bin/master/tributary-master")
    args = parser.parse_args()
    workdir = tempfile.mkdtemp(prefix="checkpoint_benchmark.", dir=args.dir)
    prefix = os.path.join(workdir, "ckpt", "model.ckpt")
    os.makedirs(os.path.dirname(prefix))
    log(f"load average at start: {os.getloadavg()}")
    dd_write, dd_read = dd(args, os.path.join(workdir, "dd.bin"))
    log(f"dd: write {dd_write / 1e6:.0f} MB/s, read {dd_read / 1e6:.0f} MB/s")
    ours, theirs, how = run_both(args, workdir, prefix)
    dd_after_write, dd_after_read = dd(args, os.path.join(workdir, "dd.bin"))

    def mbs(t):
        return GIB / t / 1e6

    print(f"\n1 GiB in {args.variables} float variables, median of {args.repeats}; "
          f"page cache dropped by {how}; dd before/after: write "
          f"{dd_write / 1e6:.0f}/{dd_after_write / 1e6:.0f} MB/s, read "
          f"{dd_read / 1e6:.0f}/{dd_after_read / 1e6:.0f} MB/s\n")
    print("| operation | Tributary s (MB/s) | TensorFlow s (MB/s) | Tributary vs dd | "
          "TensorFlow / Tributary time |")
    print("|---|---|---|---|---|")
    rows = [("save", "save", dd_write), ("save+sync", "save_sync", dd_write),
            ("restore, cold cache", "restore_cold", dd_read),
            ("restore, warm cache", "restore_warm", None)]
    for label, key, disk in rows:
        ours_t, theirs_t = ours[key], theirs[key]
        vs_dd = f"{mbs(ours_t) * 1e6 / disk:.0%}" if disk else "-"
        print(f"| {label} | {ours_t:.2f} ({mbs(ours_t):.0f}) | {theirs_t:.2f} "
              f"({mbs(theirs_t):.0f}) | {vs_dd} | {theirs_t / ours_t:.2f}x |")
    subprocess.run(["rm", "-rf", workdir], check=False)


if __name__ == "__main__":
    main()
