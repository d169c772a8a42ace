"""A Tributary daemon as a process, for the daemons' own tests (master/master_main_test.py,
worker/worker_main_test.py): run it to completion, or start it and wait for its
"listening on ADDR" line, then stop it with a signal; and DaemonMainChecks, the
command-line behaviour both daemons share, checked once here for both.
"""
import json
import os
import re
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


def cross_task_graph(elements):
    """A GraphDef (text) whose one step moves 4 * `elements` bytes from
    /job:ps/task:0 to /job:worker/task:0: Const "a" on the ps, "b" = a + a on
    the worker (fetch "b:0")."""
    return """
node { name: "a" op: "Const" device: "/job:ps/task:0"
  attr { key: "dtype" value { type: DT_FLOAT } }
  attr { key: "value" value { tensor { dtype: DT_FLOAT
    tensor_shape { dim { size: %d } } float_val: 1.5 } } } }
node { name: "b" op: "Add" device: "/job:worker/task:0" input: "a" input: "a"
  attr { key: "T" value { type: DT_FLOAT } } }
""" % elements


def free_ports(count):
    """`count` distinct ports on 127.0.0.1 that were free a moment ago (bound together,
    then released for the daemons to bind)."""
    sockets = [socket.socket(socket.AF_INET, socket.SOCK_STREAM) for _ in range(count)]
    try:
        for s in sockets:
            s.bind(("127.0.0.1", 0))
        return [s.getsockname()[1] for s in sockets]
    finally:
        for s in sockets:
            s.close()


def free_port():
    return free_ports(1)[0]


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

    def kill(self):
        """SIGKILL if still running (a test's cleanup)."""
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()

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


class DaemonMainChecks:
    """Checks both daemons must pass, mixed into a ClusterSpecTestCase that names its
    daemon: BINARY (runfiles path), HELP (what --help must mention), JOB (the job of
    the task it serves in the specs written here) and TASK_FLAGS (the flags, besides
    --cluster and --listen, that name that task)."""

    BINARY = None
    HELP = []
    JOB = None
    TASK_FLAGS = []

    def run_daemon(self, args, env=None):
        return run(self.BINARY, args, env)

    def start_daemon(self, args, env=None):
        return Daemon(self.BINARY, args, env)

    def serve_args(self, spec_path, listen="127.0.0.1:0"):
        """The command line serving the task of this daemon in the spec at spec_path."""
        return ["--cluster", spec_path, *self.TASK_FLAGS, "--listen", listen]

    def assert_refused(self, proc, *says):
        self.assertEqual(proc.returncode, 2, proc.stderr)
        for text in says:
            self.assertIn(text, proc.stderr)

    def test_help_documents_every_flag(self):
        proc = self.run_daemon(["--help"])
        self.assertEqual(proc.returncode, 0, proc.stderr)
        for text in self.HELP:
            self.assertIn(text, proc.stdout)

    def test_version_names_the_release_and_the_commit(self):
        proc = self.run_daemon(["--version"])
        self.assertEqual(proc.returncode, 0, proc.stderr)
        name = os.path.basename(self.BINARY)
        with open("VERSION") as f:
            release = f.read().strip()
        self.assertRegex(proc.stdout.strip(), r"^%s %s \(commit ([0-9a-f]{12}(-dirty)?|"
                         r"unknown)\)$" % (name, re.escape(release)))

    def test_bad_cluster_spec_is_refused(self):
        proc = self.run_daemon(self.serve_args(self.spec({self.JOB: ["nohost"]})))
        self.assert_refused(proc, "bad cluster spec", "nohost")

    def test_malformed_json_is_refused(self):
        path = self.spec('{"%s": ["127.0.0.1:1",' % self.JOB)
        self.assert_refused(self.run_daemon(self.serve_args(path)), "bad cluster spec")

    def test_missing_file_is_refused(self):
        path = os.path.join(self.dir.name, "none.json")
        self.assert_refused(self.run_daemon(self.serve_args(path)), "none.json")

    def test_no_cluster_at_all(self):
        proc = self.run_daemon([*self.TASK_FLAGS, "--listen", "127.0.0.1:0"])
        self.assert_refused(proc, "--cluster")

    def test_bad_log_format(self):
        args = self.serve_args(self.spec({self.JOB: ["127.0.0.1:1"]}))
        self.assert_refused(self.run_daemon(args + ["--log-format", "xml"]),
                            "Unknown log format 'xml'")

    def test_bad_log_level(self):
        args = self.serve_args(self.spec({self.JOB: ["127.0.0.1:1"]}))
        self.assert_refused(self.run_daemon(args + ["--log-level", "loud"]), "loud")

    def test_bad_tls_files_are_refused(self):
        args = self.serve_args(self.spec({self.JOB: ["127.0.0.1:1"]}))
        missing = os.path.join(self.dir.name, "nope.crt")
        proc = self.run_daemon(args + ["--tls-cert", missing, "--tls-key", missing,
                                       "--tls-ca", missing])
        self.assert_refused(proc, "nope.crt: cannot be read")
        proc = self.run_daemon(args + ["--tls-cert", missing])
        self.assert_refused(proc, "all of --tls-cert, --tls-key and --tls-ca")
        garbage = os.path.join(self.dir.name, "garbage.pem")
        with open(garbage, "w") as f:
            f.write("not a certificate\n")
        proc = self.run_daemon(args + ["--tls-cert", garbage, "--tls-key", garbage,
                                       "--tls-ca", garbage])
        self.assert_refused(proc, "garbage.pem: not a PEM file")

    def test_sighup_without_tls_is_harmless(self):
        d = self.start_daemon(self.serve_args(self.spec({self.JOB: ["127.0.0.1:1"]})))
        d.proc.send_signal(signal.SIGHUP)
        # Wait for the daemon to take it before SIGTERM, which could come first.
        deadline = time.monotonic() + 30
        while b"SIGHUP: nothing to reload" not in d.output and d._read(deadline):
            pass
        rc, log = d.stop(signal.SIGTERM)
        self.assertEqual(rc, 0, log)
        self.assertIn("SIGHUP: nothing to reload", log)
        self.assertIn("serving in plaintext", log)

    def test_bad_metrics_address_is_refused(self):
        args = self.serve_args(self.spec({self.JOB: ["127.0.0.1:1"]}))
        proc = self.run_daemon(args + ["--metrics-listen", "nonsense"])
        self.assert_refused(proc, "--metrics-listen 'nonsense': want host:port")
        d = self.start_daemon(args)
        try:
            proc = self.run_daemon(args + ["--metrics-listen", d.address])
            self.assertEqual(proc.returncode, 1, proc.stderr)
            self.assertIn("Cannot serve metrics on " + d.address, proc.stderr)
        finally:
            d.stop()

    def test_systemd_hears_ready_watchdog_pings_and_stopping(self):
        """Type=notify with WatchdogSec, as systemd would run it: a datagram socket
        of our own as NOTIFY_SOCKET (abstract, as systemd allows), WATCHDOG_USEC."""
        import uuid
        name = "tributary-notify-" + uuid.uuid4().hex
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        sock.bind("\0" + name)
        self.addCleanup(sock.close)
        env = env_without_tf_config(NOTIFY_SOCKET="@" + name, WATCHDOG_USEC="200000")
        d = self.start_daemon(self.serve_args(self.spec({self.JOB: ["127.0.0.1:1"]})),
                              env=env)

        def messages(until, deadline_s):
            got = []
            deadline = time.monotonic() + deadline_s
            while not until(got) and time.monotonic() < deadline:
                sock.settimeout(max(0.01, deadline - time.monotonic()))
                try:
                    got.append(sock.recv(4096).decode())
                except socket.timeout:
                    break
            return got

        try:
            serving = messages(lambda g: sum("WATCHDOG=1" in m for m in g) >= 3, 10)
        finally:
            rc, log = d.stop(signal.SIGTERM)
        self.assertEqual(rc, 0, log)
        self.assertIn("READY=1\nSTATUS=serving", serving[0])
        self.assertGreaterEqual(sum(m == "WATCHDOG=1" for m in serving), 3, serving)
        self.assertIn("systemd watchdog: pinging every 100ms", log)
        rest = messages(lambda g: any("STOPPING=1" in m for m in g), 5)
        stopping = [m for m in rest if "STOPPING=1" in m]
        self.assertEqual(len(stopping), 1, rest)
        self.assertIn("STATUS=draining", stopping[0])

    def test_without_notify_socket_nothing_is_sent(self):
        d = self.start_daemon(self.serve_args(self.spec({self.JOB: ["127.0.0.1:1"]})))
        rc, log = d.stop(signal.SIGTERM)
        self.assertEqual(rc, 0, log)
        self.assertNotIn("watchdog", log)
        self.assertNotIn("notification failed", log)

    def test_port_in_use_is_an_error(self):
        path = self.spec({self.JOB: ["127.0.0.1:1"]})
        d = self.start_daemon(self.serve_args(path))
        try:
            proc = self.run_daemon(self.serve_args(path, listen=d.address))
            self.assertEqual(proc.returncode, 1, proc.stderr)
            self.assertIn(d.address, proc.stderr)
        finally:
            d.stop()
