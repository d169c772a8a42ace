"""Checkpoints through the master: TensorFlow's Python client,
tf.compat.v1.Session("grpc://..."), against a real cluster from
`tributary cluster up` (2 ps tasks and a worker), variables placed by
replica_device_setter(ps_tasks=2) (plain ones on each ps task and a table
partitioned over both), saved and restored with
tf.compat.v1.train.Saver(sharded=True).

The sharded saver puts one SaveV2 on each ps task, next to the variables it
saves, and the kernel resolves the path on that task: each ps task writes its
own data shard, then MergeV2Checkpoints (on one task) writes the index. Checks:
the save ops run on both ps tasks and the checkpoint has two data shards;
tf.train.load_checkpoint reads the saved values; after the variables change, a
restore gives back the saved values; and after the whole cluster is stopped
(`cluster down`) and started again (fresh processes, no variables), a restore in
a new session recovers them.
"""
import os
import sys
import tempfile
import unittest

sys.path.insert(0, "tests/interop")  # cwd is the runfiles root

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

import tf_client_cluster  # noqa: E402

tf1 = tf.compat.v1

JOBS = {"ps": 2, "worker": 1}
OPERATION_TIMEOUT_MS = 60000
RNG = np.random.RandomState(11)
VALUES = {
    "a": RNG.randn(5, 3).astype(np.float32),
    "b": np.arange(7, dtype=np.int64),
    "names": np.array([b"x", b"yz"], dtype=object),
}
TABLE = RNG.randn(10, 4).astype(np.float32)


def build(prefix):
    """Variables on both ps tasks, a worker computation, a sharded Saver."""
    g = tf.Graph()
    with g.as_default(), tf1.device(tf1.train.replica_device_setter(
            ps_tasks=2, worker_device="/job:worker/task:0")):
        variables = {k: tf1.get_variable(k, initializer=tf.constant(v))
                     for k, v in VALUES.items()}
        table = tf1.get_variable("table", initializer=tf.constant(TABLE),
                                 partitioner=tf1.fixed_size_partitioner(2),
                                 use_resource=True)
        total = tf.reduce_sum(tf.matmul(variables["a"], table.as_tensor()[:3]),
                              name="total")
        # Changes every variable, so a restore has something to undo.
        scramble = tf.group(
            *[v.assign(tf.zeros_like(v)) for k, v in variables.items() if k != "names"],
            variables["names"].assign(tf.constant([b"", b""])),
            *[p.assign(tf.ones_like(p)) for p in table], name="scramble")
        saver = tf1.train.Saver(sharded=True)
        init = tf1.global_variables_initializer()
    return g, saver, init, variables, table, total, scramble


@unittest.skipUnless(tf_client_cluster.cli_present(), "tools/tributary is not built")
class CheckpointClusterTest(tf_client_cluster.ClusterLifecycle, unittest.TestCase):
    @classmethod
    def make_cluster(cls):
        return tf_client_cluster.CliCluster(jobs=JOBS)

    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory(dir=os.environ.get("TEST_TMPDIR"))
        self.prefix = os.path.join(self._tmp.name, "ckpt", "model.ckpt")

    def tearDown(self):
        self._tmp.cleanup()

    def session(self, g):
        return tf1.Session(self.cluster.target, graph=g, config=tf1.ConfigProto(
            operation_timeout_in_ms=OPERATION_TIMEOUT_MS))

    def fetch_all(self, sess, variables, table):
        out = {k: sess.run(v) for k, v in variables.items()}
        out["table"] = np.concatenate([sess.run(p) for p in table])
        return out

    def assert_same(self, got, want):
        for k, v in want.items():
            with self.subTest(variable=k):
                self.assertEqual(np.asarray(got[k]).tolist(), np.asarray(v).tolist())

    def save(self):
        g, saver, init, variables, table, total, _ = build(self.prefix)
        with self.session(g) as sess:
            sess.run(init)
            sess.run(total)
            saved_values = self.fetch_all(sess, variables, table)
            path = saver.save(sess, self.prefix, write_meta_graph=False,
                              write_state=False)
        return g, path, saved_values

    def test_sharded_save_writes_a_shard_per_ps_task_and_restores(self):
        g, path, saved = self.save()
        self.assertEqual(path, self.prefix)
        save_devices = {n.device.split("/device:")[0] for n in g.as_graph_def().node
                        if n.op == "SaveV2"}
        self.assertEqual(save_devices, {"/job:ps/task:0", "/job:ps/task:1"})
        files = sorted(os.listdir(os.path.dirname(self.prefix)))
        self.assertEqual(files, ["model.ckpt.data-00000-of-00002",
                                 "model.ckpt.data-00001-of-00002", "model.ckpt.index"])
        # TensorFlow reads what the two ps tasks wrote.
        reader = tf.train.load_checkpoint(self.prefix)
        self.assert_same({k: reader.get_tensor(k) for k in list(VALUES) + ["table"]},
                         saved)
        # Change everything, restore, get the saved values back.
        g, saver, init, variables, table, total, scramble = build(self.prefix)
        with self.session(g) as sess:
            sess.run(init)
            sess.run(scramble)
            self.assertNotEqual(sess.run(variables["b"]).tolist(), VALUES["b"].tolist())
            saver.restore(sess, self.prefix)
            self.assert_same(self.fetch_all(sess, variables, table), saved)

    def test_restore_after_cluster_restart(self):
        _, _, saved = self.save()
        # Every task stops and starts again: no variable survives in memory.
        type(self).cluster.close()
        type(self).cluster = self.make_cluster()
        g, saver, _, variables, table, total, _ = build(self.prefix)
        with self.session(g) as sess:
            with self.assertRaises(tf.errors.FailedPreconditionError):
                sess.run(variables["a"])  # uninitialised on the new tasks
            saver.restore(sess, self.prefix)
            self.assert_same(self.fetch_all(sess, variables, table), saved)
            sess.run(total)

    def test_restore_of_missing_checkpoint_is_not_found(self):
        g, saver, init, *_ = build(self.prefix)
        with self.session(g) as sess:
            sess.run(init)
            # Saver.restore checks the path in Python first; run its op as a
            # client without that check would, so the ps task's kernel answers.
            with self.assertRaisesRegex(tf.errors.NotFoundError, "none/model.index"):
                sess.run(saver.saver_def.restore_op_name,
                         {saver.saver_def.filename_tensor_name:
                          os.path.join(self._tmp.name, "none", "model")})


if __name__ == "__main__":
    unittest.main()
