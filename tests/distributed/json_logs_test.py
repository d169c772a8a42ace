"""--log-format json on a real cluster (ps, worker, master): every line each
daemon writes is one JSON object with time, level, logger and message; a
worker's lines name its task; and each step can be followed across the three
processes by its step_id (the master's "step started"/"step ended" and each
task's RunGraph lines carry the same id and session). In text format the same
lines end in "[step N]".
"""
import json
import os
import re
import signal
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "interop"))
import daemon_process  # noqa: E402

MASTER = os.path.join("master", "tributary-master")
WORKER = os.path.join("worker", "tributary-worker")
CLI = os.path.join("tools", "tributary")

GRAPH = daemon_process.cross_task_graph(4)


class JsonLogsTest(daemon_process.ClusterSpecTestCase):

    def run_cluster(self, log_format, steps):
        """Starts the cluster, runs `steps` steps, stops it: {name: log text}."""
        worker_port, ps_port = daemon_process.free_ports(2)
        spec = self.spec({"worker": ["127.0.0.1:%d" % worker_port],
                          "ps": ["127.0.0.1:%d" % ps_port]})
        logging = ["--log-format", log_format, "--log-level", "debug"]
        daemons = {
            "worker": daemon_process.Daemon(WORKER, ["--cluster", spec, "--job", "worker",
                                                     "--task", "0"] + logging),
            "ps": daemon_process.Daemon(WORKER, ["--cluster", spec, "--job", "ps",
                                                 "--task", "0"] + logging),
        }
        daemons["master"] = daemon_process.Daemon(
            MASTER, ["--cluster", spec, "--listen", "127.0.0.1:0"] + logging)
        graph = os.path.join(self.dir.name, "graph.pbtxt")
        with open(graph, "w") as f:
            f.write(GRAPH)
        try:
            for _ in range(steps):
                proc = subprocess.run([CLI, "run", "--target",
                                       "grpc://" + daemons["master"].address,
                                       "--graph", graph, "--fetch", "b:0"],
                                      capture_output=True, text=True, timeout=60)
                self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        finally:
            logs = {}
            for name, d in daemons.items():
                rc, logs[name] = d.stop(signal.SIGTERM)
                self.assertEqual(rc, 0, logs[name])
        return logs

    def test_every_line_is_json_and_steps_are_followed_across_tasks(self):
        logs = self.run_cluster("json", steps=2)
        lines = {}
        for name, text in logs.items():
            lines[name] = []
            for line in text.splitlines():
                record = json.loads(line)  # every line, or this fails
                for field in ("time", "level", "logger", "message"):
                    self.assertIn(field, record, line)
                self.assertRegex(record["time"], r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")
                lines[name].append(record)
        self.assertTrue(any(r["message"].startswith("listening on") and
                            r["task"] == "/job:ps/replica:0/task:0" for r in lines["ps"]))
        started = [r for r in lines["master"] if r["message"].startswith("step started")]
        self.assertEqual(len(started), 2, lines["master"])
        for step in started:
            same = [(name, r["message"]) for name, records in lines.items()
                    for r in records if r.get("step_id") == step["step_id"]]
            self.assertIn(("master", "step ended: OK"), same)
            for task in ("worker", "ps"):
                messages = [m for name, m in same if name == task]
                self.assertTrue(any(re.match(r"RunGraph \w+ started", m) for m in messages),
                                same)
                self.assertTrue(any(re.match(r"RunGraph \w+ ended: OK", m) for m in messages),
                                same)
            sessions = {r["session"] for records in lines.values() for r in records
                        if r.get("step_id") == step["step_id"]}
            self.assertEqual(sessions, {step["session"]})

    def test_text_lines_end_with_their_step(self):
        logs = self.run_cluster("text", steps=1)
        (started,) = re.findall(r"\] step started: .* \[step (\d+)\]$", logs["master"], re.M)
        self.assertRegex(logs["worker"], r"RunGraph \w+ ended: OK \[step %s\]" % started)
        self.assertRegex(logs["ps"], r"RunGraph \w+ started \[step %s\]" % started)


if __name__ == "__main__":
    unittest.main()
