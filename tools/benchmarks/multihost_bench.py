"""Multi-host benchmark (issue 14, docs/benchmarks.md "Multi-host (network
namespaces)"): the distributed benchmark's client program
(distributed_client_benchmark) against a cluster {"worker": [task 0, task 1]}
plus a tributary-master, run twice in the same invocation:

  * bridge:   each task, the master and the client on its own host of
              tests/multihost/netns_hosts.py (a network namespace whose veth
              link to the bridge is shaped by tc tbf to --rate, 10 Gbit/s by
              default), so every call crosses two shaped links;
  * loopback: every daemon and the client on 127.0.0.1 inside one namespace
              (no shaping), the baseline.

Measured: a trivial RunStep (a Const fetched from task 0: client -> master ->
task 0 and back) p50/p99; a --size-mib float tensor produced on task 1 and
consumed on task 0 (one RecvTensor between worker hosts per step), as the
step's p50 and the RecvTensor call's own p50 from the receiving worker's
FULL_TRACE, both turned into Gbit/s; and one TCP stream between two hosts
(Python sendall of 1 MiB buffers) as the raw limit of the link. Prints a
markdown table.

Needs root (namespaces) and the binaries built:
  bazel build --jobs=2 //worker:tributary-worker //master:tributary-master \\
      //tools/benchmarks:distributed_client_benchmark
  python3 tools/benchmarks/multihost_bench.py [--rate 10gbit] [--size-mib 64]
"""

import argparse
import json
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests", "multihost"))

import netns_hosts  # noqa: E402
from host_cluster import Binaries, HostCluster  # noqa: E402

JOBS = {"worker": ["worker0", "worker1"]}
MIB = 1 << 20

# One TCP stream, receiver on the second host; prints Gbit/s.
TCP_SINK = """
import socket
s = socket.socket(); s.bind(("0.0.0.0", 7100)); s.listen(); c, _ = s.accept()
while c.recv(1 << 20):
    pass
"""
TCP_SOURCE = """
import socket, sys, time
total = int(sys.argv[2]) << 20
for _ in range(100):
    try:
        s = socket.create_connection((sys.argv[1], 7100)); break
    except OSError:
        time.sleep(0.05)
buf = b"x" * (1 << 20); t = time.monotonic()
for _ in range(total >> 20):
    s.sendall(buf)
s.shutdown(socket.SHUT_WR); s.recv(1)
print(total * 8 / (time.monotonic() - t) / 1e9)
"""


def log(*args):
    print(*args, file=sys.stderr, flush=True)


def run_client(cluster, bench, args, workdir, name):
    out = os.path.join(workdir, name + ".json")
    proc = cluster.client(
        [bench, "--target", cluster.target, "--out", out, "--tests", "latency,recv",
         "--sizes-mib", str(args.size_mib), "--latency-steps", str(args.latency_steps)],
        timeout=600)
    if proc.returncode != 0:
        raise RuntimeError("%s: client failed: %s\n%s" % (name, proc.stderr, cluster.logs()))
    with open(out) as f:
        return json.load(f)


def tcp_gbits(src, dst, ip, mib):
    sink = dst.popen([sys.executable, "-c", TCP_SINK])
    try:
        proc = src.run([sys.executable, "-c", TCP_SOURCE, ip, str(mib)], timeout=300)
        if proc.returncode != 0:
            raise RuntimeError("tcp source: " + proc.stderr)
        return float(proc.stdout)
    finally:
        sink.kill()
        sink.wait(timeout=10)


def measure(layout, binaries, bench, args, workdir):
    """One cluster in the given layout; returns the client's JSON plus "tcp"."""
    sub = os.path.join(workdir, layout)
    os.makedirs(sub)
    if layout == "bridge":
        hosts, rate = ["worker0", "worker1", "master", "client"], args.rate
    else:
        hosts, rate = ["lo"], None
    with netns_hosts.Network(hosts, rate=rate) as net:
        if layout == "bridge":
            cluster = HostCluster(net, binaries, sub, jobs=JOBS, master="master")
            w0, w1 = net.host("worker0"), net.host("worker1")
            tcp = tcp_gbits(w1, w0, w0.ip, args.tcp_mib)
        else:
            lo = net.host("lo")
            cluster = HostCluster(net, binaries, sub, jobs={"worker": ["lo", "lo"]},
                                  master="lo", loopback=True)
            tcp = tcp_gbits(lo, lo, "127.0.0.1", args.tcp_mib)
        log("%s: raw TCP %.2f Gbit/s; starting the cluster" % (layout, tcp))
        cluster.start()
        result = run_client(cluster, bench, args, workdir, layout)
        cluster.stop()
    result["tcp"] = tcp
    return result


def gbits(nbytes, seconds):
    """Gbit/s, or NaN (printed "nan") when there was no time: the trace had no
    RecvTensor (call_p50_s is -1)."""
    return nbytes * 8 / seconds / 1e9 if seconds and seconds > 0 else float("nan")


def table(results, args):
    size = args.size_mib * MIB
    tag = "%dMiB" % args.size_mib
    layouts = ["bridge", "loopback"]
    rows = [
        ("trivial RunStep p50 (us)",
         lambda r: "%.0f" % (r["latency"]["p50_s"] * 1e6)),
        ("trivial RunStep p99 (us)",
         lambda r: "%.0f" % (r["latency"]["p99_s"] * 1e6)),
        ("%d MiB task 1 -> task 0, step p50 (ms)" % args.size_mib,
         lambda r: "%.1f" % (r["recv"][tag]["p50_s"] * 1e3)),
        ("  as Gbit/s (whole step)",
         lambda r: "%.2f" % gbits(size, r["recv"][tag]["p50_s"])),
        ("  RecvTensor call p50 (ms)",
         lambda r: "%.1f" % (r["recv"][tag]["call_p50_s"] * 1e3)),
        ("  as Gbit/s (RecvTensor call)",
         lambda r: "%.2f" % gbits(size, r["recv"][tag]["call_p50_s"])),
        ("raw TCP, one stream (Gbit/s)", lambda r: "%.2f" % r["tcp"]),
    ]
    head = "| measurement | bridge, tbf %s per link | loopback |" % args.rate
    lines = [head, "|---|---:|---:|"]
    for label, cell in rows:
        lines.append("| %s | %s |" % (label, " | ".join(cell(results[l]) for l in layouts)))
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bin", default=os.path.join(ROOT, "bazel-bin"),
                        help="bazel-bin folder with the daemons and the client")
    parser.add_argument("--rate", default="10gbit", help="tc tbf rate of each link")
    parser.add_argument("--size-mib", type=int, default=64)
    parser.add_argument("--latency-steps", type=int, default=2000)
    parser.add_argument("--tcp-mib", type=int, default=2048)
    parser.add_argument("--json", help="also write the raw results here")
    args = parser.parse_args()

    reason = netns_hosts.unavailable_reason()
    if reason:
        sys.exit("multihost_bench: " + reason)
    binaries = Binaries(args.bin)
    bench = os.path.join(os.path.abspath(args.bin),
                         "tools/benchmarks/distributed_client_benchmark")
    missing = binaries.missing() + ([] if os.access(bench, os.X_OK) else [bench])
    if missing:
        sys.exit("multihost_bench: build these first: %s" % missing)
    with tempfile.TemporaryDirectory(prefix="multihost-bench-") as workdir:
        results = {layout: measure(layout, binaries, bench, args, workdir)
                   for layout in ("bridge", "loopback")}
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)
    print(table(results, args))


if __name__ == "__main__":
    main()
