"""What metrics cost a step (issue 15: "step latency unchanged within noise,
<= 3%"): the same Tributary cluster ({"worker": [task 0, task 1]} and a master)
run with recording off (TRIBUTARY_METRICS=off, no --metrics-listen: "off"), with
--metrics-listen ("on": every call recorded, the HTTP port open) and
with it while a scraper reads every daemon's /metrics each second ("scraped":
Prometheus at a 1 s interval, harsher than its usual 10-60 s); the distributed
benchmark's C++ client measures trivial steps and a 4-byte and a 1 MiB
RecvTensor step against each. The configurations take turns in every round,
in a rotating order, so drift hits all. Prints one table (medians over the
rounds).

  tools/benchmarks/metrics_benchmark.sh [--rounds 6] [--latency-steps 3000]
"""
import argparse
import json
import os
import re
import sys
import tempfile
import threading
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from distributed_benchmark import (Cluster, free_ports, run_json,  # noqa: E402
                                   wait_listening)


def metrics_urls(cluster, deadline_s=30):
    """The "metrics on http://..." address each daemon logged."""
    urls = []
    for name, (_, path) in cluster.procs.items():
        deadline = time.monotonic() + deadline_s
        while True:
            with open(path, errors="replace") as f:
                m = re.search(r"metrics on (http://\S+)", f.read())
            if m:
                urls.append(m.group(1))
                break
            if time.monotonic() > deadline:
                raise RuntimeError(f"{name} logged no metrics address")
            time.sleep(0.05)
    return urls


class Scraper(threading.Thread):
    def __init__(self, urls):
        super().__init__(daemon=True)
        self.urls, self.stop, self.scrapes, self.bytes = urls, threading.Event(), 0, 0

    def run(self):
        while not self.stop.wait(1.0):
            for url in self.urls:
                with urllib.request.urlopen(url, timeout=5) as r:
                    self.bytes += len(r.read())
                    self.scrapes += 1


def one_round(args, workdir, config):
    metrics_on, scraped = config != "off", config == "scraped"
    ports = free_ports(3)
    spec = os.path.join(workdir, "cluster.json")
    with open(spec, "w") as f:
        json.dump({"worker": [f"127.0.0.1:{p}" for p in ports[:2]]}, f)
    extra = ["--metrics-listen", "127.0.0.1:0"] if metrics_on else []
    env = dict(os.environ, TRIBUTARY_METRICS="on" if metrics_on else "off")
    with Cluster(workdir, config) as c:
        for i in range(2):
            c.start(f"worker{i}", [args.worker, "--cluster", spec, "--job", "worker",
                                   "--task", str(i), "--log-level", "info"] + extra,
                    env=env)
        c.start("master", [args.master, "--cluster", spec, "--listen",
                           f"127.0.0.1:{ports[2]}", "--log-level", "info"] + extra,
                env=env)
        for i, name in enumerate(["worker0", "worker1", "master"]):
            wait_listening(ports[i], c.procs[name][0], 60, name)
        urls = metrics_urls(c) if metrics_on else []
        scraper = Scraper(urls) if scraped else None
        if scraper:
            scraper.start()
        out = os.path.join(workdir, "client.json")
        result = run_json([args.client, "--target", f"grpc://127.0.0.1:{ports[2]}",
                           "--tests", "latency,recv", "--sizes-mib", "1",
                           "--latency-steps", str(args.latency_steps), "--out", out],
                          out, 600, what="C++ client")
        if scraper:
            scraper.stop.set()
            scraper.join()
            result["scrapes"] = scraper.scrapes
            result["scrape_bytes"] = scraper.bytes / max(1, scraper.scrapes)
        return result


def median(values):
    values = sorted(values)
    return values[len(values) // 2]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--worker", required=True)
    parser.add_argument("--master", required=True)
    parser.add_argument("--client", required=True, help="distributed_client_benchmark")
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--latency-steps", type=int, default=3000)
    args = parser.parse_args()
    configs = ["off", "on", "scraped"]
    rows = {c: [] for c in configs}
    with tempfile.TemporaryDirectory() as workdir:
        for r in range(args.rounds):
            for key in configs[r % 3:] + configs[:r % 3]:
                rows[key].append(one_round(args, workdir, key))
                print(f"[bench] round {r + 1}/{args.rounds} metrics {key} done",
                      file=sys.stderr, flush=True)
    measures = [("trivial step p50", lambda x: x["latency"]["p50_s"]),
                ("trivial step p99", lambda x: x["latency"]["p99_s"]),
                ("RecvTensor 4 B step p50", lambda x: x["recv"]["4B"]["p50_s"]),
                ("RecvTensor 1 MiB step p50", lambda x: x["recv"]["1MiB"]["p50_s"])]
    print(f"| measure (median of {args.rounds} rounds) | metrics off | on | change "
          "| on, scraped every 1 s | change |")
    print("|---|---|---|---|---|---|")
    for name, get in measures:
        off, on, scraped = (median([get(x) for x in rows[c]]) for c in configs)
        print(f"| {name} | {off * 1e6:.1f} us | {on * 1e6:.1f} us | "
              f"{(on / off - 1) * 100:+.1f}% | {scraped * 1e6:.1f} us | "
              f"{(scraped / off - 1) * 100:+.1f}% |")
    spreads = [(max(v) / min(v) - 1) * 100 for v in
               ([x["latency"]["p50_s"] for x in rows[c]] for c in configs)]
    print(f"\nRound-to-round spread of the trivial step p50 (max/min - 1): "
          + ", ".join(f"{c} {s:.1f}%" for c, s in zip(configs, spreads)))
    scrapes = sum(x["scrapes"] for x in rows["scraped"])
    size = median([x["scrape_bytes"] for x in rows["scraped"]])
    print(f"{scrapes} scrapes during the 'scraped' rounds, {size / 1024:.1f} KiB each "
          "(median)")


if __name__ == "__main__":
    main()
