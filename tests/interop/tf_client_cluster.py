"""Clusters for tf_client_test.py and models_through_master_test.py: one
parameter-server task and two worker tasks on 127.0.0.1, served either by
TensorFlow's own tf.distribute.Server processes (to check the test itself), by
Tributary's daemons started here (tributary-worker per task plus a tributary-master),
or by `tributary cluster up` (CliCluster: the CLI starts and stops the daemons, as a
user would). Either way the client gets a "grpc://host:port" master target.

Every process gets its output in a log file (dumped when a test fails), is killed on
close(), and is also killed by the kernel if this Python process dies first
(PR_SET_PDEATHSIG), so a failing or interrupted test never leaves daemons behind.
"""
import contextlib
import ctypes
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time

from daemon_process import free_ports

JOBS = {"ps": 1, "worker": 2}  # the default; a Cluster takes others (jobs=...)
START_DEADLINE_S = 120  # TensorFlow's servers import TensorFlow first (seconds each).
PR_SET_PDEATHSIG = 1

WORKER_BINARY = os.path.join("worker", "tributary-worker")
MASTER_BINARY = os.path.join("master", "tributary-master")
TRIBUTARY_BINARY = os.path.join("tools", "tributary")
STOP_DEADLINE_S = 120



def _die_with_parent():
    """preexec_fn: SIGKILL the child when this process goes away."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


class _Process:
    def __init__(self, name, args, log_dir, env=None):
        self.name = name
        self.args = args
        self.log_path = os.path.join(log_dir, name.replace("/", "_") + ".log")
        self._log = open(self.log_path, "ab")
        self.popen = subprocess.Popen(args, stdout=self._log, stderr=subprocess.STDOUT,
                                      stdin=subprocess.DEVNULL, env=env,
                                      preexec_fn=_die_with_parent)

    def log(self):
        with open(self.log_path, "rb") as f:
            return f.read().decode(errors="replace")

    def wait_for_line(self, needle, deadline):
        """Until the log holds `needle`; raises if the process exits or time runs out."""
        while True:
            if needle in self.log():
                return
            code = self.popen.poll()
            if code is not None:
                raise RuntimeError(f"{self.name} exited with {code} before '{needle}':\n"
                                   f"{self.log()}")
            if time.monotonic() > deadline:
                raise RuntimeError(f"{self.name} did not print '{needle}' within "
                                   f"{START_DEADLINE_S} s:\n{self.log()}")
            time.sleep(0.05)  # polling a child's log file; there is nothing to wait on

    def kill(self):
        if self.popen.poll() is None:
            self.popen.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.popen.wait(timeout=30)
        self._log.close()


class Cluster:
    """Base: the cluster spec, the processes, the master target."""

    kind = "?"

    def __init__(self, jobs=None):
        jobs = JOBS if jobs is None else jobs
        self._dir = tempfile.TemporaryDirectory(prefix="tf_client_cluster.",
                                                dir=os.environ.get("TEST_TMPDIR"))
        ports = free_ports(sum(jobs.values()) + 1)
        self.spec = {}
        for job, count in sorted(jobs.items()):
            self.spec[job] = [f"127.0.0.1:{ports.pop(0)}" for _ in range(count)]
        self.master_port = ports.pop(0)
        self.processes = []
        self.target = None

    def logs(self):
        return "\n".join(f"==== {p.name} ({' '.join(p.args)}) ====\n{p.log()}"
                         for p in self.processes)

    def close(self):
        for p in self.processes:
            p.kill()
        self.processes = []
        self._dir.cleanup()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


_TF_SERVER = r"""
import json, sys
import tensorflow as tf
spec, job, task = json.loads(sys.argv[1]), sys.argv[2], int(sys.argv[3])
server = tf.distribute.Server(tf.train.ClusterSpec(spec), job_name=job, task_index=task,
                              protocol="grpc", start=True)
print("tf server ready", server.target, flush=True)
server.join()
"""


class TensorFlowCluster(Cluster):
    """tf.distribute.Server per task; the client talks to worker 0's built-in master."""

    kind = "tensorflow"

    def __init__(self, jobs=None):
        super().__init__(jobs)
        try:
            deadline = time.monotonic() + START_DEADLINE_S
            for job, addresses in sorted(self.spec.items()):
                for task, _ in enumerate(addresses):
                    self.processes.append(_Process(
                        f"tf-{job}-{task}",
                        [sys.executable, "-c", _TF_SERVER, json.dumps(self.spec), job,
                         str(task)], self._dir.name))
            for p in self.processes:
                p.wait_for_line("tf server ready", deadline)
            self.target = "grpc://" + self.spec["worker"][0]
        except BaseException:
            self.close()
            raise


class TributaryCluster(Cluster):
    """tributary-worker per task and a tributary-master, as the issue's daemons."""

    kind = "tributary"

    def __init__(self, worker_flags=(), master_flags=(), jobs=None):
        super().__init__(jobs)
        try:
            spec_path = os.path.join(self._dir.name, "cluster.json")
            with open(spec_path, "w") as f:
                json.dump(self.spec, f)
            deadline = time.monotonic() + START_DEADLINE_S
            for job, addresses in sorted(self.spec.items()):
                for task, _ in enumerate(addresses):
                    self.processes.append(_Process(
                        f"worker-{job}-{task}",
                        [WORKER_BINARY, "--cluster", spec_path, "--job", job, "--task",
                         str(task), *worker_flags], self._dir.name))
            master_address = f"127.0.0.1:{self.master_port}"
            self.processes.append(_Process(
                "master", [MASTER_BINARY, "--cluster", spec_path, "--listen",
                           master_address, *master_flags], self._dir.name))
            # Each daemon logs "listening on ADDR" once its server accepts calls.
            for p in self.processes:
                p.wait_for_line("listening on", deadline)
            self.target = "grpc://" + master_address
        except BaseException:
            self.close()
            raise

    def _task_process(self, job, task):
        name = f"worker-{job}-{task}"
        return [p for p in self.processes if p.name.split(".")[0] == name][-1]

    def kill_task(self, job, task):
        """SIGKILL a task's worker (as a crash would) and wait until it is gone."""
        self._task_process(job, task).kill()

    def restart_task(self, job, task):
        """Starts the task's worker again, same flags and address; returns once it
        serves."""
        old = self._task_process(job, task)
        self.processes.remove(old)
        # A log file of its own ("listening on" must be the new process's).
        fresh = _Process(f"{old.name.split('.')[0]}.{len(self.processes)}", old.args,
                         self._dir.name)
        self.processes.append(fresh)
        fresh.wait_for_line("listening on", time.monotonic() + START_DEADLINE_S)


class _LogFile:
    """A daemon's log written by `cluster up` (name and log() as _Process has)."""

    def __init__(self, name, path):
        self.name = name
        self.args = [path]
        self.log_path = path

    def log(self):
        try:
            with open(self.log_path, "rb") as f:
                return f.read().decode(errors="replace")
        except FileNotFoundError:
            return "(no log)"

    def kill(self):
        pass  # `cluster down` stops the daemons


class CliCluster(Cluster):
    """`tributary cluster up` in the foreground, stopped by `tributary cluster down`
    (and SIGTERM/SIGKILL of `cluster up` only if that fails). The daemons' logs are
    the files `cluster up` writes under --log-dir."""

    kind = "tributary-cli"

    def __init__(self, jobs=None):
        super().__init__(jobs)
        self._up = None
        self._up_log = None
        try:
            self.spec_path = os.path.join(self._dir.name, "cluster.json")
            with open(self.spec_path, "w") as f:
                json.dump(self.spec, f)
            self.state_dir = os.path.join(self._dir.name, "state")
            self.log_dir = os.path.join(self._dir.name, "logs")
            self._up_log_path = os.path.join(self._dir.name, "cluster-up.stderr")
            self._up_log = open(self._up_log_path, "wb")
            self._up = subprocess.Popen(
                [TRIBUTARY_BINARY, "cluster", "up", "--cluster", self.spec_path,
                 "--master", f"127.0.0.1:{self.master_port}", "--state-dir",
                 self.state_dir, "--log-dir", self.log_dir, "--startup-timeout",
                 str(START_DEADLINE_S), "--grace-period", "10"],
                stdout=subprocess.PIPE, stderr=self._up_log, stdin=subprocess.DEVNULL,
                preexec_fn=_die_with_parent)
            self.processes = [_LogFile("cluster-up", self._up_log_path)]
            for job, addresses in sorted(self.spec.items()):
                for task, _ in enumerate(addresses):
                    self.processes.append(_LogFile(
                        f"{job}-{task}", os.path.join(self.log_dir, f"{job}-{task}.log")))
            self.processes.append(_LogFile("master",
                                           os.path.join(self.log_dir, "master.log")))
            # The target is the first stdout line; `cluster up` gives up by itself
            # (--startup-timeout) and then exits, closing stdout.
            line = self._up.stdout.readline().decode().strip()
            if not line.startswith("grpc://"):
                raise RuntimeError(f"cluster up printed no target ({line!r}):\n"
                                   f"{self.logs()}")
            self.target = line
        except BaseException:
            self.close()
            raise

    def close(self):
        if self._up is not None:
            if self._up.poll() is None:
                with contextlib.suppress(subprocess.TimeoutExpired):
                    subprocess.run([TRIBUTARY_BINARY, "cluster", "down", "--cluster",
                                    self.spec_path, "--state-dir", self.state_dir],
                                   capture_output=True, timeout=STOP_DEADLINE_S)
            try:
                self._up.wait(timeout=STOP_DEADLINE_S)
            except subprocess.TimeoutExpired:
                self._up.terminate()  # stops its daemons in order
                try:
                    self._up.wait(timeout=STOP_DEADLINE_S)
                except subprocess.TimeoutExpired:
                    self._up.kill()  # its daemons die with it (parent-death signal)
                    self._up.wait()
            self._up.stdout.close()
            self._up = None
        if self._up_log is not None:
            self._up_log.close()
            self._up_log = None
        super().close()


def binaries_present():
    return os.path.exists(WORKER_BINARY) and os.path.exists(MASTER_BINARY)


def cli_present():
    return os.path.exists(TRIBUTARY_BINARY)


class ClusterLifecycle:
    """A unittest mixin: one cluster per test class from make_cluster(), closed after
    the class; when a test fails, the tail of every daemon's log goes to stderr."""

    cluster = None

    @classmethod
    def make_cluster(cls):
        raise NotImplementedError

    @classmethod
    def setUpClass(cls):
        cls.cluster = cls.make_cluster()

    @classmethod
    def tearDownClass(cls):
        if cls.cluster is not None:
            cls.cluster.close()

    def run(self, result=None):
        before = len(result.failures) + len(result.errors) if result else 0
        super().run(result)
        if result and len(result.failures) + len(result.errors) > before and self.cluster:
            for p in self.cluster.processes:
                tail = "\n".join(p.log().splitlines()[-60:])
                print(f"==== {p.name} log (tail) ====\n{tail}", file=sys.stderr)
