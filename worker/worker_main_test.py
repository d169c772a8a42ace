"""tributary-worker as a process: --help, refusal of bad cluster specs and of tasks that
are not in them (exit 2 with a clear message), TF_CONFIG, "listening on ADDR" on the
task's own address, and a graceful stop on SIGTERM / SIGINT (exit 0).
"""
import json
import os
import signal
import unittest

import daemon_process
from daemon_process import env_without_tf_config, free_port

BINARY = os.path.join("worker", "tributary-worker")
FLAGS = ["--cluster", "--job", "--task", "--listen", "--log-level", "--inter-op-threads",
         "--intra-op-threads", "--cpu-devices", "--max-message-size", "--grace-period"]


def run(args, env=None):
    return daemon_process.run(BINARY, args, env)


def Daemon(args, env=None):
    return daemon_process.Daemon(BINARY, args, env)


class WorkerMainTest(daemon_process.ClusterSpecTestCase):
    def test_help_documents_every_flag(self):
        proc = run(["--help"])
        self.assertEqual(proc.returncode, 0, proc.stderr)
        for flag in FLAGS:
            self.assertIn(flag, proc.stdout)
        self.assertIn("TF_CONFIG", proc.stdout)

    def test_bad_cluster_spec_is_refused(self):
        proc = run(["--cluster", self.spec({"ps": ["nohost"]}), "--job", "ps", "--task", "0"])
        self.assertEqual(proc.returncode, 2, proc.stderr)
        self.assertIn("bad cluster spec", proc.stderr)
        self.assertIn("nohost", proc.stderr)

    def test_malformed_json_is_refused(self):
        proc = run(["--cluster", self.spec('{"ps": ["127.0.0.1:1",'), "--job", "ps",
                    "--task", "0"])
        self.assertEqual(proc.returncode, 2, proc.stderr)
        self.assertIn("bad cluster spec", proc.stderr)

    def test_missing_file_is_refused(self):
        proc = run(["--cluster", os.path.join(self.dir.name, "none.json"), "--job", "ps",
                    "--task", "0"])
        self.assertEqual(proc.returncode, 2, proc.stderr)
        self.assertIn("none.json", proc.stderr)

    def test_no_cluster_at_all(self):
        proc = run(["--job", "ps", "--task", "0"])
        self.assertEqual(proc.returncode, 2, proc.stderr)
        self.assertIn("--cluster", proc.stderr)

    def test_unknown_job_or_task_is_refused(self):
        path = self.spec({"ps": ["127.0.0.1:1"], "worker": ["127.0.0.1:2"]})
        proc = run(["--cluster", path, "--job", "chief", "--task", "0"])
        self.assertEqual(proc.returncode, 2, proc.stderr)
        self.assertIn("not in the cluster spec", proc.stderr)
        self.assertIn("chief", proc.stderr)
        proc = run(["--cluster", path, "--job", "worker", "--task", "3"])
        self.assertEqual(proc.returncode, 2, proc.stderr)
        self.assertIn("Task 3", proc.stderr)

    def test_task_is_required(self):
        proc = run(["--cluster", self.spec({"ps": ["127.0.0.1:1"]})])
        self.assertEqual(proc.returncode, 2, proc.stderr)
        self.assertIn("--job", proc.stderr)

    def test_bad_log_level(self):
        proc = run(["--cluster", self.spec({"ps": ["127.0.0.1:1"]}), "--job", "ps",
                    "--task", "0", "--log-level", "loud"])
        self.assertEqual(proc.returncode, 2, proc.stderr)
        self.assertIn("loud", proc.stderr)

    def test_serves_its_spec_address_then_stops_on_sigterm(self):
        address = "127.0.0.1:%d" % free_port()
        d = Daemon(["--cluster", self.spec({"ps": [address], "worker": ["127.0.0.1:1"]}),
                    "--job", "ps", "--task", "0", "--cpu-devices", "2"])
        self.assertEqual(d.address, address)
        rc, log = d.stop(signal.SIGTERM)
        self.assertEqual(rc, 0, log)
        self.assertIn("/job:ps/replica:0/task:0 with 2 device(s)", log)
        self.assertIn("stopped", log)

    def test_task_from_tf_config_and_sigint(self):
        tf_config = json.dumps({"cluster": {"worker": ["127.0.0.1:1", "127.0.0.1:2"]},
                                "task": {"type": "worker", "index": 1}})
        d = Daemon(["--listen", "127.0.0.1:0"],
                   env=env_without_tf_config(TF_CONFIG=tf_config))
        self.assertRegex(d.address, r"^127\.0\.0\.1:\d+$")
        rc, log = d.stop(signal.SIGINT)
        self.assertEqual(rc, 0, log)
        self.assertIn("/job:worker/replica:0/task:1", log)

    def test_port_in_use_is_an_error(self):
        path = self.spec({"ps": ["127.0.0.1:1"]})
        d = Daemon(["--cluster", path, "--job", "ps", "--task", "0", "--listen",
                    "127.0.0.1:0"])
        try:
            proc = run(["--cluster", path, "--job", "ps", "--task", "0", "--listen",
                        d.address])
            self.assertEqual(proc.returncode, 1, proc.stderr)
            self.assertIn(d.address, proc.stderr)
        finally:
            d.stop()


if __name__ == "__main__":
    unittest.main()
