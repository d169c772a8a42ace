"""Mutual TLS across hosts: the README's training job with 1 ps + 2 worker
tasks, the master and the client each on its own network-namespace host, every
daemon holding a certificate for its own host's address signed by one CA (made
by the `openssl` command in the test's temporary directory), the client
presenting its own. It must train. Then a worker task whose certificate comes
from another CA: the master cannot reach it (ABORTED naming the task as down) and
the refusing daemon's log says why, while a session that leaves that task out
still works.
"""

import json
import os
import re
import subprocess
import unittest

from multihost_testing import MultihostTestCase
from host_cluster import HostCluster

STEPS = 20


class Pki:
    """A CA and certificates it signed, in `directory`, by the openssl command."""

    def __init__(self, directory, name="cluster CA"):
        self.dir = directory
        os.makedirs(directory, exist_ok=True)
        self._openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256",
                      "-nodes", "-keyout", "ca.key", "-out", "ca.crt", "-subj", "/CN=" + name,
                      "-days", "1")
        self.ca = os.path.join(directory, "ca.crt")

    def _openssl(self, *args):
        subprocess.run(["openssl", *args], cwd=self.dir, check=True, capture_output=True,
                       timeout=60)

    def issue(self, name, ip=None):
        """--tls-cert/--tls-key/--tls-ca flags for a certificate naming `ip`."""
        ext = os.path.join(self.dir, name + ".cnf")
        with open(ext, "w") as f:
            if ip:
                f.write("subjectAltName=IP:%s\n" % ip)
            f.write("extendedKeyUsage=serverAuth,clientAuth\n")
        self._openssl("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                      "-keyout", name + ".key", "-out", name + ".csr", "-subj", "/CN=" + name)
        self._openssl("x509", "-req", "-in", name + ".csr", "-CA", "ca.crt", "-CAkey", "ca.key",
                      "-CAcreateserial", "-out", name + ".crt", "-days", "1", "-extfile", ext)
        return ["--tls-cert", os.path.join(self.dir, name + ".crt"),
                "--tls-key", os.path.join(self.dir, name + ".key"), "--tls-ca", self.ca]


class TlsAcrossHostsTest(MultihostTestCase):
    def setUp(self):
        super().setUp()
        self.pki = Pki(os.path.join(self.workdir, "pki"))
        self.flags = {}

    def secure_cluster(self, foreign_role=None):
        foreign = Pki(os.path.join(self.workdir, "foreign"), "foreign CA") if foreign_role else None

        def daemon_flags(role, host):
            name = role.replace(":", "-")
            if role == foreign_role:
                flags = foreign.issue(name, host.ip)
                # It trusts the cluster's CA (and its own, without which it
                # refuses to start) but presents the foreign one's certificate.
                bundle = os.path.join(self.workdir, "both-cas.crt")
                with open(bundle, "w") as out:
                    for path in (foreign.ca, self.pki.ca):
                        with open(path) as f:
                            out.write(f.read())
                flags[-1] = bundle
            else:
                flags = self.pki.issue(name, host.ip)
            # A startup window of 0: a task that never answered (the intruder)
            # is down at once (ABORTED within 2 s), however long the cluster
            # took to start (master/task_liveness.h).
            extra = (["--discovery-timeout", "5000", "--task-startup-window", "0"]
                     if role == "master" else [])
            return flags + extra

        self.cluster = HostCluster(self.network, self.binaries, self.workdir, jobs=self.JOBS,
                                   daemon_flags=daemon_flags)
        return self.cluster.start()

    def test_training_over_mutual_tls_across_hosts(self):
        self.secure_cluster()
        client = self.pki.issue("client", self.network.host("client").ip)
        run = self.cluster.client(
            [self.binaries.train, "--target", self.cluster.target, "--steps", str(STEPS),
             "--step-timeout-ms", "60000", *client], timeout=240)
        self.assertEqual(run.returncode, 0,
                         "%s\n%s\n%s" % (run.stdout, run.stderr, self.cluster.logs()))
        m = re.search(r"Loss ([-\d.]+) -> ([-\d.]+) after %d steps" % STEPS, run.stdout)
        self.assertIsNotNone(m, run.stdout)
        self.assertLess(float(m.group(2)), float(m.group(1)), run.stdout)
        for daemon in self.cluster.daemons:
            self.assertIn("transport: mutual TLS as", daemon.log(), daemon.name)
        # A client without TLS gets nothing from the master.
        plain = self.cluster.client(
            [self.binaries.cli, "devices", "--target", self.cluster.target, "--json"],
            timeout=120, env=dict(os.environ, TRIBUTARY_STATE_DIR=self.workdir))
        self.assertNotEqual(plain.returncode, 0, plain.stdout)
        self.assertEqual(json.loads(plain.stdout)["error"]["code"], "UNAVAILABLE", plain.stdout)
        codes = self.cluster.stop()
        self.assertEqual(set(codes.values()), {0}, "%s\n%s" % (codes, self.cluster.logs()))

    def test_worker_with_a_foreign_certificate_is_refused(self):
        self.secure_cluster(foreign_role="worker:1")
        client = self.pki.issue("client", self.network.host("client").ip)
        env = dict(os.environ, TRIBUTARY_STATE_DIR=self.workdir)
        every = self.cluster.client(
            [self.binaries.cli, "devices", "--target", self.cluster.target, "--json", *client],
            timeout=120, env=env)
        self.assertNotEqual(every.returncode, 0, every.stdout)
        error = json.loads(every.stdout)["error"]
        self.assertEqual(error["code"], "ABORTED", error)
        self.assertIn("/job:worker/replica:0/task:1", error["message"])
        # Sessions that leave the intruder out work.
        graph = self.write("c.pbtxt", 'node { name: "c" op: "Const" '
                           'device: "/job:worker/replica:0/task:0" '
                           'attr { key: "dtype" value { type: DT_FLOAT } } '
                           'attr { key: "value" value { tensor { dtype: DT_FLOAT '
                           'tensor_shape {} float_val: 2.5 } } } }')
        run = self.cluster.client(
            [self.binaries.cli, "run", "--target", self.cluster.target, "--graph", graph,
             "--fetch", "c", "--config",
             'device_filters: "/job:ps" device_filters: "/job:worker/replica:0/task:0"',
             *client], timeout=120, env=env)
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        self.assertEqual(json.loads(run.stdout)["fetches"]["c"]["values"], [2.5], run.stdout)
        # The master refused the intruder's certificate, and says why.
        master = next(d for d in self.cluster.daemons if d.name == "master")
        self.assertRegex(master.log(), r"grpc: .*(certificate|CERTIFICATE)", master.log()[-3000:])


if __name__ == "__main__":
    unittest.main()
