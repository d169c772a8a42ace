"""The container image that tools/image.sh builds runs a cluster: the image is
built from this build's binaries (debootstrap, the .deb, umoci, skopeo), its
docker-archive is unpacked again with skopeo and umoci, and every task and the
master run from the unpacked root, each on its own network-namespace host,
chrooted as the image's user with the image's entrypoint, environment and
working directory, the root read-only and the cluster spec mounted as a volume
(what a container runtime does, without one; read-only as in deploy/kubernetes). The README's training job then trains against it
from a client host, the image's own `tributary` lists the cluster's devices
and checks health, and the daemons stop with exit 0 on SIGTERM.

Needs root, network namespaces, debootstrap, umoci, skopeo and the Debian
archive (tools/setup.sh --tests installs the tools); without the first three
or the tools each case is skipped with the reason.
"""

import json
import os
import re
import shutil
import tempfile
import unittest

import image_bundle
from host_cluster import HostCluster
from multihost_testing import MultihostTestCase

STEPS = 20
BINARIES = {"tributary": "tools/tributary", "tributary-master": "master/tributary-master",
            "tributary-worker": "worker/tributary-worker"}
# The volume holding the cluster spec, where deploy/kubernetes mounts it.
CONFIG_DIR = "/etc/tributary/cluster"


class ImageClusterTest(MultihostTestCase):
    image = None  # (tmp dir, layout, archive, bundle), built once for the class

    @classmethod
    def tearDownClass(cls):
        if cls.image:
            shutil.rmtree(cls.image[0], ignore_errors=True)

    def setUp(self):
        super().setUp()
        missing = [t for t in ("debootstrap", "umoci", "skopeo") if not shutil.which(t)]
        if missing:
            self.skipTest("the image test needs %s (tools/setup.sh --tests)" % ", ".join(missing))
        if ImageClusterTest.image is None:
            ImageClusterTest.image = self.build_and_unpack()
        _, self.layout, self.archive, self.bundle = ImageClusterTest.image
        with open("VERSION") as f:
            self.version = f.read().strip()
        os.chmod(self.workdir, 0o755)  # read by the image's unprivileged user
        self.binaries_in_image = image_bundle.ImageBinaries(
            self.bundle, volumes={self.workdir: CONFIG_DIR})
        self.cluster = HostCluster(self.network, self.binaries_in_image, self.workdir,
                                   jobs=self.JOBS)

    @staticmethod
    def build_and_unpack():
        tmp = tempfile.mkdtemp(prefix="image-", dir=os.environ.get("TEST_TMPDIR"))
        bins = os.path.join(tmp, "bin")
        os.makedirs(bins)
        for name, path in BINARIES.items():
            shutil.copy(path, os.path.join(bins, name))
        layout, archive = image_bundle.build_image(bins, os.path.join(tmp, "out"))
        with open("VERSION") as f:
            tag = f.read().strip()
        bundle = image_bundle.unpack(archive, tag, os.path.join(tmp, "bundle"))
        return tmp, layout, archive, bundle

    def inspect_config(self, transport):
        return json.loads(image_bundle.run_tool(
            ["skopeo", "--insecure-policy", "inspect", "--config", transport]))

    def in_image(self, host, argv, timeout=120):
        return host.run(self.binaries_in_image.command(argv), timeout=timeout)

    def test_image_is_named_configured_and_the_same_in_both_forms(self):
        self.assertEqual(os.path.basename(self.archive),
                         "tributary_%s_image.tar" % self.version)
        oci = self.inspect_config("oci:%s:%s" % (self.layout, self.version))
        docker = self.inspect_config("docker-archive:" + self.archive)
        # One root filesystem: the layer's uncompressed digest is the same.
        self.assertEqual(oci["rootfs"]["diff_ids"], docker["rootfs"]["diff_ids"])
        config = docker["config"]
        self.assertEqual(config["Entrypoint"], ["/usr/local/bin/tributary-entrypoint"])
        self.assertEqual(set(config["ExposedPorts"]), {"2220/tcp", "2222/tcp"})
        self.assertEqual(config["StopSignal"], "SIGTERM")
        self.assertEqual(config["Labels"]["org.opencontainers.image.version"], self.version)
        # Runs as the package's system user, never as root.
        with open(os.path.join(self.binaries_in_image.rootfs, "etc/passwd")) as f:
            users = {line.split(":")[0]: line.split(":")[2:4] for line in f}
        self.assertEqual(config["User"], ":".join(users["tributary"]))
        self.assertNotEqual(users["tributary"][0], "0")
        # The runtime needs no container engine's /dev: the layer carries none.
        self.assertEqual(os.listdir(os.path.join(self.binaries_in_image.rootfs, "dev")), [])

    def test_every_binary_in_the_image_runs(self):
        host = self.network.host("client")
        for word, program in (("master", "tributary-master"), ("worker", "tributary-worker"),
                              ("tributary", "tributary")):
            proc = self.in_image(host, [word, "--version"])
            self.assertEqual(proc.returncode, 0, proc.stderr)
            self.assertRegex(proc.stdout, r"^%s %s \(commit " % (program, re.escape(self.version)))
        # The daemons below run with the root read-only, as in deploy/kubernetes.
        proc = self.in_image(host, ["sh", "-c", "touch /probe"])
        self.assertNotEqual(proc.returncode, 0)
        self.assertIn("Read-only file system", proc.stderr)
        # No argument: the entrypoint shows the CLI's help.
        proc = self.in_image(host, [])
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertIn("tributary", proc.stdout)

    def test_cluster_from_the_image_trains_across_hosts(self):
        self.cluster.start()
        client = self.network.host("client")
        # Each daemon is the image's: its root is the unpacked rootfs, its user
        # the image's.
        uid = self.binaries_in_image.user.split(":")[0]
        for name, pid in self.cluster.pids().items():
            self.assertEqual(os.readlink("/proc/%d/root" % pid),
                             os.path.realpath(self.binaries_in_image.rootfs), name)
            with open("/proc/%d/status" % pid) as f:
                uids = re.search(r"^Uid:\s+(\d+)", f.read(), re.M).group(1)
            self.assertEqual(uids, uid, name)
        # The README's training job, from a client outside the image.
        run = self.cluster.client(
            [self.binaries.train, "--target", self.cluster.target, "--steps", str(STEPS),
             "--step-timeout-ms", "60000"], timeout=240)
        self.assertEqual(run.returncode, 0,
                         "%s\n%s\n%s" % (run.stdout, run.stderr, self.cluster.logs()))
        m = re.search(r"Loss ([-\d.]+) -> ([-\d.]+) after %d steps" % STEPS, run.stdout)
        self.assertIsNotNone(m, run.stdout)
        self.assertLess(float(m.group(2)), float(m.group(1)), run.stdout)

        # The image's own CLI: every task's devices, and the master healthy.
        devices = self.in_image(client, ["tributary", "devices", "--target",
                                         self.cluster.target, "--json"])
        self.assertEqual(devices.returncode, 0, devices.stderr + self.cluster.logs())
        names = {d["name"] for d in json.loads(devices.stdout)["devices"]}
        for task in ("/job:ps/replica:0/task:0", "/job:worker/replica:0/task:0",
                     "/job:worker/replica:0/task:1"):
            self.assertIn(task + "/device:CPU:0", names)
        health = self.in_image(client, ["tributary", "health", "--target", self.cluster.target])
        self.assertEqual(health.returncode, 0, health.stdout + health.stderr)
        self.assertIn("SERVING", health.stdout)

        codes = self.cluster.stop()
        self.assertEqual(set(codes.values()), {0}, "%s\n%s" % (codes, self.cluster.logs()))


if __name__ == "__main__":
    unittest.main()
