"""tributary-worker as a process: --help, refusal of bad cluster specs and of tasks that
are not in them (exit 2 with a clear message), TF_CONFIG, "listening on ADDR" on the
task's own address, and a graceful stop on SIGTERM / SIGINT (exit 0).
The checks both daemons share are daemon_process.DaemonMainChecks.
"""
import json
import os
import signal
import subprocess
import tempfile
import unittest

import daemon_process
from daemon_process import env_without_tf_config, free_port


class WorkerMainTest(daemon_process.DaemonMainChecks, daemon_process.ClusterSpecTestCase):
    BINARY = os.path.join("worker", "tributary-worker")
    HELP = ["--cluster", "--job", "--task", "--listen", "--log-level", "--inter-op-threads",
            "--intra-op-threads", "--cpu-devices", "--max-message-size", "--max-graph-bytes",
            "--session-memory-budget", "--allowed-path", "--grace-period", "--tls-cert",
            "--tls-key", "--tls-ca", "--host-cache-bytes", "--host-cache-idle-s", "--orphaned-session-grace",
            "--metrics-listen", "--log-format", "--task-from-hostname", "--version", "TF_CONFIG"]
    JOB = "ps"
    TASK_FLAGS = ["--job", "ps", "--task", "0"]

    def test_unknown_job_or_task_is_refused(self):
        path = self.spec({"ps": ["127.0.0.1:1"], "worker": ["127.0.0.1:2"]})
        proc = self.run_daemon(["--cluster", path, "--job", "chief", "--task", "0"])
        self.assert_refused(proc, "not in the cluster spec", "chief")
        proc = self.run_daemon(["--cluster", path, "--job", "worker", "--task", "3"])
        self.assert_refused(proc, "Task 3")

    def test_task_is_required(self):
        proc = self.run_daemon(["--cluster", self.spec({"ps": ["127.0.0.1:1"]})])
        self.assert_refused(proc, "--job")

    def test_serves_its_spec_address_then_stops_on_sigterm(self):
        address = "127.0.0.1:%d" % free_port()
        d = self.start_daemon(["--cluster",
                               self.spec({"ps": [address], "worker": ["127.0.0.1:1"]}),
                               *self.TASK_FLAGS, "--cpu-devices", "2"])
        self.assertEqual(d.address, address)
        rc, log = d.stop(signal.SIGTERM)
        self.assertEqual(rc, 0, log)
        self.assertIn("/job:ps/replica:0/task:0 with 2 device(s)", log)
        self.assertIn("stopped", log)

    def test_task_from_tf_config_and_sigint(self):
        tf_config = json.dumps({"cluster": {"worker": ["127.0.0.1:1", "127.0.0.1:2"]},
                                "task": {"type": "worker", "index": 1}})
        d = self.start_daemon(["--listen", "127.0.0.1:0"],
                              env=env_without_tf_config(TF_CONFIG=tf_config))
        self.assertRegex(d.address, r"^127\.0\.0\.1:\d+$")
        rc, log = d.stop(signal.SIGINT)
        self.assertEqual(rc, 0, log)
        self.assertIn("/job:worker/replica:0/task:1", log)

    def test_task_from_hostname_as_a_statefulset_pod(self):
        """The daemon in a UTS namespace of its own whose host name is "worker-1",
        as Kubernetes names a StatefulSet's second pod."""
        probe = subprocess.run(["unshare", "--uts", "true"], capture_output=True)
        if probe.returncode != 0:
            self.skipTest("cannot make a UTS namespace here (needs root): %s"
                          % probe.stderr.decode().strip())
        address = "127.0.0.1:%d" % free_port()
        spec = self.spec({"ps": ["127.0.0.1:1"], "worker": ["127.0.0.1:2", address]})
        binary = os.path.abspath(self.BINARY)

        def in_pod(hostname, *args):
            return ["-c", 'hostname "$0" && exec "$@"', hostname, binary,
                    "--cluster", spec, *args]

        d = daemon_process.Daemon("unshare", ["--uts", "sh"] + in_pod(
            "worker-1", "--task-from-hostname"))
        self.assertEqual(d.address, address)
        rc, log = d.stop(signal.SIGTERM)
        self.assertEqual(rc, 0, log)
        self.assertIn("task /job:worker/replica:0/task:1 with", log)
        for hostname, args, says in [
                ("worker-7", [], "is task 7 of job 'worker'"),
                ("chief-0", [], "names job 'chief'"),
                ("worker", [], "does not end in -N"),
                ("worker-1", ["--task", "1"], "give one")]:
            proc = daemon_process.run("unshare", ["--uts", "sh"] + in_pod(
                hostname, "--task-from-hostname", *args))
            self.assert_refused(proc, says)

    def test_allowed_path_must_exist_and_its_absence_is_warned_about(self):
        spec = self.spec({"ps": ["127.0.0.1:1"]})
        proc = self.run_daemon(["--cluster", spec, *self.TASK_FLAGS,
                                "--allowed-path", "/no/such/dir/for/checkpoints"])
        self.assert_refused(proc, "--allowed-path", "/no/such/dir/for/checkpoints")
        d = self.start_daemon(self.serve_args(spec))
        rc, log = d.stop(signal.SIGTERM)
        self.assertEqual(rc, 0, log)
        self.assertIn("no --allowed-path", log)
        self.assertIn("--session-memory-budget", log)
        allowed = tempfile.mkdtemp()
        d = self.start_daemon(self.serve_args(spec) + ["--allowed-path", allowed,
                                                       "--session-memory-budget", "1000000"])
        rc, log = d.stop(signal.SIGTERM)
        self.assertEqual(rc, 0, log)
        self.assertIn("checkpoint ops may use only: " + os.path.realpath(allowed), log)
        self.assertIn("--session-memory-budget 1000000", log)


if __name__ == "__main__":
    unittest.main()
