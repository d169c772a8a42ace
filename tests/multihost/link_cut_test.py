"""A task's link cut in the middle of a step, across network-namespace hosts
(1 ps + 2 worker tasks, master and client on hosts of their own), driven by
the `tributary run` CLI:

  * a step that needs worker task 1 (worker 0 waits on a tensor from task 1,
    which waits on a _Recv nobody sends) is running when task 1's link goes
    down; the step fails with UNAVAILABLE naming the lost peer, before its
    deadline (operation_timeout_in_ms), and the CLI exits non-zero within a
    bounded time. UNAVAILABLE, not DEADLINE_EXCEEDED: the daemons' gRPC
    channels keep alive every 10 s with a 10 s timeout
    (common/rpc/grpc_channel.cc), which gRPC also sets as the socket's
    TCP_USER_TIMEOUT, so a silent peer is noticed in 10-20 s (seen: 10.8 s,
    "recvmsg:Connection timed out (worker /job:worker/replica:0/task:1 at
    10.231.0.12:2224)"), well inside the 45 s deadline used here;
  * while the link is down, the master serves other sessions: one whose
    device_filters leave task 1 out runs steps on ps 0 and worker 0, and a
    session that needs every task is refused with ABORTED naming task 1 as
    down (it answered the master before; the master gives such a task 2 s,
    master/task_liveness.h) instead of hanging;
  * with the link back, a new session over every task, task 1 included, works.

And the same in a loop of real steps: the README's training job
(train_logistic_regression, gradients on both worker tasks) running many
steps when task 1's link goes down stops with "Training failed: UNAVAILABLE"
naming task 1; with the link back a new training run succeeds.

"A new session works" allows for the peers' gRPC channels to reconnect: a
channel that lost its peer retries with a backoff of at most 1 s
(common/rpc/grpc_channel.cc), and task-to-task RecvTensor calls do not wait
for a channel in TRANSIENT_FAILURE. A step started in the first moment after
the link is back can therefore still fail with UNAVAILABLE ("failed to
connect to all addresses ... tcp handshaker shutdown", seen from ps 0 to
worker 1), although the master's discovery (which waits for ready) already
succeeded. A connection attempt the master's channel started while the link
was down may also still be waiting on its SYN retransmission when the link
comes back, and a new session then finds task 1 still down (ABORTED, the
code for "retry at a higher level"). So after the link is back the new
session is retried while it fails with UNAVAILABLE or ABORTED, for at most
RECONNECT_S seconds; the attempts are printed.

No timing is asserted beyond "before the deadline"; every wait is bounded.
"""

import json
import subprocess
import threading
import time
import unittest

from multihost_testing import MultihostTestCase

PS0 = "/job:ps/replica:0/task:0/device:CPU:0"
W0 = "/job:worker/replica:0/task:0/device:CPU:0"
W1 = "/job:worker/replica:0/task:1/device:CPU:0"
STEP_DEADLINE_MS = 45000
RECONNECT_S = 15  # well above the channels' 1 s maximum reconnect backoff


def const(name, device, value):
    return ('node { name: "%s" op: "Const" device: "%s"\n'
            '  attr { key: "dtype" value { type: DT_FLOAT } }\n'
            '  attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {} '
            'float_val: %r } } } }\n' % (name, device, float(value)))


def add(name, device, a, b):
    return ('node { name: "%s" op: "Add" input: "%s" input: "%s" device: "%s"\n'
            '  attr { key: "T" value { type: DT_FLOAT } } }\n' % (name, a, b, device))


# Worker 0 waits for `never` from task 1, which waits for a tensor nobody sends:
# the step runs on both tasks until its deadline or a failure.
BLOCKED = ('node { name: "never" op: "_Recv" device: "%s"\n'
           '  attr { key: "tensor_type" value { type: DT_FLOAT } }\n'
           '  attr { key: "tensor_name" value { s: "never_sent" } }\n'
           '  attr { key: "send_device" value { s: "%s" } }\n'
           '  attr { key: "recv_device" value { s: "%s" } }\n'
           '  attr { key: "send_device_incarnation" value { i: 1 } }\n'
           '  attr { key: "client_terminated" value { b: false } } }\n'
           'node { name: "blocked" op: "Identity" input: "never" device: "%s"\n'
           '  attr { key: "T" value { type: DT_FLOAT } } }\n' % (W1, W1, W1, W0))
# ps 0 and worker 0 only.
WITHOUT_TASK1 = const("a", PS0, 2) + const("b", W0, 3) + add("sum", W0, "a", "b")
# A tensor from task 1 to task 0.
ACROSS = const("x", W1, 5) + const("b", W0, 3) + add("sum", W0, "x", "b")


def config(timeout_ms, *filters):
    return " ".join(["operation_timeout_in_ms: %d" % timeout_ms] +
                    ['device_filters: "%s"' % f for f in filters])


class LinkCutTest(MultihostTestCase):
    def tributary_run(self, graph, fetch, conf, timeout):
        """`tributary run` on the client host; (exit status, parsed JSON)."""
        path = self.write(graph[0], graph[1])
        proc = self.cluster.client(
            [self.binaries.cli, "run", "--target", self.cluster.target, "--graph", path,
             "--fetch", fetch, "--config", conf], timeout=timeout)
        return proc.returncode, self.parse(proc.stdout, proc.stderr)

    def parse(self, stdout, stderr):
        try:
            return json.loads(stdout)
        except ValueError:
            self.fail("not JSON: %r\nstderr: %s\n%s" % (stdout, stderr, self.cluster.logs()))

    def until_not_unavailable(self, attempt, is_unavailable):
        """Runs attempt() until is_unavailable(result) is false or RECONNECT_S
        have passed; returns the last result."""
        deadline = time.monotonic() + RECONNECT_S
        tries = 0
        while True:
            tries += 1
            result = attempt()
            if not is_unavailable(result) or time.monotonic() > deadline:
                print("after the link came back: %d attempt(s)" % tries)
                return result
            time.sleep(0.2)

    def assert_sum(self, rc, out, value):
        self.assertEqual(rc, 0, "%s\n%s" % (out, self.cluster.logs()))
        self.assertEqual(out["fetches"]["sum"]["values"], value, out)

    def test_cut_mid_step_fails_unavailable_others_served_and_link_back_works(self):
        self.cluster.start()
        rc, out = self.tributary_run(("across.pbtxt", ACROSS), "sum", config(30000), 60)
        self.assert_sum(rc, out, [8.0])

        # The blocked step, in the background on the client host.
        blocked_path = self.write("blocked.pbtxt", BLOCKED)
        client = self.cluster.client_host()
        blocked = client.popen(
            [self.binaries.cli, "run", "--target", self.cluster.target,
             "--graph", blocked_path, "--fetch", "blocked",
             "--config", config(STEP_DEADLINE_MS)],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            text=True)
        result = {}
        reader = threading.Thread(
            target=lambda: result.update(zip(("stdout", "stderr"), blocked.communicate())),
            daemon=True)
        reader.start()
        # Let the step reach both tasks (session creation, registration and the
        # RunGraph calls take well under a second on these links).
        time.sleep(3)
        self.assertIsNone(blocked.poll(), "the blocked step ended before the cut")

        task1 = self.cluster.task_host("worker", 1)
        cut_at = time.monotonic()
        task1.cut()

        # Meanwhile the master serves a session that does not need task 1...
        rc, out = self.tributary_run(("without_task1.pbtxt", WITHOUT_TASK1), "sum",
                                     config(20000, "/job:ps", "/job:worker/task:0"), 60)
        self.assert_sum(rc, out, [5.0])
        # ...and refuses one that does, naming the task as down, long before
        # its deadline.
        rc, out = self.tributary_run(("across.pbtxt", ACROSS), "sum", config(30000), 60)
        self.assertNotEqual(rc, 0, out)
        self.assertEqual(out["error"]["code"], "ABORTED", out)
        self.assertIn("task:1", out["error"]["message"])
        self.assertIn("is down", out["error"]["message"])

        # The blocked step fails with UNAVAILABLE before its deadline.
        reader.join(timeout=STEP_DEADLINE_MS / 1000 + 30)
        self.assertFalse(reader.is_alive(), "the step cut from task 1 never ended")
        failed_after = time.monotonic() - cut_at
        out = self.parse(result["stdout"], result["stderr"])
        self.assertNotEqual(blocked.returncode, 0, out)
        print("cut step: %s after %.1f s: %s" % (out["error"]["code"], failed_after,
                                                 out["error"]["message"][:300]))
        self.assertEqual(out["error"]["code"], "UNAVAILABLE", out)

        # The link back: a new session over every task works.
        task1.restore()
        rc, out = self.until_not_unavailable(
            lambda: self.tributary_run(("across.pbtxt", ACROSS), "sum", config(30000), 60),
            lambda r: r[0] != 0 and r[1].get("error", {}).get("code") in ("UNAVAILABLE",
                                                                          "ABORTED"))
        self.assert_sum(rc, out, [8.0])

    def test_cut_during_a_training_loop_fails_unavailable_and_link_back_trains(self):
        self.cluster.start()
        train = [self.binaries.train, "--target", self.cluster.target,
                 "--step-timeout-ms", str(STEP_DEADLINE_MS)]
        out_path = self.write("train.out", "")
        with open(out_path, "w") as out:
            loop = self.cluster.client_host().popen(
                train + ["--steps", "1000000"], stdout=out, stderr=subprocess.STDOUT)
        # Wait (bounded) until the loop runs: the header is printed after the
        # session is created, steps follow at once.
        deadline = time.monotonic() + 60
        while "Logistic regression on" not in open(out_path).read():
            self.assertIsNone(loop.poll(), open(out_path).read())
            self.assertLess(time.monotonic(), deadline, "training never started")
            time.sleep(0.1)
        time.sleep(2)
        self.assertIsNone(loop.poll(), open(out_path).read())

        task1 = self.cluster.task_host("worker", 1)
        task1.cut()
        loop.wait(timeout=STEP_DEADLINE_MS / 1000 + 30)
        text = open(out_path).read()
        failure = text[text.find("Training failed"):]
        print("cut training loop: " + failure[:400])
        self.assertEqual(loop.returncode, 1, text)
        self.assertIn("Training failed: UNAVAILABLE", text)
        self.assertIn("task:1", text.split("Training failed:")[1])

        task1.restore()
        again = self.until_not_unavailable(
            lambda: self.cluster.client(train + ["--steps", "5"], timeout=120),
            lambda r: r.returncode != 0 and ("Training failed: UNAVAILABLE" in r.stderr or
                                             "Training failed: ABORTED" in r.stderr))
        self.assertEqual(again.returncode, 0, "%s\n%s\n%s" % (again.stdout, again.stderr,
                                                              self.cluster.logs()))


if __name__ == "__main__":
    unittest.main()
