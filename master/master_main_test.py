"""tributary-master as a process: --help, refusal of bad cluster specs (exit 2 with a
clear message), TF_CONFIG, "listening on ADDR", and a graceful stop on SIGTERM (exit 0).
"""
import json
import os
import select
import signal
import subprocess
import tempfile
import time
import unittest

BINARY = os.path.join("master", "tributary-master")
FLAGS = ["--cluster", "--listen", "--log-level", "--discovery-timeout",
         "--control-timeout", "--idle-session-timeout", "--max-message-size",
         "--grace-period"]


def env_without_tf_config(**extra):
    env = {k: v for k, v in os.environ.items() if k != "TF_CONFIG"}
    env.update(extra)
    return env


def run(args, env=None):
    return subprocess.run([BINARY, *args], capture_output=True, text=True, timeout=60,
                          env=env if env is not None else env_without_tf_config())


class Daemon:
    """A running master; waits for its "listening on" line."""

    def __init__(self, args, env=None):
        self.proc = subprocess.Popen([BINARY, *args], stdout=subprocess.DEVNULL,
                                     stderr=subprocess.PIPE,
                                     env=env if env is not None else env_without_tf_config())
        self.output = b""
        self.address = None
        deadline = time.monotonic() + 60
        while self.address is None:
            if not self._read(deadline):
                self.proc.kill()
                raise AssertionError("no 'listening on' line: %s" % self.output.decode())
            for line in self.output.decode().splitlines(keepends=True):
                if "listening on " in line and line.endswith("\n"):
                    self.address = line.split("listening on ", 1)[1].strip()

    def _read(self, deadline):
        """Reads what the daemon wrote (raw fd reads: no buffering hides lines)."""
        left = deadline - time.monotonic()
        if left <= 0:
            return False
        ready, _, _ = select.select([self.proc.stderr], [], [], left)
        if not ready:
            return False
        chunk = os.read(self.proc.stderr.fileno(), 65536)
        self.output += chunk
        return bool(chunk)

    def stop(self, sig=signal.SIGTERM):
        self.proc.send_signal(sig)
        _, rest = self.proc.communicate(timeout=60)
        self.output += rest
        return self.proc.returncode, self.output.decode()


class MasterMainTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.dir.cleanup()

    def spec(self, content):
        path = os.path.join(self.dir.name, "cluster.json")
        with open(path, "w") as f:
            f.write(content if isinstance(content, str) else json.dumps(content))
        return path

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
