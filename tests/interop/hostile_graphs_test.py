"""Hostile graphs through TensorFlow's own client (issue 17): resource bombs and traps
built with TensorFlow's public APIs end with a clear status, never a crash, an OOM kill
or a hang, and the cluster then serves the next session normally.

Against a Tributary cluster (1 ps + 2 workers + master):
  * tf.fill of 10^12 floats                -> RESOURCE_EXHAUSTED (the session memory
                                              budget), nothing allocated;
  * a Reshape to 10^18 elements            -> INVALID_ARGUMENT;
  * a tf.compat.v1 while loop that never ends, in the v1 (Enter/Merge/NextIteration)
    and the functional (While) form      -> DEADLINE_EXCEEDED at RunOptions' timeout;
  * a function that calls itself           -> INVALID_ARGUMENT when the graph is created;
  * a GraphDef of ten million nodes (110 MB, sent as raw CreateSession bytes)
                                           -> RESOURCE_EXHAUSTED naming --max-graph-nodes,
                                              counted before parsing: the master's peak
                                              memory grows by little more than the message;
  * a client killed in the middle of a step that would run forever (an endless loop
    on worker 1) -> the master cancels the step: worker 1's CPU goes quiet, and the
    cluster serves the next session;
  * a client that never reads its response (a raw HTTP/2 connection that asks for a
    32 MiB fetch with a flow-control window of 0, then sits) -> other clients are
    served meanwhile, the master's threads do not pile up, and it outlives the
    call's deadline and the connection.
After every case every daemon is still running and a small step across all tasks runs.
"""
import os
import socket
import struct
import subprocess
import sys
import textwrap
import time
import unittest

import grpc
import numpy as np
import tensorflow as tf

import tf_client_cluster

tf1 = tf.compat.v1


def _varint(n):
    out = bytearray()
    while True:
        byte, n = n & 0x7F, n >> 7
        out.append(byte | (0x80 if n else 0))
        if not n:
            return bytes(out)

def _h2_frame(kind, flags, stream, payload):
    """One HTTP/2 frame: 24-bit length, type, flags, 31-bit stream id."""
    return struct.pack(">I", len(payload))[1:] + bytes([kind, flags]) + \
        struct.pack(">I", stream) + payload


def _hpack_literal(name, value):
    """A header as an HPACK literal without indexing, new name, no Huffman
    (lengths under 127)."""
    name, value = name.encode(), value.encode()
    return b"\x00" + bytes([len(name)]) + name + bytes([len(value)]) + value


def _peak_rss_mib(pid):
    with open(f"/proc/{pid}/status") as f:
        return next(int(line.split()[1]) for line in f
                    if line.startswith("VmHWM:")) / 1024


def _threads(pid):
    with open(f"/proc/{pid}/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("Threads:"))


WORKER0 = "/job:worker/task:0"
WORKER1 = "/job:worker/task:1"


def cpu_seconds(pid):
    """User + system CPU time of a process (/proc/PID/stat, clock ticks)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def cpu_share(pid, seconds):
    """The share of one core `pid` used over the next `seconds`."""
    before, start = cpu_seconds(pid), time.monotonic()
    time.sleep(seconds)
    return (cpu_seconds(pid) - before) / (time.monotonic() - start)


class HostileGraphsTest(tf_client_cluster.ClusterLifecycle, unittest.TestCase):

    @classmethod
    def make_cluster(cls):
        if not tf_client_cluster.binaries_present():
            raise unittest.SkipTest("tributary-worker/tributary-master not in runfiles")
        return tf_client_cluster.TributaryCluster()

    def session(self, graph):
        return tf1.Session(self.cluster.target, graph=graph,
                           config=tf1.ConfigProto(operation_timeout_in_ms=60000))

    def assert_fails(self, code, graph, fetch, *needles, timeout_ms=None, feed=None):
        options = tf1.RunOptions(timeout_in_ms=timeout_ms) if timeout_ms else None
        start = time.monotonic()
        with self.assertRaises(tf.errors.OpError) as cm:
            with self.session(graph) as sess:
                sess.run(fetch, options=options, feed_dict=feed)
        err = cm.exception
        print(f"{self.id().split('.')[-1]}: {type(err).__name__} after "
              f"{time.monotonic() - start:.2f} s: {err.message[:240]}", flush=True)
        self.assertEqual(err.error_code, code, err.message)
        for needle in needles:
            self.assertIn(needle, err.message)

    def tearDown(self):
        # Every daemon survived and the cluster serves a normal session.
        for p in self.cluster.processes:
            self.assertIsNone(p.popen.poll(), f"{p.name} exited:\n{p.log()[-3000:]}")
        g = tf.Graph()
        with g.as_default():
            with tf.device("/job:ps/task:0"):
                a = tf.constant([1.0, 2.0])
            with tf.device(WORKER0):
                b = a * 2.0
            with tf.device(WORKER1):
                c = b + 1.0
        with self.session(g) as sess:
            np.testing.assert_allclose(sess.run(c), [3.0, 5.0])

    def test_fill_of_a_trillion_floats_is_resource_exhausted(self):
        g = tf.Graph()
        with g.as_default(), tf.device(WORKER0):
            dims = tf1.placeholder(tf.int64, [2], name="dims")
            big = tf.fill(dims, 1.0)
            total = tf.reduce_sum(big)
        self.assert_fails(tf.errors.RESOURCE_EXHAUSTED, g, total, "memory budget",
                          feed={dims: [10**6, 10**6]})

    def test_reshape_to_a_huge_shape_is_invalid_argument(self):
        g = tf.Graph()
        with g.as_default(), tf.device(WORKER0):
            shape = tf1.placeholder(tf.int64, [3], name="shape")
            y = tf.reshape(tf.constant([1.0, 2.0]), shape)
        self.assert_fails(tf.errors.INVALID_ARGUMENT, g, y,
                          feed={shape: [10**6, 10**6, 10**6]})

    def endless_loop(self, v2):
        g = tf.Graph()
        was = tf1.control_flow_v2_enabled()
        (tf1.enable_control_flow_v2 if v2 else tf1.disable_control_flow_v2)()
        try:
            with g.as_default(), tf.device(WORKER1):
                i = tf1.placeholder(tf.int32, [], name="i")
                out = tf1.while_loop(lambda k: tf.greater_equal(k, 0), lambda k: k + 1, [i])
        finally:
            (tf1.enable_control_flow_v2 if was else tf1.disable_control_flow_v2)()
        ops = {op.type for op in g.get_operations()}
        self.assertTrue(ops & ({"While", "StatelessWhile"} if v2 else {"NextIteration"}), ops)
        self.assert_fails(tf.errors.DEADLINE_EXCEEDED, g, out, timeout_ms=1500, feed={i: 0})

    def test_endless_v1_while_loop_hits_its_deadline(self):
        self.endless_loop(v2=False)

    def test_endless_functional_while_loop_hits_its_deadline(self):
        self.endless_loop(v2=True)

    def test_function_calling_itself_is_invalid_argument(self):
        # TensorFlow's Python can neither define nor import such a function (its
        # importer recurses until the process crashes), so the GraphDef goes to the
        # master's CreateSession as raw bytes.
        gd = tf1.GraphDef()
        f = gd.library.function.add()
        f.signature.name = "Forever"
        arg = f.signature.input_arg.add()
        arg.name, arg.type = "x", tf.float32.as_datatype_enum
        ret = f.signature.output_arg.add()
        ret.name, ret.type = "y", tf.float32.as_datatype_enum
        call = f.node_def.add()
        call.name, call.op = "again", "Forever"
        call.input.append("x")
        f.ret["y"] = "again:y:0"
        x = gd.node.add()
        x.name, x.op, x.device = "x", "Const", WORKER0
        x.attr["dtype"].type = tf.float32.as_datatype_enum
        x.attr["value"].tensor.CopyFrom(tf.make_tensor_proto(1.0, tf.float32))
        y = gd.node.add()
        y.name, y.op, y.device = "y", "Forever", WORKER0
        y.input.append("x")
        graph = gd.SerializeToString()
        request = b"\x0a" + _varint(len(graph)) + graph  # CreateSessionRequest.graph_def
        with grpc.insecure_channel(self.cluster.target[len("grpc://"):]) as channel:
            create = channel.unary_unary("/tensorflow.MasterService/CreateSession")
            with self.assertRaises(grpc.RpcError) as cm:
                create(request, timeout=60)
        err = cm.exception
        print(f"function calling itself: {err.code()}: {err.details()[:240]}", flush=True)
        self.assertEqual(err.code(), grpc.StatusCode.INVALID_ARGUMENT, err.details())
        self.assertIn("Forever", err.details())

    def test_graph_of_ten_million_nodes_is_resource_exhausted(self):
        node = b"\x0a\x01n\x12\x04NoOp"  # NodeDef {name: "n" op: "NoOp"}
        graph = (b"\x0a" + _varint(len(node)) + node) * 10_000_000
        request = b"\x0a" + _varint(len(graph)) + graph  # CreateSessionRequest
        master = next(p for p in self.cluster.processes
                      if p.name.startswith("master")).popen.pid
        peak_before = _peak_rss_mib(master)
        start = time.monotonic()
        address = self.cluster.target[len("grpc://"):]
        with grpc.insecure_channel(address, options=[
                ("grpc.max_send_message_length", -1)]) as channel:
            create = channel.unary_unary("/tensorflow.MasterService/CreateSession")
            with self.assertRaises(grpc.RpcError) as cm:
                create(request, timeout=120)
        err = cm.exception
        peak_after = _peak_rss_mib(master)
        print(f"ten million nodes ({len(request) / 1e6:.0f} MB): {err.code()} after "
              f"{time.monotonic() - start:.1f} s, master peak RSS {peak_before:.0f} -> "
              f"{peak_after:.0f} MiB: {err.details()[:160]}", flush=True)
        self.assertEqual(err.code(), grpc.StatusCode.RESOURCE_EXHAUSTED, err.details())
        self.assertIn("--max-graph-nodes", err.details())
        self.assertIn("10000000 nodes", err.details())
        # Parsing it would have taken the master to 3.3 GB (measured).
        self.assertLess(peak_after - peak_before, 600)

    def test_client_that_never_reads_its_response(self):
        # A session whose step answers 32 MiB, created the ordinary way.
        gd = tf1.GraphDef()
        with tf.Graph().as_default() as g:
            with tf.device(WORKER0):
                tf.fill([8 << 20], 1.0, name="big")
            gd = g.as_graph_def().SerializeToString()
        address = self.cluster.target[len("grpc://"):]
        with grpc.insecure_channel(address) as channel:
            create = channel.unary_unary("/tensorflow.MasterService/CreateSession")
            response = create(b"\x0a" + _varint(len(gd)) + gd, timeout=60)
        assert response[0] == 0x0A, response  # CreateSessionResponse.session_handle
        handle = response[2:2 + response[1]]
        run = b"\x0a" + _varint(len(handle)) + handle + b"\x1a\x06big:0"
        master = next(p for p in self.cluster.processes
                      if p.name.startswith("master")).popen.pid
        threads_before = _threads(master)

        # HTTP/2 by hand: SETTINGS with an initial window of 0 (the server may send
        # no DATA on our streams), the RunStep call with a 4 s deadline, and then
        # nothing: no SETTINGS ack, no WINDOW_UPDATE, no read.
        host, port = address.rsplit(":", 1)
        sock = socket.create_connection((host, int(port)))
        try:
            headers = b"".join(_hpack_literal(k, v) for k, v in [
                (":method", "POST"), (":scheme", "http"),
                (":path", "/tensorflow.MasterService/RunStep"),
                (":authority", address), ("content-type", "application/grpc"),
                ("te", "trailers"), ("grpc-timeout", "4S")])
            sock.sendall(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" +
                         _h2_frame(0x4, 0, 0, struct.pack(">HI", 0x4, 0)) +
                         _h2_frame(0x1, 0x4, 1, headers) +
                         _h2_frame(0x0, 0x1, 1, b"\x00" + struct.pack(">I", len(run)) + run))
            time.sleep(1.5)  # the step ran; its answer waits on our window
            # Meanwhile the master serves everyone else (tearDown runs the same).
            start = time.monotonic()
            self.tearDown()
            served_s = time.monotonic() - start
            threads_during = _threads(master)
            time.sleep(4)  # past the call's deadline
        finally:
            sock.close()
        print(f"never-reading client: another session served in {served_s:.2f} s; "
              f"master threads {threads_before} -> {threads_during}", flush=True)
        self.assertLess(served_s, 30)
        self.assertLessEqual(threads_during, threads_before + 2)
        master_log = next(p for p in self.cluster.processes
                          if p.name.startswith("master")).log()
        self.assertIsNone(next(p for p in self.cluster.processes
                               if p.name.startswith("master")).popen.poll(), master_log[-3000:])

    def test_client_killed_mid_step_leaves_the_cluster_serving(self):
        # A step that never ends (a v1 while loop, no deadline) from a client process
        # that is then killed: the master sees the call cancelled and cancels the
        # step on worker 1, whose CPU then goes quiet.
        script = textwrap.dedent(f"""
            import tensorflow as tf
            tf1 = tf.compat.v1
            tf1.disable_control_flow_v2()
            g = tf.Graph()
            with g.as_default(), tf.device("{WORKER1}"):
                i = tf1.placeholder(tf.int32, [], name="i")
                out = tf1.while_loop(lambda k: tf.greater_equal(k, 0), lambda k: k + 1, [i])
            with tf1.Session("{self.cluster.target}", graph=g) as sess:
                print("running", flush=True)
                sess.run(out, feed_dict={{i: 0}})
            """)
        worker1 = next(p for p in self.cluster.processes
                       if p.name.startswith("worker-worker-1")).popen.pid
        client = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, env=dict(os.environ))
        try:
            self.assertEqual(client.stdout.readline().strip(), b"running")
            time.sleep(2)  # the step runs on worker 1
            if client.poll() is not None:
                self.fail(f"the client's step ended: {client.stderr.read().decode()[-3000:]}")
            busy = cpu_share(worker1, 0.5)
        finally:
            client.kill()
            client.wait()
            client.stdout.close()
            client.stderr.close()
        # Relative to what the loop got (other tests may share the cores): the
        # loop ran, then the worker went (nearly) idle.
        self.assertGreater(busy, 0.05)
        quiet_enough = min(0.05, busy / 5)
        killed = time.monotonic()
        deadline = killed + 30
        quiet = cpu_share(worker1, 0.5)
        while quiet > quiet_enough and time.monotonic() < deadline:
            quiet = cpu_share(worker1, 0.5)
        print(f"worker 1 CPU: {busy:.0%} of a core while the loop ran, {quiet:.0%} "
              f"{time.monotonic() - killed:.1f} s after the client was killed", flush=True)
        self.assertLessEqual(quiet, quiet_enough)

if __name__ == "__main__":
    unittest.main()
