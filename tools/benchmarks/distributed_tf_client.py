"""The distributed benchmark's steps, driven by TensorFlow's own Python client
(tf.compat.v1.Session("grpc://...")) against any master that speaks
TensorFlow's protocol: TensorFlow's servers, or Tributary's master. Writes the
measurements as JSON (--out); distributed_benchmark.py prints the table.

The graphs are the ones distributed_client_benchmark.cc builds (same node
names, ops and devices) on a cluster {"worker": [task 0, task 1]}:
  trivial             Const on task 0, fetched (RunStep latency);
  recv_<n>            VariableV2 of n float32 on task 1, read there
                      (recv_<n>/read), Slice of one element on task 0
                      (recv_<n>/slice, fetched): each step moves the whole
                      variable from task 1 to task 0 once and 4 bytes back;
  fetch_128MiB        VariableV2 on task 0; the client fetches its /read;
  aa_params/aa_update 10 MiB variables on task 0 / task 1; aa_add
                      (AssignAdd on task 0, run as a target) adds update into
                      params: TensorFlow issue #4498's tensor-rate benchmark.
"""

import argparse
import json
import os
import time

import tensorflow as tf

MIB = 1 << 20
TASK0 = "/job:worker/replica:0/task:0"
TASK1 = "/job:worker/replica:0/task:1"


def context_switches(pid):
    """Voluntary + involuntary context switches of the live threads."""
    total = 0
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/status") as f:
                for line in f:
                    if "ctxt_switches:" in line:  # voluntary_, nonvoluntary_
                        total += int(line.split()[-1])
        except OSError:
            pass  # The thread ended.
    return total


def proc_stat(pid):
    """Minor/major faults, CPU seconds and context switches of a process,
    from /proc."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    tick = os.sysconf("SC_CLK_TCK")
    return {"minflt": int(fields[7]), "majflt": int(fields[9]),
            "cpu_s": (int(fields[11]) + int(fields[12])) / tick,
            "ctxsw": context_switches(pid)}


def procs_snapshot(pids):
    snap = {}
    for name, pid in pids.items():
        try:
            snap[name] = proc_stat(pid)
        except OSError:
            pass
    return snap


def procs_delta(before, after, steps):
    out = {}
    for name in before:
        if name in after:
            b, a = before[name], after[name]
            out[name] = {
                "minflt_per_step": (a["minflt"] - b["minflt"]) / steps,
                "majflt_per_step": (a["majflt"] - b["majflt"]) / steps,
                "cpu_ms_per_step": (a["cpu_s"] - b["cpu_s"]) * 1e3 / steps,
                "ctxsw_per_step": (a["ctxsw"] - b["ctxsw"]) / steps,
            }
    return out


def measure(step, pids, warmup, min_reps, max_reps, min_seconds,
            max_seconds):
    """Runs step() `warmup` times, then at least min_reps times and
    min_seconds (stopping at max_reps, or at max_seconds once two are done).
    Returns step seconds and per-process deltas over the measured steps."""
    for _ in range(warmup):
        step()
    before = procs_snapshot(pids)
    times = []
    begin = time.perf_counter()
    while len(times) < max_reps:
        elapsed = time.perf_counter() - begin
        if len(times) >= min_reps and elapsed >= min_seconds:
            break
        if len(times) >= 2 and elapsed >= max_seconds:
            break
        start = time.perf_counter()
        step()
        times.append(time.perf_counter() - start)
    after = procs_snapshot(pids)
    times.sort()
    return {
        "n": len(times),
        "p50_s": times[len(times) // 2],
        "p99_s": times[min(len(times) - 1, int(0.99 * (len(times) - 1) + 0.5))],
        "min_s": times[0],
        "procs": procs_delta(before, after, len(times)),
    }


def build_graph(recv_sizes_mib, fetch_mib, aa_mib):
    g = tf.Graph()
    with g.as_default():
        with tf.device(TASK0):
            trivial = tf.constant(1.0, name="trivial")
        recv = {}
        # 4 bytes first: the fixed cost of a cross-task step.
        for tag, n in [("4B", 1)] + [(f"{m}MiB", m * MIB // 4)
                                       for m in recv_sizes_mib]:
            with tf.device(TASK1):
                v = tf.compat.v1.Variable(tf.ones([n]), name=f"recv_{tag}",
                                          use_resource=False)
            with tf.device(TASK0):
                recv[tag] = tf.slice(v, [0], [1], name=f"recv_{tag}/slice")
        with tf.device(TASK0):
            fetch = tf.compat.v1.Variable(
                tf.ones([fetch_mib * MIB // 4]), name=f"fetch_{fetch_mib}MiB",
                use_resource=False)
        with tf.device(TASK0):
            params = tf.compat.v1.Variable(
                tf.zeros([aa_mib * MIB // 4]), name="aa_params",
                use_resource=False)
        with tf.device(TASK1):
            update = tf.compat.v1.Variable(
                tf.ones([aa_mib * MIB // 4]), name="aa_update",
                use_resource=False)
        with tf.device(TASK0):
            add = tf.compat.v1.assign_add(params, update, name="aa_add")
        init = tf.compat.v1.global_variables_initializer()
    return g, trivial, recv, fetch.value(), add.op, init


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--target", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--pids", default="",
                        help="name=pid,... processes to count faults/CPU of")
    parser.add_argument("--sizes-mib", default="1,16,64,256")
    parser.add_argument("--fetch-mib", type=int, default=128)
    parser.add_argument("--aa-mib", type=int, default=10)
    parser.add_argument("--latency-steps", type=int, default=3000)
    parser.add_argument("--tests", default="latency,recv,fetch,assign_add",
                        help="which measurements to run")
    args = parser.parse_args()

    pids = {"client": os.getpid()}
    for item in filter(None, args.pids.split(",")):
        name, pid = item.split("=")
        pids[name] = int(pid)
    sizes = [int(s) for s in args.sizes_mib.split(",")]

    tf.compat.v1.disable_eager_execution()
    g, trivial, recv, fetch, add, init = build_graph(sizes, args.fetch_mib,
                                                     args.aa_mib)
    config = tf.compat.v1.ConfigProto(operation_timeout_in_ms=300000)
    out = {}
    with tf.compat.v1.Session(args.target, graph=g, config=config) as sess:
        sess.run(init)
        tests = args.tests.split(",")
        if "latency" in tests:
            out["latency"] = measure(lambda: sess.run(trivial), pids, 100,
                                     args.latency_steps, args.latency_steps,
                                     0, 5)
        if "recv" in tests:
            out["recv"] = {}
            for tag, t in recv.items():
                out["recv"][tag] = measure(lambda: sess.run(t), pids, 2, 5,
                                           500, 1.0, 20)
        if "fetch" in tests:
            out["fetch"] = measure(lambda: sess.run(fetch), pids, 2, 5, 200,
                                   1.0, 20)
        if "assign_add" in tests:
            out["assign_add"] = measure(lambda: sess.run(add), pids, 2, 10,
                                        500, 1.0, 20)
    with open(args.out, "w") as f:
        json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()
