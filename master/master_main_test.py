"""tributary-master as a process: --help, refusal of bad cluster specs (exit 2 with a
clear message), TF_CONFIG, "listening on ADDR", and a graceful stop on SIGTERM (exit 0).
"""
import json
import os
import signal
import unittest

import daemon_process
from daemon_process import env_without_tf_config

BINARY = os.path.join("master", "tributary-master")
FLAGS = ["--cluster", "--listen", "--log-level", "--discovery-timeout",
         "--control-timeout", "--idle-session-timeout", "--max-message-size",
         "--grace-period"]


def run(args, env=None):
    return daemon_process.run(BINARY, args, env)


def Daemon(args, env=None):
    return daemon_process.Daemon(BINARY, args, env)


class MasterMainTest(daemon_process.ClusterSpecTestCase):
    def test_help_documents_every_flag(self):
        proc = run(["--help"])
        self.assertEqual(proc.returncode, 0, proc.stderr)
        for flag in FLAGS:
            self.assertIn(flag, proc.stdout)

    def test_bad_cluster_spec_is_refused(self):
        path = self.spec({"worker": ["nohost"]})
        proc = run(["--cluster", path, "--listen", "127.0.0.1:0"])
        self.assertEqual(proc.returncode, 2, proc.stderr)
        self.assertIn("bad cluster spec", proc.stderr)
        self.assertIn("nohost", proc.stderr)

    def test_malformed_json_is_refused(self):
        path = self.spec('{"worker": ["127.0.0.1:1",')
        proc = run(["--cluster", path, "--listen", "127.0.0.1:0"])
        self.assertEqual(proc.returncode, 2, proc.stderr)
        self.assertIn("bad cluster spec", proc.stderr)

    def test_missing_file_is_refused(self):
        proc = run(["--cluster", os.path.join(self.dir.name, "none.json"),
                    "--listen", "127.0.0.1:0"])
        self.assertEqual(proc.returncode, 2, proc.stderr)
        self.assertIn("none.json", proc.stderr)

    def test_no_cluster_at_all(self):
        proc = run(["--listen", "127.0.0.1:0"])
        self.assertEqual(proc.returncode, 2, proc.stderr)
        self.assertIn("--cluster", proc.stderr)

    def test_listen_is_required(self):
        proc = run(["--cluster", self.spec({"worker": ["127.0.0.1:1"]})])
        self.assertEqual(proc.returncode, 2, proc.stderr)
        self.assertIn("--listen", proc.stderr)

    def test_bad_log_level(self):
        proc = run(["--cluster", self.spec({"worker": ["127.0.0.1:1"]}),
                    "--listen", "127.0.0.1:0", "--log-level", "loud"])
        self.assertEqual(proc.returncode, 2, proc.stderr)
        self.assertIn("loud", proc.stderr)

    def test_serves_then_stops_gracefully_on_sigterm(self):
        d = Daemon(["--cluster", self.spec({"worker": ["127.0.0.1:1"]}),
                    "--listen", "127.0.0.1:0"])
        self.assertRegex(d.address, r"^127\.0\.0\.1:\d+$")
        self.assertNotEqual(d.address, "127.0.0.1:0")
        rc, log = d.stop(signal.SIGTERM)
        self.assertEqual(rc, 0, log)
        self.assertIn("stopped", log)

    def test_cluster_from_tf_config_and_sigint(self):
        tf_config = json.dumps({"cluster": {"worker": ["127.0.0.1:1"], "ps": ["127.0.0.1:2"]}})
        d = Daemon(["--listen", "127.0.0.1:0"], env=env_without_tf_config(TF_CONFIG=tf_config))
        rc, log = d.stop(signal.SIGINT)
        self.assertEqual(rc, 0, log)
        self.assertIn("/job:ps", log.replace('"ps"', "/job:ps"))

    def test_port_in_use_is_an_error(self):
        d = Daemon(["--cluster", self.spec({"worker": ["127.0.0.1:1"]}),
                    "--listen", "127.0.0.1:0"])
        try:
            proc = run(["--cluster", self.spec({"worker": ["127.0.0.1:1"]}),
                        "--listen", d.address])
            self.assertEqual(proc.returncode, 1, proc.stderr)
            self.assertIn(d.address, proc.stderr)
        finally:
            d.stop()


if __name__ == "__main__":
    unittest.main()
