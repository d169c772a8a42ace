"""A secure cluster end to end, with the real binaries on 127.0.0.1:
`tributary cluster up --tls auto` (mutual TLS everywhere, a throwaway CA made
with OpenSSL), the CLI finding the client's credentials through the state file,
plaintext and foreign-CA peers refused at the handshake with the reason in the
refusing worker's log, certificates reloaded on SIGHUP (and a bad rotation
refused), and a master with --auth-tokens: UNAUTHENTICATED without a valid
token, the plaintext loopback port (--insecure-listen) for TensorFlow's own
client, whose Reset is beyond the run role (PERMISSION_DENIED).
"""
import json
import os
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time
import unittest

from cluster_command_test import Cluster, run_cli
from daemon_process import Daemon, env_without_tf_config

MASTER = os.path.join("master", "tributary-master")
WORKER = os.path.join("worker", "tributary-worker")
LINEAR_MODEL = os.path.join("tests", "testdata", "linear_model.pbtxt")
# Bounds a broken run only.
WAIT_S = 60


def sha256_hex(token):
    import hashlib
    return hashlib.sha256(token.encode()).hexdigest()


def openssl(*args, cwd):
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True, timeout=60)


def make_foreign_pki(directory):
    """A CA of its own and a certificate for 127.0.0.1 it signed (OpenSSL's CLI)."""
    openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
            "-keyout", "ca.key", "-out", "ca.crt", "-subj", "/CN=foreign CA", "-days", "1",
            cwd=directory)
    with open(os.path.join(directory, "ext.cnf"), "w") as f:
        f.write("subjectAltName=IP:127.0.0.1,DNS:localhost\n"
                "extendedKeyUsage=serverAuth,clientAuth\n")
    openssl("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
            "-keyout", "intruder.key", "-out", "intruder.csr", "-subj", "/CN=intruder",
            cwd=directory)
    openssl("x509", "-req", "-in", "intruder.csr", "-CA", "ca.crt", "-CAkey", "ca.key",
            "-CAcreateserial", "-out", "intruder.crt", "-days", "1", "-extfile", "ext.cnf",
            cwd=directory)
    return {name: os.path.join(directory, name)
            for name in ("ca.crt", "intruder.crt", "intruder.key")}


def wait_for_log(path, text, timeout=WAIT_S):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with open(path, errors="replace") as f:
            if text in f.read():
                return True
        time.sleep(0.1)
    return False


class SecureClusterTest(unittest.TestCase):
    """One 1-ps + 1-worker cluster with --tls auto, shared by the checks."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory(dir=os.environ.get("TEST_TMPDIR"))
        cls.cluster = Cluster(cls.tmp.name, {"ps": 1, "worker": 1}, ["--tls", "auto"])
        if not cls.cluster.read_target():
            cls.cluster.kill()
            raise AssertionError("cluster up printed no target:\n" + cls.cluster.stderr())
        cls.state = cls.cluster.state()
        # The CLI finds the cluster's credentials through this state directory.
        cls.env = env_without_tf_config(TRIBUTARY_STATE_DIR=cls.cluster.state_dir)
        cls.empty_state = env_without_tf_config(
            TRIBUTARY_STATE_DIR=os.path.join(cls.tmp.name, "no-state"))

    @classmethod
    def tearDownClass(cls):
        cls.cluster.kill()
        cls.tmp.cleanup()

    def cli(self, *args, env=None, timeout=120):
        return subprocess.run([os.path.join("tools", "tributary"), *args], capture_output=True,
                              text=True, timeout=timeout, env=env or self.env)

    def child(self, name):
        return next(c for c in self.state["children"] if c["name"] == name)

    def test_state_file_records_the_client_credentials(self):
        for key in ("tls_ca", "tls_cert", "tls_key"):
            self.assertTrue(os.path.isfile(self.state[key]), self.state)
        # Keys are readable by their owner only.
        tls_dir = os.path.dirname(self.state["tls_key"])
        for name in os.listdir(tls_dir):
            mode = stat.S_IMODE(os.stat(os.path.join(tls_dir, name)).st_mode)
            self.assertEqual(mode & 0o077, 0, name)
        with open(self.child("master")["log"]) as f:
            log = f.read()
        self.assertIn("transport: mutual TLS as", log)

    def test_cli_runs_over_mutual_tls(self):
        proc = self.cli("devices", "--target", self.cluster.target, "--json")
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        tasks = {d["name"].split("/device:")[0] for d in json.loads(proc.stdout)["devices"]}
        self.assertEqual(tasks, {"/job:ps/replica:0/task:0", "/job:worker/replica:0/task:0"})
        proc = self.cli("run", "--target", self.cluster.target, "--graph", LINEAR_MODEL,
                        "--init", "init", "--feed", "x=[[1,2,3]]", "--feed", "y=[[1]]",
                        "--run-target", "train", "--fetch", "loss", "--steps", "3")
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        # Explicit flags work as well as the state file.
        proc = self.cli("devices", "--target", self.cluster.target,
                        "--tls-ca", self.state["tls_ca"], env=self.empty_state)
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)

    def test_health_probe_over_mutual_tls(self):
        """`tributary health` as a Kubernetes exec probe on a TLS port: with the
        cluster's certificates it hears SERVING from a worker, which asks for a
        client certificate, and from the master; without them it is refused."""
        with open(self.cluster.spec_path) as f:
            worker = "grpc://" + json.load(f)["worker"][0]
        tls = ["--tls-ca", self.state["tls_ca"], "--tls-cert", self.state["tls_cert"],
               "--tls-key", self.state["tls_key"]]
        for target in (worker, self.cluster.target):
            proc = self.cli("health", "--target", target, *tls, env=self.empty_state)
            self.assertEqual((proc.returncode, proc.stdout), (0, "SERVING\n"), proc.stderr)
            proc = self.cli("health", "--target", target, "--timeout", "3",
                            env=self.empty_state)
            self.assertEqual(proc.returncode, 1, proc.stdout)

    def test_plaintext_client_is_refused(self):
        proc = self.cli("devices", "--target", self.cluster.target, "--json",
                        env=self.empty_state, timeout=WAIT_S * 3)
        self.assertNotEqual(proc.returncode, 0, proc.stdout)
        self.assertEqual(json.loads(proc.stdout)["error"]["code"], "UNAVAILABLE", proc.stdout)

    def start_master(self, *flags, env=None):
        spec = self.cluster.spec_path
        return Daemon(MASTER, ["--cluster", spec, "--listen", "127.0.0.1:0",
                               "--discovery-timeout", "3000", *flags], env=env)

    def test_workers_refuse_plaintext_and_foreign_ca_peers(self):
        worker_log = self.child("/job:worker/replica:0/task:0")["log"]
        # A master without TLS cannot reach the workers.
        plain = self.start_master()
        try:
            proc = self.cli("devices", "--target", "grpc://" + plain.address, "--json",
                            env=self.empty_state)
            self.assertNotEqual(proc.returncode, 0, proc.stdout)
            error = json.loads(proc.stdout)["error"]
            self.assertEqual(error["code"], "UNAVAILABLE", error)
            self.assertIn("/job:", error["message"])
        finally:
            plain.stop()
        # Nor can one holding a certificate of another CA; the worker says why.
        foreign_dir = os.path.join(self.tmp.name, "foreign")
        os.makedirs(foreign_dir, exist_ok=True)
        foreign = make_foreign_pki(foreign_dir)
        # The daemon itself refuses a certificate that does not chain to its CA...
        proc = subprocess.run([MASTER, "--cluster", self.cluster.spec_path, "--listen",
                               "127.0.0.1:0", "--tls-cert", foreign["intruder.crt"],
                               "--tls-key", foreign["intruder.key"],
                               "--tls-ca", self.state["tls_ca"]],
                              capture_output=True, text=True, timeout=WAIT_S)
        self.assertEqual(proc.returncode, 2, proc.stderr)
        self.assertIn("is not valid under --tls-ca", proc.stderr)
        # ... so the intruder trusts our CA but presents its own certificate.
        bundle = os.path.join(foreign_dir, "both.crt")
        with open(bundle, "w") as out:
            for path in (foreign["ca.crt"], self.state["tls_ca"]):
                with open(path) as f:
                    out.write(f.read())
        intruder = self.start_master("--tls-cert", foreign["intruder.crt"], "--tls-key",
                                     foreign["intruder.key"], "--tls-ca", bundle)
        try:
            proc = self.cli("devices", "--target", "grpc://" + intruder.address, "--json",
                            "--tls-ca", foreign["ca.crt"], env=self.empty_state)
            self.assertNotEqual(proc.returncode, 0, proc.stdout)
            self.assertEqual(json.loads(proc.stdout)["error"]["code"], "UNAVAILABLE",
                             proc.stdout)
        finally:
            intruder.stop()
        self.assertTrue(wait_for_log(worker_log, "grpc: "),
                        "the worker's log does not say why it refused")
        # The cluster still serves its own clients.
        proc = self.cli("devices", "--target", self.cluster.target)
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)

    def test_sighup_reloads_certificates_and_refuses_a_bad_rotation(self):
        master = self.child("master")
        cert = self.state["tls_ca"].replace("ca.crt", "master.crt")
        saved = os.path.join(self.tmp.name, "master.crt.saved")
        shutil.copy(cert, saved)
        try:
            with open(cert, "w") as f:
                f.write("-----BEGIN CERTIFICATE-----\ntruncated\n")
            os.kill(master["pid"], signal.SIGHUP)
            self.assertTrue(wait_for_log(master["log"], "TLS credentials NOT reloaded"))
        finally:
            shutil.copy(saved, cert)
        os.kill(master["pid"], signal.SIGHUP)
        self.assertTrue(wait_for_log(master["log"], "SIGHUP: TLS credentials reloaded"))
        proc = self.cli("devices", "--target", self.cluster.target)
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        self.assertIsNone(self.cluster.proc.poll())

    def test_tokens_and_the_loopback_plaintext_port(self):
        tokens = os.path.join(self.tmp.name, "tokens")
        with open(tokens, "w") as f:
            f.write(f"# sha256 of each token\n{sha256_hex('alice-secret')} run alice\n"
                    f"{sha256_hex('ops-secret')} admin ops\n")
        tls_dir = os.path.dirname(self.state["tls_ca"])
        master = self.start_master(
            "--tls-cert", os.path.join(tls_dir, "master.crt"),
            "--tls-key", os.path.join(tls_dir, "master.key"),
            "--tls-ca", self.state["tls_ca"], "--auth-tokens", tokens,
            "--insecure-listen", "127.0.0.1:0")
        try:
            target = "grpc://" + master.address
            tls = ["--tls-ca", self.state["tls_ca"]]
            proc = self.cli("devices", "--target", target, "--json", *tls,
                            env=self.empty_state)
            self.assertEqual(json.loads(proc.stdout)["error"]["code"], "UNAUTHENTICATED",
                             proc.stdout)
            wrong = dict(self.empty_state, TRIBUTARY_TOKEN="guess")
            proc = self.cli("devices", "--target", target, "--json", *tls, env=wrong)
            self.assertEqual(json.loads(proc.stdout)["error"]["code"], "UNAUTHENTICATED",
                             proc.stdout)
            alice = dict(self.empty_state, TRIBUTARY_TOKEN="alice-secret")
            proc = self.cli("devices", "--target", target, *tls, env=alice)
            self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
            token_file = os.path.join(self.tmp.name, "alice.token")
            with open(token_file, "w") as f:
                f.write("alice-secret\n")
            proc = self.cli("run", "--target", target, *tls, "--token-file", token_file,
                            "--graph", LINEAR_MODEL, "--init", "init", "--feed", "x=[[1,2,3]]",
                            "--feed", "y=[[1]]", "--fetch", "loss", env=self.empty_state)
            self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)

            # The plaintext loopback port, tokenless as TensorFlow's client is.
            insecure = None
            for line in master.output.decode().splitlines():
                if "also serving plaintext, without TLS, on " in line:
                    insecure = line.rsplit(" on ", 1)[1].split()[0]
            self.assertIsNotNone(insecure, master.output.decode())
            proc = self.cli("devices", "--target", "grpc://" + insecure, env=self.empty_state)
            self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
            self.check_tensorflow_client("grpc://" + insecure)
        finally:
            rc, log = master.stop()
        self.assertNotIn("alice-secret", log)
        self.assertNotIn("guess", log)
        self.assertIn("refused", log)

    def check_tensorflow_client(self, target):
        venv = os.environ.get("TRIBUTARY_TF_VENV", "")
        python = os.path.join(venv, "bin", "python")
        if not venv or not os.path.exists(python):
            print("TensorFlow client part skipped: no TRIBUTARY_TF_VENV", file=sys.stderr)
            return
        script = (
            "import tensorflow as tf\n"
            "tf.compat.v1.disable_eager_execution()\n"
            "x = tf.constant(3.0) * 2.0\n"
            f"with tf.compat.v1.Session({target!r}) as s:\n"
            "    print('value', s.run(x))\n"
            "try:\n"
            f"    tf.compat.v1.Session.reset({target!r})\n"
            "    print('reset allowed')\n"
            "except tf.errors.PermissionDeniedError as e:\n"
            "    print('reset denied', e.message)\n")
        proc = subprocess.run([python, "-c", script], capture_output=True, text=True,
                              timeout=300)
        self.assertEqual(proc.returncode, 0, proc.stderr[-3000:])
        self.assertIn("value 6.0", proc.stdout)
        self.assertIn("reset denied", proc.stdout)
        self.assertIn("Reset needs the admin role", proc.stdout)


if __name__ == "__main__":
    unittest.main()
