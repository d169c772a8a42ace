"""A Tributary cluster whose tasks and master each run on their own host of a
netns_hosts.Network.

Contract:
  * `HostCluster(network, binaries, workdir, jobs={"ps": ["ps0"], "worker":
    ["worker0", "worker1"]}, master="master")` names, per job, the hosts of its
    tasks in order; `start()` writes the cluster spec (each task at
    HOST_IP:PORT), starts one tributary-worker per task inside its host and a
    tributary-master inside the master's host, and returns once every daemon
    has logged "listening on" (or raises, naming the daemon and its log).
  * `binaries` says what runs: Binaries (programs from a Bazel build) or
    image_bundle.ImageBinaries (the daemons inside the container image);
    every daemon's argv goes through `binaries.command(argv)`.
  * `daemon_flags(role, host)` (a constructor argument) gives extra flags for
    each daemon: role is "master" or "JOB:TASK". This is where TLS flags
    (--tls-cert/--tls-key/--tls-ca) go, per host, once the daemons have them.
  * Daemons are started through Host.popen, so Network's teardown kills them;
    `stop()` ends them earlier with SIGTERM. Logs stay in workdir.
  * `target` is the master's grpc:// address; `client(argv, timeout)` runs a
    command on the "client" host when the network has one, else on the
    master's.
  * Task n (counting over all jobs) listens on port 2222 + n, the master on
    2200, so several daemons can share a host; `loopback=True` puts every
    address on 127.0.0.1 (all daemons and the client on one host: the
    loopback baseline of the benchmark).
"""

import json
import os
import signal
import subprocess
import time

PORT = 2222
MASTER_PORT = 2200
START_TIMEOUT_S = 60


class Binaries:
    """Paths of the programs, under `root`: the runfiles root in a Bazel test
    (the current directory), or a bazel-bin folder."""

    def __init__(self, root="."):
        root = os.path.abspath(root)
        self.worker = os.path.join(root, "worker/tributary-worker")
        self.master = os.path.join(root, "master/tributary-master")
        self.cli = os.path.join(root, "tools/tributary")
        self.train = os.path.join(root, "tools/examples/train_logistic_regression")

    def missing(self):
        return [p for p in (self.worker, self.master) if not os.access(p, os.X_OK)]

    def command(self, argv):
        """The argv that runs argv (programs run as they are)."""
        return list(argv)


class Daemon:
    def __init__(self, name, proc, log_path):
        self.name = name
        self.proc = proc
        self.log_path = log_path

    def log(self):
        try:
            with open(self.log_path, errors="replace") as f:
                return f.read()
        except OSError:
            return ""

    def wait_listening(self, deadline):
        while time.monotonic() < deadline:
            if "listening on " in self.log():
                return
            if self.proc.poll() is not None:
                break
            time.sleep(0.05)
        raise RuntimeError("%s did not start (exit %s); its log:\n%s"
                           % (self.name, self.proc.poll(), self.log()[-3000:]))


def start_daemon(host, name, argv, workdir):
    """Starts argv inside `host`, stderr and stdout to workdir/NAME.log. Does
    not wait: see Daemon.wait_listening."""
    log_path = os.path.join(workdir, name + ".log")
    with open(log_path, "wb") as log:
        proc = host.popen(argv, stdout=log, stderr=subprocess.STDOUT,
                          stdin=subprocess.DEVNULL,
                          env={k: v for k, v in os.environ.items() if k != "TF_CONFIG"})
    return Daemon(name, proc, log_path)


class HostCluster:
    def __init__(self, network, binaries, workdir, jobs=None, master="master",
                 daemon_flags=None, loopback=False):
        self.network = network
        self.binaries = binaries
        self.workdir = workdir
        self.jobs = jobs or {"ps": ["ps0"], "worker": ["worker0", "worker1"]}
        self.master_host = network.host(master)
        self.daemon_flags = daemon_flags or (lambda role, host: [])
        self.daemons = []
        self.spec_path = os.path.join(workdir, "cluster.json")
        self.loopback = loopback

    def _ip(self, host):
        return "127.0.0.1" if self.loopback else host.ip

    def _port(self, job, task):
        n = 0
        for j, hosts in self.jobs.items():
            if j == job:
                return PORT + n + task
            n += len(hosts)
        raise KeyError(job)

    @property
    def target(self):
        return "grpc://%s:%d" % (self._ip(self.master_host), MASTER_PORT)

    def address(self, job, task):
        return "%s:%d" % (self._ip(self.task_host(job, task)), self._port(job, task))

    def task_host(self, job, task):
        return self.network.host(self.jobs[job][task])

    def start(self):
        spec = {job: [self.address(job, task) for task in range(len(hosts))]
                for job, hosts in self.jobs.items()}
        with open(self.spec_path, "w") as f:
            json.dump(spec, f)
        for job, hosts in self.jobs.items():
            for task, name in enumerate(hosts):
                host = self.network.host(name)
                role = "%s:%d" % (job, task)
                self.daemons.append(start_daemon(
                    host, "%s-%d" % (job, task), self.binaries.command(
                        [self.binaries.worker, "--cluster", self.spec_path,
                         "--job", job, "--task", str(task),
                         *self.daemon_flags(role, host)]),
                    self.workdir))
        self.daemons.append(start_daemon(
            self.master_host, "master", self.binaries.command(
                [self.binaries.master, "--cluster", self.spec_path,
                 "--listen", "%s:%d" % (self._ip(self.master_host), MASTER_PORT),
                 *self.daemon_flags("master", self.master_host)]),
            self.workdir))
        deadline = time.monotonic() + START_TIMEOUT_S
        for daemon in self.daemons:
            daemon.wait_listening(deadline)
        return self

    def client_host(self):
        hosts = self.network.hosts
        return hosts["client"] if "client" in hosts else self.master_host

    def pids(self):
        """{daemon name: pid} of the daemons themselves (not `ip netns exec`,
        which execs them, so the pid is the same)."""
        return {d.name: d.proc.pid for d in self.daemons}

    def client(self, argv, timeout, **kwargs):
        return self.client_host().run(argv, timeout=timeout, **kwargs)

    def logs(self):
        return "\n".join("---- %s\n%s" % (d.name, d.log()[-2000:]) for d in self.daemons)

    def stop(self, timeout=30):
        """SIGTERM to every daemon (master first), then waits; SIGKILL after
        `timeout`. Returns {name: exit status}."""
        for daemon in reversed(self.daemons):
            if daemon.proc.poll() is None:
                daemon.proc.send_signal(signal.SIGTERM)
        codes = {}
        deadline = time.monotonic() + timeout
        for daemon in self.daemons:
            try:
                codes[daemon.name] = daemon.proc.wait(
                    timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                daemon.proc.kill()
                codes[daemon.name] = daemon.proc.wait(timeout=10)
        return codes
