"""A Tributary daemon as a process, for the daemons' own tests (master/master_main_test.py,
worker/worker_main_test.py): run it to completion, or start it and wait for its
"listening on ADDR" line, then stop it with a signal.
"""
import json
import os
import select
import signal
import socket
import subprocess
import tempfile
import time
import unittest


def env_without_tf_config(**extra):
    env = {k: v for k, v in os.environ.items() if k != "TF_CONFIG"}
    env.update(extra)
    return env


def run(binary, args, env=None):
    return subprocess.run([binary, *args], capture_output=True, text=True, timeout=60,
                          env=env if env is not None else env_without_tf_config())


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Daemon:
    """A running daemon; waits for its "listening on" line."""

    def __init__(self, binary, args, env=None):
        self.proc = subprocess.Popen([binary, *args], stdout=subprocess.DEVNULL,
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


class ClusterSpecTestCase(unittest.TestCase):
    """A temporary directory per test and spec() to write a cluster spec into it."""

    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.dir.cleanup()

    def spec(self, content):
        path = os.path.join(self.dir.name, "cluster.json")
        with open(path, "w") as f:
            f.write(content if isinstance(content, str) else json.dumps(content))
        return path
