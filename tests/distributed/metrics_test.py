"""A cluster of real daemons with --metrics-listen, checked with the real tools:
every /metrics passes `promtool check metrics`; after known steps (through the
`tributary` CLI) the counters say what happened (steps by outcome, RunGraphs,
RecvTensor bytes per sending task, RPCs by method and code); a real Prometheus
server scrapes the cluster and answers queries over its HTTP API; and every
metric the Grafana dashboard (deploy/grafana) queries is one the daemons export.
Without Debian's prometheus package (promtool, prometheus) the checks are skipped,
never passed.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import unittest
import urllib.parse
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "interop"))
import daemon_process  # noqa: E402

MASTER = os.path.join("master", "tributary-master")
WORKER = os.path.join("worker", "tributary-worker")
CLI = os.path.join("tools", "tributary")
DASHBOARD = os.path.join("deploy", "grafana", "tributary-dashboard.json")

# 1000 floats on the ps, added on the worker: 4000 bytes cross per step.
GRAPH = daemon_process.cross_task_graph(1000)


def http_get(url, timeout=10):
    with urllib.request.urlopen(url, timeout=timeout) as response:
        return response.status, response.headers, response.read().decode()


def samples(text):
    """{(name, frozenset(labels)): value} of an exposition."""
    out = {}
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        m = re.match(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+)$', line)
        assert m, "not a sample line: %r" % line
        labels = frozenset(re.findall(r'(\w+)="((?:[^"\\]|\\.)*)"', m.group(3) or ""))
        out[(m.group(1), labels)] = float(m.group(4))
    return out


def value(scraped, name, **labels):
    return scraped.get((name, frozenset(labels.items())))


class MetricsTest(daemon_process.ClusterSpecTestCase):

    @classmethod
    def setUpClass(cls):
        cls.promtool = shutil.which("promtool")
        cls.prometheus = shutil.which("prometheus")
        if cls.promtool is None or cls.prometheus is None:
            raise unittest.SkipTest("Debian's prometheus package (promtool, prometheus) "
                                    "is not installed (tools/setup.sh --tests)")

    def start(self, binary, args):
        daemon = daemon_process.Daemon(binary, args + ["--metrics-listen", "127.0.0.1:0"])
        self.addCleanup(daemon.kill)
        deadline = time.monotonic() + 30
        while b"metrics on http://" not in daemon.output:
            self.assertTrue(daemon._read(deadline), daemon.output.decode())
        daemon.metrics = re.search(rb"metrics on (http://\S+/metrics)",
                                   daemon.output).group(1).decode()
        return daemon

    def start_cluster(self):
        worker_port, ps_port = daemon_process.free_ports(2)
        spec = self.spec({"worker": ["127.0.0.1:%d" % worker_port],
                          "ps": ["127.0.0.1:%d" % ps_port]})
        worker = self.start(WORKER, ["--cluster", spec, "--job", "worker", "--task", "0"])
        ps = self.start(WORKER, ["--cluster", spec, "--job", "ps", "--task", "0"])
        master = self.start(MASTER, ["--cluster", spec, "--listen", "127.0.0.1:0"])
        return master, worker, ps

    def run_steps(self, master, good, bad):
        graph = os.path.join(self.dir.name, "graph.pbtxt")
        with open(graph, "w") as f:
            f.write(GRAPH)
        target = "grpc://" + master.address
        for fetch, count in (("b:0", good), ("nope:0", bad)):
            for _ in range(count):
                proc = subprocess.run([CLI, "run", "--target", target, "--graph", graph,
                                       "--fetch", fetch], capture_output=True, text=True,
                                      timeout=60)
                self.assertEqual(proc.returncode == 0, fetch == "b:0", proc.stdout + proc.stderr)

    def scrape(self, daemon):
        status, headers, text = http_get(daemon.metrics)
        self.assertEqual(status, 200)
        self.assertEqual(headers["Content-Type"], "text/plain; version=0.0.4; charset=utf-8")
        check = subprocess.run([self.promtool, "check", "metrics"], input=text,
                               capture_output=True, text=True, timeout=60)
        self.assertEqual(check.returncode, 0, check.stdout + check.stderr)
        return text

    def test_counters_say_what_the_steps_did_and_promtool_accepts_them(self):
        master, worker, ps = self.start_cluster()
        self.run_steps(master, good=3, bad=1)
        m = samples(self.scrape(master))
        w = samples(self.scrape(worker))
        p = samples(self.scrape(ps))
        self.assertEqual(value(m, "tributary_master_steps_total", outcome="OK"), 3)
        self.assertEqual(value(m, "tributary_master_steps_total", outcome="NOT_FOUND"), 1)
        self.assertEqual(value(m, "tributary_master_step_seconds_count", outcome="OK"), 3)
        self.assertEqual(value(m, "tributary_master_step_seconds_bucket", outcome="OK",
                               le="+Inf"), 3)
        self.assertEqual(value(m, "tributary_master_steps_in_flight"), 0)
        self.assertEqual(value(m, "tributary_master_sessions"), 0)  # the CLI closed them
        self.assertEqual(value(m, "tributary_rpc_server_handled_total",
                               method="/tensorflow.MasterService/CreateSession",
                               code="OK"), 4)
        # Three good steps each ran one graph on each task; the worker received
        # the ps's 4000 bytes each time, the ps received nothing.
        for scraped in (w, p):
            self.assertEqual(value(scraped, "tributary_worker_run_graphs_total",
                                   outcome="OK"), 3)
            self.assertEqual(value(scraped, "tributary_rpc_server_handled_total",
                                   method="/tensorflow.WorkerService/RunGraph",
                                   code="OK"), 3)
            self.assertEqual(value(scraped, "tributary_worker_graphs_registered"), 0)
        self.assertEqual(value(w, "tributary_recv_tensor_bytes_total",
                               peer="/job:ps/replica:0/task:0"), 12000)
        self.assertFalse([k for k in p if k[0] == "tributary_recv_tensor_bytes_total"])
        self.assertEqual(value(p, "tributary_rpc_server_handled_total",
                               method="/tensorflow.WorkerService/RecvTensor", code="OK"), 3)
        # The process's own figures, and each device's allocator.
        for scraped in (m, w, p):
            self.assertGreater(value(scraped, "process_resident_memory_bytes"), 1e6)
            self.assertGreater(value(scraped, "process_open_fds"), 0)
        cpu = dict(device="/job:worker/replica:0/task:0/device:CPU:0", allocator="cpu")
        self.assertIsNotNone(value(w, "tributary_allocator_peak_bytes", **cpu))
        # A CPU device's cached bytes are its host block cache's.
        self.assertEqual(value(w, "tributary_allocator_cached_bytes", **cpu),
                         value(w, "tributary_host_cache_cached_bytes"))
        # The steps have ended: nothing waits for or runs on an inter-op thread.
        for scraped in (w, p):
            self.assertEqual(value(scraped, "tributary_executor_queue_depth"), 0)
            self.assertEqual(value(scraped, "tributary_executor_busy_threads"), 0)
            self.assertGreaterEqual(value(scraped, "tributary_executor_threads"), 1)

    def test_prometheus_scrapes_the_cluster_and_answers_queries(self):
        master, worker, ps = self.start_cluster()
        self.run_steps(master, good=2, bad=0)
        work = tempfile.mkdtemp(dir=self.dir.name)
        targets = [d.metrics[len("http://"):-len("/metrics")] for d in (master, worker, ps)]
        config = os.path.join(work, "prometheus.yml")
        with open(config, "w") as f:
            f.write("global:\n  scrape_interval: 1s\n"
                    "scrape_configs:\n  - job_name: tributary\n"
                    "    static_configs:\n      - targets: %s\n" % json.dumps(targets))
        port = daemon_process.free_port()
        server = subprocess.Popen(
            [self.prometheus, "--config.file", config, "--storage.tsdb.path",
             os.path.join(work, "data"), "--web.listen-address", "127.0.0.1:%d" % port],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        self.addCleanup(lambda: (server.kill(), server.wait()))

        def query(expression):
            url = "http://127.0.0.1:%d/api/v1/query?%s" % (
                port, urllib.parse.urlencode({"query": expression}))
            _, _, body = http_get(url)
            answer = json.loads(body)
            self.assertEqual(answer["status"], "success", body)
            return answer["data"]["result"]

        deadline = time.monotonic() + 60
        while True:
            try:
                up = query("up")
                if len(up) == 3 and all(r["value"][1] == "1" for r in up):
                    break
            except (OSError, ValueError):
                pass
            self.assertLess(time.monotonic(), deadline, "Prometheus never scraped all three")
            time.sleep(0.5)
        steps = query('tributary_master_steps_total{outcome="OK"}')
        self.assertEqual([r["value"][1] for r in steps], ["2"])
        self.assertEqual(steps[0]["metric"]["instance"], targets[0])
        received = query("sum(tributary_recv_tensor_bytes_total)")
        self.assertEqual(received[0]["value"][1], "8000")
        runs = query("sum by (instance) (tributary_worker_run_graphs_total)")
        self.assertEqual(sorted(r["metric"]["instance"] for r in runs), sorted(targets[1:]))
        p99 = query("histogram_quantile(0.99, sum by (le) "
                    "(tributary_master_step_seconds_bucket))")
        self.assertGreater(float(p99[0]["value"][1]), 0)

    def test_every_metric_the_dashboard_queries_is_exported(self):
        with open(DASHBOARD) as f:
            dashboard = json.load(f)
        expressions = [t["expr"] for p in dashboard["panels"] for t in p["targets"]]
        self.assertTrue(expressions)
        master, worker, ps = self.start_cluster()
        self.run_steps(master, good=1, bad=0)
        families = set()
        for daemon in (master, worker, ps):
            for line in self.scrape(daemon).splitlines():
                if line.startswith("# TYPE "):
                    name, kind = line.split()[2:4]
                    families.add(name)
                    if kind == "histogram":
                        families.update(name + s for s in ("_bucket", "_sum", "_count"))
        for expression in expressions:
            for name in re.findall(r"\b((?:tributary|process)_[a-z_]+)\b", expression):
                self.assertIn(name, families, expression)


if __name__ == "__main__":
    unittest.main()
