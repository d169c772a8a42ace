"""What mutual TLS costs Tributary: the same cluster (two tributary-worker
tasks and a tributary-master on 127.0.0.1) measured in plaintext and with
--tls-cert/--tls-key/--tls-ca on every daemon and the client, one after the
other in the same run, with the distributed benchmark's C++ client
(distributed_client_benchmark: the trivial step and RecvTensor of a
task-1 variable read on task 0). Prints one table.

  tools/benchmarks/tls_benchmark.sh [--sizes-mib 64] [--rounds 5]

The PKI (a CA and one certificate for 127.0.0.1 with server and client use)
is made with the `openssl` command in a temporary directory.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from distributed_benchmark import (Cluster, free_ports, log,  # noqa: E402
                                   machine_context, run_json, wait_listening)

MIB = 1 << 20


def make_pki(directory):
    def openssl(*args):
        subprocess.run(["openssl", *args], cwd=directory, check=True,
                       capture_output=True, timeout=60)
    openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256",
            "-nodes", "-keyout", "ca.key", "-out", "ca.crt", "-subj", "/CN=bench CA",
            "-days", "1")
    with open(os.path.join(directory, "ext.cnf"), "w") as f:
        f.write("subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth,clientAuth\n")
    openssl("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
            "-keyout", "task.key", "-out", "task.csr", "-subj", "/CN=task")
    openssl("x509", "-req", "-in", "task.csr", "-CA", "ca.crt", "-CAkey", "ca.key",
            "-CAcreateserial", "-out", "task.crt", "-days", "1", "-extfile", "ext.cnf")
    return ["--tls-cert", os.path.join(directory, "task.crt"),
            "--tls-key", os.path.join(directory, "task.key"),
            "--tls-ca", os.path.join(directory, "ca.crt")]


def measure(args, workdir, name, tls_flags):
    ports = free_ports(3)
    spec_path = os.path.join(workdir, f"{name}-cluster.json")
    with open(spec_path, "w") as f:
        json.dump({"worker": [f"127.0.0.1:{p}" for p in ports[:2]]}, f)
    master = f"127.0.0.1:{ports[2]}"
    with Cluster(workdir, name) as c:
        for i in range(2):
            c.start(f"worker{i}", [args.worker, "--cluster", spec_path, "--job", "worker",
                                   "--task", str(i), "--log-level", "warn", *tls_flags])
        c.start("master", [args.master, "--cluster", spec_path, "--listen", master,
                           "--log-level", "warn", *tls_flags])
        for i in range(2):
            wait_listening(ports[i], c.procs[f"worker{i}"][0], 60, f"worker {i}")
        wait_listening(ports[2], c.procs["master"][0], 60, "master")
        out = os.path.join(workdir, f"{name}.json")
        # The client also reports each task's CPU time per step (from /proc), which
        # splits a RecvTensor step's cost into the sender's (task 1) and the
        # receiver's (task 0).
        pids = ",".join(f"{task}={c.procs[task][0].pid}" for task in ("worker0", "worker1"))
        return run_json([args.client, "--target", f"grpc://{master}", "--out", out,
                         "--tests", "latency,recv", "--sizes-mib", args.sizes_mib,
                         "--pids", pids, *tls_flags], out, 600, what=f"{name} cluster")


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--client", required=True, help="distributed_client_benchmark")
    parser.add_argument("--worker", required=True, help="tributary-worker")
    parser.add_argument("--master", required=True, help="tributary-master")
    parser.add_argument("--sizes-mib", default="64")
    parser.add_argument("--rounds", type=int, default=5,
                        help="plaintext/TLS pairs, alternating (the median of each is shown)")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes_mib.split(",")]

    with tempfile.TemporaryDirectory(prefix="tls-bench-") as workdir:
        tls_flags = make_pki(workdir)
        runs = {"plaintext": [], "mutual TLS": []}
        for r in range(args.rounds):
            runs["plaintext"].append(measure(args, workdir, f"plain{r}", []))
            runs["mutual TLS"].append(measure(args, workdir, f"tls{r}", tls_flags))

    # The median over rounds, not the best: on a shared 2-core machine one lucky
    # plaintext round would otherwise set the ratio.
    def median(name, pick):
        return statistics.median(pick(r) for r in runs[name])

    ctx = machine_context()
    print(f"\nMutual TLS vs plaintext, Tributary on 127.0.0.1 ({ctx['cores']} cores, "
          f"{ctx['model']}, load {ctx['loadavg']}); "
          f"median of {args.rounds} run(s) each, alternating\n")
    rows = [("trivial step p50", lambda r: r["latency"]["p50_s"], "us"),
            ("trivial step p99", lambda r: r["latency"]["p99_s"], "us")]
    for mib in sizes:
        rows.append((f"RecvTensor {mib} MiB (step p50)",
                     lambda r, m=mib: r["recv"][f"{m}MiB"]["p50_s"], f"GB/s:{mib}"))
        for task, role in (("worker1", "sender, task 1"), ("worker0", "receiver, task 0")):
            rows.append((f"RecvTensor {mib} MiB, CPU per step ({role})",
                         lambda r, m=mib, t=task:
                         r["recv"][f"{m}MiB"]["procs"][t]["cpu_ms_per_step"] / 1e3, "ms"))
    print("| measure | plaintext | mutual TLS | TLS / plaintext |")
    print("|---|---|---|---|")
    for label, pick, unit in rows:
        plain, tls = median("plaintext", pick), median("mutual TLS", pick)
        if unit == "us":
            print(f"| {label} | {plain * 1e6:.0f} us | {tls * 1e6:.0f} us | "
                  f"{tls / plain:.2f}x time |")
        elif unit == "ms":
            print(f"| {label} | {plain * 1e3:.1f} ms | {tls * 1e3:.1f} ms | "
                  f"{tls / plain:.2f}x CPU |")
        else:
            nbytes = int(unit.split(":")[1]) * MIB
            print(f"| {label} | {nbytes / plain / 1e9:.2f} GB/s | "
                  f"{nbytes / tls / 1e9:.2f} GB/s | {plain / tls * 100:.0f}% throughput |")


if __name__ == "__main__":
    main()
