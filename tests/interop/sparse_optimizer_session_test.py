"""tf.compat.v1.train optimizers on IndexedSlices gradients: TensorFlow's
Session and `tributary run` apply the same sparse updates for STEPS steps and
must end with the same variables and slots.

The dense counterpart is optimizer_session_test.py; this one reuses its
tolerance and fetch scheme (variables and slots read under a control
dependency on the train op) and adds what is sparse:

* `apply_gradients` on a `tf.IndexedSlices` whose values and indices are fed
  from placeholders, with a repeated index and untouched rows, for ref and
  resource variables and int32 and int64 indices. TensorFlow emits
  SparseApply<Name> / ResourceSparseApply<Name>, or Scatter* for
  GradientDescent and Adam.
* Two forms of each: "dedup", the graph exactly as apply_gradients builds it
  (the base optimizer sums duplicate indices with Unique and
  UnsortedSegmentSum first), and "raw", the same optimizer with that
  deduplication turned off, so the repeated index reaches the sparse kernels
  themselves. The dedup form needs Unique and UnsortedSegmentSum kernels,
  which belong to the embedding ops; without them it is skipped, saying so.
* Ops the tf.compat.v1 optimizers do not emit but Keras 2 did
  (ResourceSparseApplyAdagradV2, ResourceSparseApplyKerasMomentum), built
  with tf.raw_ops.
* End to end: an embedding looked up with tf.gather (whose gradient is an
  IndexedSlices) trained by minimize() with SGD, Adagrad, Ftrl and Adam; the
  loss after each of STEPS steps must equal TensorFlow's.
"""
import os
import sys
import tempfile
import unittest

sys.path.insert(0, "tests/interop")  # cwd is the runfiles root

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

from session_oracle_test import from_json, run_ours, run_tf  # noqa: E402

tf1 = tf.compat.v1
train = tf1.train

STEPS = 3
ROWS, COLS = 6, 3
# A repeated index (1) and rows never touched (2, 3, 5).
INDICES = [1, 4, 1, 0]

# name -> (optimizer factory given the global step, the update op TensorFlow
# emits for ref variables, the one for resource variables).
OPTIMIZERS = {
    "gradient_descent": (lambda gs: train.GradientDescentOptimizer(0.1),
                         "ScatterSub", "ResourceScatterAdd"),
    "adagrad": (lambda gs: train.AdagradOptimizer(0.1),
                "SparseApplyAdagrad", "ResourceSparseApplyAdagrad"),
    "momentum": (lambda gs: train.MomentumOptimizer(0.05, 0.9),
                 "SparseApplyMomentum", "ResourceSparseApplyMomentum"),
    "momentum_nesterov": (lambda gs: train.MomentumOptimizer(
        0.05, 0.9, use_nesterov=True),
        "SparseApplyMomentum", "ResourceSparseApplyMomentum"),
    "ftrl": (lambda gs: train.FtrlOptimizer(
        0.2, l1_regularization_strength=0.01, l2_regularization_strength=0.02),
        "SparseApplyFtrl", "ResourceSparseApplyFtrl"),
    "ftrl_shrinkage": (lambda gs: train.FtrlOptimizer(
        0.2, learning_rate_power=-0.3, l1_regularization_strength=0.01,
        l2_regularization_strength=0.02,
        l2_shrinkage_regularization_strength=0.05),
        "SparseApplyFtrlV2", "ResourceSparseApplyFtrlV2"),
    "proximal_adagrad": (lambda gs: train.ProximalAdagradOptimizer(
        0.1, l1_regularization_strength=0.01, l2_regularization_strength=0.02),
        "SparseApplyProximalAdagrad", "ResourceSparseApplyProximalAdagrad"),
    "proximal_gradient_descent": (lambda gs: train.ProximalGradientDescentOptimizer(
        0.1, l1_regularization_strength=0.01, l2_regularization_strength=0.02),
        "SparseApplyProximalGradientDescent",
        "ResourceSparseApplyProximalGradientDescent"),
    "adagrad_da": (lambda gs: train.AdagradDAOptimizer(
        0.1, gs, l1_regularization_strength=0.01,
        l2_regularization_strength=0.02),
        "SparseApplyAdagradDA", "ResourceSparseApplyAdagradDA"),
    "rmsprop": (lambda gs: train.RMSPropOptimizer(0.01, decay=0.9, momentum=0.5),
                "SparseApplyRMSProp", "ResourceSparseApplyRMSProp"),
    "rmsprop_centered": (lambda gs: train.RMSPropOptimizer(
        0.01, decay=0.9, momentum=0.5, centered=True),
        "SparseApplyCenteredRMSProp", "ResourceSparseApplyCenteredRMSProp"),
    "adadelta": (lambda gs: train.AdadeltaOptimizer(1.0, rho=0.95, epsilon=1e-6),
                 "SparseApplyAdadelta", "ResourceSparseApplyAdadelta"),
    "adam": (lambda gs: train.AdamOptimizer(0.01), "ScatterAdd",
             "ResourceScatterAdd"),
}

# Optimizers of the end-to-end embedding test.
EMBEDDING_OPTIMIZERS = {
    "sgd": lambda: train.GradientDescentOptimizer(0.5),
    "adagrad": lambda: train.AdagradOptimizer(0.5),
    "ftrl": lambda: train.FtrlOptimizer(0.5, l1_regularization_strength=0.001),
    "adam": lambda: train.AdamOptimizer(0.05),
}


def without_dedup(opt):
    """The optimizer with the base class's duplicate-index summing turned off:
    its sparse update ops then see the repeated indices themselves.
    GradientDescent never sums them (its Scatter* update adds duplicates
    itself), so it stays as it is."""
    if isinstance(opt, train.GradientDescentOptimizer):
        return opt
    opt._apply_sparse_duplicate_indices = opt._apply_sparse
    opt._resource_apply_sparse_duplicate_indices = (
        lambda grad, handle, indices, **kw: opt._resource_apply_sparse(
            grad, handle, indices))
    return opt


def fetch_after(train_op, variables, use_resource):
    """Op names reading each variable after train_op."""
    fetches = []
    with tf.control_dependencies([train_op]):
        for i, v in enumerate(variables):
            value = v.read_value() if use_resource else tf.identity(v)
            fetches.append(tf.identity(value, name=f"after_{i}").op.name)
    return fetches


def build_sparse(make_optimizer, use_resource, dedup, index_dtype):
    rng = np.random.RandomState(5)
    g = tf.Graph()
    with g.as_default():
        w = tf1.get_variable(
            "w", initializer=rng.randn(ROWS, COLS).astype(np.float32),
            use_resource=use_resource)
        values = tf1.placeholder(tf.float32, [None, COLS], name="values")
        indices = tf1.placeholder(index_dtype, [None], name="indices")
        grad = tf.IndexedSlices(values, indices,
                                tf.constant([ROWS, COLS], index_dtype))
        global_step = tf1.train.get_or_create_global_step()
        opt = make_optimizer(global_step)
        if not dedup:
            without_dedup(opt)
        train_op = opt.apply_gradients([(grad, w)], global_step=global_step)
        variables = [w] + [opt.get_slot(w, s) for s in opt.get_slot_names()]
        fetches = fetch_after(train_op, variables, use_resource)
        tf1.global_variables_initializer()
    feeds = {
        "values": rng.randn(len(INDICES), COLS).astype(np.float32),
        "indices": np.array(INDICES, index_dtype.as_numpy_dtype),
    }
    return g.as_graph_def(), feeds, fetches


def build_raw(make_update):
    """Resource variables var and accum ([ROWS, COLS]) updated by
    make_update(var_handle, accum_handle, grad, indices)."""
    rng = np.random.RandomState(7)
    g = tf.Graph()
    with g.as_default():
        var = tf1.get_variable(
            "var", initializer=rng.randn(ROWS, COLS).astype(np.float32),
            use_resource=True)
        accum = tf1.get_variable(
            "accum", initializer=np.full((ROWS, COLS), 0.1, np.float32),
            use_resource=True)
        values = tf1.placeholder(tf.float32, [None, COLS], name="values")
        indices = tf1.placeholder(tf.int64, [None], name="indices")
        update = make_update(var.handle, accum.handle, values, indices)
        fetches = fetch_after(update, [var, accum], True)
        tf1.global_variables_initializer()
    feeds = {
        "values": rng.randn(len(INDICES), COLS).astype(np.float32),
        "indices": np.array(INDICES, np.int64),
    }
    return g.as_graph_def(), feeds, fetches


RAW_OPS = {
    "adagrad_v2": ("ResourceSparseApplyAdagradV2",
                   lambda v, a, g, i: tf.raw_ops.ResourceSparseApplyAdagradV2(
                       var=v, accum=a, lr=0.1, epsilon=1e-3, grad=g, indices=i)),
    "keras_momentum": ("ResourceSparseApplyKerasMomentum",
                       lambda v, a, g, i:
                       tf.raw_ops.ResourceSparseApplyKerasMomentum(
                           var=v, accum=a, lr=0.1, grad=g, indices=i,
                           momentum=0.9, use_nesterov=True)),
}


def build_embedding(make_optimizer, use_resource, dedup):
    """loss = mean((tf.gather(emb, ids) @ w - y)^2); only emb trains, so its
    gradient is the IndexedSlices from tf.gather's gradient."""
    rng = np.random.RandomState(11)
    g = tf.Graph()
    with g.as_default():
        emb = tf1.get_variable(
            "emb", initializer=rng.randn(8, 4).astype(np.float32),
            use_resource=use_resource)
        ids = tf.constant([3, 0, 3, 7, 5, 0], tf.int32)
        w = tf.constant(rng.randn(4, 2).astype(np.float32))
        y = tf.constant(rng.randn(6, 2).astype(np.float32))
        loss = tf.reduce_mean(tf.square(tf.matmul(tf.gather(emb, ids), w) - y))
        opt = make_optimizer()
        if not dedup:
            without_dedup(opt)
        train_op = opt.minimize(loss, var_list=[emb])
        with tf.control_dependencies([train_op]):
            tf.identity(loss, name="loss_before_update")
        tf1.global_variables_initializer()
    return g.as_graph_def()


class SparseOptimizerSessionTest(unittest.TestCase):
    _dedup_ok = None

    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory()

    def tearDown(self):
        self._tmp.cleanup()

    def run_both(self, graph_def, feeds, fetches, steps):
        path = os.path.join(self._tmp.name, "graph.pbtxt")
        with open(path, "w") as f:
            f.write(str(graph_def))
        tf_kind, tf_result = run_tf(graph_def, feeds, fetches, inits=["init"],
                                    steps=steps)
        our_kind, our_result = run_ours(path, feeds, fetches, inits=["init"],
                                        steps=steps)
        self.assertEqual(tf_kind, "ok", tf_result)
        self.assertEqual(our_kind, "ok", our_result)
        return tf_result, our_result

    def compare(self, graph_def, feeds, fetches, steps=STEPS):
        tf_result, our_result = self.run_both(graph_def, feeds, fetches, steps)
        for fetch, want in zip(fetches, tf_result):
            with self.subTest(fetch=fetch):
                want = np.asarray(want)
                dtype, got = from_json(our_result[fetch])
                self.assertEqual(dtype, "DT_FLOAT")
                self.assertEqual(list(got.shape), list(want.shape))
                np.testing.assert_allclose(got.astype(np.float32), want,
                                           rtol=1e-5, atol=1e-6)

    def require_dedup_kernels(self):
        """Skips unless tributary runs Unique and UnsortedSegmentSum."""
        cls = SparseOptimizerSessionTest
        if cls._dedup_ok is None:
            g = tf.Graph()
            with g.as_default():
                ids = tf1.placeholder(tf.int32, [None], name="ids")
                unique, pos = tf.unique(ids)
                tf.math.unsorted_segment_sum(tf.ones_like(ids, tf.float32), pos,
                                             tf.shape(unique)[0], name="sums")
            path = os.path.join(self._tmp.name, "probe.pbtxt")
            with open(path, "w") as f:
                f.write(str(g.as_graph_def()))
            kind, _ = run_ours(path, {"ids": np.array([2, 1, 2], np.int32)},
                               ["sums"])
            cls._dedup_ok = kind == "ok"
        if not cls._dedup_ok:
            self.skipTest("tributary has no Unique/UnsortedSegmentSum kernels "
                          "(embedding ops): apply_gradients' deduplication "
                          "cannot run")

    def check_optimizer(self, name, use_resource, dedup, index_dtype):
        if dedup:
            self.require_dedup_kernels()
        make_optimizer, ref_op, resource_op = OPTIMIZERS[name]
        graph_def, feeds, fetches = build_sparse(make_optimizer, use_resource,
                                                 dedup, index_dtype)
        ops = {n.op for n in graph_def.node}
        self.assertIn(resource_op if use_resource else ref_op, ops)
        if name != "gradient_descent":
            self.assertEqual("Unique" in ops, dedup)
        self.compare(graph_def, feeds, fetches)

    def check_raw(self, name):
        op, make_update = RAW_OPS[name]
        graph_def, feeds, fetches = build_raw(make_update)
        self.assertIn(op, {n.op for n in graph_def.node})
        self.compare(graph_def, feeds, fetches)

    def check_embedding(self, name, use_resource, dedup):
        if dedup:
            self.require_dedup_kernels()
        graph_def = build_embedding(EMBEDDING_OPTIMIZERS[name], use_resource,
                                    dedup)
        ops = {n.op for n in graph_def.node}
        if use_resource:
            self.assertIn("ResourceGather", ops)
        # The loss each step, computed before that step's update: run 1..STEPS
        # steps from a fresh session.
        for steps in range(1, STEPS + 1):
            with self.subTest(steps=steps):
                self.compare(graph_def, {}, ["loss_before_update"], steps)


def _add_tests():
    # GradientDescent and SGD have no deduplication, hence no dedup form.
    for name in OPTIMIZERS:
        for use_resource in (False, True):
            for dedup in (False, True) if name != "gradient_descent" else (False,):
                kind = ("_resource" if use_resource else "_ref") + (
                    "_dedup" if dedup else "_raw")
                # int64 indices on one form each, int32 on the others.
                index_dtype = tf.int64 if use_resource and not dedup else tf.int32
                setattr(SparseOptimizerSessionTest, f"test_{name}{kind}",
                        lambda self, n=name, r=use_resource, d=dedup,
                        i=index_dtype: self.check_optimizer(n, r, d, i))
    for name in RAW_OPS:
        setattr(SparseOptimizerSessionTest, f"test_raw_op_{name}",
                lambda self, n=name: self.check_raw(n))
    for name in EMBEDDING_OPTIMIZERS:
        for use_resource in (False, True):
            for dedup in (False, True) if name != "sgd" else (False,):
                kind = ("_resource" if use_resource else "_ref") + (
                    "_dedup" if dedup else "_raw")
                setattr(SparseOptimizerSessionTest,
                        f"test_embedding_{name}{kind}",
                        lambda self, n=name, r=use_resource, d=dedup:
                        self.check_embedding(n, r, d))


_add_tests()

if __name__ == "__main__":
    unittest.main()
