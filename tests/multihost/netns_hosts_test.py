"""The harness itself (no Tributary binaries): hosts reach each other across the
bridge by their own addresses and not otherwise; a cut link stops traffic and a
restored one carries it again; teardown leaves no namespace, link or process,
also for what an earlier run that died left behind.
"""

import os
import subprocess
import sys
import unittest

import netns_hosts
from multihost_testing import skip_reason

# A TCP echo server (one message per connection) and a client that prints what came back.
SERVER = """
import socket
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("0.0.0.0", 7000)); s.listen()
while True:
    c, _ = s.accept()
    c.sendall(c.recv(100)); c.close()
"""
CLIENT = """
import socket, sys
c = socket.create_connection((sys.argv[1], 7000), timeout=float(sys.argv[2]))
c.sendall(b"hello"); print(c.recv(100).decode())
"""


def names_with_prefix(prefix):
    ns = subprocess.run([netns_hosts.IP, "netns", "list"], capture_output=True, text=True).stdout
    links = subprocess.run([netns_hosts.IP, "-o", "link"], capture_output=True, text=True).stdout
    return [line for line in (ns + links).splitlines() if prefix in line]


class NetnsHostsTest(unittest.TestCase):
    def setUp(self):
        if skip_reason():
            self.skipTest(skip_reason())

    def echo(self, net, src, dst, timeout=5):
        return net.host(src).run([sys.executable, "-c", CLIENT, net.host(dst).ip, str(timeout)],
                                 timeout=timeout + 20)

    def test_hosts_talk_across_the_bridge_and_links_cut_and_restore(self):
        with netns_hosts.Network(["a", "b", "c"], rate="1gbit") as net:
            self.assertEqual(len({h.ip for h in net.hosts.values()}), 3)
            net.host("b").popen([sys.executable, "-c", SERVER])
            # The server may need a moment to listen: retry, bounded.
            for _ in range(50):
                got = self.echo(net, "a", "b")
                if got.returncode == 0:
                    break
            self.assertEqual(got.stdout.strip(), "hello", got.stderr)
            # Each host has only its own address; its loopback is up.
            out = net.host("a").run([netns_hosts.IP, "-o", "addr"], timeout=10).stdout
            self.assertIn(net.host("a").ip + "/24", out)
            self.assertNotIn(net.host("b").ip, out)
            self.assertIn("127.0.0.1", out)
            qdisc = net.host("a").run([netns_hosts.TC, "qdisc", "show", "dev", "eth0"], timeout=10).stdout
            self.assertIn("tbf", qdisc)
            self.assertIn("1Gbit", qdisc)

            net.host("b").cut()
            cut = self.echo(net, "a", "b", timeout=2)
            self.assertNotEqual(cut.returncode, 0)
            self.assertIn("timed out", cut.stderr)
            # c is not affected by b's link.
            net.host("c").popen([sys.executable, "-c", SERVER])
            for _ in range(50):
                other = self.echo(net, "a", "c")
                if other.returncode == 0:
                    break
            self.assertEqual(other.stdout.strip(), "hello", other.stderr)

            net.host("b").restore()
            back = self.echo(net, "a", "b")
            self.assertEqual(back.stdout.strip(), "hello", back.stderr)
        self.assertEqual(names_with_prefix(net.prefix), [])

    def test_teardown_after_an_exception_leaves_nothing(self):
        with self.assertRaises(ZeroDivisionError):
            with netns_hosts.Network(["a"]) as net:
                sleeper = net.host("a").popen(["sleep", "600"])
                1 / 0
        self.assertIsNotNone(sleeper.poll())
        self.assertEqual(names_with_prefix(net.prefix), [])

    def test_leftovers_of_a_dead_run_are_removed(self):
        # A child makes a network, and is SIGKILLed with it up: nothing of
        # its own teardown runs. The next Network removes what it left.
        here = os.path.dirname(os.path.abspath(netns_hosts.__file__))
        child = subprocess.Popen(
            [sys.executable, "-c",
             "import sys, time; sys.path.insert(0, %r)\n"
             "import netns_hosts\n"
             "net = netns_hosts.Network(['a', 'b']).__enter__()\n"
             "print(net.prefix, flush=True); time.sleep(600)" % here],
            stdout=subprocess.PIPE, text=True)
        try:
            prefix = child.stdout.readline().strip()
            self.assertTrue(prefix.startswith(netns_hosts.PREFIX), prefix)
            self.assertNotEqual(names_with_prefix(prefix), [])
        finally:
            child.kill()
            child.wait(timeout=30)
        with netns_hosts.Network(["a"]):
            self.assertEqual(names_with_prefix(prefix), [])

    def test_names_fit_the_interface_limit(self):
        net = netns_hosts.Network(["h%d" % i for i in range(12)])
        net.prefix = netns_hosts.PREFIX + "4194304"  # the largest pid
        for i in range(12):
            host = netns_hosts.Host(net, "h%d" % i, i)
            self.assertLessEqual(len(host.bridge_port), 15)
        self.assertLessEqual(len(net.prefix + "br"), 15)
        self.assertLessEqual(len(net.prefix + "n11"), 15)


if __name__ == "__main__":
    unittest.main()
