"""Memory comes back (issue 17): after a big step on a worker, and after a big
GraphDef the master received and rejected, each daemon's resident memory returns to
its baseline plus its configured cache within a stated time, instead of staying at
its peak for good.

A Tributary cluster (1 ps + 2 workers) whose daemons run with --host-cache-bytes 2 GiB
(so the step's freed blocks are kept, as they are between steps) and
--host-cache-idle-s 5 (given back after 5 s unused). TensorFlow's Python client:
  * a step on worker 1 concatenating two 256 MiB tensors (RSS right after it: the
    blocks are cached), session closed: within IDLE_S + 15 s worker 1's RSS is back
    under its baseline + SLACK;
  * a CreateSession whose GraphDef holds a 96 MiB constant and a node placed on a job
    the cluster does not have (refused with INVALID_ARGUMENT after parsing): the
    master's RSS is back under its baseline + SLACK within the same time.
RSS is read from /proc/PID/status; the readings are printed.
"""
import time
import unittest

import numpy as np
import tensorflow as tf

import tf_client_cluster

tf1 = tf.compat.v1

IDLE_S = 5
CACHE_BYTES = 2 << 30
SLACK = 64 << 20  # threads' stacks, gRPC's and the allocator's small pools
ELEMENTS = 64 << 20  # float32: 256 MiB per tensor


def rss_bytes(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    raise RuntimeError(f"no VmRSS for {pid}")


def wait_until_below(pid, limit, seconds):
    """Polls RSS until it is under `limit`; returns (rss, seconds waited)."""
    start = time.monotonic()
    while True:
        rss = rss_bytes(pid)
        took = time.monotonic() - start
        if rss <= limit or took > seconds:
            return rss, took
        time.sleep(0.25)


def mib(b):
    return f"{b / (1 << 20):.0f} MiB"


class IdleMemoryTest(tf_client_cluster.ClusterLifecycle, unittest.TestCase):

    @classmethod
    def make_cluster(cls):
        if not tf_client_cluster.binaries_present():
            raise unittest.SkipTest("tributary-worker/tributary-master not in runfiles")
        flags = ["--host-cache-bytes", str(CACHE_BYTES), "--host-cache-idle-s", str(IDLE_S)]
        return tf_client_cluster.TributaryCluster(worker_flags=flags, master_flags=flags)

    def pid(self, name):
        return next(p for p in self.cluster.processes if p.name == name).popen.pid

    def small_step(self):
        g = tf.Graph()
        with g.as_default(), tf.device("/job:worker/task:1"):
            y = tf.reduce_sum(tf.fill([1024], 2.0))
        with tf1.Session(self.cluster.target, graph=g) as sess:
            self.assertEqual(sess.run(y), 2048.0)

    def baseline(self, pid):
        """RSS after a small step, once idle memory was given back."""
        self.small_step()
        time.sleep(IDLE_S + 2)
        return rss_bytes(pid)

    def test_worker_gives_back_a_big_steps_memory(self):
        pid = self.pid("worker-worker-1")
        base = self.baseline(pid)
        g = tf.Graph()
        with g.as_default(), tf.device("/job:worker/task:1"):
            big = tf.concat([tf.fill([ELEMENTS], 1.0), tf.fill([ELEMENTS], 2.0)], 0)
            total = tf.reduce_sum(big)
        with tf1.Session(self.cluster.target, graph=g) as sess:
            self.assertEqual(sess.run(total), 3.0 * ELEMENTS)
        after_step = rss_bytes(pid)
        rss, took = wait_until_below(pid, base + SLACK, IDLE_S + 15)
        print(f"worker 1 RSS: baseline {mib(base)}, after the step {mib(after_step)}, "
              f"{mib(rss)} {took:.1f} s later", flush=True)
        # The step's blocks were kept while fresh (the cache works)...
        self.assertGreater(after_step, base + (256 << 20))
        # ...and given back once idle.
        self.assertLessEqual(rss, base + SLACK)

    def test_master_gives_back_a_rejected_graphs_memory(self):
        pid = self.pid("master")
        base = self.baseline(pid)
        g = tf.Graph()
        with g.as_default():
            with tf.device("/job:worker/task:0"):
                weights = tf.constant(np.ones(24 << 20, np.float32), name="weights")
            with tf.device("/job:nowhere/task:0"):
                y = tf.reduce_sum(weights)
        self.assertGreater(len(g.as_graph_def().SerializeToString()), 96 << 20)
        with self.assertRaises(tf.errors.InvalidArgumentError):
            with tf1.Session(self.cluster.target, graph=g) as sess:
                sess.run(y)
        after = rss_bytes(pid)
        rss, took = wait_until_below(pid, base + SLACK, IDLE_S + 15)
        print(f"master RSS: baseline {mib(base)}, after the rejected graph {mib(after)}, "
              f"{mib(rss)} {took:.1f} s later", flush=True)
        self.assertLessEqual(rss, base + SLACK)


if __name__ == "__main__":
    unittest.main()
