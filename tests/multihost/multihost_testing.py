"""The base of the multi-host tests: a fresh netns_hosts.Network per test, a
HostCluster on it, and skips where namespaces cannot be made.

Contract: `MultihostTestCase` subclasses set HOSTS (host names) and JOBS (job ->
hosts of its tasks); setUp skips the test, with the reason, when this machine
cannot make namespaces (not root, no iproute2, a container without the
capability), builds the network and registers its teardown first, so that
whatever fails later, the daemons are killed and the namespaces and links
deleted. `self.cluster` is a HostCluster, not yet started (tests may want
their own daemon flags).
"""

import functools
import os
import shutil
import tempfile
import unittest

import netns_hosts
from host_cluster import Binaries, HostCluster


@functools.lru_cache(maxsize=1)
def skip_reason():
    reason = netns_hosts.unavailable_reason()
    return None if reason is None else "multi-host tests need network namespaces: " + reason


class MultihostTestCase(unittest.TestCase):
    HOSTS = ["ps0", "worker0", "worker1", "master", "client"]
    JOBS = {"ps": ["ps0"], "worker": ["worker0", "worker1"]}
    RATE = "10gbit"

    def setUp(self):
        reason = skip_reason()
        if reason:
            self.skipTest(reason)
        self.binaries = Binaries(".")
        missing = self.binaries.missing()
        self.assertFalse(missing, "daemon binaries missing (Bazel data deps): %s" % missing)
        self.workdir = tempfile.mkdtemp(prefix="multihost-", dir=os.environ.get("TEST_TMPDIR"))
        self.addCleanup(shutil.rmtree, self.workdir, ignore_errors=True)
        self.network = netns_hosts.Network(self.HOSTS, rate=self.RATE)
        # Cleanups run last-in first-out: registered before entering, teardown
        # runs even when building the network fails half way.
        self.addCleanup(self.network.teardown)
        self.network.__enter__()
        self.cluster = HostCluster(self.network, self.binaries, self.workdir, jobs=self.JOBS)

    def write(self, name, text):
        path = os.path.join(self.workdir, name)
        with open(path, "w") as f:
            f.write(text)
        return path
