"""The distributed benchmark: starts the clusters, runs the measurements and
prints ONE table with, side by side, Tributary, TensorFlow (tf.distribute.Server
tasks from pip, same cluster shape and graphs) and the raw loopback limit.
Then a table of page faults and CPU per step of every process, which is where
big transfers lose their time on these machines.

Run it through distributed_benchmark.sh (it finds the binaries and the
TensorFlow virtualenv); this script itself needs no TensorFlow.

Cluster shape on both sides: {"worker": [task 0, task 1]} on 127.0.0.1 with
ephemeral ports. TensorFlow's client talks to task 0's in-process master;
Tributary's master is its own process (tributary-master) in front of two
tributary-worker processes.
"""

import argparse
import json
import os
import platform
import signal
import socket
import subprocess
import sys
import tempfile
import time

MIB = 1 << 20
HERE = os.path.dirname(os.path.abspath(__file__))


def log(*args):
    print(*args, file=sys.stderr, flush=True)


def free_ports(n):
    """n distinct ports the kernel considers free right now (all bound at
    once so they differ; a small race with other programs remains)."""
    socks = []
    for _ in range(n):
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        socks.append(s)
    ports = [s.getsockname()[1] for s in socks]
    for s in socks:
        s.close()
    return ports


def wait_listening(port, proc, deadline_s, what):
    deadline = time.monotonic() + deadline_s
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"{what} exited with {proc.returncode}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"{what} did not listen on {port} within {deadline_s} s")


def tail(path, lines=20):
    try:
        with open(path, errors="replace") as f:
            return "".join(f.readlines()[-lines:])
    except OSError:
        return ""


class Cluster:
    """Processes started by the benchmark; stop() ends each by its pid:
    SIGTERM (graceful), then SIGKILL after a grace period."""

    def __init__(self, workdir, name):
        self.workdir = workdir
        self.name = name
        self.procs = {}  # name -> (Popen, log path)

    def start(self, name, argv, env=None):
        path = os.path.join(self.workdir, f"{self.name}-{name}.log")
        f = open(path, "w")
        proc = subprocess.Popen(argv, stdout=f, stderr=subprocess.STDOUT,
                                env=env, start_new_session=True)
        f.close()
        self.procs[name] = (proc, path)
        return proc

    def pids(self):
        return {n: p.pid for n, (p, _) in self.procs.items()}

    def logs(self):
        return "\n".join(f"--- {n} ({path}):\n{tail(path)}"
                         for n, (_, path) in self.procs.items())

    def stop(self, grace_s=10):
        for proc, _ in self.procs.values():
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + grace_s
        for proc, _ in self.procs.values():
            try:
                proc.wait(max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()


def run_json(argv, out_path, timeout_s, env=None, what=""):
    """Runs a measuring client that writes JSON to out_path."""
    log(f"[bench] {what}: {' '.join(argv)}")
    started = time.monotonic()
    res = subprocess.run(argv, env=env, timeout=timeout_s,
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         text=True, errors="replace")
    if res.returncode != 0:
        raise RuntimeError(f"{what} failed ({res.returncode}):\n"
                           + res.stdout[-4000:])
    log(f"[bench] {what}: done in {time.monotonic() - started:.1f} s")
    with open(out_path) as f:
        return json.load(f)


def tf_env():
    env = dict(os.environ)
    env.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    return env


def pids_arg(pids):
    return ",".join(f"{n}={p}" for n, p in pids.items())


def run_tensorflow(args, workdir):
    ports = free_ports(2)
    spec = json.dumps({"worker": [f"127.0.0.1:{p}" for p in ports]})
    with Cluster(workdir, "tf") as c:
        try:
            for i in range(2):
                c.start(f"worker{i}", [args.tf_python,
                                       os.path.join(HERE, "distributed_tf_server.py"),
                                       spec, "worker", str(i)], env=tf_env())
            for i, p in enumerate(ports):
                wait_listening(p, c.procs[f"worker{i}"][0], 120,
                               f"TensorFlow worker {i}")
            out = os.path.join(workdir, "tf.json")
            return run_json(
                [args.tf_python, os.path.join(HERE, "distributed_tf_client.py"),
                 "--target", f"grpc://127.0.0.1:{ports[0]}", "--out", out,
                 "--pids", pids_arg(c.pids()), "--sizes-mib", args.sizes_mib,
                 "--fetch-mib", str(args.fetch_mib), "--aa-mib", str(args.aa_mib)],
                out, args.client_timeout, env=tf_env(),
                what="TensorFlow cluster, TensorFlow client")
        except Exception:
            log(c.logs())
            raise


def run_tributary(args, workdir):
    """Returns {"cpp": results, "tf_client": results} (either may be an
    error string)."""
    ports = free_ports(3)
    spec_path = os.path.join(workdir, "cluster.json")
    with open(spec_path, "w") as f:
        json.dump({"worker": [f"127.0.0.1:{p}" for p in ports[:2]]}, f)
    master = f"127.0.0.1:{ports[2]}"
    results = {}
    env = dict(os.environ)
    if args.malloc_env:
        for kv in args.malloc_env.split(","):
            k, v = kv.split("=")
            env[k] = v
    with Cluster(workdir, "trib") as c:
        try:
            for i in range(2):
                c.start(f"worker{i}", [args.worker, "--cluster", spec_path,
                                       "--job", "worker", "--task", str(i),
                                       "--log-level", "warn"], env=env)
            c.start("master", [args.master, "--cluster", spec_path, "--listen",
                               master, "--log-level", "warn"], env=env)
            for i in range(2):
                wait_listening(ports[i], c.procs[f"worker{i}"][0], 60,
                               f"tributary-worker {i}")
            wait_listening(ports[2], c.procs["master"][0], 60, "tributary-master")
            common = ["--target", f"grpc://{master}", "--pids",
                      pids_arg(c.pids()), "--sizes-mib", args.sizes_mib,
                      "--fetch-mib", str(args.fetch_mib), "--aa-mib",
                      str(args.aa_mib)]
            out = os.path.join(workdir, "trib_cpp.json")
            try:
                results["cpp"] = run_json(
                    [args.client] + common + ["--out", out], out,
                    args.client_timeout, what="Tributary cluster, C++ client")
            except Exception as e:  # Report it in the table, keep going.
                log(f"[bench] {e}\n{c.logs()}")
                results["cpp"] = f"failed: {str(e).splitlines()[0]}"
            if args.tf_python and not args.skip_tf:
                out = os.path.join(workdir, "trib_tf.json")
                try:
                    results["tf_client"] = run_json(
                        [args.tf_python,
                         os.path.join(HERE, "distributed_tf_client.py")]
                        + common + ["--out", out], out, args.client_timeout,
                        env=tf_env(),
                        what="Tributary cluster, TensorFlow client")
                except Exception as e:
                    log(f"[bench] {e}\n{c.logs()}")
                    results["tf_client"] = f"failed: {str(e).splitlines()[0]}"
        except Exception:
            log(c.logs())
            raise
    return results


# ---- The table ----------------------------------------------------------------


def read_first_line(path):
    try:
        with open(path) as f:
            return f.readline().strip()
    except OSError:
        return "n/a"


def machine_context():
    model = "unknown"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    mem_gib = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / (1 << 30)
    return {
        "cores": os.cpu_count(),
        "model": model,
        "mem_gib": round(mem_gib, 1),
        "kernel": platform.release(),
        "thp_enabled": read_first_line(
            "/sys/kernel/mm/transparent_hugepage/enabled"),
        "thp_defrag": read_first_line("/sys/kernel/mm/transparent_hugepage/defrag"),
        "loadavg": read_first_line("/proc/loadavg"),
    }


def us(s):
    return f"{s * 1e6:.0f}"


def gbps(nbytes, seconds):
    return nbytes / seconds / 1e9


def measurement(r, key):
    """r["recv"]["16MiB"] for key ("recv", "16MiB"), r["fetch"] for "fetch"."""
    return r[key[0]][key[1]] if isinstance(key, tuple) else r[key]


def cell_latency(r):
    if not isinstance(r, dict):
        return r or "n/a"
    lat = r["latency"]
    return f"{us(lat['p50_s'])} / {us(lat['p99_s'])} us"


def cell_step(r, key):
    if not isinstance(r, dict):
        return r or "n/a"
    return f"{measurement(r, key)['p50_s'] * 1e6:.0f} us"


def cell_rate(r, key, nbytes, unit="GB/s"):
    """Throughput from the median step, with the step time."""
    if not isinstance(r, dict):
        return r or "n/a"
    m = measurement(r, key)
    rate = gbps(nbytes, m["p50_s"])
    if unit == "MB/s":
        return f"{rate * 1e3:.0f} MB/s ({m['p50_s'] * 1e3:.1f} ms)"
    return f"{rate:.2f} GB/s ({m['p50_s'] * 1e3:.1f} ms)"


def print_table(args, ctx, raw, tf, trib):
    cpp = trib.get("cpp", "n/a")
    tfc = trib.get("tf_client", "n/a")
    sizes = [int(s) for s in args.sizes_mib.split(",")]
    tcp = {row["mib"]: row for row in raw["tcp"]["transfer"]}
    grpc_x = {row["mib"]: row for row in raw["grpc"]["transfer"]}
    mem = raw["memory"]

    print(f"Machine: {ctx['cores']} cores ({ctx['model']}), {ctx['mem_gib']} GiB, "
          f"Linux {ctx['kernel']}, load average at start {ctx['loadavg']}")
    print(f"THP enabled: {ctx['thp_enabled']}; defrag: {ctx['thp_defrag']}")
    print(f"Memory: first touch of a fresh 4 KiB page {mem['fresh_4k_page_us']:.2f} us "
          f"({mem['fresh_4k_touch_gbps']:.2f} GB/s), of fresh 2 MiB pages "
          f"{mem['fresh_2m_touch_gbps']:.2f} GB/s; memcpy {mem['memcpy_gbps']:.1f} GB/s")
    print()
    hdr = ["measure", "Tributary, C++ client", "Tributary, TF Python client",
           "TensorFlow 2.21, TF Python client", "raw TCP", "raw gRPC",
           "ours (C++) vs raw: target"]
    rows = []
    g, gc, t = raw["grpc"]["rtt_us"], raw["grpc"]["callback_rtt_us"], raw["tcp"]["rtt_us"]
    relay = raw["grpc"].get("relay_rtt_us")
    verdict = "n/a"
    if isinstance(cpp, dict):
        ratio = cpp["latency"]["p50_s"] * 1e6 / g["p50"]
        verdict = f"{ratio:.1f}x gRPC p50: {'met' if ratio <= 3 else 'NOT met'} (<= 3x)"
        if relay:
            verdict += (f"; {cpp['latency']['p50_s'] * 1e6 / relay['p50']:.1f}x "
                        "the raw two-hop p50")
    rows.append(["RunStep p50 / p99, trivial fetch (client -> master -> worker 0)",
                 cell_latency(cpp), cell_latency(tfc), cell_latency(tf),
                 f"ping-pong {t['p50']:.0f} / {t['p99']:.0f} us",
                 f"unary {g['p50']:.0f} / {g['p99']:.0f} us, server "
                 f"{g['server_switches']:.1f} switches/call (callback API "
                 f"{gc['p50']:.0f} / {gc['p99']:.0f} us, "
                 f"{gc['server_switches']:.1f})"
                 + (f"; two hops through a relay server {relay['p50']:.0f} / "
                    f"{relay['p99']:.0f} us" if relay else ""), verdict])
    rows.append(["cross-task step of a 4-byte tensor (fixed cost per step), p50",
                 cell_step(cpp, ("recv", "4B")), cell_step(tfc, ("recv", "4B")),
                 cell_step(tf, ("recv", "4B")), "", "", ""])

    def transfer_row(label, key, mib):
        nbytes = mib * MIB
        tr, gr = tcp.get(mib), grpc_x.get(mib)
        raw_tcp = raw_grpc = verdict = "n/a"
        if tr:
            raw_tcp = (f"{tr['reuse_gbps']:.2f} GB/s (fresh buffer "
                       f"{tr['fresh_gbps']:.2f})")
        if gr:
            raw_grpc = (f"{gr['daemon_malloc']['gbps']:.2f} GB/s (default malloc "
                        f"{gr['default_malloc']['gbps']:.2f})")
        if tr and isinstance(cpp, dict):
            share = gbps(nbytes, measurement(cpp, key)["p50_s"]) / tr["reuse_gbps"]
            verdict = (f"{100 * share:.0f}% of TCP: "
                       f"{'met' if share >= 0.5 else 'NOT met'} (>= 50%)")
        rows.append([label, cell_rate(cpp, key, nbytes), cell_rate(tfc, key, nbytes),
                     cell_rate(tf, key, nbytes), raw_tcp, raw_grpc, verdict])

    for mib in sizes:
        transfer_row(f"RecvTensor task 1 -> task 0, {mib} MiB float32",
                     ("recv", f"{mib}MiB"), mib)

    # The RecvTensor call alone, as the receiving worker timed it in a
    # FULL_TRACE step (request sent -> tensor decoded): the transfer without
    # the step's fixed cost; and its part after the sender had the value (the
    # sender's send_start_micros -> decoded): the transfer without the wait
    # for the producer. Only Tributary's workers record them.
    def traced_row(label, field, mib):
        nbytes = mib * MIB
        tr = tcp.get(mib)
        cell = verdict = "n/a"
        seconds = None
        if isinstance(cpp, dict):
            seconds = measurement(cpp, ("recv", f"{mib}MiB")).get(field)
        if seconds is not None and seconds > 0:
            rate = gbps(nbytes, seconds)
            cell = f"{rate:.2f} GB/s ({seconds * 1e3:.2f} ms)"
            if tr:
                share = rate / tr["reuse_gbps"]
                verdict = (f"{100 * share:.0f}% of TCP: "
                           f"{'met' if share >= 0.5 else 'NOT met'} (>= 50%)")
        rows.append([label, cell, "", "not measured", "", "", verdict])

    for mib in sizes:
        traced_row(f"RecvTensor call alone (receiver's trace), {mib} MiB",
                   "call_p50_s", mib)
    for mib in sizes:
        traced_row(f"RecvTensor transfer (sender had the value -> decoded), "
                   f"{mib} MiB", "transfer_p50_s", mib)
    transfer_row(f"client fetch of a {args.fetch_mib} MiB variable on task 0 "
                 "through the master", "fetch", args.fetch_mib)
    nbytes = args.aa_mib * MIB
    rows.append([f"#4498 tensor rate: assign_add of a {args.aa_mib} MiB vector "
                 "from task 1 into a variable on task 0",
                 cell_rate(cpp, "assign_add", nbytes, "MB/s"),
                 cell_rate(tfc, "assign_add", nbytes, "MB/s"),
                 cell_rate(tf, "assign_add", nbytes, "MB/s"), "", "", ""])
    print_markdown(hdr, rows)
    print()
    print("Rates: bytes / median step time (1 GB = 1e9 B, 1 MB = 1e6 B), step time "
          "in parentheses; a step includes the fixed cost of the 4-byte row (the "
          "compute, a 1-element Slice, is negligible). Raw TCP: one stream from a "
          "reused buffer into a reused one (fresh: into a newly mapped one). Raw "
          "gRPC: one unary ByteBuffer call, receiver with the daemons' malloc "
          "settings (default: glibc's). 'RecvTensor call alone': the median "
          "duration of the RecvTensor call in 21 extra FULL_TRACE steps, as the "
          "receiving worker timed it (request sent -> tensor decoded into its "
          "buffer). 'RecvTensor transfer': the same calls from the moment the "
          "sending worker had the value (its send_start_micros; one clock on "
          "loopback) to decoded, i.e. without the wait for the producer.")
    print()
    print_faults(args, {"Tributary, C++ client": cpp,
                        "Tributary, TF client": tfc, "TensorFlow": tf}, raw)


def print_faults(args, systems, raw):
    """Per-step minor page faults and CPU of each process: a fault per 4 KiB
    of the transfer means a fresh buffer was faulted in for it."""
    hdr = ["system", "step", "4 KiB pages moved"]
    names = ["worker1", "worker0", "master", "client"]
    hdr += [f"{n}: faults / CPU ms / switches" for n in names]
    rows = []
    sizes = [int(s) for s in args.sizes_mib.split(",")]
    tests = [("trivial fetch", "latency", 0), ("recv 4 B", ("recv", "4B"), 4)]
    tests += [(f"recv {m} MiB", ("recv", f"{m}MiB"), m * MIB) for m in sizes]
    tests.append((f"fetch {args.fetch_mib} MiB", "fetch", args.fetch_mib * MIB))
    tests.append((f"assign_add {args.aa_mib} MiB", "assign_add", args.aa_mib * MIB))
    for sysname, r in systems.items():
        if not isinstance(r, dict):
            continue
        for label, key, nbytes in tests:
            m = measurement(r, key)
            row = [sysname, label, f"{nbytes // 4096}"]
            for n in names:
                p = m["procs"].get(n)
                row.append(f"{p['minflt_per_step']:.0f} / {p['cpu_ms_per_step']:.1f}"
                           f" / {p.get('ctxsw_per_step', 0):.0f}" if p else "-")
            rows.append(row)
    for row in raw["grpc"]["transfer"]:
        for mode in ("default_malloc", "daemon_malloc"):
            rows.append([f"raw gRPC ({mode.replace('_', ' ')})",
                         f"{row['mib']} MiB", f"{row['mib'] * MIB // 4096}", "-",
                         f"{row[mode]['receiver_faults']:.0f} / - / -", "-", "-"])
    print("Per step: minor page faults / CPU ms / context switches of each process "
          "(worker1 sends, worker0 receives; TensorFlow's master is inside worker0; "
          "for raw gRPC the receiving server is in the worker0 column):")
    print()
    print_markdown(hdr, rows)


def print_markdown(hdr, rows):
    print("| " + " | ".join(hdr) + " |")
    print("|" + "---|" * len(hdr))
    for row in rows:
        print("| " + " | ".join(str(c) for c in row) + " |")


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--raw", required=True, help="distributed_raw_baselines")
    parser.add_argument("--client", required=True,
                        help="distributed_client_benchmark (C++ client)")
    parser.add_argument("--worker", required=True, help="tributary-worker")
    parser.add_argument("--master", required=True, help="tributary-master")
    parser.add_argument("--tf-python", default="",
                        help="python with tensorflow; empty: no TensorFlow columns")
    parser.add_argument("--skip-tf", action="store_true")
    parser.add_argument("--skip-tributary", action="store_true")
    parser.add_argument("--sizes-mib", default="1,16,64,256")
    parser.add_argument("--fetch-mib", type=int, default=128)
    parser.add_argument("--aa-mib", type=int, default=10)
    parser.add_argument("--client-timeout", type=int, default=300)
    parser.add_argument("--malloc-env", default="",
                        help="K=V,... extra environment for Tributary's daemons "
                             "(e.g. MALLOC_MMAP_THRESHOLD_=...) to try allocator "
                             "settings")
    parser.add_argument("--json-out", default="", help="also save all results")
    args = parser.parse_args()

    started = time.monotonic()
    ctx = machine_context()
    sizes = sorted({int(s) for s in args.sizes_mib.split(",")} | {args.fetch_mib})
    with tempfile.TemporaryDirectory(prefix="trib-dist-bench-") as workdir:
        log("[bench] raw loopback limits")
        raw = json.loads(subprocess.run(
            [args.raw, "--sizes-mib", ",".join(map(str, sizes))], check=True,
            stdout=subprocess.PIPE, text=True, timeout=args.client_timeout).stdout)
        tf = "n/a (no TensorFlow)"
        if args.tf_python and not args.skip_tf:
            try:
                tf = run_tensorflow(args, workdir)
            except Exception as e:
                log(f"[bench] TensorFlow side failed: {e}")
                tf = f"failed: {str(e).splitlines()[0]}"
        trib = {}
        if not args.skip_tributary:
            try:
                trib = run_tributary(args, workdir)
            except Exception as e:
                log(f"[bench] Tributary side failed: {e}")
                trib = {"cpp": f"failed: {str(e).splitlines()[0]}"}
    if args.json_out:
        with open(args.json_out, "w") as f:
            json.dump({"context": ctx, "raw": raw, "tensorflow": tf,
                       "tributary": trib}, f, indent=1)
    print_table(args, ctx, raw, tf, trib)
    log(f"[bench] measured in {time.monotonic() - started:.0f} s")


if __name__ == "__main__":
    main()
