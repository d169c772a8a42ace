"""The soak test (docs/benchmarks.md, "Soak"): 64 concurrent clients, C++ and
TensorFlow's Python client mixed, for a configurable time against a 1 ps + 2
worker cluster, Tributary's and then TensorFlow's own (tf.distribute.Server
tasks), with the same graphs and the same load. Prints, per cluster:

  * per workload: steps, steps/s, p50/p99/p999 step latency, errors by
    status code (an error is expected only where the workload says so:
    DEADLINE_EXCEEDED for `deadline`; any other is unexpected);
  * per daemon: RSS, open fds and threads at the end of the warm-up and at
    the end, the largest thread count, and RSS growth after warm-up.

The workloads are soak_graphs.py's (trivial steps, cross-task transfers,
training steps with variables, session create/close churn, steps cancelled
by a deadline); the clients are soak_client.cc and soak_tf_client.py.

Run it through soak.sh (it builds the binaries and finds the TensorFlow
virtualenv). Exit status 1 when any step failed unexpectedly on Tributary.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from distributed_benchmark import (Cluster, free_ports, log,  # noqa: E402
                                   machine_context, tf_env, wait_listening)


def daemon_sample(pid):
    """RSS (MiB), threads and open fds of a live process, from /proc."""
    rss_kib = threads = 0
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                rss_kib = int(line.split()[1])
            elif line.startswith("Threads:"):
                threads = int(line.split()[1])
    fds = len(os.listdir(f"/proc/{pid}/fd"))
    return {"rss_mib": rss_kib / 1024, "threads": threads, "fds": fds}


class Sampler(threading.Thread):
    """Samples every daemon every `every_s` seconds until stopped."""

    def __init__(self, pids, every_s):
        super().__init__(daemon=True)
        self.pids, self.every_s = pids, every_s
        self.samples = []  # (seconds since start, {name: sample})
        self.stopping = threading.Event()
        self.start_time = time.monotonic()

    def run(self):
        while not self.stopping.is_set():
            snap = {}
            for name, pid in self.pids.items():
                try:
                    snap[name] = daemon_sample(pid)
                except OSError:
                    snap[name] = None  # the daemon is gone: reported
            self.samples.append((time.monotonic() - self.start_time, snap))
            self.stopping.wait(self.every_s)

    def stop(self):
        self.stopping.set()
        self.join()


def percentile(sorted_values, q):
    if not sorted_values:
        return float("nan")
    at = min(len(sorted_values) - 1, int(q * len(sorted_values)))
    return sorted_values[at]


def start_clients(args, target, workloads_path, workdir, name):
    """The client processes: args.clients in all, the C++ ones first."""
    n_cpp = round(args.clients * args.cpp_fraction)
    procs, client = [], 0
    plan = []
    for kind, total, per_proc in (("cpp", n_cpp, 16),
                                  ("tf", args.clients - n_cpp, 8)):
        while total > 0:
            n = min(per_proc, total)
            plan.append((kind, client, n))
            client += n
            total -= n
    for i, (kind, first, n) in enumerate(plan):
        out = os.path.join(workdir, f"{name}-client{i}.json")
        common = ["--target", target, "--workloads", workloads_path,
                  "--mix", args.mix, "--threads", str(n), "--first-client",
                  str(first), "--seconds", str(args.seconds), "--out", out]
        if kind == "cpp":
            argv = [args.client] + common
        else:
            argv = [args.tf_python, os.path.join(HERE, "soak_tf_client.py")] + common
        logf = open(os.path.join(workdir, f"{name}-client{i}.log"), "w")
        procs.append((subprocess.Popen(argv, stdout=logf, stderr=subprocess.STDOUT,
                                       env=tf_env()), out, kind))
        logf.close()
    return procs


def collect(procs, timeout_s):
    results = []
    for proc, out, kind in procs:
        try:
            proc.wait(timeout_s)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        try:
            with open(out) as f:
                results.append(json.load(f))
        except (OSError, ValueError):
            results.append({"client": kind, "failed": proc.returncode})
    return results


def summarize(args, workloads, results, sampler):
    by_workload = {}
    failed_clients = [r for r in results if "failed" in r]
    for r in results:
        for name, w in r.get("workloads", {}).items():
            agg = by_workload.setdefault(name, {"steps": 0, "errors": {},
                                                "samples": [], "first_error": ""})
            agg["steps"] += w["steps"]
            for code, n in w["errors"].items():
                agg["errors"][code] = agg["errors"].get(code, 0) + n
            agg["samples"] += w["latency_ms_sample"]
            if w.get("first_error") and not agg["first_error"]:
                agg["first_error"] = w["first_error"]
    unexpected = 0
    rows = []
    for name, agg in sorted(by_workload.items()):
        expect = workloads[name].get("expect")
        bad = sum(n for code, n in agg["errors"].items() if code != expect)
        unexpected += bad
        s = sorted(agg["samples"])
        rows.append({"workload": name, "steps": agg["steps"],
                     "steps_per_s": agg["steps"] / args.seconds,
                     "p50_ms": percentile(s, 0.50), "p99_ms": percentile(s, 0.99),
                     "p999_ms": percentile(s, 0.999), "errors": agg["errors"],
                     "expected": expect or "-", "unexpected": bad,
                     "first_error": agg["first_error"] if bad else ""})
    warm = [snap for t, snap in sampler.samples if t >= args.warmup_s]
    daemons = []
    if warm:
        first, last = warm[0], warm[-1]
        for name in sorted(first):
            a, b = first[name], last.get(name)
            if a is None or b is None:
                daemons.append({"daemon": name, "gone": True})
                continue
            max_threads = max((snap[name] or {}).get("threads", 0)
                              for _, snap in sampler.samples)
            daemons.append({
                "daemon": name, "rss_warm_mib": a["rss_mib"],
                "rss_end_mib": b["rss_mib"],
                "rss_growth_pct": 100 * (b["rss_mib"] - a["rss_mib"]) / a["rss_mib"],
                "fds_warm": a["fds"], "fds_end": b["fds"],
                "threads_warm": a["threads"], "threads_end": b["threads"],
                "threads_max": max_threads})
    return {"workloads": rows, "daemons": daemons, "unexpected_errors": unexpected,
            "failed_clients": len(failed_clients),
            "total_steps_per_s": sum(r["steps_per_s"] for r in rows)}


def run_cluster(args, kind, workloads, workloads_path, workdir):
    ports = free_ports(4)
    spec = {"ps": [f"127.0.0.1:{ports[0]}"],
            "worker": [f"127.0.0.1:{ports[1]}", f"127.0.0.1:{ports[2]}"]}
    tasks = [("ps", 0, ports[0]), ("worker", 0, ports[1]), ("worker", 1, ports[2])]
    with Cluster(workdir, kind) as c:
        if kind == "tributary":
            spec_path = os.path.join(workdir, "cluster.json")
            with open(spec_path, "w") as f:
                json.dump(spec, f)
            for job, i, _ in tasks:
                c.start(f"{job}{i}", [args.worker, "--cluster", spec_path, "--job",
                                      job, "--task", str(i), "--log-level", "warn"])
            c.start("master", [args.master, "--cluster", spec_path, "--listen",
                               f"127.0.0.1:{ports[3]}", "--log-level", "warn"])
            wait_listening(ports[3], c.procs["master"][0], 60, "tributary-master")
            target = f"grpc://127.0.0.1:{ports[3]}"
        else:
            for job, i, _ in tasks:
                c.start(f"{job}{i}", [args.tf_python,
                                      os.path.join(HERE, "distributed_tf_server.py"),
                                      json.dumps(spec), job, str(i)], env=tf_env())
            target = f"grpc://127.0.0.1:{ports[1]}"
        for job, i, port in tasks:
            wait_listening(port, c.procs[f"{job}{i}"][0], 120, f"{kind} {job}{i}")
        log(f"[soak] {kind}: {args.clients} clients for {args.seconds} s at {target}")
        sampler = Sampler(c.pids(), args.sample_every_s)
        sampler.start()
        procs = start_clients(args, target, workloads_path, workdir, kind)
        results = collect(procs, args.seconds + 300)
        sampler.stop()
        summary = summarize(args, workloads, results, sampler)
        summary["series"] = sampler.samples
        summary["seconds"] = args.seconds
        return summary


def print_summary(kind, s):
    print(f"\n### {kind} ({s['seconds']:.0f} s): {s['total_steps_per_s']:.0f} steps/s in all, "
          f"{s['unexpected_errors']} unexpected errors, "
          f"{s['failed_clients']} client processes failed\n")
    print("| workload | steps | steps/s | p50 ms | p99 ms | p999 ms | errors by code | expected |")
    print("|---|---:|---:|---:|---:|---:|---|---|")
    for r in s["workloads"]:
        errors = ", ".join(f"{c} {n}" for c, n in sorted(r["errors"].items())) or "0"
        print(f"| {r['workload']} | {r['steps']} | {r['steps_per_s']:.1f} | "
              f"{r['p50_ms']:.2f} | {r['p99_ms']:.2f} | {r['p999_ms']:.2f} | "
              f"{errors} | {r['expected']} |")
    for r in s["workloads"]:
        if r["first_error"]:
            print(f"\nfirst unexpected error of {r['workload']}: {r['first_error']}")
    print("\n| daemon | RSS after warm-up MiB | RSS at end MiB | growth | fds | threads (end / max) |")
    print("|---|---:|---:|---:|---|---|")
    for d in s["daemons"]:
        if d.get("gone"):
            print(f"| {d['daemon']} | gone | | | | |")
            continue
        print(f"| {d['daemon']} | {d['rss_warm_mib']:.1f} | {d['rss_end_mib']:.1f} | "
              f"{d['rss_growth_pct']:+.1f}% | {d['fds_warm']} -> {d['fds_end']} | "
              f"{d['threads_end']} / {d['threads_max']} |")


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--seconds", type=float, default=600)
    p.add_argument("--tf-seconds", type=float,
                   help="TensorFlow's run, when it should be shorter (default: --seconds)")
    p.add_argument("--warmup-s", type=float, default=60,
                   help="RSS growth is measured from the first sample after this")
    p.add_argument("--clients", type=int, default=64)
    p.add_argument("--cpp-fraction", type=float, default=0.5)
    p.add_argument("--mix", default="trivial:4,cross_task:2,training:2,churn:1,deadline:1")
    p.add_argument("--sample-every-s", type=float, default=5)
    p.add_argument("--skip-tf", action="store_true")
    p.add_argument("--out", help="all results as JSON")
    p.add_argument("--worker", required=True)
    p.add_argument("--master", required=True)
    p.add_argument("--client", required=True)
    p.add_argument("--tf-python", required=True)
    args = p.parse_args()
    workdir = tempfile.mkdtemp(prefix="tributary-soak-")
    graphs = os.path.join(workdir, "graphs")
    subprocess.run([args.tf_python, os.path.join(HERE, "soak_graphs.py"), graphs],
                   check=True, env=tf_env())
    workloads_path = os.path.join(graphs, "workloads.json")
    with open(workloads_path) as f:
        workloads = json.load(f)
    ctx = machine_context()
    print(f"# Soak: {args.clients} clients ({args.cpp_fraction:.0%} C++, the rest "
          f"TensorFlow's Python client), {args.seconds:.0f} s on Tributary, mix "
          f"{args.mix}; {ctx['cores']} cores, {ctx['model']}, load {ctx['loadavg']}")
    results = {}
    for kind in ["tributary"] + ([] if args.skip_tf else ["tensorflow"]):
        run_args = args
        if kind == "tensorflow" and args.tf_seconds:
            run_args = argparse.Namespace(**{**vars(args), "seconds": args.tf_seconds})
        results[kind] = run_cluster(run_args, kind, workloads, workloads_path, workdir)
        print_summary(kind, results[kind])
    if args.out:
        with open(args.out, "w") as f:
            json.dump(results, f)
    log(f"[soak] logs and client results in {workdir}")
    return 1 if results["tributary"]["unexpected_errors"] else 0


if __name__ == "__main__":
    sys.exit(main())
