"""tributary-master as a process: --help, refusal of bad cluster specs (exit 2 with a
clear message), TF_CONFIG, "listening on ADDR", and a graceful stop on SIGTERM (exit 0).
The checks both daemons share are daemon_process.DaemonMainChecks.
"""
import json
import os
import signal
import unittest

import daemon_process
from daemon_process import env_without_tf_config


class MasterMainTest(daemon_process.DaemonMainChecks, daemon_process.ClusterSpecTestCase):
    BINARY = os.path.join("master", "tributary-master")
    HELP = ["--cluster", "--listen", "--log-level", "--discovery-timeout", "--task-startup-window",
            "--control-timeout", "--idle-session-timeout", "--max-message-size",
            "--max-graph-bytes", "--max-sessions", "--max-steps-per-client",
            "--max-steps-per-session", "--grace-period", "--tls-cert", "--tls-key", "--tls-ca",
            "--insecure-listen", "--auth-tokens", "--host-cache-bytes", "--host-cache-idle-s",
            "--metrics-listen", "--log-format"]
    JOB = "worker"  # the master serves no task; its spec names the workers
    TASK_FLAGS = []

    def test_listen_is_required(self):
        proc = self.run_daemon(["--cluster", self.spec({"worker": ["127.0.0.1:1"]})])
        self.assert_refused(proc, "--listen")

    def test_insecure_listen_needs_tls_and_a_loopback_address(self):
        args = self.serve_args(self.spec({"worker": ["127.0.0.1:1"]}))
        proc = self.run_daemon(args + ["--insecure-listen", "127.0.0.1:0"])
        self.assert_refused(proc, "--insecure-listen is for a master that serves TLS")

    def test_bad_tokens_file_is_refused(self):
        args = self.serve_args(self.spec({"worker": ["127.0.0.1:1"]}))
        tokens = os.path.join(self.dir.name, "tokens")
        with open(tokens, "w") as f:
            f.write("the-token-itself run\n")
        proc = self.run_daemon(args + ["--auth-tokens", tokens])
        self.assert_refused(proc, "line 1", "SHA-256")
        self.assertNotIn("the-token-itself", proc.stderr)

    def test_serves_then_stops_gracefully_on_sigterm(self):
        d = self.start_daemon(self.serve_args(self.spec({"worker": ["127.0.0.1:1"]})))
        self.assertRegex(d.address, r"^127\.0\.0\.1:\d+$")
        self.assertNotEqual(d.address, "127.0.0.1:0")
        rc, log = d.stop(signal.SIGTERM)
        self.assertEqual(rc, 0, log)
        self.assertIn("stopped", log)

    def test_cluster_from_tf_config_and_sigint(self):
        tf_config = json.dumps({"cluster": {"worker": ["127.0.0.1:1"], "ps": ["127.0.0.1:2"]}})
        d = self.start_daemon(["--listen", "127.0.0.1:0"],
                              env=env_without_tf_config(TF_CONFIG=tf_config))
        rc, log = d.stop(signal.SIGINT)
        self.assertEqual(rc, 0, log)
        self.assertIn("/job:ps", log.replace('"ps"', "/job:ps"))


if __name__ == "__main__":
    unittest.main()
