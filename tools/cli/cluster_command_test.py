"""`tributary cluster up` / `down`, `devices` and `run --target` end to end: the
real CLI starting the real tributary-worker and tributary-master binaries on
127.0.0.1 with free ports, then the CLI and the training example talking to
that cluster, then stopping it (by `cluster down`, by SIGINT) and checking that
no daemon is left.
"""
import json
import os
import signal
import socket
import subprocess
import tempfile
import threading
import time
import unittest

from daemon_process import free_ports

TRIBUTARY = os.path.join("tools", "tributary")
TRAIN = os.path.join("tools", "examples", "train_logistic_regression")
LINEAR_MODEL = os.path.join("tests", "testdata", "linear_model.pbtxt")
# Generous: bounds only a broken run, never asserted as a speed.
START_TIMEOUT_S = 120
STOP_TIMEOUT_S = 120



def write_spec(directory, jobs):
    """jobs: {"ps": 1, "worker": 2} -> a spec file with free loopback ports."""
    ports = iter(free_ports(sum(jobs.values())))
    spec = {job: [f"127.0.0.1:{next(ports)}" for _ in range(n)] for job, n in jobs.items()}
    path = os.path.join(directory, "cluster.json")
    with open(path, "w") as f:
        json.dump(spec, f)
    return path, spec


def pid_alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            state = f.read().rsplit(")", 1)[1].split()[0]
        return state not in ("Z", "X")
    except (FileNotFoundError, IndexError):
        return False


def wait_gone(pids, timeout=STOP_TIMEOUT_S):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not any(pid_alive(p) for p in pids):
            return True
        time.sleep(0.05)
    return False


class Cluster:
    """A `tributary cluster up` child process and what it printed."""

    def __init__(self, directory, jobs, extra_args=()):
        self.dir = directory
        self.spec_path, self.spec = write_spec(directory, jobs)
        self.state_dir = os.path.join(directory, "state")
        self.log_dir = os.path.join(directory, "logs")
        self.stderr_path = os.path.join(directory, "cluster-up.stderr")
        self._stderr = open(self.stderr_path, "w")
        self.proc = subprocess.Popen(
            [TRIBUTARY, "cluster", "up", "--cluster", self.spec_path,
             "--state-dir", self.state_dir, "--log-dir", self.log_dir,
             "--grace-period", "10", *extra_args],
            stdout=subprocess.PIPE, stderr=self._stderr, text=True)
        self.target = None

    def read_target(self, timeout=START_TIMEOUT_S):
        """The first stdout line, or None if the process ended without one."""
        line = []
        reader = threading.Thread(target=lambda: line.append(self.proc.stdout.readline()))
        reader.daemon = True
        reader.start()
        reader.join(timeout)
        self.target = line[0].strip() if line and line[0] else None
        return self.target

    def stderr(self):
        self._stderr.flush()
        with open(self.stderr_path) as f:
            return f.read()

    def state(self):
        files = [f for f in os.listdir(self.state_dir) if f.startswith("cluster-")]
        assert len(files) == 1, files
        with open(os.path.join(self.state_dir, files[0])) as f:
            return json.load(f)

    def daemon_pids(self):
        return [c["pid"] for c in self.state()["children"]]

    def kill(self):
        """Last resort for a test that failed half-way: nothing may linger."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(STOP_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self._stderr.close()


def run_cli(*args, timeout=180):
    return subprocess.run([TRIBUTARY, *args], capture_output=True, text=True,
                          timeout=timeout)


class RunningClusterTest(unittest.TestCase):
    """One 1-ps + 2-worker cluster shared by the checks that only use it."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory(dir=os.environ.get("TEST_TMPDIR"))
        cls.cluster = Cluster(cls.tmp.name, {"ps": 1, "worker": 2})
        target = cls.cluster.read_target()
        if not target:
            cls.cluster.kill()
            raise AssertionError("cluster up printed no target; stderr:\n" +
                                 cls.cluster.stderr())

    @classmethod
    def tearDownClass(cls):
        cls.cluster.kill()
        cls.tmp.cleanup()

    def test_target_is_the_first_line(self):
        self.assertRegex(self.cluster.target, r"^grpc://127\.0\.0\.1:\d+$")
        self.assertIsNone(self.cluster.proc.poll(), "cluster up left the foreground")

    def test_state_file_names_every_daemon(self):
        state = self.cluster.state()
        self.assertEqual(state["pid"], self.cluster.proc.pid)
        self.assertEqual(state["master_target"], self.cluster.target)
        names = sorted(c["name"] for c in state["children"])
        self.assertEqual(names, ["/job:ps/replica:0/task:0", "/job:worker/replica:0/task:0",
                                 "/job:worker/replica:0/task:1", "master"])
        for child in state["children"]:
            self.assertTrue(pid_alive(child["pid"]), child)
            self.assertTrue(os.path.exists(child["log"]), child)

    def test_devices_lists_every_task(self):
        proc = run_cli("devices", "--target", self.cluster.target, "--json")
        self.assertEqual(proc.returncode, 0, proc.stderr + proc.stdout)
        devices = json.loads(proc.stdout)["devices"]
        tasks = {d["name"].split("/device:")[0] for d in devices}
        self.assertEqual(tasks, {"/job:ps/replica:0/task:0", "/job:worker/replica:0/task:0",
                                 "/job:worker/replica:0/task:1"})
        for d in devices:
            self.assertEqual(d["device_type"], "CPU", d)
            self.assertRegex(d["incarnation"], r"^0x[0-9a-f]{16}$")
            self.assertNotEqual(int(d["incarnation"], 16), 0, d)

    def test_devices_table(self):
        proc = run_cli("devices", "--target", self.cluster.target)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        lines = proc.stdout.strip().splitlines()
        self.assertIn("INCARNATION", lines[0])
        self.assertTrue(any(l.startswith("/job:ps/replica:0/task:0/device:CPU:0") for l in lines),
                        proc.stdout)

    def test_run_gives_the_local_result(self):
        args = ["--graph", LINEAR_MODEL, "--init", "init",
                "--feed", "x=[[0.1,0.2,0.3],[0.4,0.5,0.6]]", "--feed", "y=[[1],[2]]",
                "--run-target", "train", "--fetch", "loss", "--steps", "5"]
        local = run_cli("run", *args)
        remote = run_cli("run", "--target", self.cluster.target, *args)
        self.assertEqual(local.returncode, 0, local.stdout + local.stderr)
        self.assertEqual(remote.returncode, 0, remote.stdout + remote.stderr)
        l = json.loads(local.stdout)["fetches"]["loss"]
        r = json.loads(remote.stdout)["fetches"]["loss"]
        self.assertEqual(r["dtype"], l["dtype"])
        self.assertAlmostEqual(r["values"][0], l["values"][0], places=5)

    def test_run_config_reaches_the_master(self):
        args = ["--target", self.cluster.target, "--graph", LINEAR_MODEL, "--init", "init",
                "--feed", "x=[[1,2,3]]", "--feed", "y=[[1]]", "--fetch", "loss"]
        proc = run_cli("run", *args, "--config", 'device_filters: "/job:nosuchjob"')
        self.assertNotEqual(proc.returncode, 0, proc.stdout)
        error = json.loads(proc.stdout)["error"]
        self.assertEqual(error["code"], "INVALID_ARGUMENT", proc.stdout)
        self.assertIn("device_filters", error["message"])
        proc = run_cli("run", *args, "--config",
                       'device_filters: "/job:ps" device_filters: "/job:worker"')
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        # Soft placement is the master's placer's to honour.
        with tempfile.TemporaryDirectory(dir=os.environ.get("TEST_TMPDIR")) as tmp:
            graph_path = os.path.join(tmp, "gpu.pbtxt")
            with open(graph_path, "w") as f:
                f.write('node { name: "c" op: "Const" device: "/device:GPU:0" '
                        'attr { key: "dtype" value { type: DT_FLOAT } } '
                        'attr { key: "value" value { tensor { dtype: DT_FLOAT '
                        'tensor_shape {} float_val: 2.5 } } } }')
            gpu = ["run", "--target", self.cluster.target, "--graph", graph_path, "--fetch", "c"]
            proc = run_cli(*gpu)
            self.assertNotEqual(proc.returncode, 0, proc.stdout)
            proc = run_cli(*gpu, "--config", "allow_soft_placement: true")
            self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
            self.assertEqual(json.loads(proc.stdout)["fetches"]["c"]["values"], [2.5])

    def test_run_error_comes_back_with_code(self):
        proc = run_cli("run", "--target", self.cluster.target, "--graph", LINEAR_MODEL,
                       "--fetch", "no_such_node")
        self.assertNotEqual(proc.returncode, 0)
        self.assertEqual(json.loads(proc.stdout)["error"]["code"], "NOT_FOUND", proc.stdout)

    def test_training_example_over_the_cluster(self):
        proc = subprocess.run([TRAIN, "--target", self.cluster.target, "--steps", "20",
                               "--samples", "512"],
                              capture_output=True, text=True, timeout=300)
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        self.assertIn("variables and updates on /job:ps/replica:0/task:0", proc.stdout)
        self.assertIn("/job:worker/replica:0/task:0, /job:worker/replica:0/task:1", proc.stdout)
        line = [l for l in proc.stdout.splitlines() if l.startswith("Loss ")][0]
        first, last = (float(v) for v in line.split()[1:4:2])
        self.assertLess(last, first, line)

    def test_second_up_of_the_same_spec_is_refused(self):
        proc = run_cli("cluster", "up", "--cluster", self.cluster.spec_path,
                       "--state-dir", self.cluster.state_dir, timeout=60)
        self.assertEqual(proc.returncode, 1, proc.stderr)
        self.assertIn("already running", proc.stderr)


class StopTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(dir=os.environ.get("TEST_TMPDIR"))
        self.cluster = None

    def tearDown(self):
        if self.cluster:
            self.cluster.kill()
        self.tmp.cleanup()

    def start(self, jobs):
        self.cluster = Cluster(self.tmp.name, jobs)
        self.assertTrue(self.cluster.read_target(), self.cluster.stderr())
        return self.cluster

    def test_cluster_down_stops_everything(self):
        cluster = self.start({"worker": 2})
        pids = cluster.daemon_pids()
        proc = run_cli("cluster", "down", "--cluster", cluster.spec_path,
                       "--state-dir", cluster.state_dir)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertIn(cluster.target, proc.stdout)
        self.assertEqual(cluster.proc.wait(STOP_TIMEOUT_S), 0, cluster.stderr())
        self.assertTrue(wait_gone(pids), pids)
        self.assertEqual(os.listdir(cluster.state_dir), [])
        # Nothing left to stop.
        again = run_cli("cluster", "down", "--state-dir", cluster.state_dir)
        self.assertEqual(again.returncode, 1)

    def test_cluster_down_finds_the_only_cluster(self):
        cluster = self.start({"worker": 1})
        proc = run_cli("cluster", "down", "--state-dir", cluster.state_dir)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertEqual(cluster.proc.wait(STOP_TIMEOUT_S), 0, cluster.stderr())

    def test_sigint_stops_everything_and_exits_zero(self):
        cluster = self.start({"ps": 1, "worker": 1})
        pids = cluster.daemon_pids()
        cluster.proc.send_signal(signal.SIGINT)
        self.assertEqual(cluster.proc.wait(STOP_TIMEOUT_S), 0, cluster.stderr())
        self.assertTrue(wait_gone(pids), pids)
        self.assertIn("stopped", cluster.stderr())

    def test_daemons_stop_even_if_the_launcher_is_killed(self):
        cluster = self.start({"worker": 1})
        pids = cluster.daemon_pids()
        cluster.proc.kill()
        cluster.proc.wait()
        # Parent-death signal: they get SIGTERM; `cluster down` tidies up.
        proc = run_cli("cluster", "down", "--cluster", cluster.spec_path,
                       "--state-dir", cluster.state_dir)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertTrue(wait_gone(pids), pids)


class StartupFailureTest(unittest.TestCase):
    def test_a_task_that_cannot_start_is_named_with_its_log(self):
        with tempfile.TemporaryDirectory(dir=os.environ.get("TEST_TMPDIR")) as tmp:
            # Another process holds worker task 1's port.
            blocker = socket.socket()
            blocker.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 0)
            blocker.bind(("127.0.0.1", 0))
            blocker.listen(1)
            port = blocker.getsockname()[1]
            w0, = free_ports(1)
            spec = os.path.join(tmp, "cluster.json")
            with open(spec, "w") as f:
                json.dump({"worker": [f"127.0.0.1:{w0}", f"127.0.0.1:{port}"]}, f)
            try:
                proc = run_cli("cluster", "up", "--cluster", spec,
                               "--state-dir", os.path.join(tmp, "state"),
                               "--log-dir", os.path.join(tmp, "logs"),
                               "--startup-timeout", "60", timeout=240)
            finally:
                blocker.close()
            self.assertEqual(proc.returncode, 1, proc.stderr)
            self.assertEqual(proc.stdout, "")
            self.assertIn("/job:worker/replica:0/task:1", proc.stderr)
            self.assertIn("last lines of", proc.stderr)
            self.assertEqual(os.listdir(os.path.join(tmp, "state")), [])

    def test_bad_spec_is_exit_2(self):
        with tempfile.TemporaryDirectory(dir=os.environ.get("TEST_TMPDIR")) as tmp:
            spec = os.path.join(tmp, "cluster.json")
            with open(spec, "w") as f:
                f.write('{"worker": ["no-port"]}')
            proc = run_cli("cluster", "up", "--cluster", spec,
                           "--state-dir", os.path.join(tmp, "state"), timeout=60)
            self.assertEqual(proc.returncode, 2, proc.stderr)
            self.assertIn("worker", proc.stderr)


if __name__ == "__main__":
    unittest.main()
