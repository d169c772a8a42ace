"""The README's training job across hosts: 1 ps + 2 worker tasks and the
master, each on its own network-namespace host behind a 10 Gbit/s shaped link,
and the client (train_logistic_regression) on a fifth host. It must train:
exit 0 and the loss after the last step below the first step's. Each task's
link carried traffic (its veth counters moved), so the job really crossed the
bridge. The daemons then stop gracefully (exit 0) on SIGTERM.

The same job over mutual TLS is tls_across_hosts_test.py.
"""

import re
import unittest

from multihost_testing import MultihostTestCase

STEPS = 40


def link_bytes(host):
    """Bytes through a host's link, both ways, read on the bridge's side."""
    total = 0
    for counter in ("rx_bytes", "tx_bytes"):
        with open("/sys/class/net/%s/statistics/%s" % (host.bridge_port, counter)) as f:
            total += int(f.read())
    return total


class TrainingAcrossHostsTest(MultihostTestCase):
    def test_logistic_regression_trains_across_hosts(self):
        self.cluster.start()
        tasks = [self.network.host(h) for h in ("ps0", "worker0", "worker1")]
        before = [link_bytes(h) for h in tasks]
        run = self.cluster.client(
            [self.binaries.train, "--target", self.cluster.target, "--steps", str(STEPS),
             "--step-timeout-ms", "60000"], timeout=240)
        self.assertEqual(run.returncode, 0,
                         "%s\n%s\n%s" % (run.stdout, run.stderr, self.cluster.logs()))
        self.assertIn(self.cluster.target, run.stdout)
        # "Loss 0.6931 -> 0.3012 after 40 steps (...)"
        m = re.search(r"Loss ([-\d.]+) -> ([-\d.]+) after %d steps" % STEPS, run.stdout)
        self.assertIsNotNone(m, run.stdout)
        first, last = float(m.group(1)), float(m.group(2))
        self.assertLess(last, first, run.stdout)
        # Variables on ps0, gradients on both workers: every task's link moved
        # bytes during the job (more than the daemons' keepalive pings).
        for host, old in zip(tasks, before):
            self.assertGreater(link_bytes(host) - old, 10000, host.name)

        codes = self.cluster.stop()
        self.assertEqual(set(codes.values()), {0}, "%s\n%s" % (codes, self.cluster.logs()))


if __name__ == "__main__":
    unittest.main()
