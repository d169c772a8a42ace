"""Family 2, the parameter-server workload, through the master: a real cluster
of 2 ps tasks and 2 worker tasks from `tributary cluster up` (stopped by
`tributary cluster down`), driven by TensorFlow's own Python client,
tf.compat.v1.Session("grpc://...").

Models are built with TensorFlow's public tf.compat.v1 APIs: embedding tables
partitioned over both ps tasks (fixed_size_partitioner and
min_max_variable_partitioner, "mod" and "div", ref and resource variables)
read through tf.nn.embedding_lookup and embedding_lookup_sparse (sum, mean,
sqrtn), placed by replica_device_setter(ps_tasks=2) with the compute on
/job:worker, and trained with sparse (IndexedSlices) gradients by
GradientDescent, Adagrad, Ftrl and Adam; and a wide-and-deep model on a hashed
string feature (to_hash_bucket_fast, and the feature-column version with
categorical_column_with_hash_bucket, linear_model and input_layer).

The oracle is the same GraphDef with its devices cleared, run by TensorFlow
alone in an in-process session: same seeds (so the same initial values, which
is checked too), same feeds. The losses of every step and every variable and
slot after the last step must agree to rtol 1e-5, atol 1e-6 (the sums of the
sparse reductions and of the dense layers may run in another order; on these
graphs they come out equal or within a few ulps).

Bytes per step: RunOptions(trace_level=FULL_TRACE) returns each task's step
stats; every _Recv node there carries its output's TensorDescription (shape,
allocation_description.requested_bytes), and RunMetadata.partition_graphs say
which _Recv nodes receive from another task. For a 100000 x 16 float table
(6.4 MB) split over the two ps tasks and a batch touching 64 rows, the bytes
that cross tasks in one training step are those rows and their gradient
(O(64 * 16 * 4)), while the same model reading the whole table on the worker
and applying a dense gradient moves the whole table both ways.
"""
import os
import sys
import unittest

os.environ["TF_ENABLE_ONEDNN_OPTS"] = "0"  # TF's reference CPU kernels

sys.path.insert(0, "tests/interop")  # cwd is the runfiles root

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

import tf_client_cluster  # noqa: E402

tf1 = tf.compat.v1

JOBS = {"ps": 2, "worker": 2}
WORKER0 = "/job:worker/task:0"
WORKER1 = "/job:worker/task:1"
OPERATION_TIMEOUT_MS = 60000  # a hung step fails the test instead of stalling it
STEPS = 4
RTOL, ATOL = 1e-5, 1e-6
GRAPH_SEED = 2024

VOCAB, DIM, BATCH = 40, 8, 12

OPTIMIZERS = {
    "sgd": lambda: tf1.train.GradientDescentOptimizer(0.5),
    "adagrad": lambda: tf1.train.AdagradOptimizer(0.3),
    "ftrl": lambda: tf1.train.FtrlOptimizer(0.3, l1_regularization_strength=0.001,
                                           l2_regularization_strength=0.001),
    "adam": lambda: tf1.train.AdamOptimizer(0.05),
}

PARTITIONERS = {
    "fixed_size": lambda: tf1.fixed_size_partitioner(2),
    # 40 x 8 floats = 1280 bytes; 512-byte slices -> 2 shards (max_partitions).
    "min_max": lambda: tf1.min_max_variable_partitioner(max_partitions=2,
                                                       min_slice_size=512),
}


def setter(worker=WORKER0):
    return tf1.train.replica_device_setter(ps_tasks=2, worker_device=worker)


def embedding_feeds(rng, batch=BATCH, vocab=VOCAB):
    """ids (with repeats), a SparseTensor of 1..3 ids per row with weights, labels."""
    ids = rng.integers(0, vocab, size=batch).astype(np.int64)
    ids[1] = ids[0]  # a repeated id: the sparse update must add both
    indices, values = [], []
    for row in range(batch):
        cols = rng.choice(vocab, size=1 + row % 3, replace=False)
        for j, c in enumerate(cols):
            indices.append([row, j])
            values.append(c)
    indices = np.array(indices, np.int64)
    values = np.array(values, np.int64)
    weights = rng.uniform(0.5, 2.0, size=len(values)).astype(np.float32)
    labels = rng.integers(0, 2, size=(batch, 1)).astype(np.float32)
    return ids, (indices, values, weights), labels


def build_embedding_model(partitioner, strategy, resource, optimizer, combiner,
                          weighted):
    """Returns (graph, feed builder). The table is partitioned over both ps
    tasks; the lookups, the loss and the gradients run on worker 0, the sparse
    updates on the ps tasks (colocated with their variables)."""
    g = tf.Graph()
    with g.as_default():
        tf1.set_random_seed(GRAPH_SEED)
        with g.device(setter()):
            ids = tf1.placeholder(tf.int64, [None], name="ids")
            sp_ids = tf1.sparse_placeholder(tf.int64, name="sp_ids")
            sp_w = tf1.sparse_placeholder(tf.float32, name="sp_w")
            labels = tf1.placeholder(tf.float32, [None, 1], name="labels")
            with tf1.variable_scope("emb", partitioner=PARTITIONERS[partitioner](),
                                    use_resource=resource):
                table = tf1.get_variable(
                    "table", [VOCAB, DIM],
                    initializer=tf1.random_normal_initializer(stddev=0.5, seed=7))
            with tf1.variable_scope("head", use_resource=resource):
                w = tf1.get_variable("w", [DIM, 1],
                                     initializer=tf1.glorot_uniform_initializer(seed=8))
            dense_ids = tf1.nn.embedding_lookup(table, ids, partition_strategy=strategy)
            bag = tf1.nn.embedding_lookup_sparse(
                table, sp_ids, sp_w if weighted else None,
                partition_strategy=strategy, combiner=combiner)
            logits = tf.matmul(dense_ids * bag, w)
            loss = tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(
                labels=labels, logits=logits), name="loss")
            OPTIMIZERS[optimizer]().minimize(loss, name="train")
        name_values(g)
        tf1.variables_initializer(tf1.global_variables(), name="init")

    def feeds(graph, rng):
        i, (ind, vals, wts), lab = embedding_feeds(rng)
        shape = np.array([BATCH, 3], np.int64)
        t = graph.get_tensor_by_name
        return {t("ids:0"): i, t("labels:0"): lab,
                t("sp_ids/indices:0"): ind, t("sp_ids/values:0"): vals,
                t("sp_ids/shape:0"): shape,
                t("sp_w/indices:0"): ind, t("sp_w/values:0"): wts,
                t("sp_w/shape:0"): shape}
    return g, feeds


def name_values(g):
    """An identity "value/<variable>" per variable (and slot), on the
    variable's device, so both sessions can fetch every value by name."""
    with g.as_default():
        for v in tf1.global_variables():
            with g.device(v.device), g.colocate_with(v.op):
                tf.identity(v.value() if hasattr(v, "value") else v,
                            name="value/" + v.op.name)


def build_wide_and_deep(feature_columns):
    """A hashed string feature feeding a linear (wide) part, [HASH, 1], and a
    deep part (embedding [HASH, 8] -> dense 16 relu -> dense 1), both tables
    partitioned over the ps tasks; sigmoid cross-entropy; Ftrl trains the wide
    part, Adagrad the deep one (the classic split)."""
    hash_buckets = 50
    g = tf.Graph()
    with g.as_default():
        tf1.set_random_seed(GRAPH_SEED)
        with g.device(setter(WORKER1)):
            words = tf1.placeholder(tf.string, [None], name="words")
            labels = tf1.placeholder(tf.float32, [None, 1], name="labels")
            part = tf1.fixed_size_partitioner(2)
            if feature_columns:
                fc = tf1.feature_column
                col = fc.categorical_column_with_hash_bucket("word", hash_buckets)
                features = {"word": tf.expand_dims(words, 1)}
                with tf1.variable_scope("wide", partitioner=part):
                    wide = fc.linear_model(features, [col])
                with tf1.variable_scope("deep", partitioner=part):
                    emb = fc.input_layer(features, [fc.embedding_column(
                        col, 8, initializer=tf1.truncated_normal_initializer(
                            stddev=0.3, seed=3))])
            else:
                buckets = tf.strings.to_hash_bucket_fast(words, hash_buckets)
                with tf1.variable_scope("wide", partitioner=part):
                    wide_w = tf1.get_variable("weights", [hash_buckets, 1],
                                              initializer=tf1.zeros_initializer())
                    wide_b = tf1.get_variable("bias", [1],
                                              initializer=tf1.zeros_initializer())
                    wide = tf1.nn.embedding_lookup(wide_w, buckets) + wide_b
                with tf1.variable_scope("deep", partitioner=part):
                    table = tf1.get_variable(
                        "embedding", [hash_buckets, 8],
                        initializer=tf1.truncated_normal_initializer(stddev=0.3, seed=3))
                    emb = tf1.nn.embedding_lookup(table, buckets)
            with tf1.variable_scope("deep"):
                w1 = tf1.get_variable("hidden/kernel", [8, 16],
                                      initializer=tf1.glorot_uniform_initializer(seed=4))
                b1 = tf1.get_variable("hidden/bias", [16],
                                      initializer=tf1.zeros_initializer())
                w2 = tf1.get_variable("out/kernel", [16, 1],
                                      initializer=tf1.glorot_uniform_initializer(seed=5))
                h = tf.nn.relu(tf.matmul(emb, w1) + b1)
                deep = tf.matmul(h, w2)
            logits = wide + deep
            loss = tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(
                labels=labels, logits=logits), name="loss")
            wide_vars = tf1.get_collection(tf1.GraphKeys.TRAINABLE_VARIABLES, "wide")
            deep_vars = tf1.get_collection(tf1.GraphKeys.TRAINABLE_VARIABLES, "deep")
            tf.group(tf1.train.FtrlOptimizer(0.2).minimize(loss, var_list=wide_vars),
                     tf1.train.AdagradOptimizer(0.2).minimize(loss, var_list=deep_vars),
                     name="train")
        name_values(g)
        tf1.variables_initializer(tf1.global_variables(), name="init")

    vocab = np.array([f"user_{i}".encode() for i in range(30)] + [b"", b"x" * 40])

    def feeds(graph, rng):
        w = vocab[rng.integers(0, len(vocab), size=BATCH)]
        lab = rng.integers(0, 2, size=(BATCH, 1)).astype(np.float32)
        return {graph.get_tensor_by_name("words:0"): w,
                graph.get_tensor_by_name("labels:0"): lab}
    return g, feeds


def without_devices(graph_def):
    local = tf1.GraphDef()
    local.CopyFrom(graph_def)
    for node in local.node:
        node.device = ""
        # Colocation constraints name nodes, not devices; they stay.
    return local


def imported(graph_def):
    g = tf.Graph()
    with g.as_default():
        tf1.import_graph_def(graph_def, name="")
    return g


def value_names(graph_def):
    return sorted(n.name for n in graph_def.node if n.name.startswith("value/"))


def train(session, g, feeds, steps, seed=1):
    """Initial values, the loss of every step, and every value after them."""
    names = value_names(g.as_graph_def())
    fetch_values = [g.get_tensor_by_name(n + ":0") for n in names]
    session.run(g.get_operation_by_name("init"))
    initial = session.run(fetch_values)
    loss, op = g.get_tensor_by_name("loss:0"), g.get_operation_by_name("train")
    feed_dict = feeds(g, np.random.default_rng(seed))  # one batch, so it learns
    losses = [session.run([loss, op], feed_dict)[0] for _ in range(steps)]
    return initial, np.array(losses), dict(zip(names, session.run(fetch_values)))


# ---- bytes per step ----------------------------------------------------------

BIG_VOCAB, BIG_DIM, TOUCHED = 100000, 16, 64
ROW_BYTES = BIG_DIM * 4
TABLE_BYTES = BIG_VOCAB * ROW_BYTES


def build_bytes_model(dense):
    """A 100000 x 16 float table split over the two ps tasks, a batch of 64
    distinct ids, logistic regression on the looked-up rows, SGD. Sparse:
    tf.nn.embedding_lookup (the gathers run on the ps tasks, next to the
    shards) and an IndexedSlices gradient. Dense: the same numbers from the
    shards concatenated on the worker, and the gradient made dense there, so
    the whole table travels to the worker and back."""
    g = tf.Graph()
    with g.as_default():
        tf1.set_random_seed(GRAPH_SEED)
        with g.device(setter()):
            ids = tf1.placeholder(tf.int64, [TOUCHED], name="ids")
            labels = tf1.placeholder(tf.float32, [TOUCHED, 1], name="labels")
            with tf1.variable_scope("big", partitioner=tf1.fixed_size_partitioner(2),
                                    use_resource=True):
                table = tf1.get_variable(
                    "table", [BIG_VOCAB, BIG_DIM],
                    initializer=tf1.random_uniform_initializer(-0.1, 0.1, seed=9))
            with tf1.variable_scope("head", use_resource=True):
                w = tf1.get_variable("w", [BIG_DIM, 1],
                                     initializer=tf1.glorot_uniform_initializer(seed=8))
            if dense:
                # The shards read on the ps tasks, concatenated on the worker.
                full = tf.concat([v.value() for v in table], 0, name="full_table")
                rows = tf.gather(full, ids)
            else:
                rows = tf1.nn.embedding_lookup(table, ids)
            loss = tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(
                labels=labels, logits=tf.matmul(rows, w)), name="loss")
            opt = tf1.train.GradientDescentOptimizer(0.5)
            grads = opt.compute_gradients(loss)
            if dense:
                # A dense gradient: each shard's IndexedSlices made a tensor of
                # the shard's shape on the worker, applied on its ps task.
                grads = [(tf.convert_to_tensor(gr), v) for gr, v in grads]
            opt.apply_gradients(grads, name="train")
        tf1.variables_initializer(tf1.global_variables(), name="init")
    return g


def task_of(device):
    """"/job:ps/replica:0/task:1/device:CPU:0" -> "/job:ps/task:1"."""
    job = task = None
    for part in device.split("/"):
        if part.startswith("job:"):
            job = part[4:]
        elif part.startswith("task:"):
            task = part[5:]
    return f"/job:{job}/task:{task}"


def bytes_received_per_task(run_metadata):
    """{receiving task: bytes} over the _Recv nodes that take a tensor from
    another task, from the step stats (each _Recv's output TensorDescription)
    and the partition graphs (which _Recv nodes cross tasks)."""
    crossing = set()
    for graph in run_metadata.partition_graphs:
        for node in graph.node:
            if node.op not in ("_Recv", "_HostRecv"):
                continue
            attr = node.attr
            if attr["client_terminated"].b:
                continue  # a feed from the client
            src = task_of(attr["send_device"].s.decode())
            dst = task_of(attr["recv_device"].s.decode())
            if src != dst:
                crossing.add((dst, node.name))
    received = {}
    seen = set()
    for dev in run_metadata.step_stats.dev_stats:
        task = task_of(dev.device)
        for ns in dev.node_stats:
            if (task, ns.node_name) not in crossing:
                continue
            seen.add((task, ns.node_name))
            for out in ns.output:
                received[task] = received.get(task, 0) + (
                    out.tensor_description.allocation_description.requested_bytes)
    return received, crossing, seen


class Sessions:
    """The remote (through the master) and in-process sessions of a test."""

    cluster = None

    def remote(self, g):
        return tf1.Session(self.cluster.target, graph=g, config=tf1.ConfigProto(
            operation_timeout_in_ms=OPERATION_TIMEOUT_MS))

    @staticmethod
    def local(g):
        return tf1.Session(graph=g, config=tf1.ConfigProto(device_count={"CPU": 1}))


@unittest.skipUnless(tf_client_cluster.cli_present(), "tools/tributary is not built")
class PsEmbeddingTest(Sessions, tf_client_cluster.ClusterLifecycle, unittest.TestCase):
    @classmethod
    def make_cluster(cls):
        return tf_client_cluster.CliCluster(jobs=JOBS)

    def assert_on_both_ps(self, graph_def):
        devices = {n.device for n in graph_def.node
                   if n.op in ("VarHandleOp", "VariableV2")}
        self.assertEqual(devices, {"/job:ps/task:0", "/job:ps/task:1"})
        self.assertTrue(any(n.device.startswith("/job:worker") for n in graph_def.node
                            if n.op == "MatMul"))

    def check_training(self, g, feeds, steps=STEPS, learns=True):
        graph_def = g.as_graph_def()
        self.assert_on_both_ps(graph_def)
        with self.remote(g) as sess:
            got = train(sess, g, feeds, steps)
        ref = imported(without_devices(graph_def))
        with self.local(ref) as sess:
            want = train(sess, ref, feeds, steps)
        for a, b in zip(got[0], want[0]):
            np.testing.assert_allclose(a, b, rtol=1e-6, atol=0)
        np.testing.assert_allclose(got[1], want[1], rtol=RTOL, atol=ATOL)
        self.assertEqual(sorted(got[2]), sorted(want[2]))
        for name in got[2]:
            np.testing.assert_allclose(got[2][name], want[2][name], rtol=RTOL,
                                       atol=ATOL, err_msg=name)
        changed = [n for n, a in zip(value_names(graph_def), want[0])
                   if not np.array_equal(a, want[2][n])]
        self.assertTrue(any(n.startswith("value/emb") or n.startswith("value/deep")
                            for n in changed), changed)
        if learns:
            self.assertLess(want[1][-1], want[1][0], "the model should learn")
        return graph_def

    def test_partitioned_embeddings_sparse_optimizers(self):
        """Every partitioner x strategy x variable kind, the optimizers and the
        combiners dealt over them so that each meets each."""
        optimizers = list(OPTIMIZERS)
        combiners = ["sum", "mean", "sqrtn"]
        case = 0
        for partitioner in PARTITIONERS:
            for strategy in ("mod", "div"):
                for resource in (False, True):
                    optimizer = optimizers[case % len(optimizers)]
                    combiner = combiners[case % len(combiners)]
                    weighted = case % 2 == 0
                    case += 1
                    with self.subTest(partitioner=partitioner, strategy=strategy,
                                      resource=resource, optimizer=optimizer,
                                      combiner=combiner, weighted=weighted):
                        g, feeds = build_embedding_model(partitioner, strategy,
                                                         resource, optimizer,
                                                         combiner, weighted)
                        # FTRL-proximal recomputes the weights from its
                        # accumulators: the first step replaces the seeded rows
                        # by ~ -lr * gradient, so this product model stalls
                        # (TensorFlow's too); the values still must agree.
                        graph_def = self.check_training(g, feeds,
                                                        learns=optimizer != "ftrl")
                        ops = {n.op for n in graph_def.node}
                        sparse_update = {
                            "sgd": ("ScatterSub", "ResourceScatterAdd"),
                            "adagrad": ("SparseApplyAdagrad",
                                        "ResourceSparseApplyAdagrad"),
                            "ftrl": ("SparseApplyFtrl", "ResourceSparseApplyFtrl"),
                            "adam": ("ScatterAdd", "ResourceScatterAdd"),
                        }[optimizer][int(resource)]
                        self.assertIn(sparse_update, ops)
                        self.assertIn("DynamicPartition", ops)
                        self.assertTrue({"DynamicStitch", "ParallelDynamicStitch"} & ops)

    def test_every_optimizer_on_one_layout(self):
        """The optimizers not met above on resource/ref: all four, both kinds,
        on fixed_size + mod with sqrtn."""
        for optimizer in OPTIMIZERS:
            for resource in (False, True):
                with self.subTest(optimizer=optimizer, resource=resource):
                    g, feeds = build_embedding_model("fixed_size", "mod", resource,
                                                     optimizer, "sqrtn", True)
                    self.check_training(g, feeds, learns=optimizer != "ftrl")

    def test_wide_and_deep_hashed_feature(self):
        for feature_columns in (False, True):
            with self.subTest(feature_columns=feature_columns):
                g, feeds = build_wide_and_deep(feature_columns)
                graph_def = self.check_training(g, feeds, steps=5)
                self.assertIn("StringToHashBucketFast",
                              {n.op for n in graph_def.node})

    def measure_step_bytes(self, dense):
        g = build_bytes_model(dense)
        rng = np.random.default_rng(5)
        feeds = {g.get_tensor_by_name("ids:0"): rng.choice(
                     BIG_VOCAB, TOUCHED, replace=False).astype(np.int64),
                 g.get_tensor_by_name("labels:0"): rng.integers(
                     0, 2, (TOUCHED, 1)).astype(np.float32)}
        step = [g.get_tensor_by_name("loss:0"), g.get_operation_by_name("train")]
        with self.remote(g) as sess:
            sess.run(g.get_operation_by_name("init"))
            sess.run(step, feeds)  # the first step: set-up is not measured
            options = tf1.RunOptions(trace_level=tf1.RunOptions.FULL_TRACE,
                                     output_partition_graphs=True)
            metadata = tf1.RunMetadata()
            sess.run(step, feeds, options=options, run_metadata=metadata)
        received, crossing, seen = bytes_received_per_task(metadata)
        # Every cross-task _Recv of the step shows in the step stats.
        self.assertTrue(crossing)
        self.assertEqual(seen, crossing)
        return received

    def test_only_touched_rows_cross_the_network(self):
        sparse = self.measure_step_bytes(dense=False)
        dense = self.measure_step_bytes(dense=True)
        touched = TOUCHED * ROW_BYTES
        print(f"\nbytes received per training step, table {BIG_VOCAB} x {BIG_DIM} "
              f"float ({TABLE_BYTES} bytes) on 2 ps tasks, {TOUCHED} rows touched "
              f"({touched} bytes):", file=sys.stderr)
        for name, received in (("sparse (embedding_lookup)", sparse),
                               ("dense (whole table read, dense gradient)", dense)):
            print(f"  {name}: total {sum(received.values())} bytes/step, "
                  + ", ".join(f"{t} {b}" for t, b in sorted(received.items())),
                  file=sys.stderr)
        worker = sparse.get(WORKER0, 0)
        ps = sparse.get("/job:ps/task:0", 0) + sparse.get("/job:ps/task:1", 0)
        # The worker gets the 64 looked-up rows (plus the 16 x 1 head);
        # the ps tasks get their rows' gradient values and ids.
        self.assertGreaterEqual(worker, touched)
        self.assertLess(worker, 2 * touched)
        self.assertGreaterEqual(ps, touched)
        self.assertLess(ps, 2 * touched + TOUCHED * 8 * 4)
        self.assertLess(sum(sparse.values()), TABLE_BYTES / 100)
        # The dense equivalent moves the whole table each way.
        self.assertGreaterEqual(dense.get(WORKER0, 0), TABLE_BYTES)
        self.assertGreaterEqual(dense.get("/job:ps/task:0", 0)
                                + dense.get("/job:ps/task:1", 0), TABLE_BYTES)


if __name__ == "__main__":
    unittest.main()
