"""`tributary top` against a real cluster (ps, worker, master) while steps run:
--once --json lists the master and both tasks up with their devices, steps/s and
latency from the master, RecvTensor bytes/s on the worker; the table form draws
the same; a task that is down is shown down with why, and the view still comes;
a master that cannot be reached is exit 1.
"""
import json
import os
import signal
import socket
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "interop"))
import daemon_process  # noqa: E402

MASTER = os.path.join("master", "tributary-master")
WORKER = os.path.join("worker", "tributary-worker")
CLI = os.path.join("tools", "tributary")


class TopTest(daemon_process.ClusterSpecTestCase):

    def setUp(self):
        super().setUp()
        worker_port, ps_port = daemon_process.free_ports(2)
        spec = self.spec({"worker": ["127.0.0.1:%d" % worker_port],
                          "ps": ["127.0.0.1:%d" % ps_port]})
        self.worker = daemon_process.Daemon(WORKER, ["--cluster", spec, "--job", "worker",
                                                     "--task", "0"])
        self.addCleanup(self.worker.kill)
        self.ps = daemon_process.Daemon(WORKER, ["--cluster", spec, "--job", "ps",
                                                 "--task", "0"])
        self.addCleanup(self.ps.kill)
        self.master = daemon_process.Daemon(MASTER, ["--cluster", spec, "--listen",
                                                     "127.0.0.1:0"])
        self.addCleanup(self.master.kill)
        self.target = "grpc://" + self.master.address

    def top(self, *args, timeout=60):
        return subprocess.run([CLI, "top", "--target", self.target, "--once",
                               "--interval", "1", *args],
                              capture_output=True, text=True, timeout=timeout)

    def run_steps_meanwhile(self):
        graph = os.path.join(self.dir.name, "graph.pbtxt")
        with open(graph, "w") as f:
            f.write(daemon_process.cross_task_graph(1000))
        stepper = subprocess.Popen([CLI, "run", "--target", self.target, "--graph", graph,
                                    "--fetch", "b:0", "--steps", "100000"],
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.addCleanup(lambda: (stepper.kill(), stepper.wait()))
        return stepper

    def test_once_json_while_steps_run(self):
        self.run_steps_meanwhile()
        proc = self.top("--json")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        view = json.loads(proc.stdout)
        tasks = {t["task"]: t for t in view["tasks"]}
        self.assertEqual(list(tasks), ["master", "/job:ps/replica:0/task:0",
                                       "/job:worker/replica:0/task:0"])
        for name, task in tasks.items():
            self.assertTrue(task["up"], task)
            self.assertGreater(task["rss_bytes"], 1e6)
            self.assertGreater(task["rpcs_per_s"], 0)
            if name != "master":
                self.assertIn("CPU:0", task["devices"])
                self.assertGreater(task["run_graphs_per_s"], 0)
        cluster = view["cluster"]
        self.assertEqual(cluster["sessions"], 1)
        self.assertGreater(cluster["steps_per_s"], 0)
        self.assertEqual(cluster["failed_steps_per_s"], 0)
        self.assertGreater(cluster["step_p50_s"], 0)
        self.assertGreaterEqual(cluster["step_p99_s"], cluster["step_p50_s"])
        # The ps sends 4000 bytes a step to the worker.
        self.assertGreater(tasks["/job:worker/replica:0/task:0"]["recv_bytes_per_s"], 0)
        self.assertEqual(tasks["/job:ps/replica:0/task:0"]["recv_bytes_per_s"], 0)

    def test_table_and_a_task_that_is_down(self):
        proc = self.top()
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertIn("TASK", proc.stdout)
        self.assertIn("/job:worker/replica:0/task:0", proc.stdout)
        rc, log = self.ps.stop(signal.SIGTERM)
        self.assertEqual(rc, 0, log)
        proc = self.top("--json")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        tasks = {t["task"]: t for t in json.loads(proc.stdout)["tasks"]}
        ps = tasks["/job:ps/replica:0/task:0"]
        self.assertFalse(ps["up"])
        self.assertTrue(ps["error"])
        self.assertTrue(tasks["/job:worker/replica:0/task:0"]["up"])

    def test_a_silent_task_costs_its_timeout_and_callers_are_bounded(self):
        """A task that accepts connections and never answers: each reading waits
        its 5 s for it; more than four readings at once are refused."""
        silent = socket.socket()
        silent.bind(("127.0.0.1", 0))
        silent.listen(64)
        self.addCleanup(silent.close)
        spec = self.spec({"worker": ["127.0.0.1:%d" % silent.getsockname()[1]]})
        master = daemon_process.Daemon(MASTER, ["--cluster", spec, "--listen", "127.0.0.1:0"])
        self.addCleanup(master.kill)
        tops = [subprocess.Popen([CLI, "top", "--target", "grpc://" + master.address,
                                  "--once", "--json", "--interval", "0.1"],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                for _ in range(8)]
        results = [(p.wait(timeout=60), p.stdout.read(), p.stderr.read()) for p in tops]
        refused = [r for r in results if r[0] == 1]
        self.assertTrue(refused, results)
        for _, _, err in refused:
            self.assertIn("GetClusterStatus calls at once", err)
        answered = [json.loads(out) for rc, out, _ in results if rc == 0]
        self.assertTrue(answered, results)
        for view in answered:
            worker = view["tasks"][1]
            self.assertFalse(worker["up"])
            self.assertTrue(worker["error"])

    def test_unreachable_master_is_an_error(self):
        port = daemon_process.free_port()
        proc = subprocess.run([CLI, "top", "--target", "grpc://127.0.0.1:%d" % port,
                               "--once", "--interval", "0.1"],
                              capture_output=True, text=True, timeout=60)
        self.assertEqual(proc.returncode, 1)
        self.assertIn("127.0.0.1:%d" % port, proc.stderr)


if __name__ == "__main__":
    unittest.main()
