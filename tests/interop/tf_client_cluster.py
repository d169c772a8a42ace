"""Clusters for tf_client_test.py: one parameter-server task and two worker tasks on
127.0.0.1, served either by TensorFlow's own tf.distribute.Server processes (to check
the test itself) or by Tributary's daemons (tributary-worker per task plus a
tributary-master). Either way the client gets a "grpc://host:port" master target.

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

JOBS = {"ps": 1, "worker": 2}
START_DEADLINE_S = 120  # TensorFlow's servers import TensorFlow first (seconds each).
PR_SET_PDEATHSIG = 1

WORKER_BINARY = os.path.join("worker", "tributary-worker")
MASTER_BINARY = os.path.join("master", "tributary-master")



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

    def __init__(self):
        self._dir = tempfile.TemporaryDirectory(prefix="tf_client_cluster.",
                                                dir=os.environ.get("TEST_TMPDIR"))
        ports = free_ports(sum(JOBS.values()) + 1)
        self.spec = {}
        for job, count in sorted(JOBS.items()):
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

    def __init__(self):
        super().__init__()
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

    def __init__(self, worker_flags=(), master_flags=()):
        super().__init__()
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


def binaries_present():
    return os.path.exists(WORKER_BINARY) and os.path.exists(MASTER_BINARY)
